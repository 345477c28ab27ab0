# enable_x64 via config and the context managers
import jax
import jax.numpy as jnp
import numpy as np

print(jax.config.jax_enable_x64, jax.config.read('jax_enable_x64'))
x = jnp.float64(1.5)
print(repr(x))
print(repr(jnp.array([1, 2], dtype=jnp.int64)))
print(repr(jnp.arange(3.0, dtype=np.float64)))
with jax.enable_x64(True):
    print(repr(jnp.float64(1.5)))
    print(repr(jnp.arange(3)))
    print(repr(jnp.array(1.0)))
    print(repr(jax.jit(lambda x: x * 2)(1.0)))
    print(jax.make_jaxpr(lambda x: x + 1)(1.0))
    with jax.enable_x64(False):
        print(repr(jnp.arange(2)))
print(repr(jnp.arange(3)))
jax.config.update('jax_enable_x64', True)
print(repr(jnp.arange(3)), repr(jnp.array(2.5)), jnp.zeros(2).dtype)
print(repr(jnp.array(2, dtype=jnp.int32) + 1))
print(repr(jnp.array(np.float32(1.0)) + 1.0))
jax.config.update('jax_enable_x64', False)
print(repr(jnp.arange(3)))

import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import numpy as np

print(repr(jax.grad(lambda x: x ** 2)(3.0)))
print(repr(jax.grad(lambda x: x ** 2)(jnp.float32(3.0))))
print(repr(jax.grad(lambda x: jnp.sum(x ** 2))(np.arange(3.0))))
print(repr(jax.vjp(lambda x: x, 1.0)[0]))
print(repr(jax.vjp(lambda x: x, 1)[0]))
print(repr(jax.grad(lambda x: x * 1.0, allow_int=True)(1)))
print(repr(jax.jacfwd(lambda x: x ** 2)(jnp.arange(2.0))))
print(repr(jax.hessian(lambda x: x ** 3)(2.0)))
print(repr(jax.grad(lambda z: jnp.abs(z) ** 2)(1.0 + 1j)))
print(repr(jax.jvp(jnp.sin, (1.0,), (1.0,))))
print(jax.make_jaxpr(jax.grad(lambda x: jnp.sin(x) * 2.0))(1.0))
print(repr(jax.lax.stop_gradient(1.0)))
print(repr(jax.lax.stop_gradient(1)))
y, f_lin = jax.linearize(lambda x: x * 2.0, jnp.ones(2))
print(jax.make_jaxpr(f_lin)(jnp.ones(2)))
jax.config.update("jax_enable_x64", False)

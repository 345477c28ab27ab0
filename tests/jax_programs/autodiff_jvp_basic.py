import jax
import jax.numpy as jnp

y, t = jax.jvp(jnp.sin, (0.1,), (0.2,))
print(repr(y), repr(t))
y, t = jax.jvp(lambda x: (x ** 2, {'a': jnp.cos(x)}), (jnp.arange(3.0),), (jnp.ones(3),))
print(y, t)
def f(x, y):
    return jnp.dot(x, y), x.sum()
print(jax.jvp(f, (jnp.ones(3), jnp.arange(3.0)), (jnp.ones(3), jnp.zeros(3))))
out, tan = jax.jvp(lambda x: 3, (1.0,), (1.0,))
print(repr(out), repr(tan))
out, tan = jax.jvp(lambda x: jnp.float32(3), (1.0,), (1.0,))
print(repr(out), repr(tan))
out, tan = jax.jvp(lambda x: x.astype(jnp.int32), (1.5,), (1.0,))
print(repr(out), repr(tan))
y, f_jvp = jax.linearize(jnp.sin, 1.0)
print(repr(y), repr(f_jvp(2.0)))
print(jax.make_jaxpr(f_jvp)(2.0))

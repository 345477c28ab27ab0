# source: jax.numpy.ufunc docs (reduce/accumulate/outer/at methods, repr)
import jax
import jax.numpy as jnp
x = jnp.array([[1, 2, 3], [4, 5, 6]])
print(jax.make_jaxpr(jnp.add.reduce)(x))
print(jax.make_jaxpr(jnp.add.accumulate)(x))
print(jax.make_jaxpr(jnp.multiply.outer)(x[0], x[1]))
print(jax.make_jaxpr(lambda x: jnp.maximum.reduce(x, axis=1))(x))
print(jax.make_jaxpr(lambda x: jnp.add.at(x, 0, 5, inplace=False))(x))
print(jax.make_jaxpr(jnp.add)(x, x))
print(jax.make_jaxpr(jnp.negative)(x))
print(jnp.add.reduce(x), jnp.add.reduce(x, axis=None), jnp.multiply.reduce(x, axis=1, keepdims=True))
print(jnp.logical_and.reduce(x > 2), jnp.bitwise_or.reduce(x, axis=1))
print(jnp.add.accumulate(x, axis=1), jnp.multiply.accumulate(x, axis=1))
print(jnp.minimum.reduce(x), jnp.subtract.outer(x[0], x[0]))
print(jnp.add.at(jnp.zeros(3), jnp.array([0, 0, 2]), 1.0, inplace=False))
print(jnp.add.nin, jnp.add.nout, jnp.add.nargs, jnp.add.identity, jnp.multiply.identity, jnp.maximum.identity, jnp.logical_and.identity)
print(jnp.negative.nin, repr(jnp.negative), jnp.negative(x))
print(jnp.add == jnp.add, jnp.add.__name__, isinstance(jnp.add, jnp.ufunc))
try:
    jnp.add.at(x, 0, 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    jnp.negative.reduce(x)
except Exception as e:
    print(type(e).__name__, e)
print(jnp.logaddexp.reduce(jnp.array([0.0, 1.0])), jnp.bitwise_xor.accumulate(x, axis=1))

import jax
import jax.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
def softmax(x):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
print(jax.make_jaxpr(softmax)(x))
print(jax.make_jaxpr(jax.nn.softmax)(x))
print(jax.make_jaxpr(jax.nn.relu)(x))
print(jax.make_jaxpr(lambda x: x ** 3)(x))
print(jax.make_jaxpr(lambda x: x ** -2)(x))
print(jax.make_jaxpr(lambda x: jnp.power(x, 3))(x))
print(jax.make_jaxpr(lambda x: jnp.power(x, 2.5))(x))
print(jax.make_jaxpr(lambda x: jnp.square(x))(x))
print(jax.make_jaxpr(lambda x: jnp.sqrt(x))(x))

import jax
import jax.numpy as jnp
x = jnp.arange(6.0).reshape(2, 3)
i = jnp.array([0, 2, 5])
fs = [
    lambda x: jnp.clip(x, min=1.0),
    lambda x: jnp.clip(x, max=2),
    lambda x: jnp.take(x, i),
    lambda x: jnp.take(x, i, mode="clip"),
    lambda x: jnp.take(x, i, mode="fill", fill_value=-1.0),
    lambda x: jnp.sort(x, descending=True),
    lambda x: jnp.argsort(x, axis=0),
    lambda x: jnp.cumprod(x, axis=1),
    lambda x: jnp.diff(x),
    lambda x: jnp.linalg.norm(x, ord=1),
    lambda x: jnp.linalg.norm(x, axis=0, keepdims=True),
    lambda x: jnp.linalg.norm(x[0], ord=jnp.inf),
    lambda x: jax.nn.softmax(x, axis=0),
    lambda x: jnp.argmax(x, axis=1, keepdims=True),
    lambda x: jnp.squeeze(x[:, :1], axis=1),
    lambda x: jnp.expand_dims(x, (0, -1)),
    lambda x: jnp.concatenate([x, x], axis=None),
    lambda x: jnp.reshape(x, (-1, 2)),
    lambda x: jnp.where(x > 2, size=3) if False else jnp.nonzero(x > 2, size=3),
    lambda x: jnp.power(x, 0.5),
    lambda x: jnp.power(2, x),
    lambda x: x ** jnp.int32(2),
    lambda x: jnp.floor_divide(x, 0.5),
    lambda x: jnp.mod(-x, 4),
    lambda x: jnp.remainder(x.astype(int), 3),
    lambda x: jnp.fmod(x, 4),
    lambda x: jnp.divmod(x, 4),
    lambda x: x.astype(jnp.uint8).astype(jnp.float16),
    lambda x: jnp.einsum("ij->j", x),
    lambda x: jnp.trace(x[:, :2]),
    lambda x: jnp.tril(x),
    lambda x: jnp.pad(x, 1),
    lambda x: jnp.split(x, 3, axis=1),
    lambda x: jnp.cumsum(x, dtype=jnp.int32),
]
for k, f in enumerate(fs):
    print(k, jax.make_jaxpr(f)(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.norm(x, ord=2))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.norm(x, ord=jnp.inf))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.norm(x, ord=-1))(x))
print(jax.make_jaxpr(lambda x: jnp.linalg.vector_norm(x, ord=jnp.inf))(x))
print(jnp.linalg.norm(x, ord=1), jnp.linalg.norm(x, ord=jnp.inf), jnp.linalg.norm(x, ord=2), jnp.linalg.norm(x[0], ord=jnp.inf))

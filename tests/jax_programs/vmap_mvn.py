# jax.random.multivariate_normal, also vmapped over keys and means
import jax
import jax.numpy as jnp

key = jax.random.key(0)
mean = jnp.array([1.0, -1.0])
cov = jnp.array([[2.0, 0.5], [0.5, 1.0]])
print(jax.random.multivariate_normal(key, mean, cov))
print(jax.random.multivariate_normal(key, mean, cov, shape=(3,)))
print(jax.random.multivariate_normal(key, mean, cov, method="eigh"))
print(jax.random.multivariate_normal(key, mean, cov, method="svd").shape)
keys = jax.random.split(key, 3)
print(jax.vmap(lambda k: jax.random.multivariate_normal(k, mean, cov))(keys))
print(jax.vmap(lambda m: jax.random.multivariate_normal(key, m, cov))(jnp.arange(6.0).reshape(3, 2)))
print(jax.random.multivariate_normal(jax.random.PRNGKey(1), jnp.zeros(3), jnp.eye(3), shape=(2,)))
for bad in [lambda: jax.random.multivariate_normal(key, mean, cov, method="qr"),
            lambda: jax.random.multivariate_normal(key, 1.0, cov),
            lambda: jax.random.multivariate_normal(key, mean, jnp.eye(3)),
            lambda: jax.random.multivariate_normal(key, mean, cov, dtype=jnp.int32)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

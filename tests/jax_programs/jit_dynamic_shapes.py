# dynamic shapes error (sharp bits / jit tutorial)
import jax
import jax.numpy as jnp

def nansum(x):
    mask = ~jnp.isnan(x)
    x_without_nans = x[mask]
    return x_without_nans.sum()

x = jnp.array([1, 2, jnp.nan, 3, 4])
print(nansum(x))
try:
    jax.jit(nansum)(x)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

@jax.jit
def nansum_2(x):
    mask = ~jnp.isnan(x)
    return jnp.where(mask, x, 0).sum()
print(nansum_2(x))

@jax.jit
def f(x):
    return jnp.arange(x.shape[0] * 2)
print(f(jnp.ones(3)))
try:
    jax.jit(lambda n: jnp.arange(n))(3)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
try:
    jax.jit(lambda x, n: jnp.reshape(x, (n, -1)))(jnp.ones(6), 2)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

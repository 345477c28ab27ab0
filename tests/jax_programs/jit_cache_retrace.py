# jit caching: side effects only on trace
import jax
import jax.numpy as jnp

@jax.jit
def f(x, y):
    print("Running f():")
    print(f"  x = {x}")
    print(f"  y = {y}")
    result = jnp.dot(x + 1, y + 1)
    print(f"  result = {result}")
    return result

x = jnp.ones((3, 4), dtype=jnp.float32)
y = jnp.ones(4, dtype=jnp.float32)
print(f(x, y))
print(f(x * 2, y))
x2 = jnp.ones((2, 4), dtype=jnp.float32)
print(f(x2, y))
print(f(x2.astype(jnp.int32), y))
print(f._cache_size())
g = lambda x: x + 1
jg = jax.jit(g)
jg(1.0); jg(2.0); jg(jnp.float32(2.0)); jg(1)
print(jg._cache_size())
jax.clear_caches()
print(jg._cache_size())

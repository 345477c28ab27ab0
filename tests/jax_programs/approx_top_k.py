import jax, jax.numpy as jnp, numpy as np
from jax import lax
x = jnp.array([[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]])
print(lax.approx_max_k(x, 2), lax.approx_min_k(x, 1, reduction_dimension=0))
print(jax.make_jaxpr(lambda a: lax.approx_max_k(a, 2))(x))
print(jax.vmap(lambda a: lax.approx_min_k(a, 2))(x))
print(lax.approx_max_k(x, 2, aggregate_to_topk=False))
print(jax.jit(lambda a: lax.approx_max_k(a, 3))(x))
big = jnp.asarray(np.random.RandomState(0).rand(4, 2048).astype(np.float32))
v, i = lax.approx_max_k(big, 5, aggregate_to_topk=False)
print(v.shape, i.shape)
v, i = lax.approx_max_k(big, 5)
print(v[0], i[0])
for bad in [lambda: lax.approx_max_k(jnp.arange(5), 2), lambda: lax.approx_max_k(x, 9), lambda: lax.approx_max_k(x, 0)]:
  try: bad()
  except Exception as e: print(type(e).__name__, e)

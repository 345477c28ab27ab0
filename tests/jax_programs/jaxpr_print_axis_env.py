import jax
import jax.numpy as jnp
from jax import lax
print(jax.make_jaxpr(lambda x: lax.psum(x, 'i'), axis_env=[('i', 4)])(1.0))
print(jax.make_jaxpr(lambda x: lax.pmean(x, 'i'), axis_env=[('i', 4)])(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: lax.pmax(x, 'i') - lax.pmin(x, 'i'), axis_env=[('i', 2)])(1.0))
print(jax.make_jaxpr(lambda x: x * lax.axis_index('i'), axis_env=[('i', 4)])(1.0))
print(jax.make_jaxpr(lambda x: lax.all_gather(x, 'i'), axis_env=[('i', 2)])(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: lax.psum(x, ('i', 'j')), axis_env=[('i', 2), ('j', 3)])(1.0))
print(jax.make_jaxpr(lambda x: lax.ppermute(x, 'i', [(0, 1), (1, 0)]), axis_env=[('i', 2)])(1.0))
print(jax.make_jaxpr(lambda x: lax.psum(1, 'i'), axis_env=[('i', 4)])(1.0))
print(jax.make_jaxpr(jax.vmap(lambda x: x - lax.pmean(x, 'b'), axis_name='b'))(jnp.ones(3)))
print(jax.vmap(lambda x: x - lax.pmean(x, 'b'), axis_name='b')(jnp.arange(3.0)))
print(jax.vmap(lambda x: lax.axis_index('b') * x, axis_name='b')(jnp.ones(3)))
print(jax.make_jaxpr(jax.vmap(lambda x: lax.all_gather(x, 'b'), axis_name='b'))(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda x: lax.psum_scatter(x, 'i'), axis_env=[('i', 2)])(jnp.ones(2)))
print(jax.make_jaxpr(lambda x: lax.all_to_all(x, 'i', 0, 0), axis_env=[('i', 2)])(jnp.ones(2)))

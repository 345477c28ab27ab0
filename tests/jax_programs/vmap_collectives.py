# collectives under vmap
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(4.0)
print(jax.vmap(lambda v: lax.pmin(v, 'i'), axis_name='i')(x))
print(jax.vmap(lambda v: lax.ppermute(v, 'i', perm=[(0, 1), (1, 2), (2, 3), (3, 0)]), axis_name='i')(x))
m = jnp.arange(16.0).reshape(4, 4)
print(jax.vmap(lambda v: lax.all_to_all(v, 'i', 0, 0), axis_name='i')(m))
print(jax.vmap(lambda v: lax.psum_scatter(v, 'i'), axis_name='i')(m))
print(jax.vmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(m))
print(jax.vmap(lambda v: lax.all_gather(v, 'i', tiled=True), axis_name='i')(jnp.arange(8.0).reshape(4, 2)))
print(jax.vmap(lambda v: lax.all_gather(v, 'i', axis=1), axis_name='i')(jnp.arange(8.0).reshape(4, 2)))
print(jax.vmap(jax.vmap(lambda v: lax.psum(v, ('i', 'j')), axis_name='j'), axis_name='i')(jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='j'), axis_name='i')(jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(jax.vmap(lambda v: lax.axis_index('i') * 10 + lax.axis_index('j'), axis_name='j'), axis_name='i')(jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(lambda v: lax.psum(1, 'i'), axis_name='i')(x))
print(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', in_axes=1)(jnp.arange(6.0).reshape(2, 3)))

# jaxprs with collectives inside vmap
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.arange(4.0)
print(jax.make_jaxpr(jax.vmap(lambda v: v / lax.psum(v, 'i'), axis_name='i'))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.pmean(v, 'i'), axis_name='i'))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.axis_index('i'), axis_name='i'))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i'))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.pmax(v, 'i'), axis_name='i'))(x))

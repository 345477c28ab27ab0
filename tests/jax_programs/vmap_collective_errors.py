# errors with axis names
import jax
import jax.numpy as jnp
from jax import lax

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

show("unbound", lambda: jax.vmap(lambda v: lax.psum(v, 'j'), axis_name='i')(jnp.arange(3.0)))
show("no_vmap", lambda: lax.psum(jnp.arange(3.0), 'i'))
show("axis_index_unbound", lambda: jax.vmap(lambda v: lax.axis_index('k'))(jnp.arange(3.0)))
show("ppermute_bad", lambda: jax.vmap(lambda v: lax.ppermute(v, 'i', perm=[(0, 1), (1, 1)]), axis_name='i')(jnp.arange(3.0)))

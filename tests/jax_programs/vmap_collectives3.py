# collectives: pytrees, ints, jit inside, axis_size, spmd_axis_name
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

x = jnp.arange(4.0)
print(jax.vmap(lambda v: lax.psum({'a': v, 'b': (v * 2, 1)}, 'i'), axis_name='i')(x))
print(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i')(jnp.arange(4)))
print(jax.vmap(lambda v: lax.pmean(v, 'i'), axis_name='i')(jnp.arange(4)))
print(jax.vmap(lambda v: lax.axis_size('i'), axis_name='i')(x) if hasattr(lax, 'axis_size') else 'no axis_size')
print(jax.vmap(jax.jit(lambda v: lax.psum(v, 'i')), axis_name='i')(x))
print(jax.make_jaxpr(jax.vmap(jax.jit(lambda v: v - lax.pmean(v, 'i')), axis_name='i'))(x))
print(jax.vmap(lambda v: v / lax.psum(v, 'i'), axis_name='i', spmd_axis_name='d')(x))
print(jax.make_jaxpr(jax.vmap(lambda v: v * 2, spmd_axis_name='d'))(x))
print(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', out_axes=None)(x))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', out_axes=None))(x))
print(jax.vmap(lambda v: lax.all_gather(v, 'i'), axis_name='i', out_axes=None)(x))
print(jax.vmap(lambda v: lax.axis_index('i'), axis_name='i', axis_size=3, in_axes=None)(1.0))
print(jax.make_jaxpr(jax.vmap(lambda v: lax.psum(v, 'i'), axis_name='i', in_axes=None, axis_size=3))(1.0))
show("psum_groups", lambda: jax.vmap(lambda v: lax.psum(v, 'i', axis_index_groups=[[0, 1], [2, 3]]), axis_name='i')(x))
print(jax.vmap(lambda v: lax.pmax(v, 'i') - lax.pmin(v, 'i'), axis_name='i', in_axes=1)(jnp.arange(6.0).reshape(2, 3)))
print(jax.grad(lambda w: jax.vmap(lambda v: v * w / lax.psum(v * w, 'i'), axis_name='i')(x).sum())(2.0))
print(jax.vmap(jax.grad(lambda v: lax.pmean(v ** 2, 'i')), axis_name='i')(x))
print(jax.vmap(lambda v: lax.psum(jnp.ones(2), 'i'), axis_name='i')(x))

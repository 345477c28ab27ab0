# vmap error messages
import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

show("inconsistent", lambda: jax.vmap(lambda x, y: x + y)(jnp.ones(3), jnp.ones(4)))
show("inconsistent3", lambda: jax.vmap(lambda x, y, z: x + y + z)(jnp.ones(3), jnp.ones(4), jnp.ones(3)))
show("inconsistent_tree", lambda: jax.vmap(lambda d: d['a'] + d['b'])({'a': jnp.ones(3), 'b': jnp.ones(5)}))
show("no_mapped", lambda: jax.vmap(lambda x: x, in_axes=None)(jnp.ones(3)))
show("out_of_range", lambda: jax.vmap(lambda x: x, in_axes=2)(jnp.ones((3, 4))))
show("out_of_range_neg", lambda: jax.vmap(lambda x: x, in_axes=-3)(jnp.ones((3, 4))))
show("scalar_mapped", lambda: jax.vmap(lambda x: x)(1.0))
show("not_prefix", lambda: jax.vmap(lambda x, y: x + y, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3)))
show("not_prefix_list", lambda: jax.vmap(lambda x, y: x + y, in_axes=[0, 0])(jnp.ones(3), jnp.ones(3)))
show("out_axes_none", lambda: jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3)))
show("out_axes_oob", lambda: jax.vmap(lambda x: x, out_axes=2)(jnp.ones(3)))
show("bad_in_axes_type", lambda: jax.vmap(lambda x: x, in_axes=1.0)(jnp.ones(3)))
show("not_callable", lambda: jax.vmap(3))
show("empty_args", lambda: jax.vmap(lambda: 1.0)())
show("axis_size_mismatch", lambda: jax.vmap(lambda x: x, axis_size=4)(jnp.ones(3)))

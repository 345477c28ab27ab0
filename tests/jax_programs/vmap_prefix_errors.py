# in_axes / out_axes tree-prefix error messages
import collections
import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

x = jnp.ones(3)
show("dict_keys", lambda: jax.vmap(lambda d: d['a'], in_axes=({'a': 0, 'c': 0},))({'a': x, 'b': x}))
show("dict_vs_list", lambda: jax.vmap(lambda d: d, in_axes=({'a': 0},))([x]))
show("tuple_len", lambda: jax.vmap(lambda t: t, in_axes=((0, 0, 0),))((x, x)))
show("nested", lambda: jax.vmap(lambda t: t, in_axes=((0, (0, 0)),))((x, (x, [x]))))
show("nested_ok", lambda: jax.vmap(lambda t: t, in_axes=((0, (0, 0)),))((x, (x, [x]))))
show("list_vs_tuple", lambda: jax.vmap(lambda t: t, in_axes=([0, 0],))((x, x)))
P = collections.namedtuple("P", "a b")
show("namedtuple", lambda: jax.vmap(lambda t: t, in_axes=(P(0, 0),))((x, x)))
show("none_leaf", lambda: jax.vmap(lambda t: t, in_axes=((0, None),))((x, None)))
show("out_dict_keys", lambda: jax.vmap(lambda v: {'a': v, 'b': v}, out_axes={'a': 0})(x))
show("out_nested", lambda: jax.vmap(lambda v: (v, (v, v)), out_axes=(0, (0, 0, 0)))(x))
show("out_leaf_str", lambda: jax.vmap(lambda v: v, out_axes='0')(x))
show("in_leaf_str_nested", lambda: jax.vmap(lambda v: v, in_axes=({'a': 'x'},))({'a': x}))
show("in_float", lambda: jax.vmap(lambda v: v, in_axes=0.5)(x))
show("multi_errors", lambda: jax.vmap(lambda a, b: a, in_axes=((0, 0), [0]))((x, x, x), (x, x)))
show("kw_mismatch_tree", lambda: jax.vmap(lambda a, b: a)(x, b={'k': jnp.ones(4)}))
show("axis_name_shadow", lambda: jax.vmap(jax.vmap(lambda v: jax.lax.psum(v, 'i'), axis_name='i'), axis_name='i')(jnp.ones((2, 3))))

# errors from Python control flow on batched values
import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e).split("\n")[0])

def f(x):
    if x > 0:
        return x
    return -x
show("bool", lambda: jax.vmap(f)(jnp.arange(3.0)))
show("int", lambda: jax.vmap(lambda x: jnp.zeros(int(x)))(jnp.arange(3)))
show("arange", lambda: jax.vmap(lambda x: jnp.arange(x))(jnp.arange(3)))
show("index", lambda: jax.vmap(lambda x: [1, 2, 3][x])(jnp.arange(3)))
show("float", lambda: jax.vmap(lambda x: float(x))(jnp.arange(3.0)))
show("item", lambda: jax.vmap(lambda x: x.item())(jnp.arange(3.0)))
show("np", lambda: jax.vmap(lambda x: __import__('numpy').asarray(x))(jnp.arange(3.0)))
show("shape_mismatch", lambda: jax.vmap(lambda x, y: x + y)(jnp.ones((3, 2)), jnp.ones((3, 4))))
show("dot_mismatch", lambda: jax.vmap(jnp.dot)(jnp.ones((3, 2)), jnp.ones((3, 4))))
show("reshape", lambda: jax.vmap(lambda x: x.reshape(5))(jnp.ones((3, 4))))
show("cond_pred", lambda: jax.vmap(lambda x: jax.lax.cond(x, lambda: 1.0, lambda: 2.0))(jnp.arange(3.0)))
show("while_body", lambda: jax.vmap(lambda x: jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, x))(jnp.arange(3)))
show("out_axes_big", lambda: jax.vmap(lambda x: x, out_axes=5)(jnp.ones((2, 3))))
show("out_axes_tuple_short", lambda: jax.vmap(lambda x: (x, x), out_axes=(0,))(jnp.ones(2)))
show("in_axes_str", lambda: jax.vmap(lambda x: x, in_axes='a')(jnp.ones(2)))
show("axis_name_unhashable", lambda: jax.vmap(lambda x: x, axis_name=['a'])(jnp.ones(2)))

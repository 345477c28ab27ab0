import jax
import jax.numpy as jnp
from jax import lax
def show(name, fn):
    try:
        print(name, fn())
    except Exception as e:
        print(name, type(e).__name__, e)
show("cond_operand_kw", lambda: lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand=1.0))
show("cond_no_ops", lambda: lax.cond(False, lambda: 1.0, lambda: 2.0))
show("switch_float_idx", lambda: lax.switch(1.0, [lambda: 1, lambda: 2]))
show("switch_bool_idx", lambda: lax.switch(True, [lambda: 1, lambda: 2]))
show("map_batch_uneven", lambda: lax.map(lambda x: x * 2, jnp.arange(7.0), batch_size=3))
show("fori_dyn_unroll", lambda: jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + 1, 0, unroll=2))(3))
show("scan_length_only", lambda: lax.scan(lambda c, _: (c + 1, c * 2), 0, length=4))
show("scan_no_length", lambda: lax.scan(lambda c, _: (c, c), 0, None))
show("scan_len_mismatch", lambda: lax.scan(lambda c, x: (c, x), 0, jnp.ones(3), length=4))
show("scan_unroll_bool", lambda: lax.scan(lambda c, x: (c + x, c), 0.0, jnp.ones(3), unroll=False))
show("while_nonbool", lambda: lax.while_loop(lambda c: c, lambda c: c - 1, 3))
show("while_cond_shape", lambda: lax.while_loop(lambda c: c < jnp.ones(2), lambda c: c + 1, 0.0))
show("cond_pred_array", lambda: lax.cond(jnp.array([True]), lambda: 1, lambda: 2))
show("cond_pred_none", lambda: lax.cond(None, lambda: 1, lambda: 2))
show("fori_pytree", lambda: lax.fori_loop(0, 3, lambda i, c: {"a": c["a"] + i, "b": c["b"] * 2}, {"a": 0, "b": 1.0}))
show("fori_float_bounds", lambda: lax.fori_loop(0.0, 3, lambda i, c: c + 1, 0))
show("assoc_scan_mismatch", lambda: lax.associative_scan(jnp.add, (jnp.ones(3), jnp.ones(4))))
show("select_n_mismatch", lambda: lax.select_n(True, jnp.ones(2), jnp.ones(3)))
show("select_n_float_pred", lambda: lax.select_n(1.0, 1.0, 2.0))
show("switch_out_of_range", lambda: jax.jit(lambda i: lax.switch(i, [lambda: 10, lambda: 20, lambda: 30]))(7))

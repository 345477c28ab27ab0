import re
import jax
import jax.numpy as jnp
from jax import lax
def run(name, f):
    try:
        print(name, f())
    except Exception as e:
        print(name, type(e).__name__, re.sub(r" at \S*/", " at ", str(e)))   # no directories
run("cond_mismatch", lambda: lax.cond(True, lambda x: x, lambda x: (x, x), 1.0))
run("cond_dtype", lambda: lax.cond(True, lambda x: x, lambda x: 1, 1.0))
run("while_carry", lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.0, 0))
run("scan_carry", lambda: lax.scan(lambda c, x: (c + x, x), 0, jnp.ones(3)))
run("scan_len", lambda: lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4))))
run("switch_empty", lambda: lax.switch(0, [], 1.0))
run("cond_pred_shape", lambda: lax.cond(jnp.array([True, False]), lambda x: x, lambda x: x, 1.0))
run("fori_float", lambda: lax.fori_loop(0, 3, lambda i, x: x + i, 0))
run("cond_pred_float", lambda: lax.cond(1.5, lambda: 1, lambda: 2))
run("python_if", lambda: jax.jit(lambda x: 1 if x > 0 else 2)(1.0))

import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e)[:700])

f = lambda x: jnp.sin(x)
show("shape", lambda: jax.jvp(f, (jnp.ones(3),), (jnp.ones(2),)))
show("dtype", lambda: jax.jvp(f, (jnp.ones(3),), (jnp.ones(3, dtype=jnp.float16),)))
show("int tangent", lambda: jax.jvp(f, (1.0,), (1,)))
show("list primals", lambda: jax.jvp(f, [1.0], [1.0]))
show("not tuple", lambda: jax.jvp(f, 1.0, 1.0))
show("count", lambda: jax.jvp(lambda x, y: x * y, (1.0, 2.0), (1.0,)))
show("tree", lambda: jax.jvp(lambda d: d['a'], ({'a': 1.0},), ({'b': 1.0},)))
show("int primal", lambda: jax.jvp(lambda x: x * 2, (2,), (1.0,)))
show("ok", lambda: jax.jvp(lambda x, y: x * y, (1.0, 2.0), (1.0, 0.5)))
show("vjp ct shape", lambda: jax.vjp(f, jnp.ones(3))[1](jnp.ones(2)))
show("vjp ct dtype", lambda: jax.vjp(f, jnp.ones(3))[1](jnp.ones(3, dtype=jnp.float16)))

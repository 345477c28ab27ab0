import jax
import jax.numpy as jnp
from jax import custom_jvp

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e)[:900])

@custom_jvp
def f(x):
    return jnp.sin(x)
show("no defjvp", lambda: jax.jvp(f, (1.,), (1.,)))

@custom_jvp
def f1(x):
    return jnp.sin(x)
f1.defjvp(lambda p, t: (jnp.sin(p[0]), jnp.ones(3)))
show("tangent shape", lambda: jax.jvp(f1, (1.,), (1.,)))

@custom_jvp
def f2(x):
    return jnp.sin(x)
f2.defjvp(lambda p, t: jnp.sin(p[0]))
show("not pair", lambda: jax.jvp(f2, (1.,), (1.,)))

@custom_jvp
def f3(x):
    return jnp.sin(x)
f3.defjvp(lambda p, t: (jnp.sin(p[0]), (t[0], t[0])))
show("tree mismatch", lambda: jax.jvp(f3, (1.,), (1.,)))

@custom_jvp
def f4(x):
    return jnp.sin(x)
f4.defjvp(lambda p, t: (jnp.sin(p[0]), t[0].astype(jnp.float16)))
show("dtype mismatch", lambda: jax.jvp(f4, (1.,), (1.,)))

@custom_jvp
def f5(x):
    return jnp.sin(x)
f5.defjvp(lambda p, t: (jnp.ones(2), t[0]))
show("primal mismatch", lambda: jax.jvp(f5, (1.,), (1.,)))

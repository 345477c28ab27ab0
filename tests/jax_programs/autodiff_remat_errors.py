import jax
import jax.numpy as jnp
import jax.ad_checkpoint
from functools import partial

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e).splitlines()[0][:300])

@jax.checkpoint
def f(x, n):
    if n > 0:
        return jnp.sin(x)
    return x
show("python cf", lambda: jax.grad(f)(1.0, 2))

@partial(jax.checkpoint, static_argnums=(1,))
def g(x, n):
    if n > 0:
        return jnp.sin(x)
    return x
show("static ok", lambda: jax.grad(g)(1.0, 2))
show("static unhashable", lambda: jax.grad(g)(1.0, [2]))
show("policy bad", lambda: jax.grad(jax.checkpoint(jnp.sin, policy=lambda *a, **k: "yes"))(1.0))
show("remat concrete", lambda: jax.remat(lambda x: x * 2, concrete=True)(1.0))
show("checkpoint_name nonstr", lambda: jax.ad_checkpoint.checkpoint_name(1.0, 3))
show("checkpoint_name pytree", lambda: jax.ad_checkpoint.checkpoint_name({'a': 1.0}, 'n'))

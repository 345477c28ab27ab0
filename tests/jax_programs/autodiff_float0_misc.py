import jax
import jax.numpy as jnp
import numpy as np

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, str(e)[:500])

show("grad int", lambda: jax.grad(lambda x: x * 2.0)(2))
show("grad bool allow", lambda: jax.grad(lambda x: jnp.float32(x), allow_int=True)(True))
show("grad int array allow", lambda: jax.grad(lambda x: jnp.sum(x).astype(jnp.float32), allow_int=True)(jnp.arange(3)))
show("jvp int tangent float0", lambda: jax.jvp(lambda x: x * 2, (jnp.arange(3),), (np.zeros(3, jax.dtypes.float0),)))
show("jvp int tangent wrong", lambda: jax.jvp(lambda x: x * 2, (jnp.arange(3),), (jnp.zeros(3),)))
show("vjp int out", lambda: jax.vjp(lambda x: (x * 2.0).astype(jnp.int32), 2.0)[1](np.zeros((), jax.dtypes.float0)))
show("vjp int out float ct", lambda: jax.vjp(lambda x: (x * 2.0).astype(jnp.int32), 2.0)[1](1.0))
show("float0 arith", lambda: jnp.zeros((), jax.dtypes.float0) + 1)
show("dtype name", lambda: (jax.dtypes.float0.name, str(jax.dtypes.float0)))
show("jacfwd int", lambda: jax.jacfwd(lambda x: x * 2.0)(2))
show("jacrev int", lambda: jax.jacrev(lambda x: x * 2.0)(2))
show("grad holomorphic int", lambda: jax.grad(lambda x: x * 2.0, holomorphic=True)(2))
show("grad uint", lambda: jax.grad(lambda x: x * 2.0)(np.uint8(2)))

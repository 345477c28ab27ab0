import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.dtypes import float0

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e))

_, f_lin = jax.linearize(lambda x: (x, 1.), 3.)
show("lin zero outputs", lambda: f_lin(1.))
show("jvp int identity", lambda: jax.jvp(lambda x: x, (1,), (np.zeros(shape=(), dtype=float0),)))
show("jvp int add", lambda: jax.jvp(lambda x: x + 1, (2,), (np.zeros(shape=(), dtype=float0),)))
show("jit jvp int", lambda: jax.jvp(jax.jit(lambda x: x + 1), (2,), (np.zeros(shape=(), dtype=float0),)))
show("jvp convert", lambda: jax.jvp(lambda x: x.astype(np.int32) + 1, (2.,), (1.,)))
show("vjp int index", lambda: (lambda p, f: (p, f(1.)))(*jax.vjp(lambda x, i: x[i], np.ones(2) * 2, 1)))
show("vjp int shapes", lambda: jax.vjp(lambda x: lax.reshape(x, (2, 2)), np.ones((4, 1), dtype=int))[1](np.zeros((2, 2), float0)))
show("jit vjp int", lambda: jax.jit(jax.vjp(lambda x, y: x + y, 2, 1)[1])(np.zeros((), float0)))
show("vjp fulllike", lambda: jax.vjp(lax.full_like, jnp.zeros((2, 2)), 1)[1](jnp.ones((2, 2))))
show("grad of int", lambda: jax.grad(lambda x: x + 0., allow_int=True)(1))
show("grad of bool", lambda: jax.value_and_grad(lambda p: lax.cond(p, lambda _: 1., lambda _: 2., 1.), allow_int=True)(True))
show("vjp of bool", lambda: jax.vjp(lambda p: lax.cond(p, lambda _: 1., lambda _: 2., 1.), True)[1](1.))
show("grad int index", lambda: jax.grad(lambda x, i: x[i], argnums=(0, 1), allow_int=True)(np.ones(2), 1))
show("jit grad int index", lambda: jax.jit(jax.grad(lambda x, i: x[i], argnums=(0, 1), allow_int=True))(np.ones(2), 1))
f0 = jax.grad(lambda x: jnp.sum(x + 0.), allow_int=True)(np.ones((2, 4), dtype=int))
show("float0 reshape", lambda: f0.reshape((4, 2)))
show("float0 transpose", lambda: f0.transpose())
f1 = jax.grad(lambda x: x + 0., allow_int=True)(1)
show("float0 dtype", lambda: f1.dtype)
show("float0 add jnp", lambda: f1 + jnp.zeros(()))
show("float0 add lax", lambda: lax.add(f1, jnp.zeros(())))
show("float0 jnp.add", lambda: jnp.add(f1, 1.0))
show("float0 asarray", lambda: jnp.asarray(f1))
show("float0 device_put", lambda: jax.device_put(f1))
show("float0 in jit", lambda: jax.jit(lambda x: x)(f1))

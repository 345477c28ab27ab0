import jax
import jax.numpy as jnp
import numpy as np
from jax.dtypes import float0

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e)[:500])

def fn(x):
    return x * 2 - 3, x > 0
f, lin_fn, aux = jax.linearize(fn, 3.4, has_aux=True)
print(repr(f), repr(lin_fn(5.)), repr(aux))
_, f_jvp = jax.linearize(lambda x: x, 1.)
show("lin ok", lambda: f_jvp(1.))
show("lin int tangent", lambda: f_jvp(1))
_, f_jvp2 = jax.linearize(lambda x: x, np.ones(2, np.int32))
show("lin float0 ok", lambda: f_jvp2(np.zeros(2, float0)))
show("lin int bad", lambda: f_jvp2(np.ones(2, np.int32)))
show("lin shape bad", lambda: f_jvp(jnp.ones(2)))
show("lin f16", lambda: f_jvp(jnp.float16(1.0)))
show("lin tree", lambda: f_jvp((1.0,)))
show("lin two args", lambda: f_jvp(1.0, 2.0))

f2 = lambda x: 2. * x
@jax.jit(static_argnums=0)
def linearize_vjp(f, x):
    _, vjp_fun = jax.vjp(f, x)
    return vjp_fun
linearized = linearize_vjp(f2, 1.)
show("vjp fun jit", lambda: jax.jit(lambda f, x: f(x))(linearized, 3.))
@jax.jit(static_argnums=0)
def linearize(f, x):
    _, jvp_fun = jax.linearize(f, x)
    return jvp_fun
show("lin fun jit", lambda: jax.jit(lambda f, x: f(x))(linearize(f2, 1.), 3.))
show("conj symbolic zeros", lambda: jax.grad(lambda x: jax.jit(lambda x, y: (x, y))(x, jax.lax.conj(x))[0])(3.0))
show("jvp asarray", lambda: jax.jvp(jax.numpy.asarray, (1.,), (2.,)))
def foo(x):
    return (x, x)
_, f_vjp = jax.vjp(foo, 1.0)
show("vjp multi args", lambda: f_vjp(1.0, 1.0))
t = jax.linear_transpose(lambda x: 2.0 * x, 1.0)
show("transpose jit", lambda: jax.jit(lambda t, x: t(x))(t, 3.0))
show("transpose bad ct", lambda: t(jnp.ones(2)))
show("transpose bad tree", lambda: t((1.0,)))

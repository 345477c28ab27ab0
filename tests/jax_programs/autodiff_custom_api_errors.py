import jax
import jax.numpy as jnp
from functools import partial

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e))

@jax.custom_jvp
def foo(x):
  return x ** 2
show("missing jvp eval", lambda: foo(2))
show("missing jvp jvp", lambda: jax.jvp(foo, (2.,), (1.,)))
show("missing jvp grad", lambda: jax.grad(foo)(2.))

@jax.custom_jvp
def f(x):
  return (x**2,)
@f.defjvp
def foo_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return f(x), [2 * x * t, x]
show("tree mismatch eval", lambda: f(2.))
show("tree mismatch", lambda: jax.jvp(f, (2.,), (1.,)))

@jax.custom_jvp
def f(x):
  return x ** 2
@f.defjvp
def foo_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return f(x), jnp.reshape(t, (1,))
show("aval mismatch", lambda: jax.jvp(f, (jnp.float32(2.),), (jnp.float32(1.),)))

@jax.custom_jvp
def f(x):
  return x ** 2
@f.defjvp
def foo_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return t
show("not pair", lambda: jax.jvp(f, (2.,), (1.,)))

def scan_apply(f, x):
  y, _ = jax.lax.scan(lambda x, _: (f(x), None), x, None, length=1)
  return y

@jax.custom_jvp
def f(x):
  return x
@f.defjvp
def f_jvp(primals, tangents):
  (x,), (xdot,) = primals, tangents
  return (x, x), (xdot, xdot)
x = jnp.float32(1.)
show("primal tree", lambda: jax.jvp(lambda x: scan_apply(f, x), (x,), (x,)))
@f.defjvp
def f_jvp2(primals, tangents):
  (x,), (xdot,) = primals, tangents
  return jnp.zeros((3, *x.shape), x.dtype), xdot
show("primal shape", lambda: jax.jvp(lambda x: scan_apply(f, x), (x,), (x,)))

@jax.custom_jvp
def f(x, y, *, z=None):
  return jnp.sin(x), x + jnp.cos(y)
@f.defjvp
def f_jvp(primals, tangents):
  raise RuntimeError("should not be executed")
show("missing arg", lambda: f(0.5))
show("kw arg", lambda: f(0.5, 0.1, z=1.0))

@jax.custom_vjp
def foo(x):
  return x ** 2
show("missing vjp eval", lambda: foo(2))
show("missing vjp grad", lambda: jax.grad(foo)(2.))

@jax.custom_vjp
def f(x):
  return x
f.defvjp(lambda x: (x, None), lambda _, g: (g, g))
show("bwd tree", lambda: jax.grad(f)(2.))
@jax.custom_vjp
def f(x):
  return x
f.defvjp(lambda x: (x, None), lambda _, g: 2. * g)
show("bwd non tuple", lambda: jax.grad(f)(3.))

@jax.custom_vjp
def f(x):
  return x
def f_fwd(x):
  return (x, x), None
def f_bwd(_, y_bar):
  return (y_bar,)
f.defvjp(f_fwd, f_bwd)
show("fwd tree", lambda: jax.grad(lambda x: scan_apply(f, x))(jnp.float32(1.)))
def f_fwd2(x):
  return jnp.zeros((3, *x.shape), x.dtype), None
def f_bwd2(_, y_bar):
  return (y_bar,)
f.defvjp(f_fwd2, f_bwd2)
show("fwd shape", lambda: jax.grad(lambda x: scan_apply(f, x))(jnp.float32(1.)))

@jax.custom_vjp
def foo(x, y):
  return x * y
foo.defvjp(lambda x, y: (x * y, (x, y)), lambda r, g: (g * r[1], jnp.ones(3)))
show("bwd aval", lambda: jax.grad(foo, 1)(1.0, 2.0))

@jax.custom_jvp
def g(x, y, *, z=None):
  return x * y
g.defjvps(lambda t, ans, x, y: t * y, lambda t, ans, x, y: t * x)
show("kw call ok", lambda: g(2.0, y=3.0))
show("kw grad", lambda: jax.grad(g)(2.0, y=3.0))

import jax
import jax.numpy as jnp
from jax import custom_vjp

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e)[:900])

@custom_vjp
def f(x, y):
    return x * y
f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1],))
show("bwd too few", lambda: jax.grad(f)(2., 3.))

@custom_vjp
def f2(x):
    return x * 2
f2.defvjp(lambda x: (x * 2, None), lambda res, g: g * 2)
show("bwd not tuple", lambda: jax.grad(f2)(2.))

@custom_vjp
def f3(x):
    return x * 2
f3.defvjp(lambda x: (x * 2, None), lambda res, g: (jnp.ones(3),))
show("bwd wrong shape", lambda: jax.grad(f3)(2.))

@custom_vjp
def f4(x):
    return x * 2
f4.defvjp(lambda x: x * 2, lambda res, g: (g,))
show("fwd not pair", lambda: jax.grad(f4)(2.))

@custom_vjp
def f5(x):
    return x * 2
f5.defvjp(lambda x: ((x * 2, x), None), lambda res, g: (g,))
show("fwd out mismatch", lambda: jax.grad(f5)(2.))

@custom_vjp
def f6(x):
    return x * 2
show("no defvjp", lambda: f6(2.))

@custom_vjp
def f7(d):
    return d['a'] * 2
f7.defvjp(lambda d: (d['a'] * 2, None), lambda res, g: ({'b': g},))
show("bwd wrong tree", lambda: jax.grad(f7)({'a': 2.}))

# checking_leaks and leaked tracer errors in control flow
import jax
import jax.numpy as jnp
from jax import lax

leaked = []
def f(x):
    leaked.append(x)
    return x
with jax.checking_leaks():
    try:
        jax.jit(f)(1.0)
        print("no error")
    except Exception as e:
        print(type(e).__name__)
        print(str(e).splitlines()[0])
out = []
def body(c, x):
    out.append(c)
    return c + x, c
lax.scan(body, 0.0, jnp.arange(3.0))
try:
    print(out[0] + 1)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
try:
    jax.jit(lambda y: y + out[0])(1.0)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

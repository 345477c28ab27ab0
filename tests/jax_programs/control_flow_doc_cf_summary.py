# source: docs "Control flow and logical operators with JIT" (structured control flow primitives)
import jax
import jax.numpy as jnp
from jax import lax
operand = jnp.array([0.])
print(lax.cond(True, lambda x: x+1, lambda x: x-1, operand))
print(lax.cond(False, lambda x: x+1, lambda x: x-1, operand))
init_val = 0
cond_fun = lambda x: x < 10
body_fun = lambda x: x+1
print(lax.while_loop(cond_fun, body_fun, init_val))
init_val = 0
start = 0
stop = 10
body_fun = lambda i,x: x+i
print(lax.fori_loop(start, stop, body_fun, init_val))
def f(x):
    return lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)
print(jax.grad(f)(2.0))
def g(x):
    return lax.while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)
try:
    jax.grad(g)(2.0)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(jax.jvp(g, (2.0,), (1.0,)))
def h(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * x, 1.0)
try:
    jax.grad(h)(2.0, 3)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(jax.make_jaxpr(h)(2.0, 3))
print(lax.cond(jnp.int32(3), lambda: 1, lambda: 2))
print(lax.switch(5, [lambda: 0, lambda: 1, lambda: 2]))
print(lax.switch(-3, [lambda: 0, lambda: 1, lambda: 2]))

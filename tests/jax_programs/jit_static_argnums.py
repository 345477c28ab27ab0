# static_argnums / static_argnames (jit tutorial)
import jax
import jax.numpy as jnp
from functools import partial

def f(x, neg):
    return -x if neg else x

try:
    jax.jit(f)(1, True)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

f_jit = jax.jit(f, static_argnums=1)
print(f_jit(1, True))
print(f_jit(1.5, False))
f_jit2 = jax.jit(f, static_argnames=['neg'])
print(f_jit2(1, neg=True))
print(f_jit2(jnp.arange(3), neg=True))

@partial(jax.jit, static_argnums=(1,))
def g(x, n):
    y = x
    for i in range(n):
        y = y + x
    return y
print(g(jnp.float32(2.0), 3))
print(jax.make_jaxpr(g, static_argnums=(1,))(jnp.float32(2.0), 2))

def loop_body(prev_i):
    return prev_i + 1

def g_inner_jitted(x, n):
    i = 0
    while i < n:
        i = jax.jit(loop_body)(i)
    return x + i
print(g_inner_jitted(10, 20))

@partial(jax.jit, static_argnames=['n'])
def h(x, n):
    return x * n
print(h(jnp.ones(2), n=3))
print(h(jnp.ones(2), 4) if False else "skip")
try:
    print(h(jnp.ones(2), 4))
except Exception as e:
    print(type(e).__name__, e)

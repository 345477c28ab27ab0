# debug.print in control flow, dtypes, vmap with ordered, format specs
import jax
import jax.numpy as jnp
from jax import lax

def body(i, c):
    jax.debug.print("i={i} c={c}", i=i, c=c)
    return c + i
print(lax.fori_loop(0, 3, body, 0.5))
def step(c, x):
    jax.debug.print("scan c={} x={}", c, x)
    return c + x, c * x
print(lax.scan(step, 0, jnp.arange(3)))
lax.cond(True, lambda x: jax.debug.print("true branch {}", x), lambda x: jax.debug.print("false branch {}", x), 5)
def wbody(c):
    jax.debug.print("while {}", c)
    return c * 2
print(lax.while_loop(lambda c: c < 10, wbody, 1))
jax.debug.print("dtypes: {} {} {} {} {}", jnp.int8(3), jnp.float16(1.5), jnp.bfloat16(2.5), jnp.array(True), jnp.array(1 + 2j))
jax.debug.print("arr {:.3f}", jnp.float32(3.14159))
jax.debug.print("2d {}", jnp.arange(6).reshape(2, 3))
jax.debug.print("python {} {}", 1, 2.5)
jax.vmap(lambda x: jax.debug.print("ordered {}", x, ordered=False))(jnp.arange(3))
jax.effects_barrier()
@jax.jit
def f(x):
    jax.debug.print("x={x}, y={y}", x=x, y=x * 2)
    return x
f(jnp.arange(2.0))
jax.effects_barrier()
print(jax.make_jaxpr(lambda x: jax.debug.print("{}", x))(1))

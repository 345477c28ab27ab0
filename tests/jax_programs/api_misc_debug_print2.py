# jax.debug.print formatting and ordered
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    jax.debug.print("x: {x:.2f}", x=x)
    jax.debug.print("{} and {}", x, x + 1, ordered=True)
    jax.debug.print("pair {0} {1} {0}", x, 2 * x)
    jax.debug.print("tree {}", {'a': x, 'b': (x, 1)})
    jax.debug.print("literal {{braces}} {}", x)
    jax.debug.print("no args")
    return x
f(1.5)
jax.effects_barrier()
print(jax.make_jaxpr(f)(1.5))
def g(x):
    jax.debug.print("val {}", x, ordered=True)
    return x * 2
print(jax.make_jaxpr(g)(1.0))
print(jax.jit(g)(jnp.arange(3)))
jax.debug.print("eager {}", jnp.arange(2))
jax.debug.print("eager scalar {x}", x=3)

# ensure_compile_time_eval and concrete values
import jax
import jax.numpy as jnp
import numpy as np

@jax.jit
def f(x):
    with jax.ensure_compile_time_eval():
        y = jnp.sin(3.0)
        print("y concrete:", y)
    return x + y
print(f(1.0))
print(jax.make_jaxpr(f)(1.0))

@jax.jit
def g(x):
    n = np.prod(x.shape)
    print("n:", n, type(n).__name__)
    return x.reshape(n)
print(g(jnp.ones((2, 3))))
@jax.jit
def h(x):
    return x * jnp.array([1, 2, 3]).sum()
print(jax.make_jaxpr(h)(1))
print(h(2))

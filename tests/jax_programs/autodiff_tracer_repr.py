import jax
import jax.numpy as jnp

def f(x):
    print("x:", x)
    print("type:", type(x).__name__)
    return jnp.sin(x)
jax.grad(f)(1.0)
jax.jvp(f, (1.0,), (1.0,))
jax.vjp(f, 1.0)
jax.linearize(f, 1.0)
jax.jacfwd(f)(jnp.ones(2))
jax.jacrev(f)(jnp.ones(2))
jax.grad(jax.grad(f))(1.0)
jax.jit(jax.grad(f))(1.0)

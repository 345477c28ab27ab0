# AOT lowering: as_text of simple functions
import jax
import jax.numpy as jnp

def f(x, y): return 2 * x + y
x, y = 3, 4
lowered = jax.jit(f).lower(x, y)
print(lowered.as_text())
compiled = lowered.compile()
print(compiled(x, y))
print(jax.jit(lambda x: jnp.sin(x) @ x.T).lower(jnp.ones((2, 3))).as_text())
print(jax.jit(lambda x: (x, x + 1.0)).lower(jnp.ones(2, jnp.float16)).as_text())

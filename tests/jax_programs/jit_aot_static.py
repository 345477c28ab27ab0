# AOT with static arguments
import jax
import jax.numpy as jnp

def f(x, y): return 2 * x + y
lowered_with_x = jax.jit(f, static_argnums=0).lower(7, 8)
print(lowered_with_x.as_text())
print(lowered_with_x.compile()(5))

@jax.jit
def g(x, z):
    return x * z['a'] + z['b']
c = g.lower(jnp.ones(2), {'a': 2.0, 'b': jnp.zeros(2)}).compile()
print(c(jnp.ones(2), {'a': 3.0, 'b': jnp.ones(2)}))
try:
    c(jnp.ones(2), {'a': 3.0})
except Exception as e:
    print(type(e).__name__)
    print(e)
try:
    c(jnp.ones(2))
except Exception as e:
    print(type(e).__name__)
    print(e)

# pure functions (sharp bits)
import jax
import jax.numpy as jnp
from jax import lax

def impure_print_side_effect(x):
    print("Executing function")
    return x

print("First call: ", jax.jit(impure_print_side_effect)(4.))
print("Second call: ", jax.jit(impure_print_side_effect)(5.))
print("Third call, different type: ", jax.jit(impure_print_side_effect)(jnp.array([5.])))

g = 0.
def impure_uses_globals(x):
    return x + g
print("First call: ", jax.jit(impure_uses_globals)(4.))
g = 10.
print("Second call: ", jax.jit(impure_uses_globals)(5.))
print("Third call, different type: ", jax.jit(impure_uses_globals)(jnp.array([4.])))

g = 0.
def impure_saves_global(x):
    global g
    g = x
    return x
print("First call: ", jax.jit(impure_saves_global)(4.))
print("Saved global: ", g)

def pure_uses_internal_state(x):
    state = dict(even=0, odd=0)
    for i in range(10):
        state['even' if i % 2 == 0 else 'odd'] += x
    return state['even'] + state['odd']
print(jax.jit(pure_uses_internal_state)(5.))

array = jnp.arange(10)
print(lax.fori_loop(0, 10, lambda i,x: x+array[i], 0))
iterator = iter(range(10))
try:
    print(lax.fori_loop(0, 10, lambda i,x: x+next(iterator), 0))
except Exception as e:
    print(type(e).__name__)

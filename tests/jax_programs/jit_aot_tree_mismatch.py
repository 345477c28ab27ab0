# calling a compiled function with other pytrees, dtypes or under transformations
import jax
import jax.numpy as jnp

def f(x, y): return 2 * x + y
c = jax.jit(f).lower(jnp.ones(3), 2.0).compile()
print(c(jnp.ones(3), 3.0))
cases = [
    lambda: c(jnp.ones(3)),
    lambda: c(jnp.ones(3), 3.0, 4.0),
    lambda: c(jnp.ones(3), y=3.0),
    lambda: c(jnp.ones(3), (3.0,)),
    lambda: c([jnp.ones(3)], 3.0),
    lambda: c(jnp.ones(3, jnp.int32), 3.0),
    lambda: c(jnp.ones(4), 3),
    lambda: jax.grad(lambda x: c(x, 1.0).sum())(jnp.ones(3)),
    lambda: jax.vmap(lambda x: c(x, 1.0))(jnp.ones((2, 3))),
]
for k in cases:
    try:
        print(k())
    except Exception as e:
        print(type(e).__name__)
        print(str(e).split(" <class")[0])
g = jax.jit(lambda a, b: a['p'] * b[0]).lower({'p': 1.0}, [2.0, 3.0]).compile()
print(g({'p': 2.0}, [1.0, 5.0]))
for args in [({'q': 1.0}, [1.0, 2.0]), ({'p': 1.0}, (1.0, 2.0)), ({'p': 1.0, 'q': 2.0}, [1.0])]:
    try:
        g(*args)
    except Exception as e:
        print(type(e).__name__)
        print(str(e).split(" <class")[0])

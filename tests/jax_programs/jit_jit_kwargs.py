# jit with keyword args, defaults, pytrees, methods and partial
import jax
import jax.numpy as jnp
from functools import partial

@jax.jit
def f(x, y=2.0, *, z=3.0):
    return x * y + z
print(f(1.0))
print(f(1.0, 4.0))
print(f(1.0, z=10.0))
print(f(x=1.0, y=1.0, z=1.0))
print(jax.make_jaxpr(f)(1.0, z=5.0))

@jax.jit
def g(params, x):
    return params['w'] * x + params['b'], [x, (x,)]
print(g({'w': jnp.ones(2), 'b': 1.0}, 2.0))

class Model:
    def __init__(self, scale):
        self.scale = scale
    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.scale
    def __hash__(self):
        return hash(self.scale)
    def __eq__(self, other):
        return isinstance(other, Model) and self.scale == other.scale
print(Model(3.0).apply(jnp.arange(3.0)))
print(Model(4.0).apply(jnp.arange(3.0)))

h = jax.jit(partial(jnp.add, 1.0))
print(h(jnp.ones(2)))
print(jax.jit(jnp.sum)(jnp.arange(4)))
print(jax.jit(lambda *args: sum(args))(1, 2, 3))
print(jax.jit(lambda **kw: kw['a'] - kw['b'])(a=5, b=2))
print(jax.jit(lambda x: None)(1.0))
print(jax.jit(lambda: 1)())
print(jax.jit(lambda x: ())(1.0))
print(jax.jit(lambda x: {'b': x, 'a': [x, None]})(1.0))
print(f.__name__, jax.jit(jnp.sum).__name__)
print(jax.jit(f).__wrapped__ is not None)

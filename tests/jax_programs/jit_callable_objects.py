# jit on callable objects, methods, partials; __name__ and repr of outputs
import jax
import jax.numpy as jnp
from functools import partial

class Scale:
    def __init__(self, s):
        self.s = s
    def __call__(self, x):
        return x * self.s
sj = jax.jit(Scale(3.0))
print(sj(jnp.arange(3.0)))
print(jax.make_jaxpr(Scale(2.0))(1.0))
print(jax.jit(Scale(2.0)).lower(1.0).as_text())
p = jax.jit(partial(lambda a, b: a - b, b=1.0))
print(p(3.0))
print(jax.make_jaxpr(jax.jit(partial(jnp.add, 1.0)))(2.0))
class M:
    def __init__(self):
        self.w = jnp.ones(2)
    @jax.jit
    def bad(self, x):
        return self.w * x
try:
    M().bad(2.0)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0].split(" at 0x")[0])
print(jax.jit(lambda x: x).__name__, jax.jit(Scale(1.0)).__class__.__name__ == 'PjitFunction')

# lowered StableHLO text for pytrees, kwargs, constants, control flow, integer ops
import jax
import jax.numpy as jnp
import numpy as np

def show(f, *args, **kwargs):
    print(jax.jit(f).lower(*args, **kwargs).as_text())

show(lambda d: {'b': d['a'] * 2, 'c': (d['a'], 1.0)}, {'a': jnp.ones(2)})
show(lambda x, *, k: x + k, jnp.ones(2), k=3.0)
show(lambda x: x + jnp.array([1.0, 2.0, 3.0]), jnp.ones(3))
show(lambda x: x + np.arange(3, dtype=np.float32), jnp.ones(3))
show(lambda x: jax.lax.cond(x > 0, lambda: x, lambda: -x), 1.0)
show(lambda x: jnp.sum(x, axis=0), jnp.ones((2, 3), jnp.int32))
show(lambda x: x.astype(jnp.float16), jnp.ones(2, jnp.int8))
show(lambda x: jnp.argmax(x), jnp.ones(4))
show(lambda x: (x > 1, x == 2), jnp.arange(3))
show(lambda: jnp.zeros((2, 2)))
show(lambda x: jnp.dot(x, x), jnp.ones((2, 2)))
show(lambda x, y: (x, y), 1, True)

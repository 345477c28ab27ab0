# Array repr/str across dtypes and shapes
import jax
import jax.numpy as jnp
import numpy as np

vals = [
    jnp.arange(12).reshape(3, 4), jnp.linspace(0, 1, 5), jnp.array([1e-8, 1.0]),
    jnp.array([1e10, 1.0]), jnp.array([[1.5, -2.25], [3.0, 4.0]], jnp.float16),
    jnp.array([True]), jnp.zeros((2, 2, 2)), jnp.array([jnp.nan, jnp.inf, -jnp.inf]),
    jnp.arange(3, dtype=jnp.uint8), jnp.array([1 + 2j, 3 - 4j]), jnp.arange(100),
    jnp.arange(2000.0), jnp.array(-0.0), jnp.array(123456789.0), jnp.ones((1, 1, 1)),
    jnp.array([0.1, 0.2, 0.3], dtype=jnp.bfloat16), jnp.array(7, dtype=jnp.int8),
    jnp.empty((0,)), jnp.empty((0, 3), jnp.int32),
]
for v in vals:
    print(repr(v))
    print(str(v))
print(jnp.arange(5.0) / 3)
with np.printoptions(precision=3):
    print(jnp.arange(5.0) / 3)
    print(repr(jnp.arange(5.0) / 3))

# operators with Python scalars and NumPy arrays
import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(3, dtype=jnp.int32)
f = jnp.arange(3.0)
h = jnp.ones(3, jnp.float16)
for label, v in [
    ("i32+1", x + 1), ("i32+1.5", x + 1.5), ("1-i32", 1 - x), ("i32*True", x * True),
    ("f32+2", f + 2), ("f32**2", f ** 2), ("2**f32", 2 ** f), ("f16*2.0", h * 2.0),
    ("i32/2", x / 2), ("i32//2", x // 2), ("i32%2", x % 2), ("-i32", -x),
    ("i32+np.int64", x + np.int64(1)), ("i32+np.ones", x + np.ones(3)),
    ("f16+np.f32", h + np.float32(1)), ("np+jnp", np.arange(3) + f),
    ("i32 > 1", x > 1), ("~i32", ~x), ("i32&1", x & 1), ("i32<<1", x << 1),
    ("abs", abs(-f)), ("f@f", f @ f), ("1j*f", 1j * f), ("c==", x == 1.0),
    ("f16+1j", h + 1j), ("bool+1", jnp.array([True, False]) + 1),
    ("bool+bool", jnp.array([True]) + jnp.array([True])),
    ("u8+300", jnp.uint8(1) + 3), ("round", round(jnp.float32(2.6))),
    ("divmod", divmod(x, 2)),
]:
    print(label, repr(v))
try:
    jnp.uint8(1) + 300
except Exception as e:
    print(type(e).__name__, e)

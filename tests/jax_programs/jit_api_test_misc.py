# assertions from JAX's api_test.py jit tests, as prints
import copy
import jax
import jax.numpy as jnp
import numpy as np

side = []
def f(x, y, z, flag=False, flag2=False):
    del flag2
    assert flag
    side.append(None)
    return 100 * x + 10 * y + z
f1 = jax.jit(f, static_argnames=("flag",))
print(f1(1, 2, 3, flag=True), len(side))
print(f1(2, 1, 3, flag=True), len(side))
print(f1(2, 1, 3, flag=True, flag2=True), len(side))
try:
    jax.jit(3)
except TypeError as e:
    print("TypeError", e)
print(jax.jit(lambda x: x * 2)(1 + 2j))
print(jax.jit(lambda *args: sum(args))(*range(100)))
x = jnp.arange(3)
print(copy.copy(x), copy.deepcopy(x), type(copy.deepcopy(x)).__name__)
print(jax.jit(copy.copy)(x))
print(jax.jit(lambda x: x)(np.ma.array([1, 2]) if False else np.array([1, 2])))
try:
    jax.jit(lambda x: x)(np.ma.array([1, 2], mask=[0, 1]))
except Exception as e:
    print(type(e).__name__, e)
def g(x):
    return x
try:
    jax.jit(g)(b"bytes")
except TypeError as e:
    print(str(e).split(" as an abstract")[0].split(" at 0x")[0])
print(jax.jit(lambda x: x.dtype == jnp.float32)(1.0))
print(jax.jit(lambda x: x.shape)(jnp.ones((2, 3))))
print(jax.jit(lambda x: (x.ndim, x.size))(jnp.ones((2, 3))))
print(jax.jit(lambda: jnp.zeros(3, dtype=int))())
@jax.jit
def h(x):
    return jnp.where(x > 0, x, jnp.zeros_like(x))
print(h(jnp.array([-1.0, 2.0])))
print(repr(jax.jit(lambda x: x)(np.array(1, np.int16))))
print(repr(jax.jit(lambda x: x)(np.bool_(True))))
print(repr(jax.jit(lambda x: x + 1)(np.float16(1))))
print(repr(jax.jit(lambda x: x)(jnp.array(2, jnp.bfloat16))))

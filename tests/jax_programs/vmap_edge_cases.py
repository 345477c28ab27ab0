# vmap edge cases: empty / size-1 batches, dtypes, weak types, scalars out
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

show("empty", lambda: jax.vmap(lambda v: v.sum())(jnp.ones((0, 3))))
show("empty_shape", lambda: jax.vmap(lambda v: v * 2)(jnp.ones((0, 3))).shape)
show("empty_jaxpr", lambda: jax.make_jaxpr(jax.vmap(lambda v: v.sum()))(jnp.ones((0, 3))))
show("size1", lambda: jax.vmap(lambda v: v @ v)(jnp.ones((1, 3))))
show("bool", lambda: jax.vmap(lambda v: ~v)(jnp.array([True, False])))
show("complex", lambda: jax.vmap(lambda v: v * 1j)(jnp.arange(3.0)))
show("int8", lambda: jax.vmap(lambda v: v + 1)(jnp.arange(3, dtype=jnp.int8)))
show("f16", lambda: jax.vmap(lambda v: v * 2)(jnp.arange(3, dtype=jnp.float16)))
show("bf16", lambda: jax.vmap(lambda v: v * 2)(jnp.arange(3, dtype=jnp.bfloat16)))
show("uint32", lambda: jax.vmap(lambda v: v >> 1)(jnp.arange(4, dtype=jnp.uint32)))
show("weak_in", lambda: jax.vmap(lambda v: v * 2)(jnp.asarray([1.0, 2.0], dtype=float)))
show("python_scalar_out", lambda: jax.vmap(lambda v: 1.0)(jnp.ones(3)))
show("python_int_out_none", lambda: jax.vmap(lambda v: (v, 7), out_axes=(0, None))(jnp.ones(2)))
show("np_in", lambda: jax.vmap(lambda v: v + 1)(np.arange(3.0)))
show("np_int64_in", lambda: jax.vmap(lambda v: v + 1)(np.arange(3, dtype=np.int64)))
show("list_in", lambda: jax.vmap(lambda v: v + 1)([1.0, 2.0]))
show("list_in2", lambda: jax.vmap(lambda v: v[0] + v[1])([jnp.ones(2), jnp.zeros(2)]))
show("tuple_out_axes", lambda: jax.vmap(lambda v: (v, v), out_axes=(0, 1))(jnp.ones((2, 3))))
show("out_axes_list", lambda: jax.vmap(lambda v: [v, v], out_axes=[0, 1])(jnp.ones((2, 3)))[1].shape)
show("dict_out_mismatch", lambda: jax.vmap(lambda v: {'a': v}, out_axes={'b': 0})(jnp.ones(2)))
show("inner_size", lambda: jax.vmap(lambda v: jnp.zeros(v.shape[0]))(jnp.ones((2, 3))))
show("shape_in_fn", lambda: jax.vmap(lambda v: jnp.arange(v.size))(jnp.ones((2, 3))))
show("iota_dtype", lambda: jax.vmap(lambda v: v + lax.iota(jnp.float32, 3))(jnp.ones((2, 3))))
show("axis_size_only", lambda: jax.vmap(lambda: 3.0, axis_size=2)())
show("axis_size_jaxpr", lambda: jax.make_jaxpr(jax.vmap(lambda: jnp.arange(3), axis_size=2))())
show("float0_grad", lambda: jax.vmap(jax.grad(lambda x, i: x * i, allow_int=True), in_axes=(0, 0))(jnp.ones(2), jnp.arange(2)))
show("complex_grad", lambda: jax.vmap(jax.grad(lambda z: jnp.abs(z) ** 2))(jnp.array([1.0 + 1j, 2.0])))
show("dtype_promotion", lambda: jax.vmap(lambda a, b: a + b)(jnp.arange(2, dtype=jnp.int32), jnp.arange(2, dtype=jnp.float16)))
show("x64_scalar", lambda: jax.vmap(lambda a: a * np.float64(2))(jnp.arange(2.0)).dtype)

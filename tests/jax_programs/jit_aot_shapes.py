# AOT with ShapeDtypeStruct, trace, in_tree, out_info
import jax
import jax.numpy as jnp
import numpy as np

def f(x, y): return 2 * x + y
x, y = 3, 4
lowered = jax.jit(f).lower(x, y)
compiled = lowered.compile()
print(compiled(x, y))
try:
    compiled(1., 2.)
except Exception as e:
    print(type(e).__name__)
    print(e)

i32_scalar = jax.ShapeDtypeStruct((), jnp.dtype('int32'))
print(jax.jit(f).lower(i32_scalar, i32_scalar).compile()(x, y))
x_1d = y_1d = jnp.arange(3)
print(jax.jit(f).lower(i32_scalar, i32_scalar).compile().in_tree if False else "")
traced = jax.jit(f).trace(x, y)
print(traced.jaxpr)
print(type(traced).__name__)
print(compiled.in_tree)
print(lowered.in_tree)
print(lowered.out_info)
print(compiled.out_info)
print(traced.out_info)
print(compiled.args_info if False else "")

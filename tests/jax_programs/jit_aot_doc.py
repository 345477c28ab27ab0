# AOT doc walkthrough (trace, lower, compile, cost analysis, static args, vmap of compiled)
import jax
import jax.numpy as jnp
import numpy as np

def f(x, y): return 2 * x + y
x, y = 3, 4
traced = jax.jit(f).trace(x, y)
print(traced.jaxpr)
lowered = traced.lower()
print(lowered.as_text())
compiled = lowered.compile()
print(compiled.cost_analysis()['flops'])
print(repr(compiled(x, y)))
i32_scalar = jax.ShapeDtypeStruct((), jnp.dtype('int32'))
print(repr(jax.jit(f).lower(i32_scalar, i32_scalar).compile()(x, y)))
x_1d = y_1d = jnp.arange(3)
try:
    jax.jit(f).lower(i32_scalar, i32_scalar).compile()(x_1d, y_1d)
except TypeError as e:
    print(e)
x_f = y_f = jnp.float32(72.)
try:
    jax.jit(f).lower(i32_scalar, i32_scalar).compile()(x_f, y_f)
except TypeError as e:
    print(e)
lowered_with_x = jax.jit(f, static_argnums=0).lower(7, 8)
print(lowered_with_x.as_text())
print(repr(lowered_with_x.compile()(5)))
try:
    jax.jit(f, static_argnums=0).lower(i32_scalar, i32_scalar)
except Exception as e:
    print(type(e).__name__, e)
print(repr(jax.jit(f, static_argnums=0).lower(10, i32_scalar).compile()(5)))
def g(x):
    assert x.shape == (3, 2)
    return x @ jnp.ones(2)
def make_z(*shape):
    return jnp.arange(np.prod(shape)).reshape(shape)
z, zs = make_z(3, 2), make_z(4, 3, 2)
g_jit = jax.jit(g)
g_aot = jax.jit(g).lower(z).compile()
print(repr(jax.vmap(g_jit)(zs)))
try:
    jax.vmap(g_aot)(zs)
except TypeError as e:
    print(str(e).split("<class")[0])
try:
    jax.jit(g_aot)(z)
except TypeError as e:
    print(str(e).split("<class")[0])
print(compiled.as_text() is not None, type(compiled.as_text()).__name__)
print(lowered.compiler_ir('stablehlo') is not None)
print(type(lowered.as_text(dialect='hlo')).__name__, 'HloModule' in lowered.as_text(dialect='hlo'))

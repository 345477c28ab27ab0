# jit(f).lower(...).as_text(): dead equations and unused inputs are not lowered (keep_unused keeps them); a fori_loop's unused counter is dropped from the scan
import jax, jax.numpy as jnp
print(jax.jit(lambda x, y: x * 2).lower(1., 2.).as_text())
def f(x):
    y = jnp.sin(x)
    return x * 2
print(jax.jit(f).lower(1.).as_text())
print(jax.jit(lambda x, y: x * 2, keep_unused=True).lower(1., 2.).as_text())
def g(x):
    return jax.lax.fori_loop(0, 3, lambda i, c: c * 2, x)
print(jax.jit(g).lower(1.0).as_text())
print(jax.jit(g).lower(1.0).compile()(1.0))
print(jax.jit(lambda x, y: x * 2).lower(1., 2.).compile()(1., 2.))

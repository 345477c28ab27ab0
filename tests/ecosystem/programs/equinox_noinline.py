"""equinox's noinline: a function compiled once as a host callback
(``mlir.emit_python_callback``) and called from jitted code, differentiated and vmapped."""
import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp


def f(x, y):
    return jnp.sin(x) * y + 1.0


g = eqxi.noinline(f)
x, y = jnp.arange(3.0), jnp.float32(2.0)
print("eager", g(x, y))
print("jit", eqx.filter_jit(g)(x, y))
print("twice", eqx.filter_jit(lambda a, b: g(a, b) + g(b * a, a))(x, y))
print("grad", eqx.filter_jit(jax.grad(lambda a, b: g(a, b).sum()))(x, y))
print("vmap", eqx.filter_jit(jax.vmap(g, in_axes=(0, None)))(x, y))
lowered = eqx.filter_jit(g).lower(x, y).as_text()
print("host callback", "custom_call @xla_ffi_python_cpu_callback" in lowered)

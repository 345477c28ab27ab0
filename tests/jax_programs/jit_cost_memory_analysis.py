# compiled cost analysis and memory analysis fields
import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2.0 + x @ x
c = jax.jit(f).lower(jnp.ones((4, 4))).compile()
ca = c.cost_analysis()
print(type(ca).__name__)
print(sorted(k for k in ca if not k.startswith('bytes accessed') and not k.startswith('utilization'))[:5])
print(ca['flops'])
ma = c.memory_analysis()
print(type(ma).__name__ if ma is not None else None)
print(hasattr(c, 'as_text'), 'HloModule' in c.as_text())

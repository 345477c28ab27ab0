# jax.ad: f_vjp.with_refs(...) returns, drops or accumulates each input cotangent into a ref.
import jax, jax.numpy as jnp, numpy as np
f = lambda x, y: jnp.sin(x) * y
x, y = jnp.arange(3.), jnp.ones(3) * 2
out, f_vjp = jax.vjp(f, x, y)
ref = jax.new_ref(jnp.ones(3))
bwd = f_vjp.with_refs(jax.ad.GradValue(), ref)
print(type(bwd).__name__)
res = bwd(jnp.ones(3))
print(res)
print(ref[...])
res = bwd(jnp.ones(3))
print(ref[...])
print(f_vjp.with_refs(jax.ad.DontWant(), jax.ad.GradValue())(jnp.ones(3)))
print(jax.ad.DontWant(), jax.ad.DidntWant(), jax.ad.GradRef(), jax.ad.GradValue())
print(jax.tree.leaves(jax.ad.DidntWant()), jax.tree.leaves(jax.ad.GradRef()))
print(jax.ad.DontWant() == jax.ad.DontWant(), hash(jax.ad.GradValue()) == hash(jax.ad.GradValue()))
try: f_vjp.with_refs(jax.ad.GradValue())
except Exception as e: print(type(e).__name__, e)
def step(x, y, ref):
    out, f_vjp = jax.vjp(f, x, y)
    f_vjp.with_refs(jax.ad.DontWant(), ref)(jnp.ones(3))
    return out
ref2 = jax.new_ref(jnp.zeros(3))
print(jax.jit(step)(x, y, ref2), ref2[...])
def step2(x, y):
    ref = jax.new_ref(jnp.zeros(3))
    out, f_vjp = jax.vjp(f, x, y)
    f_vjp.with_refs(jax.ad.DontWant(), ref)(jnp.ones(3))
    return out, ref[...]
print(jax.jit(step2)(x, y))
print(jax.grad(lambda x: f(x, y).sum())(x))
# Nested inputs: one entry per leaf, in the primals' tree structure.
g = lambda p: jnp.sum(p["w"] * p["b"][0])
_, g_vjp = jax.vjp(g, {"w": jnp.ones(2), "b": (jnp.float32(3.),)})
acc = jax.new_ref(jnp.zeros(2))
print(g_vjp.with_refs({"w": acc, "b": (jax.ad.GradValue(),)})(jnp.float32(2.)), acc[...])

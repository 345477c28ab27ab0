import jax
import jax.numpy as jnp
from jax import lax
def f(x, y):
    z = lax.cond(x.sum() > 0, lambda a: a * 2, lambda a: a + 1, y)
    return jnp.sin(z) + x
cj = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
print(cj.pretty_print(use_color=False))
print(cj.jaxpr.pretty_print(use_color=False))
print(cj.jaxpr.pretty_print(use_color=False, print_shapes=False))
print(cj.pretty_print(use_color=False, custom_pp_eqn_rules=False) if False else "")
print(str(cj.jaxpr))
print(cj.jaxpr.eqns[-1])
print(len(cj.eqns), [e.primitive.name for e in cj.eqns])
print([str(v.aval) for v in cj.jaxpr.invars])
print(cj.eqns[3].params.keys())
print(type(cj.eqns[3].params["branches"][0]).__name__)
print(cj.eqns[3].params["branches"][0])
print(cj.jaxpr.pretty_print(use_color=False, width=40))
print(repr(cj.in_avals[0]), cj.out_avals[0].shape, cj.out_avals[0].dtype)


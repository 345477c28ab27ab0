import jax
import jax.numpy as jnp
def f(x, y):
    return {"s": x + y, "p": (x * y, jnp.sin(x))}
print(jax.make_jaxpr(f)(1.0, 2.0))
jx, shape = jax.make_jaxpr(f, return_shape=True)(1.0, jnp.ones(3))
print(jx)
print(shape)
def g(d, l):
    return d["a"] * l[0] + l[1]
print(jax.make_jaxpr(g)({"a": 1.0, "b": 2}, [jnp.ones(2), 3.0]))
def h(x, flag):
    return x if flag else -x
print(jax.make_jaxpr(h, static_argnums=1)(1.0, True))
print(jax.make_jaxpr(h, static_argnums=(1,))(1.0, False))
cj = jax.make_jaxpr(lambda x: x * 2)(3.0)
print(type(cj).__name__)
print(cj.jaxpr)
print(cj.consts)
print(cj.in_avals, cj.out_avals)
print(cj.eqns)
print(len(cj.jaxpr.invars), len(cj.jaxpr.outvars))
print(cj.eqns[0].primitive, cj.eqns[0].params)

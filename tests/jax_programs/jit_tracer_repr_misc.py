# tracers printed in f-strings, str(), avals, typeof inside transformations; ClosedJaxpr attributes
import jax
import jax.numpy as jnp

def f(x):
    print(f"fstr {x}")
    print("str", str(x))
    print("aval", x.aval, jax.typeof(x), x.shape, x.dtype, x.ndim, x.size, x.weak_type)
    print("sum", x.sum())
    return x * 2
jax.jit(f)(jnp.arange(3.0))
jax.vmap(f)(jnp.arange(3.0))
jax.grad(lambda x: f(x).sum())(jnp.arange(3.0))
jax.jvp(f, (1.0,), (1.0,))
jp = jax.make_jaxpr(lambda x, y: (jnp.sin(x) + y, x))(jnp.ones(2), 1.0)
print(jp.in_avals, jp.out_avals)
print(jp.consts, jp.literals if hasattr(jp, 'literals') else '')
print([str(e.primitive) for e in jp.eqns], len(jp.jaxpr.eqns))
print(jp.eqns[0])
print(repr(jp.jaxpr.invars[0].aval))
print(type(jp).__name__, type(jp.jaxpr).__name__)

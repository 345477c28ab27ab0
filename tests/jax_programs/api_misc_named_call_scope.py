# named_call and named_scope
import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2
g = jax.named_call(f, name='my_f')
print(jax.make_jaxpr(g)(1.0))
print(g(1.0))
print(jax.make_jaxpr(jax.named_call(lambda x: x + 1))(1.0))
def h(x):
    with jax.named_scope("outer"):
        with jax.named_scope("inner"):
            y = x * 2
        return y + 1
print(jax.make_jaxpr(h)(1.0))
print(jax.jit(h)(1.0))
print(jax.grad(g)(1.0))
print(jax.make_jaxpr(jax.grad(g))(1.0))

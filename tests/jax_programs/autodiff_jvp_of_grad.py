import jax
import jax.numpy as jnp

f = lambda x: jnp.sin(x) * x ** 2
print(repr(jax.grad(jax.grad(f))(1.0)))
print(repr(jax.grad(jax.grad(jax.grad(f)))(1.0)))
print(jax.jvp(jax.grad(f), (1.0,), (1.0,)))
print(jax.make_jaxpr(jax.grad(jax.grad(f)))(1.0))
print(jax.vmap(jax.grad(f))(jnp.arange(3.0)))
print(jax.jit(jax.grad(f))(2.0))
print(jax.grad(lambda x: jax.jit(f)(x))(2.0))
print(jax.make_jaxpr(jax.grad(lambda x: jax.jit(f)(x)))(2.0))
def tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)
grad_tanh = jax.grad(tanh)
print(grad_tanh(1.0))
print(jax.grad(jax.grad(jax.grad(tanh)))(1.0))

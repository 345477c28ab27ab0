import jax
import jax.numpy as jnp

@jax.custom_gradient
def f(x):
  return x ** 2, lambda g: (g * x,)
print(f(3.))
print(jax.grad(f)(3.))

@jax.custom_gradient
def f2(x, y):
  return x * y, lambda g: (g * y, g * x)
print(f2(3., 4.))
print(jax.grad(f2, argnums=(0, 1))(3., 4.))
print(jax.make_jaxpr(jax.grad(f2, argnums=(0, 1)))(3., 4.))
print(jax.vmap(jax.grad(f))(jnp.arange(3.)))
print(jax.jit(jax.grad(f))(2.0))

@jax.custom_gradient
def clip_grad(x):
  return x, lambda g: (jnp.clip(g, -1.0, 1.0),)
print(jax.grad(lambda x: 5.0 * clip_grad(x))(1.0))

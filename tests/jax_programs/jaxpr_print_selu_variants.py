import jax
import jax.numpy as jnp
def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
x = jnp.arange(5.0)
print(jax.make_jaxpr(selu)(x))
print(jax.make_jaxpr(jax.jit(selu))(x))
print(jax.make_jaxpr(jax.vmap(selu))(x))
print(jax.make_jaxpr(jax.grad(lambda x: selu(x).sum()))(x))
print(jax.make_jaxpr(selu)(1.0))
print(jax.make_jaxpr(selu, static_argnums=(1,))(x, 2.0))
print(jax.make_jaxpr(lambda x: selu(x, lambda_=2))(jnp.arange(3)))

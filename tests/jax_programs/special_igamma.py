import jax, jax.numpy as jnp
from jax import lax
from jax.scipy.special import gammainc, gammaincc
a = jnp.array([0.5, 1.0, 2.0, 5.0, 10.0, 0.1, 3.0, 0.0, -1.0, 2.0])
x = jnp.array([0.2, 1.0, 3.0, 4.0, 20.0, 0.01, 0.0, 1.0, 1.0, jnp.inf])
print(lax.igamma(a, x)); print(lax.igammac(a, x)); print(lax.igamma_grad_a(a, x))
print(gammainc(2, 1.5), gammaincc(2.0, jnp.array([0.5, 3.0])), gammainc(jnp.array([1.0, 2.0]), 1.0))
print(jax.grad(lambda a: lax.igamma(a, 2.0))(3.0), jax.grad(lambda x: lax.igammac(3.0, x))(2.0))
print(jax.grad(gammainc, argnums=(0, 1))(2.5, 1.5))
k = jax.random.PRNGKey(0)
print(jax.grad(lambda a: jax.random.gamma(k, a))(2.0))
print(jax.grad(lambda a: jax.random.gamma(k, a, shape=(3,)).sum())(jnp.array([0.5, 1.5, 4.0])))
print(jax.grad(lambda a: jax.random.loggamma(k, a))(0.3))
print(jax.vmap(jax.grad(lambda a: jax.random.gamma(k, a)))(jnp.array([1.0, 2.0])))
print(jax.grad(lambda a: jax.random.beta(k, a, 3.0))(2.0), jax.grad(lambda a: jax.random.dirichlet(k, a).sum())(jnp.array([1.0, 2.0])))
print(lax.igamma(jnp.array([2.0], jnp.bfloat16), jnp.array([1.5], jnp.bfloat16)))
with jax.enable_x64(True):
    print(lax.igamma(jnp.array([0.5, 30.0]), jnp.array([0.3, 25.0])), lax.igammac(7.0, 3.0))

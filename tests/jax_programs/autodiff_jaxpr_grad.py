import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * jnp.cos(x) + x ** 3
print(jax.make_jaxpr(jax.grad(f))(1.0))
print(jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0))
print(jax.make_jaxpr(lambda x: jax.vjp(f, x)[1](1.0))(1.0))
def loss(w, x):
    return jnp.sum(jnp.tanh(jnp.dot(x, w)) ** 2)
print(jax.make_jaxpr(jax.grad(loss))(jnp.ones(3), jnp.ones((2, 3))))
print(jax.make_jaxpr(jax.value_and_grad(lambda x: jnp.exp(x).sum()))(jnp.ones(2)))
print(jax.make_jaxpr(jax.hessian(lambda x: jnp.sum(x ** 3)))(jnp.ones(2)))

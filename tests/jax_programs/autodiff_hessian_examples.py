import jax
import jax.numpy as jnp

def hessian(f):
    return jax.jacfwd(jax.grad(f))
f = lambda x: jnp.sum(jnp.sin(x) * x ** 2)
x = jnp.array([0.5, 1.0, 1.5])
print(hessian(f)(x))
print(jax.hessian(f)(x))
print(jax.jacrev(jax.jacrev(f))(x))
def loss(W, b, x):
    return jnp.sum(jnp.tanh(W @ x + b) ** 2)
W = jnp.eye(2) * 0.5
b = jnp.array([0.1, -0.1])
xx = jnp.array([1.0, 2.0])
H = jax.hessian(loss, argnums=(0, 1))(W, b, xx)
print(jax.tree_util.tree_map(jnp.shape, H))
print(H[1][1])
print(jax.make_jaxpr(jax.hessian(lambda x: jnp.sum(jnp.exp(x))))(jnp.ones(2)))
print(repr(jax.hessian(lambda x: x ** 4)(jnp.float32(2.0))))
print(repr(jax.hessian(lambda x: x ** 4)(2.0)))

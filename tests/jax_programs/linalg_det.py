import jax, jax.numpy as jnp
S = jnp.array([[1., 2., 3., 4.], [2., 4., 6., 8.], [0., 1., 0., 1.], [1., 0., 2., 1.]])
R = jnp.array([[1., 2., 3., 4.], [2., 4., 6., 8.], [3., 6., 9., 12.], [1., 0., 2., 1.]])
N = jnp.array([[4., 1., 0., 2.], [1., -3., 1., 0.], [0., 1., 2., 1.], [2., 0., 1., -5.]])
for M in (S, R, N):
    print(jnp.linalg.det(M), jax.grad(jnp.linalg.det)(M))
    print(jnp.linalg.slogdet(M), jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(M))
print(jax.grad(lambda m: jnp.linalg.slogdet(m)[1])(jnp.array([[2., 1.], [1., 3.]])))
print(jax.jvp(jnp.linalg.slogdet, (jnp.array([[2.]]),), (jnp.array([[1.]]),)))
print(jax.vmap(jax.grad(jnp.linalg.det))(jnp.stack([N, 2 * N])))
print(jnp.linalg.slogdet(jnp.array([[-1., 0., 0., 0.], [0., 1., 0., 0.], [0., 0., -2., 0], [0, 0, 0, 1.]])))
print(jax.make_jaxpr(jax.grad(jnp.linalg.det))(jnp.eye(2)))
print(jax.make_jaxpr(jnp.linalg.slogdet)(jnp.eye(2)))

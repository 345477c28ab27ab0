# grad of a function of a weakly typed scalar: the cotangent's conversions fold into the literal
import jax, jax.numpy as jnp
print(jax.make_jaxpr(jax.grad(lambda x: (x*3).sum()))(2.0))
print(jax.make_jaxpr(jax.grad(lambda x: (x*3.0).sum()))(2.0))
print(jax.make_jaxpr(jax.grad(lambda x: x.sum()))(2.0))
print(jax.make_jaxpr(jax.grad(lambda x, n: (x*n).sum(), argnums=(0,1), allow_int=True))(2.0, 3))

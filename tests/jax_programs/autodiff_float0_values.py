# float0 tangents of integer inputs are host TypedNdArrays (repr dtype=void); vjp takes any cotangent for an integer output
import jax, jax.numpy as jnp
print(repr(jax.grad(lambda x, n: (x*n).sum(), argnums=(0,1), allow_int=True)(2.0, jnp.arange(3))[1]))
print(repr(jax.grad(lambda x, n: x*n.sum(), argnums=(0,1), allow_int=True)(2.0, jnp.ones((2,3),int))[1]))
print(repr(jax.jit(jax.grad(lambda x, n: x*n, argnums=(0,1), allow_int=True))(2.0, 3)))
print(repr(jax.vjp(lambda n: n*2, 3)[1](1)))
print(repr(jax.grad(lambda x, b: x * b, argnums=(0, 1), allow_int=True)(2.0, True)))

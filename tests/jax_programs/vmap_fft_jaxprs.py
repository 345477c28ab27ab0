# jaxprs of jnp.fft under grad and vmap, padding, shifts, frequencies
import jax, jax.numpy as jnp
x = jnp.arange(5.0)
print(jax.make_jaxpr(jax.grad(lambda a: jnp.fft.irfft(a * (1 + 1j)).sum()))(jnp.ones(3)))
print(jax.make_jaxpr(jax.grad(lambda a: jnp.abs(jnp.fft.rfft(a)).sum()))(x))
print(jax.make_jaxpr(jax.grad(lambda a: jnp.abs(jnp.fft.fft2(a)).sum()))(jnp.ones((2, 3))))
print(jax.make_jaxpr(jax.vmap(jnp.fft.irfft))(jnp.ones((2, 3), jnp.complex64)))
print(jax.make_jaxpr(lambda a: jnp.fft.fft(a, n=6))(x))
print(jax.make_jaxpr(lambda a: jnp.fft.fftshift(a))(x))
print(jax.make_jaxpr(lambda: jnp.fft.fftfreq(4))())

# jnp.fft (docstring-style examples), its jaxprs, vmap and grad
import numpy as np
import jax
import jax.numpy as jnp

x = jnp.array([1.0, 2.0, 0.0, -1.0])
print(jnp.fft.fft(x))
print(jnp.fft.ifft(jnp.fft.fft(x)))
print(jnp.fft.rfft(x))
print(jnp.fft.irfft(jnp.fft.rfft(x)))
print(jnp.fft.fft(x, n=6))
print(jnp.fft.fft(x, n=3, norm="ortho"))
print(jnp.fft.fft(x, norm="forward"))
print(jnp.fft.ifft(x, norm="ortho"))
print(jnp.fft.irfft(jnp.fft.rfft(x), n=5))
m = jnp.arange(12.0).reshape(3, 4)
print(jnp.fft.fft2(m))
print(jnp.fft.ifft2(jnp.fft.fft2(m)).real)
print(jnp.fft.rfft2(m))
print(jnp.fft.irfft2(jnp.fft.rfft2(m)))
print(jnp.fft.fftn(m, axes=(0,)))
print(jnp.fft.rfftn(jnp.ones((2, 2, 2, 2))).shape)
print(jnp.fft.fftn(jnp.arange(16.0).reshape(2, 2, 2, 2))[1, 1])
print(jnp.fft.irfftn(jnp.fft.rfftn(jnp.arange(16.0).reshape(2, 2, 2, 2)))[1, 1])
print(jnp.fft.fft(m, axis=0))
print(jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0])))
print(jnp.fft.ihfft(jnp.array([1.0, 2.0, 3.0, 4.0])))
print(jnp.fft.fftfreq(5), jnp.fft.fftfreq(4, d=0.5))
print(jnp.fft.rfftfreq(5), jnp.fft.rfftfreq(6, 0.1))
print(jnp.fft.fftshift(jnp.fft.fftfreq(6)), jnp.fft.ifftshift(jnp.fft.fftshift(jnp.arange(5))))
print(jnp.fft.fftshift(m, axes=1))
print(jnp.fft.fft(jnp.arange(4)).dtype, jnp.fft.rfft(jnp.arange(4)).dtype, jnp.fft.irfft(jnp.ones(3, jnp.complex64)).dtype)
print(jax.make_jaxpr(jnp.fft.fft)(x))
print(jax.make_jaxpr(jnp.fft.rfft)(x))
print(jax.make_jaxpr(lambda a: jnp.fft.fft(a, norm="ortho"))(x))
print(jax.make_jaxpr(jax.vmap(jnp.fft.fft))(m))
print(jax.make_jaxpr(jax.vmap(jnp.fft.fft, in_axes=1))(m))
print(jax.vmap(jnp.fft.rfft)(m))
print(jax.grad(lambda a: jnp.fft.fft(a).real.sum())(x))
print(jax.grad(lambda a: jnp.abs(jnp.fft.rfft(a)).sum())(x))
print(jax.grad(lambda a: jnp.fft.irfft(a * (1 + 1j)).sum())(jnp.ones(3)))
print(jax.jvp(jnp.fft.ifft, (x,), (jnp.ones(4),)))
print(jax.make_jaxpr(jax.grad(lambda a: jnp.abs(jnp.fft.rfft(a)).sum()))(x))
print(jax.lax.fft(x.astype(jnp.complex64), jax.lax.FftType.FFT, (4,)))
print(jax.lax.fft(x, 'rfft', (4,)))
for bad in [lambda: jnp.fft.fft(x, n=0), lambda: jnp.fft.fft(x, axis=(0,)), lambda: jnp.fft.fft2(x, axes=(0,)),
            lambda: jnp.fft.fft(x, norm="bad"), lambda: jnp.fft.fftn(m, axes=(0, 0)), lambda: jax.lax.fft(x, "bad", (4,)),
            lambda: jnp.fft.fftfreq([3])]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)

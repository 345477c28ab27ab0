import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, str(e)[:600])

f = lambda z: jnp.sin(z) ** 2
z = 3.0 + 4.0j
show("grad holo", lambda: jax.grad(f, holomorphic=True)(z))
show("grad complex in", lambda: jax.grad(lambda z: jnp.abs(z) ** 2)(z))
show("grad real out complex", lambda: jax.grad(lambda z: jnp.real(z * jnp.conj(z)))(z))
show("grad holo real in", lambda: jax.grad(f, holomorphic=True)(3.0))
show("grad nonholo complex out", lambda: jax.grad(f)(z))
show("jacfwd holo", lambda: jax.jacfwd(f, holomorphic=True)(z))
show("jacrev holo", lambda: jax.jacrev(f, holomorphic=True)(z))
show("jacfwd holo real", lambda: jax.jacfwd(f, holomorphic=True)(1.0))
show("jacrev holo real", lambda: jax.jacrev(f, holomorphic=True)(1.0))
show("jacrev complex out", lambda: jax.jacrev(f)(z))
show("jacfwd complex in", lambda: jax.jacfwd(f)(z))
show("vjp complex", lambda: jax.vjp(f, z)[1](1.0 + 0j))
show("jvp complex", lambda: jax.jvp(f, (z,), (1.0 + 0j,)))
show("hessian holo", lambda: jax.hessian(f, holomorphic=True)(z))
def f2(z):
    x, y = jnp.real(z), jnp.imag(z)
    return x ** 2 + y ** 2
show("grad f2", lambda: jax.grad(f2)(z))
show("grad conj", lambda: jax.grad(lambda z: jnp.real(jnp.conj(z) * z))(z))
show("grad abs arr", lambda: jax.grad(lambda z: jnp.sum(jnp.abs(z)))(jnp.array([3+4j, 1j])))
show("vag holo", lambda: jax.value_and_grad(f, holomorphic=True)(z))

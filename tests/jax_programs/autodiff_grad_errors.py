import jax
import jax.numpy as jnp

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", r)
    except Exception as e:
        print(label, type(e).__name__, str(e)[:600])

show("nonscalar", lambda: jax.grad(lambda x: x * 2)(jnp.ones(3)))
show("int input", lambda: jax.grad(lambda x: x * 2)(3))
show("int array input", lambda: jax.grad(lambda x: jnp.sum(x))(jnp.arange(3)))
show("complex out", lambda: jax.grad(lambda x: x * 1j)(1.0))
show("tuple out", lambda: jax.grad(lambda x: (x, x))(1.0))
show("argnums oob", lambda: jax.grad(lambda x: x, argnums=1)(1.0))
show("string", lambda: jax.grad(lambda x: 1.0)("a"))
show("bool input", lambda: jax.grad(lambda x: 1.0)(True))
show("int out", lambda: jax.grad(lambda x: 3)(1.0))
show("list out", lambda: jax.grad(lambda x: [x])(1.0))
show("vag nonscalar", lambda: jax.value_and_grad(lambda x: x)(jnp.ones(2)))
show("has_aux 3tuple", lambda: jax.grad(lambda x: (x, x, x), has_aux=True)(1.0))

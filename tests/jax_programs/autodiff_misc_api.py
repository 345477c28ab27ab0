import jax
import jax.numpy as jnp
import numpy as np

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e)[:300])

show("jacobian alias", lambda: jax.jacobian(lambda x: x ** 2)(jnp.arange(2.0)))
show("reduce_axes grad", lambda: jax.grad(lambda x: x, reduce_axes=('i',))(1.0))
show("reduce_axes vjp", lambda: jax.vjp(lambda x: x, 1.0, reduce_axes=('i',)))
show("kwargs", lambda: jax.grad(lambda x, y=2.0: x * y)(3.0, y=4.0))
show("f16", lambda: jax.grad(lambda x: x ** 2)(jnp.float16(3.0)))
show("bf16", lambda: jax.grad(lambda x: jnp.sin(x))(jnp.bfloat16(1.0)))
show("f16 weak mix", lambda: jax.grad(lambda x: x * 2.5)(jnp.float16(3.0)))
show("int32 in jvp out", lambda: jax.jvp(lambda x: jnp.argmax(x), (jnp.arange(3.0),), (jnp.ones(3),)))
show("vjp f16 ct", lambda: jax.vjp(lambda x: x * 2, jnp.float16(1.0))[1](jnp.float32(1.0)))
show("grad of Partial", lambda: jax.grad(jax.tree_util.Partial(lambda a, x: a * x, 3.0))(2.0))
show("hessian scalar weak", lambda: jax.hessian(lambda x: x ** 3)(1.0))
show("jacrev scalar out", lambda: jax.jacrev(lambda x: jnp.sum(x ** 2))(jnp.arange(3.0)))
show("jacfwd none", lambda: jax.jacfwd(lambda x: None)(1.0))
show("grad none", lambda: jax.grad(lambda x: None)(1.0))
show("vjp none out", lambda: jax.vjp(lambda x: None, 1.0)[0])
show("jvp empty", lambda: jax.jvp(lambda: 1.0, (), ()))
show("grad empty dict", lambda: jax.grad(lambda d, x: x ** 2, argnums=(0, 1))({}, 2.0))
show("grad list arg", lambda: jax.grad(lambda l: l[0] * l[1])([2.0, 3.0]))
show("grad np float64", lambda: jax.grad(lambda x: x * 2)(np.float64(1.0)))
show("grad np array", lambda: jax.grad(lambda x: jnp.sum(x))(np.ones(2)))
show("grad python int list allow", lambda: jax.grad(lambda x: x[0] * 1.0, allow_int=True)([1, 2]))
show("value_and_grad int out", lambda: jax.value_and_grad(lambda x: jnp.int32(1))(1.0))
show("grad bool out", lambda: jax.grad(lambda x: x > 0)(1.0))
show("stop_gradient int", lambda: jax.lax.stop_gradient(jnp.arange(3)))
show("stop_gradient str", lambda: jax.lax.stop_gradient("a"))

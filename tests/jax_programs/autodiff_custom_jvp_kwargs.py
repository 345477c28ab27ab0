import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(x, y=2.0):
    return x * y
@f.defjvp
def f_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return f(x, y), tx * y + x * ty
print(f(3.0))
print(f(3.0, y=4.0))
print(jax.grad(f)(3.0))
print(jax.grad(lambda x: f(x, y=5.0))(3.0))
print(jax.grad(f, argnums=1)(3.0, 4.0))

@jax.custom_jvp
def pos(x):
    return jnp.where(x > 0, x, 0.0)
pos.defjvp(lambda p, t: (pos(p[0]), jnp.where(p[0] > 0, t[0], 0.0)))
print(jax.jit(jax.vmap(jax.grad(pos)))(jnp.array([-1.0, 1.0])))

@jax.custom_jvp
def int_out(x):
    return jnp.asarray(x).astype(jnp.int32), x * 2
@int_out.defjvp
def int_out_jvp(p, t):
    x, = p
    tx, = t
    return int_out(x), (jnp.zeros(jnp.shape(x), jax.dtypes.float0), tx * 2)
print(jax.jvp(int_out, (3.5,), (1.0,)))
print(jax.grad(lambda x: int_out(x)[1])(3.5))

# jaxprs of custom_vmap functions (staged, vmapped, jvp)
import jax, jax.numpy as jnp
@jax.custom_batching.custom_vmap
def f(x, y):
    return x + y
@f.def_vmap
def f_vmap_rule(axis_size, in_batched, xs, ys):
    return xs * ys, True
print(jax.make_jaxpr(f)(1.0, 2.0))
print(jax.make_jaxpr(jax.vmap(f))(jnp.ones(3), jnp.ones(3)))
print(jax.make_jaxpr(lambda a, b: jax.jvp(f, (a, b), (a, b)))(1.0, 2.0))

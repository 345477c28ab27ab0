import jax
import jax.numpy as jnp

x = jnp.arange(5.0)
fns = {
    "slice": lambda x: jnp.sum(x[1:4] ** 2),
    "int_index": lambda x: x[2] * x[3],
    "fancy": lambda x: jnp.sum(x[jnp.array([0, 2, 2])] ** 2),
    "at_set": lambda x: jnp.sum(x.at[1].set(7.0) ** 2),
    "at_add": lambda x: jnp.sum(x.at[jnp.array([0, 0])].add(x[:2]) ** 2),
    "at_mul": lambda x: jnp.sum(x.at[2].mul(3.0)),
    "concat": lambda x: jnp.sum(jnp.concatenate([x, x[::-1]]) * jnp.arange(10.0)),
    "pad": lambda x: jnp.sum(jnp.pad(x, 2) ** 2),
    "dyn_slice": lambda x: jnp.sum(jax.lax.dynamic_slice(x, (1,), (2,)) ** 2),
    "dyn_update": lambda x: jnp.sum(jax.lax.dynamic_update_slice(x, x[:2] * 2, (3,))),
    "reshape_T": lambda x: jnp.sum(x.reshape(5, 1).T @ x.reshape(5, 1)),
    "take": lambda x: jnp.sum(jnp.take(x, jnp.array([4, 0]))),
    "where_idx": lambda x: jnp.sum(jnp.where(x > 2, x, 0.0)),
    "cumprod": lambda x: jnp.sum(jnp.cumprod(x + 1.0)),
    "sort": lambda x: jnp.sort(-x)[0],
    "max": lambda x: jnp.max(x ** 2),
    "argsort_take": lambda x: x[jnp.argsort(-x)[0]],
    "roll": lambda x: jnp.sum(jnp.roll(x, 2) * jnp.arange(5.0)),
}
for name, f in fns.items():
    print(name, jax.grad(f)(x))
    print(jax.make_jaxpr(jax.grad(f))(x))

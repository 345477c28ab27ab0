# jaxprs of vmap of jnp functions
import jax
import jax.numpy as jnp

x = jnp.arange(12.0).reshape(3, 4)
i = jnp.array([[0, 1], [2, 3], [1, 1]])
for name, f, args in [
    ("argsort", jnp.argsort, (x,)),
    ("argmax", jnp.argmax, (x,)),
    ("mean", jnp.mean, (x,)),
    ("var", jnp.var, (x,)),
    ("std", jnp.std, (x,)),
    ("cumprod", jnp.cumprod, (x,)),
    ("take", jnp.take, (x, i)),
    ("take_along_axis", lambda a, b: jnp.take_along_axis(a, b, axis=0), (x, i)),
    ("roll", lambda a: jnp.roll(a, 1), (x,)),
    ("norm", jnp.linalg.norm, (x,)),
    ("clip", lambda a: jnp.clip(a, 1.0, 5.0), (x,)),
    ("einsum", lambda a, b: jnp.einsum('i,i->', a, b), (x, x)),
    ("matmul", jnp.matmul, (x, x)),
    ("outer", jnp.outer, (x, x)),
    ("stack", lambda a: jnp.stack([a, a]), (x,)),
    ("flip", jnp.flip, (x,)),
    ("diff", jnp.diff, (x,)),
    ("max", jnp.max, (x,)),
    ("logsumexp", jax.nn.logsumexp, (x,)),
    ("softmax", jax.nn.softmax, (x,)),
]:
    print(name)
    print(jax.make_jaxpr(jax.vmap(f))(*args))

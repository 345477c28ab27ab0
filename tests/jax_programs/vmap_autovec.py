# source: docs/automatic-vectorization.md
import jax
import jax.numpy as jnp

x = jnp.arange(5)
w = jnp.array([2., 3., 4.])
def convolve(x, w):
    output = []
    for i in range(1, len(x)-1):
        output.append(jnp.dot(x[i-1:i+2], w))
    return jnp.array(output)
xs = jnp.stack([x, x])
ws = jnp.stack([w, w])
batch_convolve_v2 = jax.vmap(convolve, in_axes=[0, None])
print(batch_convolve_v2(xs, w))
batch_convolve_v3 = jax.vmap(convolve, in_axes=1, out_axes=1)
xst = jnp.transpose(xs)
wst = jnp.transpose(ws)
print(batch_convolve_v3(xst, wst))
jitted = jax.jit(jax.vmap(convolve))
print(jitted(xs, ws))
print(jax.make_jaxpr(jax.vmap(convolve))(xs, ws))
print(jax.make_jaxpr(jax.vmap(convolve, in_axes=[0, None]))(xs, w))

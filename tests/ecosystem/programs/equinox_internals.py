"""equinox's own primitives and transformations: filter_custom_jvp, filter_vmap of a
vprim (equinox's primitives batch by vmap), nondifferentiable, filter_checkpoint,
filter_pure_callback, and eqx.Module with a field converter."""
import equinox as eqx
import equinox.internal as eqxi
import jax
import jax.numpy as jnp
import numpy as np


def r(x):
    return np.array2string(np.asarray(x), precision=5, floatmode="maxprec")


@eqx.filter_custom_jvp
def softclip(x, *, scale):
    return scale * jnp.tanh(x / scale)


@softclip.def_jvp
def _(primals, tangents, *, scale):
    (x,), (tx,) = primals, tangents
    y = softclip(x, scale=scale)
    return y, tx * (1 - (y / scale) ** 2)


xs = jnp.linspace(-3.0, 3.0, 7, dtype=jnp.float32)
print("softclip", r(softclip(xs, scale=2.0)))
print("grad", r(jax.vmap(jax.grad(lambda x: softclip(x, scale=2.0)))(xs)))


class Poly(eqx.Module):
    coeffs: jax.Array = eqx.field(converter=jnp.asarray)

    def __call__(self, x):
        return jnp.polyval(self.coeffs, x)


p = Poly([1.0, -2.0, 0.5])
print("poly", r(eqx.filter_vmap(p)(xs)))
print("poly grad", r(eqx.filter_grad(lambda m, x: m(x).sum())(p, xs).coeffs))

ck = eqx.filter_checkpoint(lambda x: jnp.sin(x) * x)
print("checkpoint grad", r(jax.grad(lambda x: ck(x).sum())(xs)))
print("unvmap_max", eqxi.unvmap_max(jnp.array([1, 5, 3])))
print("batched unvmap_any", jax.vmap(lambda x: eqxi.unvmap_any(x > 2))(jnp.arange(4)))
try:
    jax.grad(lambda x: eqxi.nondifferentiable(x).sum())(xs)
except RuntimeError as e:
    print("nondifferentiable:", str(e).splitlines()[0])
cb = eqx.filter_pure_callback(lambda x: np.cumsum(np.asarray(x)), xs,
                              result_shape_dtypes=jax.ShapeDtypeStruct((7,), jnp.float32))
print("callback", r(cb))
print(jax.make_jaxpr(lambda x: softclip(x, scale=2.0))(xs))
print(jax.make_jaxpr(jax.vmap(lambda x: eqxi.unvmap_any(x > 2)))(jnp.arange(4)))

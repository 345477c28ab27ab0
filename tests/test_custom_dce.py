"""Dead-code elimination through custom_jvp_call / custom_vjp_call equations: unused
outputs leave the function's jaxpr and its rules, as in JAX 0.10.2 (visible wherever a
jaxpr is pruned, e.g. under checkpoint), and the derivatives stay right."""
import numpy as np

import glassjax as jax
import glassjax.numpy as jnp


@jax.custom_jvp
def sincos(x):
    return jnp.sin(x), jnp.cos(x)


sincos.defjvp(lambda p, t: (sincos(p[0]), (jnp.cos(p[0]) * t[0], -jnp.sin(p[0]) * t[0])))


@jax.custom_vjp
def poly(x, y):
    return x ** 2 * y, x ** 3, jnp.sin(y)


def _poly_fwd(x, y):
    return poly(x, y), (x, y)


def _poly_bwd(res, ct):
    x, y = res
    return (ct[0] * 2 * x * y + ct[1] * 3 * x ** 2, ct[0] * x ** 2 + ct[2] * jnp.cos(y))


poly.defvjp(_poly_fwd, _poly_bwd)


def test_unused_custom_jvp_outputs_are_pruned_as_in_jax():
    text = str(jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: sincos(x)[0])))(1.0))
    assert text == """\
{ lambda ; a:f32[]. let
    _:f32[] = custom_jvp_call[
      name=sincos
      call_jaxpr={ lambda ; b:f32[]. let c:f32[] = sin b in (c,) }
      jvp=<lambda>
      symbolic_zeros=False
    ] a
    d:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; e:f32[] f:f32[]. let
          g:f32[] = cos e
          h:f32[] = mul g f
        in (h,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (d,) }"""


def test_pruned_custom_vjp_keeps_gradients_right():
    h = lambda x: poly(x, 2.0)[1] + poly(x, x)[0]
    exact = lambda x: 3 * x ** 2 + 3 * x ** 2          # d/dx (x**3 + x**3)
    for x in (0.5, 1.5):
        np.testing.assert_allclose(jax.grad(jax.checkpoint(h))(x), exact(x), rtol=1e-6)
        np.testing.assert_allclose(jax.jit(jax.grad(jax.checkpoint(h)))(x), exact(x),
                                   rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(jax.checkpoint(h)))(jnp.arange(3.0)),
                               exact(np.arange(3.0)), rtol=1e-6)


def test_pruned_custom_jvp_keeps_higher_derivatives_right():
    k = lambda x: sincos(x)[0] * 3.0
    np.testing.assert_allclose(jax.grad(jax.checkpoint(k))(0.3), 3 * np.cos(0.3), rtol=1e-6)
    np.testing.assert_allclose(jax.jacfwd(jax.checkpoint(k))(0.3), 3 * np.cos(0.3),
                               rtol=1e-6)
    np.testing.assert_allclose(jax.grad(jax.grad(jax.checkpoint(k)))(0.3),
                               -3 * np.sin(0.3), rtol=1e-6)

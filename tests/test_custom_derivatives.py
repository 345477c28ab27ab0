"""custom_jvp, custom_vjp and closure_convert.

Jaxpr texts are compared with what JAX 0.10.2 prints for the same programs (the expected
strings were produced by running each snippet under real JAX).
"""
import functools

import numpy as np
import pytest

import glassjax.numpy as jnp
from glassjax.ad_api import grad, jvp, linearize, value_and_grad
from glassjax import make_jaxpr
from glassjax.custom_derivatives import closure_convert, custom_jvp, custom_vjp
from glassjax.jit import jit

# ----------------------------------------------------------------------------------------
# Jaxprs, character for character as JAX prints them
# ----------------------------------------------------------------------------------------


def test_jaxpr_custom_jvp_staged():
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), 2.0 * t * jnp.cos(x)
    out = make_jaxpr(f)(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      jvp=f_jvp
      symbolic_zeros=False
    ] a
  in (b,) }"""


def test_jaxpr_custom_jvp_grad():
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), 2.0 * t * jnp.cos(x)
    out = make_jaxpr(grad(f))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; b:f32[]. let c:f32[] = sin b in (c,) }
      jvp=f_jvp
      symbolic_zeros=False
    ] a
    d:f32[] = cos a
    e:f32[] = mul 1.0:f32[] d
    f:f32[] = mul 2.0:f32[] e
  in (f,) }"""


def test_jaxpr_custom_jvp_jvp():
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), 2.0 * t * jnp.cos(x)
    out = make_jaxpr(lambda x: jvp(f, (x,), (1.0,)))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
      jvp=f_jvp
      symbolic_zeros=False
    ] a
    e:f32[] = cos a
    f:f32[] = mul 2.0:f32[] e
  in (b, f) }"""


def test_jaxpr_custom_jvp_grad_of_jit():
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), 2.0 * t * jnp.cos(x)
    out = make_jaxpr(grad(jit(f)))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] b:f32[] = jit[
      name=f
      jaxpr={ lambda ; a:f32[]. let
          _:f32[] = custom_jvp_call[
            name=f
            call_jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c in (d,) }
            jvp=f_jvp
            symbolic_zeros=False
          ] a
          b:f32[] = cos a
        in (_, b) }
    ] a
    e:f32[] = jit[
      name=f
      jaxpr={ lambda ; b:f32[] f:f32[]. let
          g:f32[] = mul f b
          e:f32[] = mul 2.0:f32[] g
        in (e,) }
    ] b 1.0:f32[]
  in (e,) }"""


def test_jaxpr_custom_vjp_staged():
    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def g_bwd(res, ct):
        cos_x, sin_x, y = res
        return (cos_x * ct * y, sin_x * ct)

    g.defvjp(g_fwd, g_bwd)
    out = make_jaxpr(g)(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = custom_vjp_call[
      name=g
      bwd=g_bwd
      call_jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = mul f e
        in (g,) }
      fwd=g_fwd
      symbolic_zeros=False
    ] a b
  in (c,) }"""


def test_jaxpr_custom_vjp_grad():
    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def g_bwd(res, ct):
        cos_x, sin_x, y = res
        return (cos_x * ct * y, sin_x * ct)

    g.defvjp(g_fwd, g_bwd)
    out = make_jaxpr(grad(g))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] = custom_vjp_call[
      name=g
      bwd=g_bwd
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = sin c
          f:f32[] = mul e d
        in (f,) }
      fwd=g_fwd
      symbolic_zeros=False
    ] a b
    g:f32[] = cos a
    h:f32[] = sin a
    i:f32[] = mul g 1.0:f32[]
    j:f32[] = mul i b
    _:f32[] = mul h 1.0:f32[]
  in (j,) }"""


def test_jaxpr_custom_vjp_grad_both():
    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def g_bwd(res, ct):
        cos_x, sin_x, y = res
        return (cos_x * ct * y, sin_x * ct)

    g.defvjp(g_fwd, g_bwd)
    out = make_jaxpr(grad(g, argnums=(0, 1)))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] = custom_vjp_call[
      name=g
      bwd=g_bwd
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = sin c
          f:f32[] = mul e d
        in (f,) }
      fwd=g_fwd
      symbolic_zeros=False
    ] a b
    g:f32[] = cos a
    h:f32[] = sin a
    i:f32[] = mul g 1.0:f32[]
    j:f32[] = mul i b
    k:f32[] = mul h 1.0:f32[]
  in (j, k) }"""


def test_jaxpr_custom_vjp_linearize():
    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def g_bwd(res, ct):
        cos_x, sin_x, y = res
        return (cos_x * ct * y, sin_x * ct)

    g.defvjp(g_fwd, g_bwd)
    out = make_jaxpr(lambda x, y: linearize(g, x, y)[1](1.0, 1.0))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] = custom_vjp_call[
      name=g
      bwd=g_bwd
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = sin c
          f:f32[] = mul e d
        in (f,) }
      fwd=g_fwd
      symbolic_zeros=False
    ] a b
    g:f32[] = cos a
    h:f32[] = sin a
    i:f32[] = custom_lin[
      bwd=g_bwd
      in_zeros=[False, False]
      num_res=3
      symbolic_zeros=False
    ] g h b 1.0:f32[] 1.0:f32[]
  in (i,) }"""


def test_jaxpr_custom_vjp_grad_of_jit():
    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), jnp.sin(x), y)

    def g_bwd(res, ct):
        cos_x, sin_x, y = res
        return (cos_x * ct * y, sin_x * ct)

    g.defvjp(g_fwd, g_bwd)
    out = make_jaxpr(grad(jit(g)))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] c:f32[] d:f32[] = jit[
      name=g
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          _:f32[] = custom_vjp_call[
            name=g
            bwd=g_bwd
            call_jaxpr={ lambda ; e:f32[] f:f32[]. let
                g:f32[] = sin e
                h:f32[] = mul g f
              in (h,) }
            fwd=g_fwd
            symbolic_zeros=False
          ] a b
          c:f32[] = cos a
          d:f32[] = sin a
        in (_, c, d) }
    ] a b
    i:f32[] = jit[
      name=g
      jaxpr={ lambda ; c:f32[] d:f32[] b:f32[] j:f32[]. let
          k:f32[] = mul c j
          i:f32[] = mul k b
          l:f32[] = mul d j
        in (i,) }
    ] c d b 1.0:f32[]
  in (i,) }"""


def test_jaxpr_custom_jvp_log1pexp():
    @custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        ans = log1pexp(x)
        ans_dot = (1 - 1/(1 + jnp.exp(x))) * x_dot
        return ans, ans_dot

    out = make_jaxpr(jit(grad(log1pexp)))(3.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=log1pexp
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = custom_jvp_call[
            name=log1pexp
            call_jaxpr={ lambda ; d:f32[]. let
                e:f32[] = exp d
                f:f32[] = add 1.0:f32[] e
                g:f32[] = log f
              in (g,) }
            jvp=log1pexp_jvp
            symbolic_zeros=False
          ] a
          h:f32[] = exp a
          i:f32[] = add 1.0:f32[] h
          j:f32[] = div 1.0:f32[] i
          k:f32[] = sub 1.0:f32[] j
          b:f32[] = mul k 1.0:f32[]
        in (b,) }
    ] a
  in (b,) }"""


def test_jaxpr_custom_jvp_defjvps():
    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
              lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)
    out = make_jaxpr(grad(f, argnums=(0, 1)))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    _:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = sin c
          f:f32[] = mul e d
        in (f,) }
      jvp=jvp
      symbolic_zeros=False
    ] a b
    g:f32[] = cos a
    h:f32[] = sin a
    i:f32[] = mul h 1.0:f32[]
    j:f32[] = mul 1.0:f32[] b
    k:f32[] = mul g j
  in (k, i) }"""


def test_jaxpr_custom_jvp_nondiff_argnums():
    @functools.partial(custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        x, = primals
        x_dot, = tangents
        return f(x), 2. * x_dot

    out = make_jaxpr(grad(lambda x: app(jnp.sin, x)))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] = sin a
    b:f32[] = mul 2.0:f32[] 1.0:f32[]
  in (b,) }"""


def test_jaxpr_custom_vjp_nondiff_argnums():
    @functools.partial(custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    app.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
    out = make_jaxpr(grad(lambda x: app(jnp.sin, x)))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] = sin a
    b:f32[] = mul 5.0:f32[] 1.0:f32[]
  in (b,) }"""


def test_jaxpr_custom_jvp_closed_over_array():
    c = np.arange(3.0, dtype=np.float32)

    @custom_jvp
    def f(x):
        return jnp.sum(x * c)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), jnp.sum(tangents[0] * c * 3.0)

    out = make_jaxpr(grad(f))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda a:f32[3]; b:f32[3]. let
    _:f32[] = custom_jvp_call[
      name=f
      call_jaxpr={ lambda ; c:f32[3] d:f32[3]. let
          e:f32[3] = mul d c
          f:f32[] = reduce_sum[axes=(0,) out_sharding=None] e
        in (f,) }
      jvp=f_jvp
      num_consts=1
      symbolic_zeros=False
    ] a b
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = mul g 3.0:f32[]
    i:f32[3] = mul h a
  in (i,) }"""


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

def _log1pexp():
    @custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot

    return log1pexp


def test_custom_jvp_fixes_a_numerically_unstable_gradient():
    naive = lambda x: jnp.log(1. + jnp.exp(x))
    assert np.isnan(grad(naive)(100.))
    log1pexp = _log1pexp()
    assert float(grad(log1pexp)(100.)) == 1.0
    np.testing.assert_allclose(jit(log1pexp)(3.), 3.0485873, rtol=1e-6)
    np.testing.assert_allclose(jit(grad(log1pexp))(3.), 0.95257413, rtol=1e-6)


def test_custom_jvp_under_vmap_of_jit_of_grad():
    from glassjax.vmap_api import vmap
    out = vmap(jit(grad(_log1pexp())))(jnp.arange(3.))
    np.testing.assert_allclose(out, [0.5, 0.7310586, 0.8807971], rtol=1e-6)


def test_custom_jvp_rule_is_used_by_jvp_and_grad():
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvp(lambda p, t: (f(p[0]), 2.0 * t[0] * jnp.cos(p[0])))
    assert float(jvp(f, (0.,), (1.,))[1]) == 2.0
    assert float(grad(f)(0.)) == 2.0
    assert float(grad(grad(f))(0.)) == 0.0


def test_defjvps():
    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
              lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot)
    value, grads = value_and_grad(f, argnums=(0, 1))(1., 2.)
    np.testing.assert_allclose(value, np.sin(1.) * 2., rtol=1e-6)
    np.testing.assert_allclose(grads, [np.cos(1.) * 2., np.sin(1.)], rtol=1e-6)


def test_custom_jvp_nondiff_argnums():
    @functools.partial(custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        return f(primals[0]), 2. * tangents[0]

    assert float(app(lambda x: x ** 3, 3.)) == 27.0
    assert float(grad(app, argnums=1)(lambda x: x ** 3, 3.)) == 2.0


def test_custom_jvp_symbolic_zeros():
    from glassjax.custom_derivatives import SymbolicZero
    seen = []

    @custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        seen.append(tuple(type(t) is SymbolicZero for t in tangents))
        x, y = primals
        tx, ty = tangents
        t = (0. if type(tx) is SymbolicZero else tx * y) + (
            0. if type(ty) is SymbolicZero else x * ty)
        return f(x, y), t

    f.defjvp(f_jvp, symbolic_zeros=True)
    assert float(grad(f)(2., 3.)) == 3.0
    assert seen == [(False, True)]


def _clip_gradient():
    @custom_vjp
    def clip_gradient(lo, hi, x):
        return x

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, jnp.clip(g, lo, hi))

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
    return clip_gradient


def test_custom_vjp_gradient_clipping():
    from glassjax.vmap_api import vmap
    clip_gradient = _clip_gradient()
    clip_sin = lambda x: jnp.sin(clip_gradient(-0.75, 0.75, x))
    t = jnp.linspace(0, 10, 11)
    np.testing.assert_allclose(clip_sin(t), np.sin(np.linspace(0, 10, 11)), atol=1e-6)
    np.testing.assert_allclose(vmap(grad(clip_sin))(t),
                               np.clip(np.cos(np.linspace(0, 10, 11)), -0.75, 0.75),
                               atol=1e-6)


def _sin_times():
    @custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    return f


def test_custom_vjp_values():
    f = _sin_times()
    np.testing.assert_allclose(f(2., 3.), np.sin(2.) * 3., rtol=1e-6)
    np.testing.assert_allclose(grad(f)(2., 3.), np.cos(2.) * 3., rtol=1e-6)
    gx, gy = grad(f, argnums=(0, 1))(2., 3.)
    np.testing.assert_allclose([gx, gy], [np.cos(2.) * 3., np.sin(2.)], rtol=1e-6)
    assert gx.weak_type and gy.weak_type


def test_jvp_of_custom_vjp_is_a_type_error():
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff \\(jvp\\) to a "
                                        "custom_vjp function."):
        jvp(_sin_times(), (2., 3.), (1., 0.))


def test_custom_vjp_nondiff_argnums():
    @functools.partial(custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    app.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
    assert float(grad(lambda x: app(jnp.sin, x))(1.)) == 5.0


def test_custom_vjp_bwd_must_return_a_tuple():
    @custom_vjp
    def g(x, y):
        return x * y

    g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda res, ct: ct)
    with pytest.raises(TypeError, match=r"Custom VJP bwd rule must produce an output with "
                                        r"the same container \(pytree\) structure as the "
                                        r"args tuple of the primal function"):
        grad(g)(1., 2.)


def test_custom_vjp_bwd_type_mismatch():
    @custom_vjp
    def g(x, y):
        return x * y

    g.defvjp(lambda x, y: (g(x, y), (x, y)), lambda res, ct: (ct, jnp.ones(3)))
    with pytest.raises(ValueError, match=r"at output\[1\] the bwd rule produced an "
                                         r"output of type float32\[3\] corresponding to an "
                                         r"input of type float32\[\], so the shapes do not "
                                         r"match"):
        grad(g)(1., 2.)


def test_custom_rules_must_be_defined():
    @custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f "
                                             "using defjvp."):
        f(1.)

    @custom_vjp
    def g(x):
        return x

    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function g "
                                             "using defvjp."):
        g(1.)


def test_closure_convert():
    hoisted = []

    def outer(x):
        f = lambda y: jnp.sin(y) * x
        converted, consts = closure_convert(f, 1.0)
        hoisted.append(len(consts))
        return converted(2.0, *consts)

    np.testing.assert_allclose(outer(3.0), np.sin(2.) * 3., rtol=1e-6)
    np.testing.assert_allclose(grad(outer)(3.0), np.sin(2.), rtol=1e-6)
    assert hoisted == [0, 1]     # only a differentiated closed-over value is hoisted

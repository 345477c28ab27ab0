"""checkpoint / remat, its policies and checkpoint_name.

Jaxpr texts are compared with what JAX 0.10.2 prints for the same programs (the expected
strings were produced by running each snippet under real JAX).
"""
import functools

import numpy as np
import pytest

import glassjax.numpy as jnp
from glassjax.ad_api import grad, jvp
from glassjax import make_jaxpr
from glassjax.ad_checkpoint import (checkpoint, checkpoint_name, checkpoint_policies,
                                 remat)

# ----------------------------------------------------------------------------------------
# Jaxprs, character for character as JAX prints them
# ----------------------------------------------------------------------------------------


def test_jaxpr_checkpoint_staged():
    @checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))
    out = make_jaxpr(g)(2.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }
      policy=None
      prevent_cse=True
    ] a
  in (b,) }"""


def test_jaxpr_checkpoint_grad():
    @checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))
    out = make_jaxpr(grad(g))(2.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    _:f32[] = sin b
    c:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = cos f
          i:f32[] = mul e h
          j:f32[] = mul i g
        in (j,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (c,) }"""


def test_jaxpr_checkpoint_jvp():
    @checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))
    out = make_jaxpr(lambda x: jvp(g, (x,), (1.0,)))(2.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] c:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = mul e g
          i:f32[] = sin f
          j:f32[] = cos f
          k:f32[] = mul h j
        in (i, k) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (b, c) }"""


def test_jaxpr_checkpoint_grad_grad():
    @checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))
    out = make_jaxpr(grad(grad(g)))(2.0)
    assert str(out) == """\
let jaxpr = { lambda ; a:f32[] b:f32[] c:f32[]. let
    d:f32[] = sin a
    e:f32[] = cos a
    f:f32[] = cos a
    g:f32[] = sin a
    h:f32[] = cos d
    i:f32[] = sin d
    j:f32[] = mul b h
    k:f32[] = mul j c
    l:f32[] = mul c f
    m:f32[] = mul b l
    n:f32[] = neg m
    o:f32[] = mul n i
    p:f32[] = neg k
    q:f32[] = mul p g
    r:f32[] = mul o e
    s:f32[] = add_any q r
  in (s,) } in
{ lambda ; t:f32[]. let
    u:f32[] = sin t
    _:f32[] = cos t
    _:f32[] = sin u
    _:f32[] = cos u
    v:f32[] = sin t
    w:f32[] = cos t
    x:f32[] = cos v
    y:f32[] = mul 1.0:f32[] x
    _:f32[] = mul y w
    z:f32[] = remat2[
      differentiated=True
      jaxpr=jaxpr
      policy=None
      prevent_cse=True
    ] t 1.0:f32[] 1.0:f32[]
  in (z,) }"""


def test_jaxpr_recursive_checkpoint():
    def recursive_checkpoint(funs):
        if len(funs) == 1:
            return funs[0]
        elif len(funs) == 2:
            f1, f2 = funs
            return lambda x: f1(f2(x))
        else:
            f1 = recursive_checkpoint(funs[:len(funs) // 2])
            f2 = recursive_checkpoint(funs[len(funs) // 2:])
            return lambda x: f1(checkpoint(f2)(x))

    h = recursive_checkpoint([jnp.sin, jnp.cos, jnp.tanh, jnp.exp, jnp.sin])
    out = make_jaxpr(h)(0.3)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[]. let
          d:f32[] = remat2[
            differentiated=False
            jaxpr={ lambda ; e:f32[]. let
                f:f32[] = sin e
                g:f32[] = exp f
              in (g,) }
            policy=None
            prevent_cse=True
          ] c
          h:f32[] = tanh d
        in (h,) }
      policy=None
      prevent_cse=True
    ] a
    i:f32[] = cos b
    j:f32[] = sin i
  in (j,) }"""


def test_jaxpr_recursive_checkpoint_grad():
    def recursive_checkpoint(funs):
        if len(funs) == 1:
            return funs[0]
        elif len(funs) == 2:
            f1, f2 = funs
            return lambda x: f1(f2(x))
        else:
            f1 = recursive_checkpoint(funs[:len(funs) // 2])
            f2 = recursive_checkpoint(funs[len(funs) // 2:])
            return lambda x: f1(checkpoint(f2)(x))

    h = recursive_checkpoint([jnp.sin, jnp.cos, jnp.tanh, jnp.exp, jnp.sin])
    out = make_jaxpr(grad(h))(0.3)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = remat2[
      differentiated=False
      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = exp d in (e,) }
      policy=None
      prevent_cse=True
    ] a
    f:f32[] = tanh b
    g:f32[] = cos f
    h:f32[] = sin f
    _:f32[] = sin g
    i:f32[] = cos g
    j:f32[] = mul 1.0:f32[] i
    k:f32[] = neg j
    l:f32[] = mul k h
    m:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; n:f32[] o:f32[]. let
          p:f32[] = sin n
          q:f32[] = exp p
          r:f32[] = tanh q
          s:f32[] = sub 1.0:f32[] r
          t:f32[] = mul o s
          u:f32[] = mul t r
          v:f32[] = add_any t u
          w:f32[] = remat2[
            differentiated=True
            jaxpr={ lambda ; x:f32[] y:f32[]. let
                z:f32[] = sin x
                ba:f32[] = cos x
                bb:f32[] = exp z
                bc:f32[] = mul y bb
                bd:f32[] = mul bc ba
              in (bd,) }
            policy=None
            prevent_cse=True
          ] n v
        in (w,) }
      policy=None
      prevent_cse=True
    ] a l
  in (m,) }"""


def test_jaxpr_policy_dots_saveable():
    w = np.ones((3, 3), np.float32)

    def layer(x):
        return jnp.sin(jnp.dot(w, x)) * 2.0

    f = checkpoint(layer, policy=checkpoint_policies.dots_saveable)
    out = make_jaxpr(grad(lambda x: jnp.sum(f(x))))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda a:f32[3,3]; b:f32[3]. let
    c:f32[3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[3] = reduce_precision[exponent_bits=8 mantissa_bits=23] c
    e:f32[3] = sin d
    f:f32[3] = mul e 2.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = remat2[
      differentiated=True
      jaxpr={ lambda ; i:f32[3] j:f32[3,3] k:f32[3]. let
          l:f32[3] = cos i
          m:f32[3] = mul k 2.0:f32[]
          n:f32[3] = mul m l
          o:f32[3] = dot_general[
            dimension_numbers=(([0], [0]), ([], []))
            preferred_element_type=float32
          ] n j
        in (o,) }
      policy=DotsSaveable(only_if_no_batch_dims=False)
      prevent_cse=True
    ] d a g
  in (h,) }"""


def test_jaxpr_policy_everything_saveable():
    w = np.ones((3, 3), np.float32)

    def layer(x):
        return jnp.sin(jnp.dot(w, x)) * 2.0

    f = checkpoint(layer, policy=checkpoint_policies.everything_saveable)
    out = make_jaxpr(grad(lambda x: jnp.sum(f(x))))(np.ones(3, np.float32))
    assert str(out) == """\
{ lambda a:f32[3,3]; b:f32[3]. let
    c:f32[3] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[3] = sin c
    e:f32[3] = cos c
    f:f32[3] = mul d 2.0:f32[]
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
    g:f32[3] = broadcast_in_dim 1.0:f32[]
    h:f32[3] = remat2[
      differentiated=True
      jaxpr={ lambda ; i:f32[3] j:f32[3,3] k:f32[3]. let
          l:f32[3] = mul k 2.0:f32[]
          m:f32[3] = mul l i
          n:f32[3] = dot_general[
            dimension_numbers=(([0], [0]), ([], []))
            preferred_element_type=float32
          ] m j
        in (n,) }
      policy=<function everything_saveable at 0xXXXXXXXXXXXX>
      prevent_cse=True
    ] e a g
  in (h,) }"""


def test_jaxpr_policy_save_only_these_names():
    def named(x):
        y = checkpoint_name(jnp.sin(x), "y")
        z = jnp.cos(y) * y
        return checkpoint_name(z, "z") * 3.0

    f = checkpoint(named, policy=checkpoint_policies.save_only_these_names("y"))
    out = make_jaxpr(grad(f))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    b:f32[] = sin a
    c:f32[] = name[name=y] b
    d:f32[] = reduce_precision[exponent_bits=8 mantissa_bits=23] c
    e:f32[] = cos d
    f:f32[] = mul e d
    g:f32[] = name[name=z] f
    _:f32[] = mul g 3.0:f32[]
    h:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; i:f32[] j:f32[] k:f32[]. let
          l:f32[] = cos j
          m:f32[] = cos i
          n:f32[] = sin i
          o:f32[] = mul k 3.0:f32[]
          p:f32[] = mul m o
          q:f32[] = mul o i
          r:f32[] = neg q
          s:f32[] = mul r n
          t:f32[] = add_any p s
          u:f32[] = mul t l
        in (u,) }
      policy=SaveOnlyTheseNames(saveable_names=frozenset({'y'}))
      prevent_cse=True
    ] d a 1.0:f32[]
  in (h,) }"""


def test_jaxpr_policy_save_any_names_but_these():
    def named(x):
        y = checkpoint_name(jnp.sin(x), "y")
        z = jnp.cos(y) * y
        return checkpoint_name(z, "z") * 3.0

    f = checkpoint(named, policy=checkpoint_policies.save_any_names_but_these("y"))
    out = make_jaxpr(grad(f))(1.0)
    assert str(out) == """\
let jaxpr = { lambda ; a:f32[] b:f32[]. let
    c:f32[] = sin a
    d:f32[] = cos a
    e:f32[] = name[name=y] c
    f:f32[] = cos e
    g:f32[] = sin e
    h:f32[] = mul b 3.0:f32[]
    i:f32[] = mul f h
    j:f32[] = mul h e
    k:f32[] = neg j
    l:f32[] = mul k g
    m:f32[] = add_any i l
    n:f32[] = mul m d
  in (n,) } in
{ lambda ; o:f32[]. let
    p:f32[] = sin o
    q:f32[] = name[name=y] p
    r:f32[] = cos q
    s:f32[] = mul r q
    t:f32[] = name[name=z] s
    _:f32[] = mul t 3.0:f32[]
    u:f32[] = remat2[
      differentiated=True
      jaxpr=jaxpr
      policy=SaveAnyNamesButThese(names=frozenset({'y'}))
      prevent_cse=True
    ] o 1.0:f32[]
  in (u,) }"""


def test_jaxpr_checkpoint_static_argnums():
    @functools.partial(checkpoint, static_argnums=(1,))
    def foo(x, flag):
        return jnp.sin(x) if flag else jnp.cos(x)

    out = make_jaxpr(grad(foo), static_argnums=1)(1.0, True)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] = sin a
    b:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; c:f32[] d:f32[]. let
          e:f32[] = cos c
          f:f32[] = mul d e
        in (f,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (b,) }"""


def test_jaxpr_checkpoint_no_prevent_cse():
    f = checkpoint(lambda x, y: jnp.sin(x) * y, prevent_cse=False)
    out = make_jaxpr(grad(f))(1.0, 2.0)
    assert str(out) == """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = sin a
    _:f32[] = mul c b
    d:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; e:f32[] f:f32[] g:f32[]. let
          h:f32[] = cos e
          i:f32[] = mul g f
          j:f32[] = mul i h
        in (j,) }
      policy=None
      prevent_cse=False
    ] a b 1.0:f32[]
  in (d,) }"""


def test_jaxpr_checkpoint_closure():
    out = make_jaxpr(grad(lambda x: checkpoint(lambda y: y * x)(2.0)))(1.0)
    assert str(out) == """\
{ lambda ; a:f32[]. let
    _:f32[] = mul 2.0:f32[] a
    b:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; c:f32[] d:f32[]. let e:f32[] = mul c d in (e,) }
      policy=None
      prevent_cse=True
    ] 2.0:f32[] 1.0:f32[]
  in (b,) }"""


# ----------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------

def test_checkpoint_gradient():
    @checkpoint
    def g(x):
        return jnp.sin(jnp.sin(x))

    out = grad(g)(2.0)
    np.testing.assert_allclose(out, np.cos(np.sin(2.)) * np.cos(2.), rtol=1e-6)
    assert out.weak_type


def test_recursive_checkpoint():
    def recursive_checkpoint(funs):
        if len(funs) == 1:
            return funs[0]
        if len(funs) == 2:
            f1, f2 = funs
            return lambda x: f1(f2(x))
        f1 = recursive_checkpoint(funs[:len(funs) // 2])
        f2 = recursive_checkpoint(funs[len(funs) // 2:])
        return lambda x: f1(checkpoint(f2)(x))

    funs = [jnp.sin, jnp.cos, jnp.tanh, jnp.exp, jnp.sin]
    h = recursive_checkpoint(funs)
    plain = lambda x: jnp.sin(jnp.cos(jnp.tanh(jnp.exp(jnp.sin(x)))))
    np.testing.assert_allclose(h(0.3), 0.59947604, rtol=1e-6)
    np.testing.assert_allclose(grad(h)(0.3), grad(plain)(0.3), rtol=1e-6)


@pytest.mark.parametrize("policy", [
    None, checkpoint_policies.everything_saveable, checkpoint_policies.nothing_saveable,
    checkpoint_policies.dots_saveable, checkpoint_policies.dots_with_no_batch_dims_saveable,
    checkpoint_policies.save_only_these_names("y"),
    checkpoint_policies.save_any_names_but_these("y")])
def test_policies_do_not_change_values(policy):
    w = np.arange(9., dtype=np.float32).reshape(3, 3) / 10

    def layer(x):
        y = checkpoint_name(jnp.sin(jnp.dot(w, x)), "y")
        return jnp.sum(jnp.tanh(y) * x)

    x = np.float32([0.1, 0.2, 0.3])
    expected = grad(layer)(x)
    np.testing.assert_allclose(grad(checkpoint(layer, policy=policy))(x), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(jvp(checkpoint(layer, policy=policy), (x,), (x,))[1],
                               jvp(layer, (x,), (x,))[1], rtol=1e-6)


def test_checkpoint_name_is_the_identity():
    assert float(checkpoint_name(2.0, "a")) == 2.0
    assert float(grad(lambda x: checkpoint_name(x * x, "sq"))(3.0)) == 6.0


def test_remat_is_checkpoint():
    f = remat(lambda x: jnp.exp(jnp.sin(x)))
    np.testing.assert_allclose(grad(f)(0.5), np.cos(0.5) * np.exp(np.sin(0.5)), rtol=1e-6)


def test_static_argnums():
    @functools.partial(checkpoint, static_argnums=(1,))
    def foo(x, is_training):
        return jnp.sin(x) if is_training else jnp.cos(x)

    np.testing.assert_allclose(grad(foo)(1.0, True), np.cos(1.0), rtol=1e-6)
    np.testing.assert_allclose(grad(foo)(1.0, False), -np.sin(1.0), rtol=1e-6)


def test_checkpoint_under_vmap():
    from glassjax.vmap_api import vmap
    f = checkpoint(lambda x: jnp.sin(x) * x)
    x = jnp.linspace(0., 1., 4)
    np.testing.assert_allclose(vmap(grad(f))(x), np.cos(x) * x + np.sin(x), rtol=1e-6)


def test_checkpoint_static_argnums_errors():
    with pytest.raises(ValueError, match="can only take integer values greater than or "
                                         "equal to `-len\\(args\\)`"):
        checkpoint(lambda x: x, static_argnums=(3,))(1.0)
    with pytest.raises(TypeError, match="must be an int, tuple of ints"):
        checkpoint(lambda x: x, static_argnums=[0])(1.0)

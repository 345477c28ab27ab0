"""``call_p`` and ``closed_call_p`` (call.py): an equation calling a jaxpr, built by hand
as brainstate's tests build one, evaluated, jitted, differentiated and vmapped. Values
against NumPy; every jaxpr as JAX 0.10.2 printed it (recorded with the real JAX on the same
program)."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax._src import core as jcore
from glassjax.extend.core import primitives


def _calling(prim, inner):
    """``{ lambda ; a b. let c = prim[call_jaxpr=inner] a b in (c,) }``"""
    s = jcore.ShapedArray((), np.float32)
    x, y, out = jcore.Var(s), jcore.Var(s), jcore.Var(inner.out_avals[0])
    param = inner if prim is jcore.closed_call_p else inner.jaxpr
    eqn = jcore.new_jaxpr_eqn([x, y], [out], prim, {"call_jaxpr": param}, set())
    return jcore.jaxpr_as_fun(jcore.ClosedJaxpr(jcore.Jaxpr([], [x, y], [out], [eqn]), []))


INNER = jax.make_jaxpr(lambda a, b: jnp.sin(a) * b + 1.0)(jnp.float32(0.0), jnp.float32(0.0))
WITH_CONST = jax.make_jaxpr(lambda a, b: jnp.sin(a) * b + np.arange(3, dtype=np.float32))(
    jnp.float32(0.0), jnp.float32(0.0))
f = _calling(jcore.closed_call_p, INNER)
fo = _calling(jcore.call_p, INNER)
fc = _calling(jcore.closed_call_p, WITH_CONST)


def g(a, b):
    return f(a, b)[0]


def gc(a, b):
    return fc(a, b)[0].sum()


TWO = (jnp.float32(2.0), jnp.float32(3.0))

# make_jaxpr of each program, as JAX 0.10.2 printed it
JAX_PRINTED = {
    "f": """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = closed_call[
      call_jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = mul f e
          h:f32[] = add g 1.0:f32[]
        in (h,) }
    ] a b
  in (c,) }""",
    "jit(f)": """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = jit[
      name=jaxpr_as_fun
      jaxpr={ lambda ; a:f32[] b:f32[]. let
          c:f32[] = closed_call[
            call_jaxpr={ lambda ; d:f32[] e:f32[]. let
                f:f32[] = sin d
                g:f32[] = mul f e
                h:f32[] = add g 1.0:f32[]
              in (h,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }""",
    "grad(g)": """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] _:f32[] = closed_call[
      call_jaxpr={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = cos d
          h:f32[] = mul f e
          i:f32[] = add h 1.0:f32[]
        in (g, i) }
    ] a b
    j:f32[] = closed_call[
      call_jaxpr={ lambda ; k:f32[] l:f32[] m:f32[]. let
          n:f32[] = mul m l
          o:f32[] = mul n k
        in (o,) }
    ] c b 1.0:f32[]
  in (j,) }""",
    "vmap(f)": """{ lambda ; a:f32[3] b:f32[3]. let
    c:f32[3] = closed_call[
      call_jaxpr={ lambda ; d:f32[3] e:f32[3]. let
          f:f32[3] = sin d
          g:f32[3] = mul f e
          h:f32[3] = add g 1.0:f32[]
        in (h,) }
      name=eval_jaxpr
    ] a b
  in (c,) }""",
    "jvp(g)": """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] d:f32[] = closed_call[
      call_jaxpr={ lambda ; e:f32[] f:f32[] g:f32[] h:f32[]. let
          i:f32[] = sin e
          j:f32[] = cos e
          k:f32[] = mul g j
          l:f32[] = mul i f
          m:f32[] = mul k f
          n:f32[] = mul i h
          o:f32[] = add_any m n
          p:f32[] = add l 1.0:f32[]
        in (p, o) }
    ] a b a b
  in (c, d) }""",
    "linearize(g)": """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] d:f32[] _:f32[] = closed_call[
      call_jaxpr={ lambda ; e:f32[] f:f32[]. let
          g:f32[] = sin e
          h:f32[] = cos e
          i:f32[] = mul g f
          j:f32[] = add i 1.0:f32[]
        in (h, g, j) }
    ] a b
    k:f32[] = closed_call[
      call_jaxpr={ lambda ; l:f32[] m:f32[] n:f32[] o:f32[] p:f32[]. let
          q:f32[] = mul o l
          r:f32[] = mul q m
          s:f32[] = mul n p
          t:f32[] = add_any r s
        in (t,) }
    ] c b d a b
  in (k,) }""",
    "fc": """{ lambda a:f32[3]; b:f32[] c:f32[]. let
    d:f32[3] = closed_call[
      call_jaxpr={ lambda ; e:f32[3] f:f32[] g:f32[]. let
          h:f32[] = sin f
          i:f32[] = mul h g
          j:f32[3] = add i e
        in (j,) }
    ] a b c
  in (d,) }""",
    "grad(gc)": """{ lambda a:f32[3]; b:f32[] c:f32[]. let
    d:f32[] e:f32[] f:f32[3] = closed_call[
      call_jaxpr={ lambda ; g:f32[3] h:f32[] i:f32[]. let
          j:f32[] = sin h
          k:f32[] = cos h
          l:f32[] = mul j i
          m:f32[3] = add l g
        in (k, j, m) }
    ] a b c
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] f
    n:f32[3] = broadcast_in_dim 1.0:f32[]
    o:f32[] p:f32[] = closed_call[
      call_jaxpr={ lambda ; q:f32[] r:f32[] s:f32[] t:f32[3]. let
          u:f32[] = reduce_sum[axes=(0,) out_sharding=None] t
          v:f32[] = mul s u
          w:f32[] = mul u r
          x:f32[] = mul w q
        in (x, v) }
    ] d c e n
  in (o, p) }""",
    "grad(checkpoint(gc))": """{ lambda a:f32[3]; b:f32[] c:f32[]. let
    d:f32[3] = closed_call[
      call_jaxpr={ lambda ; e:f32[3] f:f32[] g:f32[]. let
          h:f32[] = sin f
          i:f32[] = mul h g
          j:f32[3] = add i e
        in (j,) }
    ] a b c
    _:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
    k:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; l:f32[] m:f32[] n:f32[]. let
          o:f32[] = closed_call[
            call_jaxpr={ lambda ; p:f32[] q:f32[]. let r:f32[] = cos p in (r,) }
          ] l m
          s:f32[3] = broadcast_in_dim n
          t:f32[] = closed_call[
            call_jaxpr={ lambda ; u:f32[] v:f32[] w:f32[3]. let
                x:f32[] = reduce_sum[axes=(0,) out_sharding=None] w
                y:f32[] = mul x v
                z:f32[] = mul y u
              in (z,) }
          ] o m s
        in (t,) }
      policy=None
      prevent_cse=True
    ] b c 1.0:f32[]
  in (k,) }""",
    "vmap(grad(gc))": """{ lambda a:f32[3]; b:f32[2] c:f32[2]. let
    d:f32[2] e:f32[2,3] = closed_call[
      call_jaxpr={ lambda ; f:f32[3] g:f32[2] h:f32[2]. let
          i:f32[2] = sin g
          j:f32[2] = cos g
          k:f32[2] = mul i h
          l:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] f
          m:f32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] k
          n:f32[2,3] = add m l
        in (j, n) }
      name=eval_jaxpr
    ] a b c
    _:f32[2] = reduce_sum[axes=(np.int64(1),) out_sharding=None] e
    o:f32[3] = broadcast_in_dim 1.0:f32[]
    p:f32[2] = closed_call[
      call_jaxpr={ lambda ; q:f32[2] r:f32[2] s:f32[3]. let
          t:f32[] = reduce_sum[axes=(0,) out_sharding=None] s
          u:f32[2] = mul t r
          v:f32[2] = mul u q
        in (v,) }
      name=transposed
    ] d c o
  in (p,) }""",
}

JAX_PRINTED["fo"] = JAX_PRINTED["f"].replace("closed_call[", "call[")   # (JAX's text too)

PROGRAMS = {
    "f": lambda: jax.make_jaxpr(f)(*TWO),
    "fo": lambda: jax.make_jaxpr(fo)(*TWO),
    "jit(f)": lambda: jax.make_jaxpr(jax.jit(f))(*TWO),
    "grad(g)": lambda: jax.make_jaxpr(jax.grad(g))(*TWO),
    "vmap(f)": lambda: jax.make_jaxpr(jax.vmap(f))(jnp.arange(3.0), jnp.ones(3)),
    "jvp(g)": lambda: jax.make_jaxpr(lambda a, b: jax.jvp(g, (a, b), (a, b)))(*TWO),
    "linearize(g)": lambda: jax.make_jaxpr(lambda a, b: jax.linearize(g, a, b)[1](a, b))(*TWO),
    "fc": lambda: jax.make_jaxpr(fc)(*TWO),
    "grad(gc)": lambda: jax.make_jaxpr(jax.grad(gc, argnums=(0, 1)))(*TWO),
    "grad(checkpoint(gc))": lambda: jax.make_jaxpr(jax.grad(jax.checkpoint(gc)))(*TWO),
    "vmap(grad(gc))": lambda: jax.make_jaxpr(jax.vmap(jax.grad(gc)))(jnp.ones(2), jnp.ones(2)),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jaxpr_text_as_jax_prints_it(name):
    assert str(PROGRAMS[name]()) == JAX_PRINTED[name]


def _reference(a, b):
    return np.sin(np.float32(a)) * np.float32(b) + np.float32(1.0)


def test_values_eager_jit_grad_vmap():
    for fun in (f, fo, jax.jit(f), jax.jit(fo)):
        out, = fun(*TWO)
        np.testing.assert_allclose(out, _reference(2.0, 3.0), rtol=1e-6)
    da, db = jax.grad(g, argnums=(0, 1))(*TWO)
    np.testing.assert_allclose([da, db], [np.cos(2.0) * 3.0, np.sin(2.0)], rtol=1e-6)
    xs = np.arange(3.0, dtype=np.float32)
    out, = jax.vmap(f)(xs, jnp.ones(3))
    np.testing.assert_allclose(out, _reference(xs, 1.0), rtol=1e-6)
    da, db = jax.grad(gc, argnums=(0, 1))(*TWO)
    np.testing.assert_allclose([da, db], [3 * np.cos(2.0) * 3.0, 3 * np.sin(2.0)], rtol=1e-6)
    # the derivatives through the call against those of the same function without it
    plain = jax.grad(lambda a, b: jnp.sin(a) * b + 1.0, argnums=(0, 1))(*TWO)
    np.testing.assert_allclose(jax.grad(g, argnums=(0, 1))(*TWO), plain, rtol=1e-6)
    np.testing.assert_allclose(jax.hessian(g)(*TWO), -np.sin(2.0) * 3.0, rtol=1e-6)


def test_lowered_to_a_private_function_named_as_in_jax():
    """``func.call @closed_call`` (``@core_call`` for ``call``), as JAX lowers them."""
    assert "call @closed_call(%arg0, %arg1)" in jax.jit(f).lower(*TWO).as_text()
    assert "func.func private @core_call(" in jax.jit(fo).lower(*TWO).as_text()


def test_the_primitives_are_jaxs_names():
    assert primitives.closed_call_p is jcore.closed_call_p
    assert primitives.call_p is jcore.call_p
    assert isinstance(jcore.closed_call_p, jcore.CallPrimitive)
    assert jax.core.jaxpr_as_fun(INNER).__name__ == "jaxpr_as_fun"   # (jit prints it)


def test_dead_outputs_leave_the_call():
    """DCE of a jaxpr whose call has an unused output: the call keeps one output, and
    the operands only it read go too."""
    from glassjax.interpreters import partial_eval as pe
    two_out = jax.make_jaxpr(lambda a, b: (jnp.sin(a), b * 2.0))(*TWO)
    s = jcore.ShapedArray((), np.float32)
    x, y, out0, out1 = (jcore.Var(s) for _ in range(4))
    call = jcore.new_jaxpr_eqn([x, y], [out0, out1], jcore.closed_call_p,
                               {"call_jaxpr": two_out}, set())
    dced, used = pe.dce_jaxpr(jcore.Jaxpr([], [x, y], [out1], [call]), [True])
    eqn, = dced.eqns
    assert used == [False, True]
    assert eqn.invars == [y] and eqn.outvars == [out1]
    assert str(eqn.params["call_jaxpr"]) == \
        "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"

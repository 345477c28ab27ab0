"""Varying manual axes (shard_map with check_vma=True) through loops, ``lax.pcast`` and
the implicit casts JAX inserts: jaxpr text and error messages against what JAX 0.10.2
prints, values and derivatives against check_vma=False. (8 CPU devices, conftest.py.)"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.sharding import Mesh, PartitionSpec as P
from glassjax.test_util import check_grads


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


@pytest.fixture(scope="module")
def a():
    return np.arange(16.).reshape(8, 2).astype(np.float32)


def _rows(mesh, body, check_vma=True):
    """``body`` on blocks of 2 rows (split over 'x', the same along 'y')."""
    return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'),
                         check_vma=check_vma)


# -- a carry that starts invariant and comes back varying: JAX's TypeError ----------------

SCAN_ERROR = """\
scan body function carry input and carry output must have equal types, but they differ:

The input carry c has type float32[2,2] but the corresponding output carry component has type float32[2,2]{V:x}, so the manual axis types do not match.

This might be fixed by applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry c.
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types."""

SCAN_TWO_ERRORS = """\
scan body function carry input and carry output must have equal types, but they differ:

  * the input carry component carry[0] has type float32[2,2] but the corresponding output carry component has type float32[2,2]{V:x}, so the manual axis types do not match;
  * the input carry component carry[1] has type float32[] but the corresponding output carry component has type float32[]{V:x}, so the manual axis types do not match.

This might be fixed by:
  * applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry component carry[0];
  * applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry component carry[1].
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types."""

WHILE_ERROR = """\
while_loop body function carry input and carry output must have equal types, but they differ:

The input carry component s[1] has type float32[2,2] but the corresponding output carry component has type float32[2,2]{V:x}, so the manual axis types do not match.

This might be fixed by applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry component s[1].
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types."""

FORI_ERROR = """\
scan body function carry input and carry output must have equal types, but they differ:

The input carry component loop_carry[1] has type float32[] but the corresponding output carry component has type float32[2,2]{V:x}, so the shapes do not match, and the manual axis types do not match.

This might be fixed by applying `jax.lax.pcast(..., ('x',), to='varying')`, to the initial carry value corresponding to the input carry component loop_carry[1].
See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma for more information.

Revise the function so that all output types match the corresponding input types."""

FORI_SHAPE_ERROR = """\
scan body function carry input and carry output must have equal types, but they differ:

The input carry component loop_carry[1] has type float32[]{V:x} but the corresponding output carry component has type float32[2,2]{V:x}, so the shapes do not match.

Revise the function so that all output types match the corresponding input types."""

PSUM_CARRY_ERROR = """\
scan body function carry input and carry output must have equal types, but they differ:

The input carry c has type float32[2,2]{V:x} but the corresponding output carry component has type float32[2,2], so the manual axis types do not match.

Revise the function so that all output types match the corresponding input types."""


def _raises(mesh, a, body, message):
    with pytest.raises(TypeError) as info:
        _rows(mesh, body)(a)
    assert str(info.value) == message


def test_scan_carry_that_starts_invariant_and_comes_back_varying(mesh, a):
    _raises(mesh, a, lambda b: lax.scan(lambda c, e: (c + b, e), jnp.zeros((2, 2)),
                                        jnp.arange(3.))[0], SCAN_ERROR)
    _raises(mesh, a, lambda b: lax.scan(
        lambda carry, e: ((carry[0] + b, carry[1] + b.sum()), e),
        (jnp.zeros((2, 2)), jnp.zeros(())), jnp.arange(3.))[0][0], SCAN_TWO_ERRORS)


def test_while_and_fori_carries(mesh, a):
    _raises(mesh, a, lambda b: lax.while_loop(
        lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * b), (0, jnp.ones((2, 2))))[1],
        WHILE_ERROR)
    _raises(mesh, a, lambda b: lax.fori_loop(0, 3, lambda i, c: c + b, jnp.zeros(())),
            FORI_ERROR)
    _raises(mesh, a, lambda b: lax.fori_loop(
        0, 3, lambda i, c: c + b, lax.pcast(jnp.zeros(()), 'x', to='varying')),
        FORI_SHAPE_ERROR)


def test_a_carry_that_stops_varying_gets_no_pcast_hint(mesh, a):
    _raises(mesh, a, lambda b: lax.scan(lambda c, e: (lax.psum(c, 'x'), e), b,
                                        jnp.arange(3.))[0], PSUM_CARRY_ERROR)


def test_without_check_vma_the_carry_is_not_typed(mesh, a):
    f = lambda b: lax.scan(lambda c, e: (c * e + b, e), jnp.zeros((2, 2)),
                           jnp.arange(3.))[0]
    # c: 0 -> 0*0 + b -> b*1 + b -> 2b*2 + b
    np.testing.assert_array_equal(_rows(mesh, f, check_vma=False)(a), 5 * a)


# -- pcast ---------------------------------------------------------------------------------

PCAST_FIXES_THE_CARRY = """\
{ lambda ; a:f32[8,2]. let
    b:f32[8,2] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[2,2]{V:x}. let
          d:f32[2,2] = broadcast_in_dim 0.0:f32[]
          e:f32[2,2]{V:x} = pvary[axes=('x',)] d
          f:f32[3] = iota[dimension=0 dtype=float32 shape=(3,) sharding=None] 
          g:f32[2,2]{V:x} = scan[
            jaxpr={ lambda ; h:f32[2,2]{V:x} i:f32[2,2]{V:x} j:f32[]. let
                k:f32[2,2]{V:x} = add i h
              in (k,) }
            length=3
            num_carry=1
            num_consts=1
            reverse=False
            unroll=1
          ] c e f
        in (g,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x',),)
    ] a
  in (b,) }"""


def test_pcast_fixes_the_carry(mesh, a):
    def body(b):
        c0 = lax.pcast(jnp.zeros((2, 2)), 'x', to='varying')
        return lax.scan(lambda c, e: (c + b, e), c0, jnp.arange(3.))[0]
    assert str(jax.make_jaxpr(_rows(mesh, body))(a)) == PCAST_FIXES_THE_CARRY
    np.testing.assert_array_equal(_rows(mesh, body)(a), 3 * a)
    np.testing.assert_array_equal(_rows(mesh, body)(a), _rows(mesh, body, False)(a))


def test_pcast_errors_are_jaxs(mesh, a):
    with pytest.raises(ValueError, match=r"^Unsupported pcast from=varying, to='varying'$"):
        _rows(mesh, lambda b: lax.pcast(b, 'x', to='varying'))(a)
    with pytest.raises(ValueError, match=r"Got unexpected `to` value. Allowed `to` values "):
        _rows(mesh, lambda b: lax.pcast(b, 'x', to='foo'))(a)
    with pytest.raises(TypeError, match=r"axis_name=\{'x'\} must be a tuple or a str"):
        _rows(mesh, lambda b: lax.pcast(b, {'x'}, to='varying'))(a)
    with pytest.raises(ValueError, match="jax.lax.pcast can only accept axis_name which "
                       r"corresponds to one of .* Got input type: float32\[2,2\]\{V:x\}, "
                       r"axes: \('x', 'y'\)"):
        _rows(mesh, lambda b: lax.pcast(b, ('x', 'y'), to='varying'))(a)
    with pytest.raises(ValueError, match="pvary should be called under jax.shard_map."):
        lax.pcast(jnp.ones(2), 'x', to='varying')


def test_pcast_where_variance_is_not_tracked_is_the_identity(mesh, a):
    out = jax.pmap(lambda v: lax.pcast(v, 'i', to='varying'), axis_name='i')(jnp.ones(2))
    np.testing.assert_array_equal(out, [1., 1.])
    jaxpr = jax.make_jaxpr(_rows(mesh, lambda b: b * lax.pcast(2., 'x', to='varying'),
                                 check_vma=False))(a)
    assert "pvary" not in str(jaxpr)


def test_grad_through_pcast_sums_over_the_devices(mesh, a):
    """The transpose of pcast (pvary) is psum: a replicated weight's gradient is the
    sum over all blocks."""
    f = jax.shard_map(lambda b, w: b * lax.pcast(w, ('x', 'y'), to='varying'), mesh=mesh,
                      in_specs=(P('x', 'y'), P()), out_specs=P('x', 'y'))
    w = np.float32(1.5)
    assert float(jax.grad(lambda w: f(a, w).sum())(w)) == a.sum()
    check_grads(lambda w: f(a / 10, w), (w,), order=2, modes=["fwd", "rev"])


# -- outputs typed as their out_specs say ---------------------------------------------------

IMPLICIT_PVARY = """\
{ lambda ; a:f32[8,3]. let
    b:f32[8,3] = shard_map[
      check_vma=True
      in_specs=(P(('x', 'y'),),)
      jaxpr={ lambda ; c:f32[1,3]{V:(x,y)}. let
          d:f32[1,3]{V:y} = psum_invariant[axes=('x',)] c
          e:f32[1,3]{V:(x,y)} = pvary[axes=('x',)] d
        in (e,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P(('x', 'y'),),)
    ] a
  in (b,) }"""


def test_an_invariant_output_is_cast_to_its_out_spec(mesh):
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    f = jax.shard_map(lambda b: lax.psum(b, 'x'), mesh=mesh, in_specs=P(('x', 'y')),
                      out_specs=P(('x', 'y')))
    assert str(jax.make_jaxpr(f)(x)) == IMPLICIT_PVARY
    g = jax.shard_map(lambda b: lax.psum(b, 'x'), mesh=mesh, in_specs=P(('x', 'y')),
                      out_specs=P(('x', 'y')), check_vma=False)
    np.testing.assert_allclose(jax.grad(lambda x: (f(x) ** 2).sum())(x),
                               jax.grad(lambda x: (g(x) ** 2).sum())(x), rtol=1e-6)


@pytest.mark.parametrize("check_vma", [True, False])
def test_loops_inside_check_vma_bodies_differentiate(mesh, a, check_vma):
    def body(b):
        c = lax.scan(lambda c, e: (jnp.sin(c) * e + b, c), b, jnp.arange(3.))[0]
        d = lax.fori_loop(0, 2, lambda i, c: jnp.cos(c) * b, b)
        return lax.map(jnp.tanh, c + d)
    f = _rows(mesh, body, check_vma)
    x = a / 16
    check_grads(f, (x,), order=1, modes=["fwd", "rev"])
    np.testing.assert_allclose(jax.grad(lambda x: f(x).sum())(x),
                               jax.grad(lambda x: _rows(mesh, body, not check_vma)(x).sum())(x),
                               rtol=1e-6)


# -- vmap of a shard_map; JAX's replication errors ------------------------------------------

VMAP_BATCH_AXIS_FIRST = """\
{ lambda ; a:f32[2,8,4]. let
    b:f32[2,8,4] = shard_map[
      check_vma=True
      in_specs=(P(None, 'x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2,2]{V:(x,y)}. let
          d:f32[2,2,2]{V:(x,y)} = sin c
          e:f32[2,2,2]{V:y} = psum_invariant[axes=('x',)] d
          f:f32[2,2,2]{V:(x,y)} = pvary[axes=('x',)] e
          g:f32[2,2,2]{V:(x,y)} = mul f c
        in (g,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P(None, 'x', 'y'),)
    ] a
  in (b,) }"""

VMAP_BATCH_AXIS_IN_THE_MIDDLE = """\
{ lambda ; a:f32[8,2,4]. let
    b:f32[8,2,4] = shard_map[
      check_vma=True
      in_specs=(P('x', None, 'y'),)
      jaxpr={ lambda ; c:f32[2,2,2]{V:(x,y)}. let
          d:f32[2,2,2]{V:(x,y)} = sin c
          e:f32[2,2,2]{V:y} = psum_invariant[axes=('x',)] d
          f:f32[2,2,2]{V:(x,y)} = pvary[axes=('x',)] e
          g:f32[2,2,2]{V:(x,y)} = mul f c
        in (g,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', None, 'y'),)
    ] a
  in (b,) }"""

TWO_REPLICATION_ERRORS = """\
shard_map applied to the function 'body' was given out_specs which require replication which can't be statically inferred given the mesh:

The mesh given has shape (4, 2) with corresponding axis names ('x', 'y').

* out_specs[0] is P(None, 'y') which implies that the corresponding output value is replicated across mesh axis 'x', but could not infer replication over any axes

* out_specs[2] is P('x',) which implies that the corresponding output value is replicated across mesh axis 'y', but could not infer replication over any axes

Check if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."""

PYTREE_REPLICATION_ERROR = """\
shard_map applied to the function '<lambda>' was given out_specs which require replication which can't be statically inferred given the mesh:

The mesh given has shape (4, 2) with corresponding axis names ('x', 'y').

out_specs['b'] is P() which implies that the corresponding output value is only varying across mesh axes {} and not {x,y}, but it was inferred to be possibly varying over {x,y}

Check if these output values are meant to be replicated over those mesh axes. If not, consider revising the corresponding out_specs entries. If so, consider disabling the check by passing the check_vma=False argument to `jax.shard_map`."""


def test_vmap_keeps_the_batch_axis_where_it_is(mesh):
    """vmap of a check_vma body with a psum: the batch axis stays in place, unsplit
    (JAX's jaxpr), and the values are those of a loop over the batch."""
    a = np.arange(64.).reshape(2, 8, 4).astype(np.float32)
    f = jax.shard_map(lambda b: lax.psum(jnp.sin(b), 'x') * b, mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P('x', 'y'))
    assert str(jax.make_jaxpr(jax.vmap(f))(a)) == VMAP_BATCH_AXIS_FIRST
    moved = np.moveaxis(a, 0, 1)
    g = jax.vmap(f, in_axes=1, out_axes=1)
    assert str(jax.make_jaxpr(g)(moved)) == VMAP_BATCH_AXIS_IN_THE_MIDDLE
    expected = np.stack([f(row) for row in a])
    np.testing.assert_allclose(jax.vmap(f)(a), expected, rtol=1e-5)
    np.testing.assert_allclose(g(moved), np.moveaxis(expected, 0, 1), rtol=1e-5)


def test_replication_errors_name_every_output(mesh):
    a = np.arange(32.).reshape(8, 4).astype(np.float32)

    def body(b):
        return b, lax.psum(b, 'x'), b * 2
    f = jax.shard_map(body, mesh=mesh, in_specs=P('x', 'y'),
                      out_specs=(P(None, 'y'), P(None, 'y'), P('x')))
    with pytest.raises(ValueError) as info:
        jax.jit(f)(a)
    assert str(info.value) == TWO_REPLICATION_ERRORS
    g = jax.shard_map(lambda b: {'a': b, 'b': [b]}, mesh=mesh, in_specs=P('x', 'y'),
                      out_specs={'a': P('x', 'y'), 'b': P()})
    with pytest.raises(ValueError) as info:
        jax.jit(g)(a)
    assert str(info.value) == PYTREE_REPLICATION_ERROR


# -- all_gather(to='invarying'); collectives cast their operands to vary --------------------

ALL_GATHER_INVARIANT = """\
{ lambda ; a:f32[8,4]. let
    b:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2]{V:(x,y)}. let
          d:f32[8,2]{V:y} = all_gather_invariant[
            all_gather_dimension=0
            axis_name=('x',)
            axis_size=4
            tiled=True
          ] c
          e:f32[]{V:y} = pvary[axes=('y',)] 2.0:f32[]
          f:f32[8,2]{V:y} = mul d e
        in (f,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P(None, 'y'),)
    ] a
  in (b,) }"""

ALL_GATHER_INVARIANT_PULLBACK = """\
let jaxpr = { lambda ; a:f32[8,2]{V:y} b:f32[1]{V:y}. let
    c:f32[]{V:y} = squeeze[dimensions=(0,)] b
    d:f32[8,2]{V:y} = mul a c
    e:i32[]{V:x} = axis_index[axis_name=x] 
    f:i32[]{V:x} = pvary[axes=('x',)] 1:i32[]
    g:i32[]{V:x} = mul e f
    h:i32[]{V:x} = pvary[axes=('x',)] 0:i32[]
    i:i32[]{V:x} = add h g
    j:i32[]{V:x} = pvary[axes=('x',)] 2:i32[]
    k:i32[]{V:x} = mul i j
    l:i32[]{V:x} = pvary[axes=('x',)] 0:i32[]
    m:bool[]{V:x} = lt k l
    n:i32[]{V:x} = pvary[axes=('x',)] 8:i32[]
    o:i32[]{V:x} = add k n
    p:i32[]{V:x} = select_n m k o
    q:f32[8,2]{V:(x,y)} = pvary[axes=('x',)] d
    r:i32[]{V:(x,y)} = pvary[axes=('y',)] p
    s:i32[]{V:(x,y)} = pvary[axes=('x', 'y')] 0:i32[]
    t:f32[2,2]{V:(x,y)} = dynamic_slice[slice_sizes=(2, 2)] q r s
  in (t,) } in
{ lambda ; u:f32[8,4] v:f32[8,4]. let
    w:f32[2] _:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; x:f32[2,2]{V:(x,y)}. let
          y:f32[8,2]{V:y} = all_gather_invariant[
            all_gather_dimension=0
            axis_name=('x',)
            axis_size=4
            tiled=True
          ] x
          z:f32[]{V:y} = pvary[axes=('y',)] 2.0:f32[]
          ba:f32[8,2]{V:y} = mul y z
          bb:f32[1]{V:y} = broadcast_in_dim z
        in (bb, ba) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('y',), P(None, 'y'))
    ] u
    bc:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P(None, 'y'), P('y',))
      jaxpr=jaxpr
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] v w
  in (bc,) }"""

ALL_GATHER_OF_AN_INVARIANT_VALUE = """\
{ lambda ; a:f32[8,4]. let
    b:f32[16,4,2] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[2,2]{V:(x,y)}. let
          d:f32[2,2]{V:y} = psum_invariant[axes=('x',)] c
          e:f32[2,2]{V:(x,y)} = pvary[axes=('x',)] d
          f:f32[4,2,2]{V:(x,y)} = all_gather[
            all_gather_dimension=0
            axis_index_groups=None
            axis_name=('x',)
            axis_size=4
            tiled=False
          ] e
        in (f,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] a
  in (b,) }"""

PMAX_OF_AN_INVARIANT_VALUE = """\
{ lambda ; a:f32[16,4]. let
    b:f32[16,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; c:f32[4,2]{V:(x,y)}. let
          d:f32[4,2]{V:y} = psum_invariant[axes=('x',)] c
          e:f32[4,2]{V:(x,y)} = pvary[axes=('x',)] d
          f:f32[4,2]{V:y} = pmax[axes=('x',) axis_index_groups=None] e
          g:f32[4,2]{V:(x,y)} = pvary[axes=('x',)] f
        in (g,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] a
  in (b,) }"""


def test_all_gather_to_invarying(mesh, a):
    """The gathered value is typed as the same on every device along 'x'; its
    transpose takes each device's slice back (no sum, unlike all_gather's)."""
    f = jax.shard_map(lambda b: lax.all_gather(b, 'x', to='invarying', tiled=True) * 2,
                      mesh=mesh, in_specs=P('x', 'y'), out_specs=P(None, 'y'))
    a = np.arange(32.).reshape(8, 4).astype(np.float32)
    assert str(jax.make_jaxpr(f)(a)) == ALL_GATHER_INVARIANT
    np.testing.assert_array_equal(f(a), 2 * a)
    pullback = jax.make_jaxpr(lambda x, ct: jax.vjp(f, x)[1](ct))(a, a)
    assert str(pullback) == ALL_GATHER_INVARIANT_PULLBACK
    np.testing.assert_array_equal(jax.grad(lambda x: (f(x) ** 2).sum())(a), 8 * a)
    g = jax.shard_map(lambda b: lax.all_gather(b, 'x', to='invarying', axis=1), mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P(None, None, 'y'))
    np.testing.assert_array_equal(g(a), np.moveaxis(a.reshape(4, 2, 4), 0, 1))
    v = jax.vmap(f)(np.stack([a, -a]))
    np.testing.assert_array_equal(v, np.stack([2 * a, -2 * a]))
    with pytest.raises(ValueError, match="Got unexpected `to` value for `jax.lax.all_gath"):
        lax.all_gather(a, 'x', to='foo')
    out = jax.pmap(lambda v: lax.all_gather(v, 'i', to='invarying'), axis_name='i')(
        jnp.arange(4.))
    np.testing.assert_array_equal(out, np.tile(np.arange(4.), (4, 1)))


def test_collectives_cast_invariant_operands_to_vary(mesh):
    a = np.arange(64.).reshape(16, 4).astype(np.float32)
    f = jax.shard_map(lambda b: lax.all_gather(lax.psum(b, 'x'), 'x'), mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P('x', 'y'))
    assert str(jax.make_jaxpr(f)(a[:8])) == ALL_GATHER_OF_AN_INVARIANT_VALUE
    g = jax.shard_map(lambda b: lax.pmax(lax.psum(b, 'x'), 'x'), mesh=mesh,
                      in_specs=P('x', 'y'), out_specs=P('x', 'y'))
    assert str(jax.make_jaxpr(g)(a)) == PMAX_OF_AN_INVARIANT_VALUE
    np.testing.assert_array_equal(g(a), np.tile(a.reshape(4, 4, 4).sum(0), (4, 1)))

"""Reverse mode through shard_map as JAX 0.10.2 builds it: a shard_map computing the
residuals and the primal outputs, then the transposed shard_map taking the cotangents
first; residuals that are inputs or outputs are passed on, scalars travel as length-1
blocks. Jaxpr text against JAX's, values against finite differences and the
single-device program. (8 CPU devices, see conftest.py.)"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.sharding import Mesh, PartitionSpec as P
from glassjax.test_util import check_grads

SCALAR_RESIDUAL = """\
{ lambda ; a:f32[8,4] b:f32[8,4]. let
    c:f32[4] _:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; d:f32[2,4]{V:x}. let
          e:f32[]{V:x} = reduce_sum[axes=(0, 1) out_sharding=None] d
          f:f32[]{V:x} = exp e
          g:f32[2,4]{V:x} = mul f d
          h:f32[1]{V:x} = broadcast_in_dim f
        in (h, g) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x',), P('x',))
    ] a
    i:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x',), P('x',), P('x',))
      jaxpr={ lambda ; j:f32[2,4]{V:x} k:f32[1]{V:x} l:f32[2,4]{V:x}. let
          m:f32[]{V:x} = squeeze[dimensions=(0,)] k
          n:f32[2,4]{V:x} = mul m j
          o:f32[2,4]{V:x} = mul j l
          p:f32[]{V:x} = reduce_sum[axes=(0, 1) out_sharding=None] o
          q:f32[]{V:x} = mul p m
          r:f32[2,4]{V:x} = broadcast_in_dim q
          s:f32[2,4]{V:x} = add_any n r
        in (s,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x',),)
    ] b c a
  in (i,) }"""

OUTPUT_IS_THE_RESIDUAL = """\
{ lambda ; a:f32[8,4] b:f32[8,4]. let
    c:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'),)
      jaxpr={ lambda ; d:f32[2,2]{V:(x,y)}. let
          e:f32[2,2]{V:(x,y)} = exp d
        in (e,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] a
    f:f32[8,4] = shard_map[
      check_vma=True
      in_specs=(P('x', 'y'), P('x', 'y'))
      jaxpr={ lambda ; g:f32[2,2]{V:(x,y)} h:f32[2,2]{V:(x,y)}. let
          i:f32[2,2]{V:(x,y)} = mul g h
        in (i,) }
      mesh=Mesh('x': 4, 'y': 2, axis_types=(Auto, Auto))
      newly_manual_axes=frozenset({'x', 'y'})
      out_specs=(P('x', 'y'),)
    ] b c
  in (f,) }"""


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


def _vjp_jaxpr(f, *args):
    """The jaxpr of the forward pass and the pullback (the cotangent is an input, so no
    seed appears)."""
    return str(jax.make_jaxpr(lambda args, ct: jax.vjp(f, *args)[1](ct))(args, f(*args)))


def test_scalar_residual_and_forwarded_input(mesh):
    k = jax.shard_map(lambda b: jnp.exp(b.sum()) * b, mesh=mesh, in_specs=P('x'),
                      out_specs=P('x'))
    assert _vjp_jaxpr(k, jnp.ones((8, 4))) == SCALAR_RESIDUAL
    x = np.random.RandomState(0).randn(8, 4).astype(np.float32) / 8
    check_grads(k, (x,), order=2, modes=["rev"])
    blocks = lambda v: jnp.concatenate([jnp.exp(r.sum()) * r for r in jnp.split(v, 4)])
    np.testing.assert_allclose(jax.grad(lambda v: (k(v) ** 2).sum())(x),
                               jax.grad(lambda v: (blocks(v) ** 2).sum())(x), rtol=1e-5)


def test_a_residual_that_is_an_output_is_not_returned_twice(mesh):
    e = jax.shard_map(jnp.exp, mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
    assert _vjp_jaxpr(e, jnp.ones((8, 4))) == OUTPUT_IS_THE_RESIDUAL


@pytest.mark.parametrize("check_vma", [True, False])
def test_replicated_outputs_and_inputs(mesh, check_vma):
    """A replicated output's cotangent is shared among the devices, a replicated input's
    summed over them: the gradient is that of the whole program."""
    def body(b, w):
        s = jnp.sin(b * w).sum(0, keepdims=True)
        return lax.psum(s, 'x') if check_vma else s
    r = jax.shard_map(body, mesh=mesh, in_specs=(P('x'), P()), out_specs=P(),
                      check_vma=check_vma)
    x = np.random.RandomState(1).randn(8, 4).astype(np.float32)
    if not check_vma:        # every block along 'x' must be the same for out_specs=P()
        x = np.tile(x[:2], (4, 1))
    whole = lambda v, w: (jnp.sin(v * w).sum(0, keepdims=True)
                          * (1 if check_vma else 0.25))
    gx, gw = jax.grad(lambda v, w: r(v, w).sum(), argnums=(0, 1))(x, 2.)
    ex, ew = jax.grad(lambda v, w: whole(v, w).sum(), argnums=(0, 1))(x, 2.)
    np.testing.assert_allclose(gw, ew, rtol=1e-5)
    np.testing.assert_allclose(gx, ex, rtol=1e-5)
    if check_vma:        # (without it, a tangent that differs per block has no P() value)
        check_grads(r, (x, np.float32(2.)), order=1, modes=["fwd", "rev"], atol=2e-2,
                    rtol=2e-2)


@pytest.mark.parametrize("check_vma", [True, False])
def test_checkpoint_and_scan_of_a_shard_map(mesh, check_vma):
    """Inside ``checkpoint`` the shard_map is split by partial evaluation (the known half
    keeps only the residuals the staged half reads); inside ``scan`` it is linearized
    once per iteration. Both give the single-device gradient."""
    k = jax.shard_map(lambda b: jnp.exp(b.sum()) * jnp.sin(b), mesh=mesh, in_specs=P('x'),
                      out_specs=P('x'), check_vma=check_vma)
    blocks = lambda v: jnp.concatenate([jnp.exp(r.sum()) * jnp.sin(r)
                                        for r in jnp.split(v, 4)])
    x = np.random.RandomState(0).randn(8, 4).astype(np.float32) / 4
    f = jax.checkpoint(lambda v: k(v) * 2)
    np.testing.assert_allclose(jax.grad(lambda v: f(v).sum())(x),
                               jax.grad(lambda v: (blocks(v) * 2).sum())(x), rtol=1e-5)
    vjp = str(jax.make_jaxpr(lambda v, ct: jax.vjp(f, v)[1](ct))(x, x))
    assert vjp.count("shard_map[") == 3 and " cos " in vjp
    first = vjp.split("remat2[")[0]          # the primal pass: nothing for the pullback
    assert " cos " not in first
    g = lambda v, m: lax.scan(lambda c, e: (m(c) * e, None), v, jnp.arange(1., 3.))[0]
    np.testing.assert_allclose(jax.grad(lambda v: g(v, k).sum())(x),
                               jax.grad(lambda v: g(v, blocks).sum())(x), rtol=1e-4)

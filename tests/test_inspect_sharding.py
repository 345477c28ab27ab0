"""``jax.debug.inspect_array_sharding``: at once for arrays; inside jit, at compile time,
with the layout XLA's partitioner chose -- the shardings JAX 0.10.2 reports for the same
programs. (8 CPU devices, see conftest.py.)"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P

JAXPR = """\
{ lambda ; a:f32[8,8]. let
    b:f32[8,8] = sin a
    inspect_sharding[
      callback=<function _inspecting.<locals>.f.<locals>.<lambda> at 0xXXXXXXXXXXXX>
    ] b
    c:f32[8,8] = transpose[permutation=(1, 0)] b
    d:f32[8] = reduce_sum[axes=(0,) out_sharding=None] b
    inspect_sharding[
      callback=<function _inspecting.<locals>.f.<locals>.<lambda> at 0xXXXXXXXXXXXX>
    ] c
    inspect_sharding[
      callback=<function _inspecting.<locals>.f.<locals>.<lambda> at 0xXXXXXXXXXXXX>
    ] d
    e:f32[8,8] = mul b 2.0:f32[]
  in (e,) }"""


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


@pytest.fixture(scope="module")
def a():
    return np.arange(64.).reshape(8, 8).astype(np.float32)


def _inspecting():
    """A function inspecting sin(v), its transpose and its column sums; the shardings
    it reports land in the returned list."""
    seen = []

    def f(v):
        w = jnp.sin(v)
        jax.debug.inspect_array_sharding(w, callback=lambda s: seen.append(s))
        jax.debug.inspect_array_sharding((w.T, w.sum(0)), callback=lambda s: seen.append(s))
        return w * 2
    return f, seen


@pytest.mark.parametrize("spec, expected", [
    (P('x', 'y'), [P('x', 'y'), P('y', 'x'), P('y')]),
    (P('y'), [P('y'), P(None, 'y'), P()]),
    (P(('x', 'y')), [P(('x', 'y')), P(None, ('x', 'y')), P()]),
], ids=str)
def test_inside_jit_the_partitioners_choice_once_per_compilation(mesh, a, spec, expected):
    f, seen = _inspecting()
    g = jax.jit(f)
    x = jax.device_put(a, NamedSharding(mesh, spec))
    np.testing.assert_allclose(g(x), 2 * np.sin(a), rtol=1e-6)
    assert seen == [NamedSharding(mesh, s) for s in expected]
    g(x)
    assert len(seen) == 3          # compiled once: no more callbacks


def test_a_sharding_constraint_and_lower_compile(mesh, a):
    f, seen = _inspecting()
    jax.jit(lambda v: f(lax.with_sharding_constraint(v, NamedSharding(mesh, P(None, 'x')))))(a)
    assert seen == [NamedSharding(mesh, s) for s in (P(None, 'x'), P('x'), P('x'))]
    f, seen = _inspecting()
    jax.jit(f).lower(jax.device_put(a, NamedSharding(mesh, P('x')))).compile()
    assert seen == [NamedSharding(mesh, s) for s in (P('x'), P(None, 'x'), P())]


def test_one_device_program_is_replicated(a):
    f, seen = _inspecting()
    jax.jit(f)(a)
    assert [repr(s) for s in seen] == ["GSPMDSharding({replicated}, memory_kind=device)"] * 3
    assert all(s.is_fully_replicated for s in seen)


def test_shard_map_body_sees_its_block_whole(mesh, a):
    f, seen = _inspecting()
    jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x')))(a)
    assert seen == [NamedSharding(mesh, P())] * 3


def test_transformed_and_eager(mesh, a):
    f, seen = _inspecting()
    x = jax.device_put(a, NamedSharding(mesh, P('x')))
    grad = jax.jit(jax.grad(lambda v: f(v).sum()))(x)
    np.testing.assert_allclose(grad, 2 * np.cos(a), rtol=1e-5, atol=1e-6)
    assert seen == [NamedSharding(mesh, s) for s in (P('x'), P(None, 'x'), P())]
    f, seen = _inspecting()
    jax.jit(jax.vmap(f))(x)        # the callback sees the whole batch
    assert seen == [NamedSharding(mesh, P('x'))] * 3
    jax.debug.inspect_array_sharding({'k': x}, callback=seen.append)
    assert seen[-1] is x.sharding


def test_jaxpr_is_jaxs(a):
    f, _ = _inspecting()
    assert str(jax.make_jaxpr(f)(a)) == JAXPR

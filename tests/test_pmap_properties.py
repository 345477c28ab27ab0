"""Property tests over seeded random programs: pmap of a program mixing elementwise
operations and collectives equals the same program run on the stacked slices with NumPy
(over 1, 2, 4 and 8 devices) and equals vmap with the same axis name; its derivatives,
and those of shard_map bodies with collectives (check_vma on and off), pass check_grads;
jit over inputs laid out by random partition specs equals single-device jit.
(8 CPU devices, see conftest.py.)"""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax
from glassjax.named_sharding import IndivisibleError
from glassjax.sharding import Mesh, NamedSharding, PartitionSpec as P
from glassjax.test_util import check_grads


# -- random programs: each step has a per-device form and a form on the stacked rows -----

def _ring(n):
    return [(k, (k + 1) % n) for k in range(n)]


def _steps(axis, n):
    """(name, per-device op on a block, the same op on all blocks stacked on axis 0,
    smooth?) for a named axis of size ``n``."""
    idx = np.arange(n, dtype=np.float32).reshape(-1, 1)
    return [
        ("sin", jnp.sin, np.sin, True),
        ("affine", lambda v: v * 0.5 + 1.0, lambda s: s * 0.5 + 1.0, True),
        ("square", lambda v: v * v, lambda s: s * s, True),
        ("reverse", lambda v: v[::-1], lambda s: s[:, ::-1], True),
        ("cumsum", jnp.cumsum, lambda s: np.cumsum(s, 1), True),
        ("psum", lambda v: lax.psum(v, axis),
         lambda s: np.broadcast_to(s.sum(0), s.shape), True),
        ("pmean*v", lambda v: lax.pmean(v, axis) * v, lambda s: s.mean(0) * s, True),
        ("pmax", lambda v: lax.pmax(v, axis),
         lambda s: np.broadcast_to(s.max(0), s.shape), False),
        ("pmin", lambda v: lax.pmin(v, axis),
         lambda s: np.broadcast_to(s.min(0), s.shape), False),
        ("gather", lambda v: (lax.all_gather(v, axis) * np.arange(1., n + 1)[:, None]).sum(0),
         lambda s: np.broadcast_to((s * np.arange(1., n + 1)[:, None]).sum(0), s.shape),
         True),
        ("ring", lambda v: lax.ppermute(v, axis, _ring(n)), lambda s: np.roll(s, 1, 0), True),
        ("index", lambda v: v + lax.axis_index(axis).astype(jnp.float32),
         lambda s: s + idx, True),
        ("pbroadcast", lambda v: lax.pbroadcast(v, axis, n - 1),
         lambda s: np.broadcast_to(s[n - 1], s.shape), True),
    ]


def _program(seed, axis, n, smooth=False):
    """A random chain of 1-5 steps; returns (per-device function, stacked function)."""
    steps = [s for s in _steps(axis, n) if s[3] or not smooth]
    rng = np.random.RandomState(seed)
    chosen = [steps[i] for i in rng.randint(len(steps), size=rng.randint(1, 6))]

    def per_device(v):
        for _, op, _, _ in chosen:
            v = op(v)
        return v

    def stacked(s):
        for _, _, op, _ in chosen:
            s = op(s)
        return s
    per_device.__name__ = "_".join(name for name, *_ in chosen)
    return per_device, stacked


@pytest.mark.parametrize("devices", [1, 2, 4, 8])
@pytest.mark.parametrize("seed", range(5))
def test_pmap_equals_the_program_on_the_stacked_slices(devices, seed):
    f, stacked = _program(seed, 'i', devices)
    x = np.random.RandomState(seed).randn(devices, 4).astype(np.float32)
    out = jax.pmap(f, axis_name='i')(x)
    np.testing.assert_allclose(out, stacked(x.astype(np.float64)), rtol=1e-4, atol=1e-4,
                               err_msg=f.__name__)
    np.testing.assert_allclose(out, jax.vmap(f, axis_name='i')(x), rtol=1e-5, atol=1e-5,
                               err_msg=f.__name__)


@pytest.mark.parametrize("devices", [2, 4])
@pytest.mark.parametrize("seed", range(3))
def test_grad_through_pmap_of_random_programs(devices, seed):
    f, _ = _program(10 + seed, 'i', devices, smooth=True)
    x = np.random.RandomState(seed).randn(devices, 3).astype(np.float32) / 2
    check_grads(jax.pmap(f, axis_name='i'), (x,), order=1, modes=["fwd", "rev"],
                atol=2e-2, rtol=2e-2)


@pytest.fixture(scope="module")
def mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


@pytest.mark.parametrize("check_vma", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_shard_map_of_random_programs_equals_the_stacked_program(mesh, check_vma, seed):
    """Each step's collectives run over 'x' (size 4) of a (4, 2) mesh; the blocks along
    'y' are independent programs, so the stacked reference runs per column."""
    f, stacked = _program(20 + seed, 'x', 4)
    x = np.random.RandomState(seed).randn(8, 4).astype(np.float32)
    g = jax.shard_map(lambda b: f(b[0])[None], mesh=mesh, in_specs=P(('x', 'y')),
                      out_specs=P(('x', 'y')), check_vma=check_vma)
    # block k of the (x, y) split sits at x = k // 2, y = k % 2
    blocks = x.reshape(4, 2, 4).astype(np.float64)
    expected = np.stack([stacked(blocks[:, j]) for j in range(2)], 1).reshape(8, 4)
    np.testing.assert_allclose(g(x), expected, rtol=1e-4, atol=1e-4, err_msg=f.__name__)


@pytest.mark.parametrize("check_vma", [True, False])
@pytest.mark.parametrize("seed", range(2))
def test_grad_through_shard_map_of_random_programs(mesh, check_vma, seed):
    f, _ = _program(30 + seed, 'x', 4, smooth=True)
    x = np.random.RandomState(seed).randn(8, 3).astype(np.float32) / 2
    g = jax.shard_map(lambda b: f(b[0])[None], mesh=mesh, in_specs=P(('x', 'y')),
                      out_specs=P(('x', 'y')), check_vma=check_vma)
    check_grads(g, (x,), order=1, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("check_vma", [True, False])
def test_grad_through_scatter_all_to_all_and_replicated_inputs(mesh, check_vma):
    """Collectives whose transposes are other collectives, and a replicated weight whose
    cotangent is summed over the devices."""
    def body(b, w):
        s = lax.psum_scatter(b @ w, 'x', scatter_dimension=1, tiled=True)
        t = lax.all_to_all(jnp.sin(b), 'x', 0, 0, tiled=True)
        return s * 2. + lax.all_gather(s, 'y', axis=1, tiled=True)[:, :1] + t[:, :1]
    g = jax.shard_map(body, mesh=mesh, in_specs=(P('x', 'y'), P('y')),
                      out_specs=P('x', 'y'), check_vma=check_vma)
    rng = np.random.RandomState(0)
    b, w = rng.randn(16, 4).astype(np.float32) / 2, rng.randn(4, 8).astype(np.float32) / 2
    check_grads(g, (b, w), order=1, modes=["fwd", "rev"], atol=2e-2, rtol=2e-2)


# -- jit over sharded inputs equals single-device jit --------------------------------------

_PROGRAMS = [
    lambda v: jnp.sin(v) * 2 + v.T,
    lambda v: (v @ v.T).sum(0),
    lambda v: jnp.cumsum(v, 1)[::-1],
    lambda v: v.reshape(4, 16).max(1),
    lambda v: jnp.concatenate([v, v * 2], 0)[3:11] - v.mean(),
    lambda v: jnp.where(v > 30, v, -v)[:, 2:6] @ jnp.ones((4, 3)),
]
_SPECS = [P('x'), P(None, 'y'), P('y', 'x'), P(('x', 'y')), P(), P('x', 'y'),
          P(None, ('y', 'x'))]


@pytest.mark.parametrize("seed", range(8))
def test_jit_over_sharded_inputs_equals_single_device(mesh, seed):
    rng = np.random.RandomState(seed)
    a = rng.randn(8, 8).astype(np.float32) * 30
    spec, out_spec = (_SPECS[i] for i in rng.randint(len(_SPECS), size=2))
    f = _PROGRAMS[seed % len(_PROGRAMS)]
    expected = jax.jit(f)(a)
    x = jax.device_put(a, NamedSharding(mesh, spec))
    np.testing.assert_allclose(jax.jit(f)(x), expected, rtol=1e-5, atol=1e-3)
    # the same with a constraint in the middle and an asked-for output layout
    g = jax.jit(lambda v: f(lax.with_sharding_constraint(v * 1., NamedSharding(mesh, spec))))
    np.testing.assert_allclose(g(a), expected, rtol=1e-5, atol=1e-3)
    if expected.ndim == 2:
        h = jax.jit(f, out_shardings=NamedSharding(mesh, out_spec))
        if any(n % _tiles(mesh, entry) for n, entry in zip(expected.shape, out_spec)):
            with pytest.raises(IndivisibleError, match="should evenly divide the shape"):
                h(x)
        else:
            out = h(x)
            assert out.sharding == NamedSharding(mesh, out_spec)
            np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-3)


def _tiles(mesh, entry):
    axes = () if entry is None else entry if isinstance(entry, tuple) else (entry,)
    return int(np.prod([mesh.shape[a] for a in axes]))

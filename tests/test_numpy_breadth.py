"""The breadth of ``jax.numpy`` beyond the basics, against NumPy: padding modes, NaN
reductions and quantiles, partitions, histograms, index tricks, editing functions,
finite differences and statistics, windows, bit packing, gcd/lcm, frexp/ldexp.

Random float32 inputs; NumPy computes in float64 on the same values, so comparisons use
float32 tolerances. Where JAX documents a difference from NumPy (e.g. all-NaN slices in
``nanargmax`` give -1) the test checks JAX's behaviour.
"""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax.test_util import check_grads

rng = np.random.default_rng(1)


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _close(got, want, rtol=1e-5, atol=1e-5, dtype=True):
    want = np.asarray(want)
    got_np = np.asarray(got)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    if dtype:
        assert got_np.dtype == want.dtype, (got_np.dtype, want.dtype)
    np.testing.assert_allclose(got_np, want, rtol=rtol, atol=atol)


# -- pad ----------------------------------------------------------------------------------

PAD_CASES = [("constant", {}), ("constant", {"constant_values": ((1, 2), (3, 4))}),
             ("edge", {}), ("wrap", {}), ("reflect", {}), ("symmetric", {}),
             ("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"}),
             ("linear_ramp", {"end_values": (1, -2)}), ("maximum", {}), ("minimum", {}),
             ("mean", {}), ("median", {}), ("mean", {"stat_length": 2}),
             ("maximum", {"stat_length": ((1, 2), (3, 1))})]


@pytest.mark.parametrize("mode,kw", PAD_CASES)
@pytest.mark.parametrize("width", [((2, 5), (1, 3)), 1, ((0, 7), (9, 0))])
def test_pad_modes_match_numpy(mode, kw, width):
    x = _f32(3, 4)
    _close(jnp.pad(x, width, mode, **kw), np.pad(x, width, mode, **kw))


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric", "mean"])
def test_pad_integer_arrays(mode):
    x = rng.integers(-9, 9, (5,)).astype(np.int32)
    _close(jnp.pad(x, (3, 8), mode), np.pad(x, (3, 8), mode))


def test_pad_callable_mode_and_errors():
    def pad_with(vector, pad_width, iaxis, kwargs):
        vector[:pad_width[0]] = kwargs.get("padder", 10)
        vector[vector.shape[0] - pad_width[1]:] = kwargs.get("padder", 10)

    def jpad_with(vector, pad_width, iaxis, kwargs):
        vector = vector.at[:pad_width[0]].set(kwargs.get("padder", 10))
        return vector.at[vector.shape[0] - pad_width[1]:].set(kwargs.get("padder", 10))
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    _close(jnp.pad(x, 2, jpad_with, padder=7), np.pad(x, 2, pad_with, padder=7))
    with pytest.raises(NotImplementedError):
        jnp.pad(x, 1, "unknown")
    with pytest.raises(ValueError, match="unsupported keyword"):
        jnp.pad(x, 1, "edge", constant_values=1)
    with pytest.raises(ValueError, match="negative"):
        jnp.pad(x, -1, "reflect")


def test_pad_reflect_grad_and_jaxpr():
    x = _f32(5)
    check_grads(lambda x: jnp.pad(x, 3, "reflect") ** 2, (x,), order=2)
    check_grads(lambda x: jnp.pad(x, 2, "mean").sum(), (x,), order=1)
    jaxpr = glassjax.make_jaxpr(lambda x: jnp.pad(x, 2, "reflect"))(x[:4])
    assert str(jaxpr) == """\
let _flip = { lambda ; a:f32[2]. let b:f32[2] = rev[dimensions=(0,)] a in (b,) } in
{ lambda ; c:f32[4]. let
    d:f32[8] = jit[
      name=_pad
      jaxpr={ lambda ; c:f32[4] e:i32[]. let
          f:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] c
          g:f32[2] = slice[limit_indices=(3,) start_indices=(1,) strides=(1,)] c
          h:f32[2] = jit[name=_flip jaxpr=_flip] g
          i:f32[6] = concatenate[dimension=0] h c
          j:f32[1] = slice[limit_indices=(6,) start_indices=(5,) strides=(1,)] i
          k:f32[2] = slice[limit_indices=(5,) start_indices=(3,) strides=(1,)] i
          l:f32[2] = jit[name=_flip jaxpr=_flip] k
          d:f32[8] = concatenate[dimension=0] i l
        in (d,) }
    ] c 0:i32[]
  in (d,) }"""


# -- NaN reductions, quantiles, partitions ------------------------------------------------

def _with_nans(*shape):
    x = _f32(*shape)
    x[rng.random(shape) < 0.3] = np.nan
    return x


@pytest.mark.parametrize("name", ["nanstd", "nanvar", "nanmedian"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_nan_statistics(name, axis):
    x = _with_nans(4, 5)
    x[0, :] = 1.5                                   # one row without NaNs
    _close(getattr(jnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis), dtype=False)


@pytest.mark.parametrize("name", ["nanpercentile", "nanquantile"])
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_nan_quantiles(name, method):
    x = _with_nans(3, 7)
    q = np.array([10., 50., 95.], np.float32) / (1 if name == "nanpercentile" else 100)
    _close(getattr(jnp, name)(x, q, axis=1, method=method),
           getattr(np, name)(x, q, axis=1, method=method).astype(np.float32))
    _close(getattr(jnp, name)(x, q[1], axis=0, keepdims=True, method=method),
           getattr(np, name)(x, q[1], axis=0, keepdims=True, method=method)
           .astype(np.float32))


def test_nanvar_ddof_grad_and_all_nan():
    x = _with_nans(6)
    _close(jnp.nanvar(x, ddof=1), np.float32(np.nanvar(x, ddof=1)))
    assert np.isnan(jnp.nanstd(np.full(3, np.nan, np.float32)))
    g = glassjax.grad(lambda x: jnp.nanvar(x))(x)
    finite = ~np.isnan(x)
    xs = x[finite]
    _close(np.asarray(g)[finite], 2 * (xs - xs.mean()) / len(xs), atol=1e-5)
    assert np.all(np.asarray(g)[~finite] == 0)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_reductions(name):
    x = _with_nans(4, 6)
    x[:, 0] = 0.0
    _close(getattr(jnp, name)(x, axis=1), getattr(np, name)(x, axis=1).astype(np.int32))
    _close(getattr(jnp, name)(x), np.int32(getattr(np, name)(x)))
    x[2, :] = np.nan                                # JAX: -1 where all are NaN
    assert getattr(jnp, name)(x, axis=1)[2] == -1
    assert getattr(jnp, name)(np.arange(5), keepdims=True).shape == (1,)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
def test_nan_cumulative(name):
    x = _with_nans(3, 4)
    for axis in (None, 0, 1):
        _close(getattr(jnp, name)(x, axis=axis), getattr(np, name)(x, axis=axis), rtol=1e-5)
    check_grads(lambda x: getattr(jnp, name)(x, axis=1), (_f32(2, 3),), order=1)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
@pytest.mark.parametrize("kth", [0, 3, -1])
def test_partition(dtype, kth):
    x = (rng.integers(0, 50, (4, 9)) if dtype != np.float32 else _f32(4, 9)).astype(dtype)
    for axis in (-1, 0):
        n = x.shape[axis]
        k = kth % n
        got = np.asarray(jnp.partition(x, kth, axis=axis))
        want = np.partition(x, kth, axis=axis)
        np.testing.assert_array_equal(np.take(got, k, axis), np.take(want, k, axis))
        np.testing.assert_array_equal(np.sort(got, axis=axis), np.sort(x, axis=axis))
        assert np.all(np.take(got, range(k), axis) <= np.expand_dims(np.take(got, k, axis),
                                                                    axis))
        idx = np.asarray(jnp.argpartition(x, kth, axis=axis))
        by_idx = np.take_along_axis(x, idx, axis)
        np.testing.assert_array_equal(np.take(by_idx, k, axis), np.take(want, k, axis))
        np.testing.assert_array_equal(np.sort(idx, axis=axis), np.indices(x.shape)[axis])
        assert np.all(np.take(by_idx, range(k), axis) <= np.expand_dims(
            np.take(by_idx, k, axis), axis))
        assert np.all(np.take(by_idx, range(k + 1, n), axis) >= np.expand_dims(
            np.take(by_idx, k, axis), axis))


def test_sort_complex():
    x = _f32(6)
    _close(jnp.sort_complex(x), np.sort_complex(x).astype(np.complex64))
    assert jnp.sort_complex(np.arange(3, dtype=np.int32)).dtype == np.complex64


# -- histograms ---------------------------------------------------------------------------

@pytest.mark.parametrize("bins", [5, np.array([-2., -0.5, 0., 0.3, 3.], np.float32)])
@pytest.mark.parametrize("density", [False, True])
def test_histogram(bins, density):
    x = _f32(100)
    w = rng.random(100).astype(np.float32)
    counts, edges = jnp.histogram(x, bins, density=density)
    want_counts, want_edges = np.histogram(x, bins, density=density)
    _close(counts, want_counts.astype(np.float32), rtol=1e-4)
    _close(edges, want_edges.astype(np.float32))
    counts, _ = jnp.histogram(x, bins, range=(-1, 1), weights=w, density=density)
    want_counts, _ = np.histogram(x, bins, range=(-1, 1), weights=w, density=density)
    _close(counts, want_counts.astype(np.float32), rtol=1e-4)
    _close(jnp.histogram_bin_edges(x, 7), np.histogram_bin_edges(x, 7).astype(np.float32))


def test_histogram2d_and_dd():
    x, y = _f32(200), _f32(200)
    h, ex, ey = jnp.histogram2d(x, y, bins=(4, 6), density=True)
    wh, wex, wey = np.histogram2d(x, y, bins=(4, 6), density=True)
    _close(h, wh.astype(np.float32), rtol=1e-4)
    _close(ex, wex.astype(np.float32))
    _close(ey, wey.astype(np.float32))
    sample = _f32(150, 3)
    h, edges = jnp.histogramdd(sample, bins=3)
    wh, wedges = np.histogramdd(sample, bins=3)
    _close(h, wh.astype(np.int32))                  # JAX counts in int32 without weights
    for e, we in zip(edges, wedges):
        _close(e, we.astype(np.float32))


def test_histogram_under_jit_with_static_bins():
    x = _f32(50)
    f = glassjax.jit(lambda x: jnp.histogram(x, bins=4, range=(-2, 2))[0])
    _close(f(x), np.histogram(x, 4, (-2, 2))[0].astype(np.float32))


# -- index tricks -------------------------------------------------------------------------

def test_r_c_mgrid_ogrid():
    _close(jnp.r_[1:4, 0, np.array([7, 8])], np.r_[1:4, 0, np.array([7, 8])].astype(np.int32))
    _close(jnp.r_[0:1:5j], np.r_[0:1:5j].astype(np.float32))
    _close(jnp.r_["0,2", [1, 2], [3, 4]], np.r_["0,2", [1, 2], [3, 4]].astype(np.int32))
    _close(jnp.r_["r", [1, 2, 3]], np.r_["r", [1, 2, 3]].astype(np.int32))
    _close(jnp.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
           np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])].astype(np.int32))
    _close(jnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2].astype(np.int32))
    _close(jnp.mgrid[0:1:4j, 0:2], np.mgrid[0:1:4j, 0:2].astype(np.float32))
    for got, want in zip(jnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        _close(got, want.astype(np.int32))
    assert jnp.s_[1:2, ::3] == np.s_[1:2, ::3] and jnp.index_exp[2] == (2,)


def test_ix_unravel_ravel_multi_index():
    a = np.arange(20).reshape(4, 5)
    rows, cols = np.array([0, 3]), np.array([1, 2, 4])
    _close(jnp.asarray(a)[jnp.ix_(rows, cols)], a[np.ix_(rows, cols)].astype(np.int32))
    flat = np.array([0, 7, 19, 13])
    for got, want in zip(jnp.unravel_index(flat, (4, 5)), np.unravel_index(flat, (4, 5))):
        _close(got, want.astype(np.int32))
    idx = (np.array([0, 3, 2]), np.array([4, 1, 0]))
    for order in ("C", "F"):
        _close(jnp.ravel_multi_index(idx, (4, 5), order=order),
               np.ravel_multi_index(idx, (4, 5), order=order).astype(np.int32))
    _close(jnp.ravel_multi_index((np.array([5, -1]), np.array([1, 7])), (4, 5), mode="clip"),
           np.ravel_multi_index((np.array([5, -1]), np.array([1, 7])), (4, 5), mode="clip")
           .astype(np.int32))
    with pytest.raises(ValueError, match="invalid entry"):
        jnp.ravel_multi_index((np.array([5]), np.array([1])), (4, 5))
    for got, want in zip(jnp.mask_indices(4, jnp.triu, 1), np.mask_indices(4, np.triu, 1)):
        _close(got, want.astype(np.int32))


# -- editing ------------------------------------------------------------------------------

def test_put_place_fill_diagonal():
    a = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    want = a.copy()
    np.put(want, [0, 7, 3], [-1, -2])
    _close(jnp.put(a, np.array([0, 7, 3]), np.array([-1., -2.]), inplace=False), want)
    want = a.copy()
    np.put(want, [12, -13], [5.], mode="wrap")
    _close(jnp.put(a, np.array([12, -13]), 5., mode="wrap", inplace=False), want)
    with pytest.raises(ValueError, match="immutable"):
        jnp.put(a, 0, 1.)
    mask = a > 4
    want = a.copy()
    np.place(want, mask, [10, 20])
    _close(jnp.place(a, mask, np.array([10., 20.]), inplace=False), want)
    m = np.zeros((4, 4), np.float32)
    want = m.copy()
    np.fill_diagonal(want, [1, 2, 3])
    _close(jnp.fill_diagonal(m, np.array([1., 2., 3.]), inplace=False), want)
    m3 = np.zeros((3, 3, 3), np.int32)
    want = m3.copy()
    np.fill_diagonal(want, 4)
    _close(jnp.fill_diagonal(m3, 4, inplace=False), want)


def test_delete_insert():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    for obj, axis in [(1, 0), (-1, 1), (slice(0, 3, 2), 1), (np.array([0, 2]), None),
                      (np.array([True, False, True, False]), 1)]:
        _close(jnp.delete(a, obj, axis=axis), np.delete(a, obj, axis=axis))
    _close(jnp.delete(a, np.array([0, 2]), axis=1, assume_unique_indices=True),
           np.delete(a, [0, 2], axis=1))
    for obj, values, axis in [(1, 9, 0), (2, np.array([7, 8, 9, 10]), 0), (np.array([1, 3]), np.array([5, 6]), 1),
                              (slice(0, 2), 0, None), (-1, 3, None)]:
        _close(jnp.insert(a, obj, values, axis=axis), np.insert(a, obj, values, axis=axis))


def test_compress_extract_choose():
    a = _f32(4, 3)
    cond = np.array([True, False, True])
    for axis in (None, 1):
        _close(jnp.compress(cond, a, axis=axis), np.compress(cond, a, axis=axis))
    _close(jnp.compress(cond, a, axis=1, size=3, fill_value=-1.),
           np.concatenate([np.compress(cond, a, axis=1), np.full((4, 1), -1, np.float32)], 1))
    c = a > 0
    _close(jnp.extract(c, a), np.extract(c, a))
    _close(jnp.extract(c, a, size=12, fill_value=0.),
           np.concatenate([np.extract(c, a), np.zeros(12 - c.sum(), np.float32)]))
    choices = [np.arange(4) * k for k in (1, 10, 100)]
    idx = np.array([0, 2, 1, 2])
    _close(jnp.choose(idx, choices), np.choose(idx, choices).astype(np.int32))
    _close(jnp.choose(idx + 2, choices, mode="wrap"),
           np.choose(idx + 2, choices, mode="wrap").astype(np.int32))
    _close(jnp.choose(idx + 2, choices, mode="clip"),
           np.choose(idx + 2, choices, mode="clip").astype(np.int32))


def test_piecewise():
    x = np.linspace(-2, 2, 9).astype(np.float32)
    conds = [x < 0, x > 1]
    funcs = [lambda x: -x, lambda x: x ** 2, 0.5]
    _close(jnp.piecewise(x, conds, funcs), np.piecewise(x, conds, funcs))
    _close(jnp.piecewise(x, [x < 0], [lambda x: x * 3]),
           np.piecewise(x, [x < 0], [lambda x: x * 3]))
    f = lambda x: jnp.piecewise(x, [x < 0, x >= 0], [lambda x: x ** 2, lambda x: 3 * x])
    _close(glassjax.vmap(glassjax.grad(f))(x), np.where(x < 0, 2 * x, 3.))
    _close(glassjax.jit(f)(x), f(x))


def test_resize_trim_block_diagflat_rollaxis():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    _close(jnp.resize(a, (3, 5)), np.resize(a, (3, 5)))
    _close(jnp.resize(a, 4), np.resize(a, 4))
    f = np.array([0, 0, 1, 2, 0, 3, 0, 0], np.int32)
    for trim in ("fb", "f", "b"):
        _close(jnp.trim_zeros(f, trim), np.trim_zeros(f, trim))
    A, B = np.eye(2, dtype=np.float32), np.ones((2, 3), np.float32)
    C, D = np.zeros((1, 2), np.float32), np.full((1, 3), 5, np.float32)
    _close(jnp.block([[A, B], [C, D]]), np.block([[A, B], [C, D]]))
    _close(jnp.block([np.arange(2), np.arange(3)]), np.block([np.arange(2), np.arange(3)])
           .astype(np.int32))
    for k in (0, 2, -1):
        _close(jnp.diagflat(np.array([[1, 2], [3, 4]]), k),
               np.diagflat([[1, 2], [3, 4]], k).astype(np.int32))
    x = _f32(2, 3, 4, 5)
    for axis, start in [(3, 1), (2, 0), (1, 4), (-1, -3)]:
        _close(jnp.rollaxis(x, axis, start), np.rollaxis(x, axis, start))


# -- numerical ----------------------------------------------------------------------------

def test_gradient():
    f = _f32(5, 6)
    for got, want in zip(jnp.gradient(f), np.gradient(f)):
        _close(got, want, rtol=1e-5)
    _close(jnp.gradient(f, 0.5, axis=1), np.gradient(f, 0.5, axis=1), rtol=1e-5)
    xs = np.cumsum(rng.random(6) + 0.1).astype(np.float32)
    _close(jnp.gradient(f, xs, axis=-1), np.gradient(f, xs, axis=-1), rtol=1e-4)
    with pytest.raises(ValueError, match="too small"):
        jnp.gradient(np.ones(1, np.float32))


def test_ediff1d_trapezoid_unwrap_vander():
    x = _f32(3, 4)
    _close(jnp.ediff1d(x), np.ediff1d(x))
    _close(jnp.ediff1d(x, to_end=np.array([9., 8.]), to_begin=-1.),
           np.ediff1d(x, to_end=[9., 8.], to_begin=-1.).astype(np.float32))
    _close(jnp.trapezoid(x), np.trapezoid(x), rtol=1e-5)
    _close(jnp.trapezoid(x, dx=0.3, axis=0), np.trapezoid(x, dx=0.3, axis=0), rtol=1e-5)
    xs = np.sort(_f32(4))
    _close(jnp.trapezoid(x, xs), np.trapezoid(x, xs), rtol=1e-5)
    phase = np.cumsum(rng.random(20) * 2).astype(np.float32) % (2 * np.pi)
    _close(jnp.unwrap(phase), np.unwrap(phase).astype(np.float32), rtol=1e-5, atol=1e-5)
    v = np.array([1., 2., 3.5], np.float32)
    _close(jnp.vander(v), np.vander(v).astype(np.float32))
    _close(jnp.vander(v, 4, increasing=True),
           np.vander(v, 4, increasing=True).astype(np.float32))


@pytest.mark.parametrize("kw", [{}, {"rowvar": False}, {"bias": True}, {"ddof": 2}])
def test_cov_corrcoef(kw):
    m = _f32(3, 8)
    _close(jnp.cov(m, **kw), np.cov(m, **kw).astype(np.float32), rtol=1e-4, atol=1e-5)
    y = _f32(2, 8) if kw.get("rowvar", True) else _f32(3, 2)
    _close(jnp.cov(m, y, **kw), np.cov(m, y, **kw).astype(np.float32), rtol=1e-4, atol=1e-5)
    _close(jnp.corrcoef(m, rowvar=kw.get("rowvar", True)),
           np.corrcoef(m, rowvar=kw.get("rowvar", True)).astype(np.float32), rtol=1e-4,
           atol=1e-5)


def test_cov_weights():
    m = _f32(2, 6)
    fw = rng.integers(1, 4, 6)
    aw = rng.random(6).astype(np.float32)
    _close(jnp.cov(m, fweights=fw, aweights=aw), np.cov(m, fweights=fw, aweights=aw)
           .astype(np.float32), rtol=1e-4, atol=1e-6)
    check_grads(lambda m: jnp.cov(m), (m,), order=1, atol=1e-2, rtol=1e-2)


# -- windows, bits, integer and float ufuncs ----------------------------------------------

@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("M", [0, 1, 2, 7, 16])
def test_windows(name, M):
    _close(getattr(jnp, name)(M), getattr(np, name)(M).astype(np.float32), atol=1e-6)


def test_kaiser_and_i0():
    for M, beta in [(8, 5.0), (1, 2.), (11, 0.5)]:
        _close(jnp.kaiser(M, beta), np.kaiser(M, beta).astype(np.float32), rtol=1e-5)
    x = np.linspace(-10, 10, 21).astype(np.float32)
    _close(jnp.i0(x), np.i0(x).astype(np.float32), rtol=1e-5)
    _close(glassjax.vmap(glassjax.grad(jnp.i0))(x[8:13]),
           np.array([(np.i0(v + 1e-3) - np.i0(v - 1e-3)) / 2e-3 for v in x[8:13]
                     .astype(np.float64)], np.float32), rtol=1e-3, atol=1e-4)
    assert glassjax.grad(jnp.i0)(0.0) == 0.0


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_packbits_unpackbits(bitorder):
    bits = rng.random((3, 13)) > 0.5
    for axis in (None, 0, 1):
        packed = np.packbits(bits, axis=axis, bitorder=bitorder)
        _close(jnp.packbits(bits, axis=axis, bitorder=bitorder), packed)
        _close(jnp.unpackbits(packed, axis=axis, bitorder=bitorder),
               np.unpackbits(packed, axis=axis, bitorder=bitorder))
    packed = np.packbits(bits, axis=1)
    for count in (5, 20):
        _close(jnp.unpackbits(packed, axis=1, count=count),
               np.unpackbits(packed, axis=1, count=count))
    with pytest.raises(TypeError):
        jnp.unpackbits(np.ones(3, np.int32))


def test_gcd_lcm_bitwise_count():
    a = rng.integers(-60, 60, (5, 6)).astype(np.int32)
    b = rng.integers(-60, 60, (6,)).astype(np.int32)
    _close(jnp.gcd(a, b), np.gcd(a, b))
    _close(jnp.lcm(a, b), np.lcm(a, b))
    _close(jnp.bitwise_count(a), np.bitwise_count(a))
    with pytest.raises(ValueError, match="integers"):
        jnp.gcd(1.0, 2.0)


def test_frexp_ldexp_spacing():
    # (No subnormals: XLA on CPU flushes them to zero, in JAX as here.)
    x = np.concatenate([_f32(20) * 100, np.array([0., np.inf, -np.inf, 2e-38], np.float32)])
    m, e = jnp.frexp(x)
    wm, we = np.frexp(x)
    _close(m, wm)
    _close(e, we.astype(np.int32))
    ex = rng.integers(-20, 20, x.shape).astype(np.int32)
    _close(jnp.ldexp(x, ex), np.ldexp(x, ex))
    _close(jnp.spacing(x[:20]), np.spacing(x[:20]))
    _close(glassjax.grad(lambda x: jnp.frexp(x)[0])(12.0), np.float32(1 / 16))


def test_new_names_exist_and_behave():
    assert jnp.bool is jnp.bool_ and jnp.zeros(2, jnp.bool).dtype == np.bool_
    assert jnp.float8_e4m3fn(1.5).dtype == jnp.dtype("float8_e4m3fn")
    assert jnp.int4(3).dtype == jnp.dtype("int4")
    assert jnp.isdtype(jnp.float32, "real floating")
    assert jnp.isdtype(jnp.int4, ("signed integer", jnp.bool_))
    assert not jnp.isdtype(jnp.uint8, "signed integer")
    with pytest.raises(ValueError, match="Unrecognized"):
        jnp.isdtype(jnp.float32, "floaty")
    _close(jnp.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=jnp.int32),
           np.fromfunction(lambda i, j: i * 10 + j, (3, 4), dtype=np.int32))
    _close(jnp.frombuffer(np.arange(4, dtype=np.float32).tobytes(), dtype=np.float32),
           np.arange(4, dtype=np.float32))
    _close(jnp.fromstring("1 2 3", dtype=np.int32, sep=" "), np.array([1, 2, 3], np.int32))
    with pytest.raises(NotImplementedError, match="non-pure"):
        jnp.fromiter(iter([1, 2]))
    add = jnp.frompyfunc(lambda x, y: x + y, 2, 1, identity=0)
    _close(add.reduce(np.arange(5, dtype=np.int32)), np.int32(10))


def test_save_load_roundtrip(tmp_path):
    path = tmp_path / "x.npy"
    jnp.save(path, jnp.arange(4.0, dtype=jnp.bfloat16))
    y = jnp.load(path)
    assert y.dtype == jnp.bfloat16
    _close(y.astype(np.float32), np.arange(4.0, dtype=np.float32))

"""``jax.nn.initializers``, ``jax.nn.dot_product_attention``, ``jax.random.orthogonal``,
``jax.ops.segment_*`` and ``jax.image``: against NumPy re-implementations and the
statistics each initializer promises."""
import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import image, nn, ops, random
from glassjax.test_util import check_grads

rng = np.random.default_rng(3)
init = nn.initializers


# -- initializers -------------------------------------------------------------------------

@pytest.mark.parametrize("name,scale,mode,dist", [
    ("glorot_uniform", 1.0, "fan_avg", "uniform"),
    ("glorot_normal", 1.0, "fan_avg", "truncated_normal"),
    ("lecun_uniform", 1.0, "fan_in", "uniform"),
    ("lecun_normal", 1.0, "fan_in", "truncated_normal"),
    ("he_uniform", 2.0, "fan_in", "uniform"),
    ("he_normal", 2.0, "fan_in", "truncated_normal"),
    ("xavier_normal", 1.0, "fan_avg", "truncated_normal"),
    ("kaiming_uniform", 2.0, "fan_in", "uniform")])
def test_variance_scaling_family(name, scale, mode, dist):
    shape = (200, 300)
    w = np.asarray(getattr(init, name)()(random.key(0), shape))
    assert w.shape == shape and w.dtype == np.float32
    fan = {"fan_in": 200, "fan_avg": 250}[mode]
    np.testing.assert_allclose(w.var(), scale / fan, rtol=0.05)
    np.testing.assert_allclose(w.mean(), 0, atol=0.01 * np.sqrt(scale / fan) * 10)
    bound = np.sqrt(3 * scale / fan) if dist == "uniform" else 2 * np.sqrt(scale / fan) / .8796
    assert np.abs(w).max() <= bound * (1 + 1e-6)
    same = getattr(init, name)()(random.key(0), shape)
    np.testing.assert_array_equal(np.asarray(same), w)


def test_variance_scaling_conv_fans_and_complex():
    # A 3x3 conv kernel, 16 in / 32 out channels: fans are 9*16 and 9*32.
    w = np.asarray(init.variance_scaling(1.0, "fan_out", "normal")(random.key(1),
                                                                     (3, 3, 16, 32)))
    np.testing.assert_allclose(w.var(), 1 / (9 * 32), rtol=0.1)
    w = np.asarray(init.variance_scaling(2.0, "fan_geo_avg", "normal", in_axis=0,
                                         out_axis=(1, 2))(random.key(1), (64, 8, 16)))
    np.testing.assert_allclose(w.var(), 2 / np.sqrt(64 * 128), rtol=0.1)
    c = np.asarray(init.glorot_uniform()(random.key(2), (100, 200), jnp.complex64))
    assert c.dtype == np.complex64
    np.testing.assert_allclose(np.mean(np.abs(c) ** 2), 1 / 150, rtol=0.05)
    c = np.asarray(init.he_normal()(random.key(2), (100, 200), jnp.complex64))
    np.testing.assert_allclose(np.mean(np.abs(c) ** 2), 2 / 100, rtol=0.05)
    with pytest.raises(ValueError, match="invalid mode"):
        init.variance_scaling(1.0, "fan_x", "normal")(random.key(0), (2, 2))
    with pytest.raises(ValueError, match="at least 2D"):
        init.lecun_normal()(random.key(0), (5,))


def test_simple_initializers():
    k = random.key(4)
    np.testing.assert_array_equal(np.asarray(init.zeros(k, (2, 3))), np.zeros((2, 3)))
    assert init.ones(k, (2,), jnp.int32).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(init.constant(-2.5)(k, (3,))), [-2.5] * 3)
    u = np.asarray(init.uniform(3.0)(k, (10000,)))
    assert 0 <= u.min() and u.max() < 3.0 and abs(u.mean() - 1.5) < 0.05
    n = np.asarray(init.normal(0.5)(k, (10000,)))
    assert abs(n.std() - 0.5) < 0.02
    t = np.asarray(init.truncated_normal(2.0, lower=-1.0, upper=1.5)(k, (10000,)))
    assert -2.0 <= t.min() and t.max() <= 3.0


@pytest.mark.parametrize("shape,column_axis", [((4, 6), -1), ((6, 4), -1), ((3, 4, 5), 0)])
def test_orthogonal_initializers(shape, column_axis):
    w = np.asarray(init.orthogonal(scale=2.0, column_axis=column_axis)(random.key(5), shape))
    assert w.shape == shape
    m = np.moveaxis(w, column_axis, -1).reshape(-1, shape[column_axis]) / 2.0
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(len(gram)), atol=1e-5)
    q = np.asarray(random.orthogonal(random.key(6), 3, (2,), m=5))
    assert q.shape == (2, 3, 5)
    np.testing.assert_allclose(q @ np.swapaxes(q, -1, -2), np.broadcast_to(np.eye(3),
                                                                         (2, 3, 3)), atol=1e-5)


def test_delta_orthogonal():
    w = np.array(init.delta_orthogonal()(random.key(7), (3, 3, 4, 4)))
    center = w[1, 1]
    np.testing.assert_allclose(center.T @ center, np.eye(4), atol=1e-5)
    w[1, 1] = 0
    assert not w.any()
    with pytest.raises(ValueError, match="3D, 4D or 5D"):
        init.delta_orthogonal()(random.key(7), (4, 4))


# -- attention ----------------------------------------------------------------------------

def _attention_reference(q, k, v, bias=None, mask=None, causal=False, scale=None):
    B, T, N, H = q.shape
    K = k.shape[2]
    k = np.repeat(k, N // K, axis=2)
    v = np.repeat(v, N // K, axis=2)
    logits = np.einsum("btnh,bsnh->bnts", q, k).astype(np.float64)
    logits *= 1 / np.sqrt(H) if scale is None else scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    return np.einsum("bnts,bsnh->btnh", probs, v)


@pytest.mark.parametrize("heads", [(4, 4), (4, 2), (2, 1)])
def test_dot_product_attention(heads):
    N, K = heads
    q = rng.standard_normal((2, 5, N, 8)).astype(np.float32)
    k = rng.standard_normal((2, 7, K, 8)).astype(np.float32)
    v = rng.standard_normal((2, 7, K, 8)).astype(np.float32)
    bias = rng.standard_normal((2, N, 5, 7)).astype(np.float32)
    mask = rng.random((2, 1, 5, 7)) > 0.3
    mask[..., 0] = True
    for kw in [{}, {"bias": bias}, {"mask": mask}, {"is_causal": True}, {"scale": 0.3}]:
        ref_kw = {"bias": kw.get("bias"), "mask": kw.get("mask"),
                  "causal": kw.get("is_causal", False), "scale": kw.get("scale")}
        np.testing.assert_allclose(np.asarray(nn.dot_product_attention(q, k, v, **kw)),
                                   _attention_reference(q, k, v, **ref_kw), rtol=1e-4,
                                   atol=1e-5)


def test_dot_product_attention_lengths_residual_grad_and_errors():
    q = rng.standard_normal((2, 4, 2, 4)).astype(np.float32)
    k = rng.standard_normal((2, 6, 2, 4)).astype(np.float32)
    v = rng.standard_normal((2, 6, 2, 4)).astype(np.float32)
    qlen, kvlen = np.array([4, 2], np.int32), np.array([3, 6], np.int32)
    out, lse = nn.dot_product_attention(q, k, v, query_seq_lengths=qlen,
                                        key_value_seq_lengths=kvlen, return_residual=True)
    mask = (np.arange(4)[None, :, None] < qlen[:, None, None]) & \
        (np.arange(6)[None, None, :] < kvlen[:, None, None])
    want = _attention_reference(q, k, v, mask=mask[:, None])
    want *= (np.arange(4)[None, :] < qlen[:, None])[:, :, None, None]
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-4, atol=1e-5)
    assert lse.shape == (2, 4, 2)
    check_grads(lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True),
                (q, k, v), order=1, atol=1e-2, rtol=1e-2)
    assert nn.dot_product_attention(q[0], k[0], v[0]).shape == (4, 2, 4)
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        nn.dot_product_attention(q[:, :, :1].repeat(3, 2), k, v)
    with pytest.raises(ValueError, match="value shape"):
        nn.dot_product_attention(q, k, v[:, :5])


# -- segment reductions -------------------------------------------------------------------

@pytest.mark.parametrize("name,ufunc,identity", [
    ("segment_sum", np.add, 0), ("segment_prod", np.multiply, 1),
    ("segment_max", np.maximum, -np.inf), ("segment_min", np.minimum, np.inf)])
@pytest.mark.parametrize("bucket_size", [None, 3])
def test_segment_reductions(name, ufunc, identity, bucket_size):
    data = rng.standard_normal((10, 3)).astype(np.float32)
    ids = rng.integers(0, 5, 10)
    ids[0] = 7                                        # out of range: dropped
    want = np.full((6, 3), identity, np.float32)
    for i, s in enumerate(ids):
        if s < 6:
            want[s] = ufunc(want[s], data[i])
    got = getattr(ops, name)(data, ids, num_segments=6, bucket_size=bucket_size)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)
    jitted = glassjax.jit(lambda d, i: getattr(ops, name)(d, i, 6))(data, ids)
    np.testing.assert_allclose(np.asarray(jitted), want, rtol=1e-5)


def test_segment_sum_defaults_int_and_grad():
    got = ops.segment_sum(np.arange(5), np.array([0, 2, 2, 1, 0]))
    np.testing.assert_array_equal(np.asarray(got), [4, 3, 3])
    assert got.dtype == np.int32
    assert ops.segment_max(np.arange(3), np.array([0, 0, 2]))[1] == np.iinfo(np.int32).min
    ids = np.array([0, 1, 1, 0])
    g = glassjax.grad(lambda d: (ops.segment_sum(d, ids, 2) ** 2).sum())(
        np.arange(4.0, dtype=np.float32))
    np.testing.assert_allclose(np.asarray(g), 2 * np.array([3., 3., 3., 3.]))


# -- image --------------------------------------------------------------------------------

def test_resize_nearest_and_identity():
    img = rng.random((4, 6)).astype(np.float32)
    out = np.asarray(image.resize(img, (8, 3), "nearest"))
    rows = np.floor((np.arange(8) + 0.5) * 4 / 8).astype(int)
    cols = np.floor((np.arange(3) + 0.5) * 6 / 3).astype(int)
    np.testing.assert_array_equal(out, img[rows][:, cols])
    for method in ("linear", "cubic", "lanczos3", "area"):
        np.testing.assert_allclose(np.asarray(image.resize(img, img.shape, method)), img)


def _linear_weights(m, n):
    """Half-pixel-center linear interpolation, edges clamped (upsampling)."""
    w = np.zeros((m, n))
    for j in range(n):
        x = np.clip((j + 0.5) * m / n - 0.5, 0, m - 1)
        i0 = int(np.floor(x))
        i1 = min(i0 + 1, m - 1)
        w[i0, j] += 1 - (x - i0)
        w[i1, j] += x - i0
    return w


def test_resize_linear_upsampling_and_area_downsampling():
    img = rng.random((3, 4, 2)).astype(np.float32)
    out = np.asarray(image.resize(img, (6, 10, 2), "bilinear"))
    want = np.einsum("ijc,ik,jl->klc", img, _linear_weights(3, 6), _linear_weights(4, 10))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    big = rng.random((8, 6)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(image.resize(big, (4, 3), "area")),
                               big.reshape(4, 2, 3, 2).mean((1, 3)), rtol=1e-5)
    # Antialiased linear downsampling by 2 is a triangle filter: weights 1/8, 3/8, 3/8, 1/8.
    row = rng.random(8).astype(np.float32)
    got = np.asarray(image.resize(row, (4,), "linear"))
    w = np.array([1, 3, 3, 1]) / 8
    inner = [np.dot(w, row[2 * j - 1:2 * j + 3]) for j in (1, 2)]
    np.testing.assert_allclose(got[1:3], inner, rtol=1e-5)


def test_scale_and_translate_and_grad():
    img = rng.random((5, 5)).astype(np.float32)
    # Scale 1, integer translation: a shift with zeros coming in.
    out = np.asarray(image.scale_and_translate(img, (5, 5), (0, 1), jnp.array([1., 1.]),
                                               jnp.array([2., 0.]), "linear"))
    np.testing.assert_allclose(out[2:], img[:3], atol=1e-6)
    np.testing.assert_allclose(out[:2], 0, atol=1e-6)
    with pytest.raises(ValueError, match="Nearest"):
        image.scale_and_translate(img, (5, 5), (0,), [1.], [0.], "nearest")
    with pytest.raises(ValueError, match="Unknown resize method"):
        image.resize(img, (3, 3), "bogus")
    check_grads(lambda x: image.resize(x, (3, 7), "lanczos3"), (img,), order=1,
                atol=1e-2, rtol=1e-2)

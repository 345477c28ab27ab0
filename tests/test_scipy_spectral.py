"""``jax.scipy.signal`` stft/istft/welch/csd against SciPy."""
import numpy as np
import pytest
import scipy.signal as osp

import glassjax
from glassjax.scipy import signal

rng = np.random.default_rng(13)


def _close(got, want, rtol=1e-4, atol=1e-5):
    got = np.asarray(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("kw", [{"nperseg": 64}, {"nperseg": 32, "noverlap": 8},
                                {"nperseg": 50, "nfft": 64, "window": "hamming"},
                                {"nperseg": 40, "boundary": "even", "padded": False},
                                {"nperseg": 40, "boundary": None, "return_onesided": False},
                                {"nperseg": 33, "boundary": "odd", "detrend": "constant"}])
def test_stft(kw):
    x = rng.standard_normal((2, 300)).astype(np.float32)
    f, t, Z = signal.stft(x, fs=10., **kw)
    wf, wt, wZ = osp.stft(x, fs=10., **kw)
    _close(f, wf)
    _close(t, wt)
    _close(Z, wZ, atol=1e-5)


@pytest.mark.parametrize("nperseg,noverlap", [(64, None), (50, 30), (32, 24)])
def test_istft_inverts_stft(nperseg, noverlap):
    x = rng.standard_normal(256).astype(np.float32)
    _, _, Z = signal.stft(x, nperseg=nperseg, noverlap=noverlap)
    t, y = signal.istft(Z, nperseg=nperseg, noverlap=noverlap)
    wt, wy = osp.istft(np.asarray(Z), nperseg=nperseg, noverlap=noverlap)
    _close(t, wt)
    _close(y, wy, atol=1e-5)
    _close(y[:256], x, atol=1e-5)


@pytest.mark.parametrize("kw", [{"nperseg": 256}, {"nperseg": 50, "average": "median"},
                                {"nperseg": 40, "noverlap": 10, "detrend": "linear"},
                                {"nperseg": 64, "scaling": "spectrum", "window": "blackman"},
                                {"nperseg": 32, "return_onesided": False}])
def test_welch_and_csd(kw):
    x = rng.standard_normal((3, 400)).astype(np.float32)
    y = rng.standard_normal((3, 400)).astype(np.float32)
    f, P = signal.welch(x, fs=2., **kw)
    wf, wP = osp.welch(x, fs=2., **kw)
    _close(f, wf)
    _close(P, wP, rtol=1e-3, atol=1e-6)
    f, P = signal.csd(x, y, **kw)
    wf, wP = osp.csd(x, y, **kw)
    _close(P, wP, rtol=1e-3, atol=1e-6)


def test_welch_default_segment_is_the_whole_signal():
    """JAX's ``nperseg=None`` means one segment of the whole length (SciPy's is 256)."""
    x = rng.standard_normal(400).astype(np.float32)
    _close(signal.welch(x)[1], osp.welch(x, nperseg=400)[1], rtol=1e-3, atol=1e-6)


def test_welch_jit_grad_and_errors():
    x = rng.standard_normal(128).astype(np.float32)
    f = glassjax.jit(lambda x: signal.welch(x, nperseg=32)[1])
    _close(f(x), osp.welch(x, nperseg=32)[1], rtol=1e-3, atol=1e-6)
    g = glassjax.grad(lambda x: signal.welch(x, nperseg=32)[1].sum())(x)
    assert np.all(np.isfinite(np.asarray(g)))
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        signal.stft(x, nperseg=16, noverlap=16)
    with pytest.raises(ValueError, match="Unknown boundary"):
        signal.stft(x, nperseg=16, boundary="bogus")

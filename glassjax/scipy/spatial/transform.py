"""``glassjax.scipy.spatial.transform``: ``Rotation`` and ``Slerp`` (JAX's version of
SciPy's, on unit quaternions).

A ``Rotation`` is a pytree-friendly tuple holding one quaternion ``(x, y, z, w)`` (scalar
last) or a stack of them. Every conversion is written for one quaternion and vectorized
over the stack with ``jnp.vectorize``; choices (degrees or radians, intrinsic or extrinsic
axes) are ``jnp.where`` on values so that they vectorize too.
"""
from __future__ import annotations

import functools
import re
import typing

import numpy as np

from glassjax import numpy as jnp
from glassjax.config import numpy_rank_promotion
from glassjax.numpy import linalg as jnp_linalg
from glassjax.numpy.vectorize import vectorize


def _vectorized(signature):
    return functools.partial(vectorize, signature=signature)


def _axes(seq: str, count_ok) -> tuple[jnp.ndarray, bool]:
    """The axis indices of an Euler sequence (``'xyz'`` extrinsic, ``'XYZ'`` intrinsic)
    and whether it is intrinsic."""
    if not count_ok(len(seq)):
        raise ValueError("Expected axis specification to be a non-empty string of upto 3 "
                         f"characters, got {seq}")
    intrinsic = re.match(r'^[XYZ]{1,3}$', seq) is not None
    extrinsic = re.match(r'^[xyz]{1,3}$', seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError("Expected axes from `seq` to be from ['x', 'y', 'z'] or "
                         f"['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return jnp.array(["xyz".index(a) for a in seq.lower()]), intrinsic


class Rotation(typing.NamedTuple):
    """Rotations in 3 dimensions, as unit quaternions ``quat`` (``(4,)`` or ``(N, 4)``)."""
    quat: jnp.ndarray

    @classmethod
    def concatenate(cls, rotations: typing.Sequence):
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        """Rotations about up to 3 axes in turn (``angles[..., i]`` about ``seq[i]``)."""
        axes, intrinsic = _axes(seq, lambda n: 1 <= n <= 3)
        return cls(_elementary_quat_compose(jnp.atleast_1d(angles), axes, intrinsic,
                                            degrees))

    @classmethod
    def from_matrix(cls, matrix):
        return cls(_from_matrix(matrix))

    @classmethod
    def from_mrp(cls, mrp):
        return cls(_from_mrp(mrp))

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalize_quaternion(quat))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        return cls(_from_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        assert num is None
        return cls(jnp.array([0., 0., 0., 1.], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        raise NotImplementedError()

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError('Single rotation has no len().')
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:
        """``self`` after ``other``."""
        return Rotation.from_quat(_compose_quat(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        return _apply(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False):
        """Angles about the 3 axes of ``seq`` that make up this rotation."""
        if len(seq) != 3:
            raise ValueError(f"Expected 3 axes, got {seq}.")
        axes, intrinsic = _axes(seq, lambda n: n == 3)
        with numpy_rank_promotion("allow"):
            return _compute_euler_from_quat(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self):
        return _as_matrix(self.quat)

    def as_mrp(self):
        return _as_mrp(self.quat)

    def as_rotvec(self, degrees: bool = False):
        return _as_rotvec(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        quat = _make_canonical(self.quat) if canonical else self.quat
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        return Rotation(_inv(self.quat))

    def magnitude(self):
        return _magnitude(self.quat)

    def mean(self, weights=None):
        """The rotation closest to the (weighted) rotations: the top eigenvector of
        ``sum w q q^T``."""
        w = (jnp.ones(self.quat.shape[0], dtype=self.quat.dtype) if weights is None
             else jnp.asarray(weights, dtype=self.quat.dtype))
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError("Expected `weights` to have number of values equal to number "
                             f"of rotations, got {w.shape[0]} values and {len(self)} "
                             "rotations.")
        k = jnp.dot(w[np.newaxis, :] * self.quat.T, self.quat)
        return Rotation(jnp_linalg.eigh(k)[1][:, -1])

    @property
    def single(self) -> bool:
        return self.quat.ndim == 1


class Slerp(typing.NamedTuple):
    """Spherical linear interpolation between rotations at increasing ``times``: each
    interval turns at constant speed about one axis (the rotation vector from its start
    to its end)."""
    times: jnp.ndarray
    timedelta: jnp.ndarray
    rotations: Rotation
    rotvecs: jnp.ndarray

    @classmethod
    def init(cls, times, rotations: Rotation):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError("Expected times to be specified in a 1 dimensional array, got "
                             f"{times.ndim} dimensions.")
        if times.shape[0] != len(rotations):
            raise ValueError("Expected number of rotations to be equal to number of "
                             f"timestamps given, got {len(rotations)} rotations and "
                             f"{times.shape[0]} timestamps.")
        starts = Rotation(rotations.as_quat()[:-1])
        return cls(times=times, timedelta=jnp.diff(times), rotations=starts,
                   rotvecs=(starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec())

    def __call__(self, times):
        at = jnp.asarray(times, dtype=self.times.dtype)
        if at.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single_time = at.ndim == 0
        at = jnp.atleast_1d(at)
        ind = jnp.maximum(jnp.searchsorted(self.times, at) - 1, 0)
        alpha = (at - self.times[ind]) / self.timedelta[ind]
        result = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return result[0] if single_time else result


@_vectorized('(m,m),(m),()->(m)')
def _apply(matrix, vector, inverse):
    return jnp.where(inverse, matrix.T, matrix) @ vector


@_vectorized('(m)->(n,n)')
def _as_matrix(quat):
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return jnp.array([[+ x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
                      [2 * (xy + zw), - x2 + y2 - z2 + w2, 2 * (yz - xw)],
                      [2 * (xz - yw), 2 * (yz + xw), - x2 - y2 + z2 + w2]])


@_vectorized('(m)->(n)')
def _as_mrp(quat):
    sign = jnp.where(quat[3] < 0, -1., 1.)
    return sign * quat[:3] / (1. + sign * quat[3])


@_vectorized('(m),()->(n)')
def _as_rotvec(quat, degrees):
    """The rotation axis scaled by the angle (a series near 0 avoids 0/0)."""
    quat = jnp.where(quat[3] < 0, -quat, quat)        # w > 0: 0 <= angle <= pi
    angle = 2. * jnp.arctan2(_vector_norm(quat[:3]), quat[3])
    angle2 = angle * angle
    small_scale = 2 + angle2 / 12 + 7 * angle2 * angle2 / 2880
    large_scale = angle / jnp.sin(angle / 2)
    scale = jnp.where(angle <= 1e-3, small_scale, large_scale)
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@_vectorized('(n),(n)->(n)')
def _compose_quat(p, q):
    """The Hamilton product ``p q``."""
    cross = jnp.cross(p[:3], q[:3])
    return jnp.array([p[3] * q[0] + q[3] * p[0] + cross[0],
                      p[3] * q[1] + q[3] * p[1] + cross[1],
                      p[3] * q[2] + q[3] * p[2] + cross[2],
                      p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2]])


@_vectorized('(m),(l),(),()->(n)')
def _compute_euler_from_quat(quat, axes, extrinsic, degrees):
    """Euler angles from a quaternion (Bernardes & Viollet, 2022), with the two
    degenerate cases (middle angle 0 or pi) setting the first angle alone."""
    angle_first = jnp.where(extrinsic, 0, 2)
    angle_third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
    angles = angles.at[0].set(jnp.where(case == 1, 2 * half_sum,
                                        2 * half_diff * jnp.where(extrinsic, -1, 1)))
    angles = angles.at[angle_first].set(jnp.where(case == 0, half_sum - half_diff,
                                                  angles[angle_first]))
    angles = angles.at[angle_third].set(jnp.where(case == 0, half_sum + half_diff,
                                                  angles[angle_third]))
    angles = angles.at[angle_third].set(jnp.where(symmetric, angles[angle_third],
                                                  angles[angle_third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


@_vectorized('(m),(m),(),()->(n)')
def _elementary_quat_compose(angles, axes, intrinsic, degrees):
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    result = _make_elementary_quat(axes[0], angles[0])
    for idx in range(1, len(axes)):
        quat = _make_elementary_quat(axes[idx], angles[idx])
        result = jnp.where(intrinsic, _compose_quat(result, quat), _compose_quat(quat, result))
    return result


@_vectorized('(m),()->(n)')
def _from_rotvec(rotvec, degrees):
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _vector_norm(rotvec)
    angle2 = angle * angle
    small_scale = 0.5 - angle2 / 48 + angle2 * angle2 / 3840
    large_scale = jnp.sin(angle / 2) / angle
    scale = jnp.where(angle <= 1e-3, small_scale, large_scale)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@_vectorized('(m,m)->(n)')
def _from_matrix(matrix):
    """The quaternion from the largest of the diagonal and the trace (for accuracy)."""
    trace = matrix[0, 0] + matrix[1, 1] + matrix[2, 2]
    decision = jnp.array([matrix[0, 0], matrix[1, 1], matrix[2, 2], trace],
                         dtype=matrix.dtype)
    i = choice = jnp.argmax(decision)
    j = (i + 1) % 3
    k = (j + 1) % 3
    from_diagonal = jnp.empty(4, dtype=matrix.dtype)
    from_diagonal = from_diagonal.at[i].set(1 - decision[3] + 2 * matrix[i, i])
    from_diagonal = from_diagonal.at[j].set(matrix[j, i] + matrix[i, j])
    from_diagonal = from_diagonal.at[k].set(matrix[k, i] + matrix[i, k])
    from_diagonal = from_diagonal.at[3].set(matrix[k, j] - matrix[j, k])
    from_trace = jnp.empty(4, dtype=matrix.dtype)
    from_trace = from_trace.at[0].set(matrix[2, 1] - matrix[1, 2])
    from_trace = from_trace.at[1].set(matrix[0, 2] - matrix[2, 0])
    from_trace = from_trace.at[2].set(matrix[1, 0] - matrix[0, 1])
    from_trace = from_trace.at[3].set(1 + decision[3])
    return _normalize_quaternion(jnp.where(choice != 3, from_diagonal, from_trace))


@_vectorized('(m)->(n)')
def _from_mrp(mrp):
    squared_plus_1 = jnp.dot(mrp, mrp) + 1
    return jnp.hstack([2 * mrp[:3], (2 - squared_plus_1)]) / squared_plus_1


@_vectorized('(n)->(n)')
def _inv(quat):
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@_vectorized('(n)->()')
def _magnitude(quat):
    return 2. * jnp.arctan2(_vector_norm(quat[:3]), jnp.abs(quat[3]))


@_vectorized('(),()->(n)')
def _make_elementary_quat(axis, angle):
    quat = jnp.zeros(4, dtype=angle.dtype)
    quat = quat.at[3].set(jnp.cos(angle / 2.))
    return quat.at[axis].set(jnp.sin(angle / 2.))


@_vectorized('(n)->(n)')
def _normalize_quaternion(quat):
    return quat / _vector_norm(quat)


@_vectorized('(n)->()')
def _vector_norm(vector):
    return jnp.sqrt(jnp.dot(vector, vector))


@_vectorized('(n)->(n)')
def _make_canonical(quat):
    """``quat`` or ``-quat`` (the same rotation), whichever has its first nonzero of
    ``w, x, y, z`` positive."""
    is_neg, is_zero = quat < 0, quat == 0
    neg = (is_neg[3] | (is_zero[3] & is_neg[0]) | (is_zero[3] & is_zero[0] & is_neg[1])
           | (is_zero[3] & is_zero[0] & is_zero[1] & is_neg[2]))
    return jnp.where(neg, -quat, quat)

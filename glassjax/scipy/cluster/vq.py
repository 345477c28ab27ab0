"""``glassjax.scipy.cluster.vq``: assign observations to their nearest code."""
import operator

from glassjax.numpy import argmin, linalg
from glassjax.numpy.util import check_arraylike, promote_dtypes_inexact
from glassjax.vmap_api import vmap


def vq(obs, code_book, check_finite=True):
    """``(code, dist)``: the index of each observation's (row of ``obs``) nearest code in
    ``code_book`` by Euclidean distance, and that distance (``scipy.cluster.vq.vq``;
    ``check_finite`` is unused)."""
    del check_finite
    check_arraylike("scipy.cluster.vq.vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:
        obs, code_book = obs[..., None], code_book[..., None]
    if obs.ndim != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: linalg.norm(ob[None] - code_book, axis=-1))(obs)
    code = argmin(dist, axis=-1)
    return code, vmap(operator.getitem)(dist, code)

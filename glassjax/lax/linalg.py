"""``glassjax.lax.linalg``: matrix decompositions, computed by LAPACK.

XLA has no LU, Cholesky, eigen- or singular-value decomposition of its own on CPU; like
JAX, each primitive here lowers to a ``stablehlo.custom_call`` of one of the LAPACK
routines jaxlib ships as XLA FFI handlers (``lapack_sgetrf_ffi``, ``lapack_spotrf_ffi``,
...), registered with XLA once, when this module is imported. The routines work on
column-major matrices (the ``operand_layouts``) and on any number of leading batch
dimensions at once, which is also how these primitives batch under ``vmap``. Each
reports failure in an ``info`` result; as in JAX, a failed factorization gives NaNs.

Still missing here (glassjax is partial): derivatives of the decompositions, QR, the
general eigenproblem and Schur/Hessenberg forms.
"""
from __future__ import annotations

import functools

import numpy as np
from jaxlib import lapack, xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes
from glassjax.interpreters import batching
from glassjax.xla import dispatch, lowering


def _register_lapack_targets():
    for platform, targets in lapack.registrations().items():
        for name, fn, api_version in targets:
            xla_client.register_custom_call_target(name, fn, platform, api_version)


_register_lapack_targets()


def _lapack_target(routine: str, dtype) -> str:
    return lapack.prepare_lapack_call(routine, np.dtype(dtype))


def _column_major(rank: int) -> list[int]:
    """Minor-to-major dimension order of a batch of column-major matrices."""
    return [rank - 2, rank - 1, *range(rank - 3, -1, -1)] if rank >= 2 else \
        list(range(rank - 1, -1, -1))


def _layouts(layouts) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.DenseIntElementsAttr.get(np.asarray(l, np.int64),
                                                         type=ir.IndexType.get())
                             for l in layouts])


def _u8(value: str) -> ir.Attribute:
    """A LAPACK character option (``'L'``, ``'V'``, ...) as XLA FFI's ui8 attribute."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(value))


def _lapack_call(ctx, routine, operands, out_avals, options, *, aliased=0):
    """``custom_call @lapack_<t><routine>`` on the operands; matrices (rank >= 2 beyond
    the batch) are column major, and the first result overwrites operand ``aliased``."""
    batch = len(ctx.avals_in[0].shape) - 2
    in_layouts = [_column_major(a.ndim) for a in ctx.avals_in]
    out_layouts = [_column_major(a.ndim) if a.ndim - batch >= 2 else
                   list(range(a.ndim - 1, -1, -1)) for a in out_avals]
    op = hlo.CustomCallOp.build_generic(
        results=[lowering.aval_to_ir_type(a) for a in out_avals], operands=operands,
        attributes=dict(
            call_target_name=ir.StringAttr.get(_lapack_target(routine,
                                                              ctx.avals_in[0].dtype)),
            backend_config=ir.StringAttr.get(""),
            api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
            operand_layouts=_layouts(in_layouts), result_layouts=_layouts(out_layouts),
            output_operand_aliases=ir.ArrayAttr.get([hlo.OutputOperandAlias.get(
                [0] if len(out_avals) > 1 else [], aliased, [])])))
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {k: _u8(v) for k, v in options.items()})
    op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(batch))})
    return list(op.results)


def _nan_unless_ok(info, value, value_aval, batch_ndim):
    """Replace the matrices whose ``info`` reports a failure with NaNs."""
    zero = lowering.ir_constant(np.array(0, np.int32))
    ok = hlo.compare(info, lowering.broadcast_in_dim(zero, value_aval.shape[:batch_ndim],
                                                     []),
                     comparison_direction=hlo.ComparisonDirectionAttr.get("GE"))
    ok = lowering.broadcast_in_dim(ok, value_aval.shape, list(range(batch_ndim)))
    nan = lowering.full_like_aval(np.nan, value_aval)
    return hlo.select(ok, value, nan)


def _standard_linalg_primitive(name, abstract_eval, lower_rule, multiple_results=True):
    prim = core.Primitive(name)
    prim.multiple_results = multiple_results
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    lowering.register_lowering(prim, lower_rule)

    def batch(args, dims, **params):      # LAPACK batches over leading dimensions
        args = [batching.bdim_at_front(x, d, next(
            x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped))
                for x, d in zip(args, dims)]
        outs = prim.bind(*args, **params)
        return outs, ([0] * len(outs) if multiple_results else 0)
    batching.primitive_batchers[prim] = batch
    return prim


def _check_matrix(name, a, square=True):
    if a.ndim < 2 or (square and a.shape[-1] != a.shape[-2]):
        what = "square " if square else ""
        raise ValueError(f"Argument to {name} must have shape [..., n, n], got shape "
                         f"{a.shape}" if square else
                         f"Argument to {name} must have rank >= 2, got {a.shape}")
    if not dtypes.issubdtype(a.dtype, np.inexact):
        raise TypeError(f"{name} requires a {what}floating point or complex matrix, got "
                        f"{a.dtype}")


# -- LU -----------------------------------------------------------------------------------

def _lu_abstract_eval(a):
    _check_matrix("lu", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    return [a, core.ShapedArray((*batch, k), np.int32), core.ShapedArray((*batch, m),
                                                                          np.int32)]


def _lu_lowering(ctx, a):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    k = min(m, n)
    info_aval = core.ShapedArray(tuple(batch), np.int32)
    lu, pivots, info = _lapack_call(ctx, "getrf_ffi", [a], [
        aval, core.ShapedArray((*batch, k), np.int32), info_aval], {})
    one = lowering.full_like_aval(1, ctx.avals_out[1])
    pivots = hlo.subtract(pivots, one)                 # LAPACK counts from 1
    lu = _nan_unless_ok(info, lu, aval, len(batch))
    return [lu, pivots, _pivots_to_permutation(ctx, pivots, ctx.avals_out[1], m)]


def _pivots_to_permutation(ctx, pivots, pivots_aval, m):
    """Apply the row swaps ``i <-> pivots[i]`` in order to ``0..m-1`` (in StableHLO:
    a small loop over the swaps, run on the device)."""
    from glassjax import lax
    from glassjax.lax.control_flow import fori_loop

    def permutation(piv):
        def swap(i, perm):
            j = lax.dynamic_index_in_dim(piv, i, axis=-1, keepdims=False)
            pi = lax.dynamic_index_in_dim(perm, i, axis=-1, keepdims=False)
            pj = _take_last(perm, j)
            perm = lax.dynamic_update_index_in_dim(perm, pj, i, axis=-1)
            return _put_last(perm, j, pi)
        perm = lax.broadcasted_iota(np.int32, (*pivots_aval.shape[:-1], m),
                                    len(pivots_aval.shape) - 1)
        return fori_loop(0, pivots_aval.shape[-1], swap, perm)
    rule_ctx = lowering.LoweringRuleContext(ctx.module_context, None, [pivots_aval],
                                            [ctx.avals_out[2]])
    return lowering.lower_fun(permutation)(rule_ctx, pivots)


def _take_last(x, j):
    """``x[..., j]`` for a batch of indices ``j`` (one per leading index)."""
    from glassjax import numpy as jnp
    return jnp.take_along_axis(x, j[..., None], axis=-1)[..., 0]


def _put_last(x, j, value):
    from glassjax import numpy as jnp
    return jnp.put_along_axis(x, j[..., None], value[..., None], axis=-1, inplace=False)


lu_p = _standard_linalg_primitive("lu", _lu_abstract_eval, _lu_lowering)


def lu(x):
    """``(lu, pivots, permutation)``: ``P @ x == L @ U`` with ``L`` the unit lower
    triangle of ``lu`` and ``U`` its upper triangle; row ``i`` was swapped with
    ``pivots[i]``, and ``permutation`` is the resulting row order."""
    return tuple(lu_p.bind(x))


# -- Cholesky -------------------------------------------------------------------------------

def _cholesky_abstract_eval(a):
    _check_matrix("cholesky", a)
    return a


def _cholesky_lowering(ctx, a):
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    factor, info = _lapack_call(ctx, "potrf_ffi", [a], [
        aval, core.ShapedArray(aval.shape[:batch], np.int32)], {"uplo": "L"})
    return [_nan_unless_ok(info, factor, aval, batch)]


cholesky_p = _standard_linalg_primitive("cholesky", _cholesky_abstract_eval,
                                        lambda ctx, a: _cholesky_lowering(ctx, a)[0],
                                        multiple_results=False)


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower-triangular ``L`` with ``x == L @ L^H`` (NaNs if ``x`` is not positive
    definite). ``symmetrize_input`` first averages ``x`` with its conjugate transpose."""
    from glassjax.numpy.array_creation import _triangle
    if symmetrize_input:
        x = symmetrize(x)
    return _triangle("tril", cholesky_p.bind(x), 0, lower=True)   # inline, not jnp.tril's jit


def symmetrize(x):
    """``(x + x^H) / 2``: the Hermitian part (rounding errors otherwise break the
    symmetry the routines rely on)."""
    from glassjax import numpy as jnp
    return (x + jnp.conj(jnp.swapaxes(x, -1, -2))) / 2


# -- Hermitian eigendecomposition ---------------------------------------------------------

def _eigh_abstract_eval(a, *, lower, sort_eigenvalues, subset_by_index):
    _check_matrix("eigh", a)
    real = np.finfo(a.dtype).dtype
    return [a, core.ShapedArray(a.shape[:-1], real)]


def _eigh_lowering(ctx, a, *, lower, sort_eigenvalues, subset_by_index):
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    routine = "heevd_ffi" if dtypes.issubdtype(aval.dtype, np.complexfloating) \
        else "syevd_ffi"
    vectors, values, info = _lapack_call(
        ctx, routine, [a], [aval, ctx.avals_out[1],
                            core.ShapedArray(aval.shape[:batch], np.int32)],
        {"mode": "V", "uplo": "L" if lower else "U"})
    vectors = _nan_unless_ok(info, vectors, aval, batch)
    values = _nan_unless_ok(info, values, ctx.avals_out[1], batch)
    return [vectors, values]


eigh_p = _standard_linalg_primitive("eigh", _eigh_abstract_eval, _eigh_lowering)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None):
    """``(vectors, values)`` of a Hermitian matrix, eigenvalues ascending."""
    if symmetrize_input:
        x = symmetrize(x)
    vectors, values = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                                  subset_by_index=subset_by_index)
    return vectors, values


# -- singular value decomposition ---------------------------------------------------------

def _svd_abstract_eval(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    s = core.ShapedArray((*batch, k), np.finfo(a.dtype).dtype)
    if not compute_uv:
        return [s]
    u = core.ShapedArray((*batch, m, m if full_matrices else k), a.dtype)
    vt = core.ShapedArray((*batch, n if full_matrices else k, n), a.dtype)
    return [s, u, vt]


def _svd_lowering(ctx, a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    *batch, m, n = aval.shape
    k = min(m, n)
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    if compute_uv:
        u_aval, vt_aval = ctx.avals_out[1], ctx.avals_out[2]
    else:                       # LAPACK still wants room for them
        u_aval = core.ShapedArray((*batch, m, m), aval.dtype)
        vt_aval = core.ShapedArray((*batch, n, n), aval.dtype)
    s_aval = core.ShapedArray((*batch, k), np.finfo(aval.dtype).dtype)
    _, s, u, vt, info = _lapack_call(ctx, "gesdd_ffi", [a], [
        aval, s_aval, u_aval, vt_aval, core.ShapedArray(tuple(batch), np.int32)],
        {"mode": mode})
    s = _nan_unless_ok(info, s, s_aval, len(batch))
    if not compute_uv:
        return [s]
    return [s, _nan_unless_ok(info, u, u_aval, len(batch)),
            _nan_unless_ok(info, vt, vt_aval, len(batch))]


svd_p = _standard_linalg_primitive("svd", _svd_abstract_eval, _svd_lowering)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """``(u, s, vh)`` with ``x == u @ diag(s) @ vh`` (just ``s``, descending, without
    ``compute_uv``). Only the default ``subset_by_index`` and ``algorithm`` (None) are
    built; they are parameters of the equation all the same, as in JAX."""
    if subset_by_index is not None or algorithm is not None:
        raise NotImplementedError("svd: subset_by_index and algorithm must be None")
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=subset_by_index, algorithm=algorithm)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


# -- triangular solve ---------------------------------------------------------------------

def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check_matrix("triangular_solve", a)
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise TypeError(f"triangular_solve: incompatible shapes {a.shape} and {b.shape} "
                        f"(left_side={left_side})")
    return b


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    trans = "N" if not transpose_a else ("C" if conjugate_a else "T")
    out, = _lapack_call(ctx, "trsm_ffi", [a, b], [ctx.avals_out[0]], {
        "side": "L" if left_side else "R", "uplo": "L" if lower else "U",
        "trans_x": trans, "diag": "U" if unit_diagonal else "N"}, aliased=1)
    return [out]


triangular_solve_p = _standard_linalg_primitive(
    "triangular_solve", _triangular_solve_abstract_eval,
    lambda ctx, a, b, **kw: _triangular_solve_lowering(ctx, a, b, **kw)[0],
    multiple_results=False)


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """``x`` with ``op(a) @ x == b`` (``left_side``) or ``x @ op(a) == b``, for
    triangular ``a``; ``op`` transposes / conjugates as asked."""
    if conjugate_a and not transpose_a:
        from glassjax import numpy as jnp
        a, conjugate_a = jnp.conj(a), False
    return triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                   transpose_a=transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)

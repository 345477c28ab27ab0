"""``glassjax.lax.linalg``: matrix decompositions, computed by LAPACK.

XLA has no LU, Cholesky, eigen- or singular-value decomposition of its own on CPU; like
JAX, each primitive here lowers to a ``stablehlo.custom_call`` of one of the LAPACK
routines jaxlib ships as XLA FFI handlers (``lapack_sgetrf_ffi``, ``lapack_spotrf_ffi``,
...), registered with XLA once, when this module is imported. The routines work on
column-major matrices (the ``operand_layouts``) and on any number of leading batch
dimensions at once, which is also how these primitives batch under ``vmap``. Each
reports failure in an ``info`` result; as in JAX, a failed factorization gives NaNs.

Each decomposition is differentiable: its JVP rule (next to it) differentiates the
defining identity (``A = L U``, ``A = L L^H``, ``A V = V diag(w)``, ``A = U S V^H``,
``A = Q R``) and solves for the factors' tangents with the factors themselves. Like
JAX's, the eigen- and singular-vector rules assume distinct eigen/singular values.

Still missing here (glassjax is partial): the general eigenproblem and Schur/Hessenberg
forms.
"""
from __future__ import annotations

import functools

import numpy as np
from jaxlib import lapack, xla_client
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes
from glassjax.interpreters import ad, batching
from glassjax.jit import jit
from glassjax.lax import elementwise, reductions, slicing, structural
from glassjax.lax.control_flow import custom_linear_solve, fori_loop
from glassjax.lax.dot import Precision, batch_matmul, dot_general
from glassjax.lax.utils import spec_of
from glassjax.mesh import PartitionSpec as P
from glassjax.vmap_api import vmap
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
    the batch) are column major, and the first result overwrites operand ``aliased``
    (none if ``aliased`` is None). ``options`` are LAPACK character flags (str) or
    32-bit integers or booleans."""
    batch = len(ctx.avals_in[0].shape) - 2
    layout = lambda a: (_column_major(a.ndim) if a.ndim - batch >= 2 else
                        list(range(a.ndim - 1, -1, -1)))
    in_layouts = [layout(a) for a in ctx.avals_in]
    out_layouts = [layout(a) for a in out_avals]
    op = hlo.CustomCallOp.build_generic(
        results=[lowering.aval_to_ir_type(a) for a in out_avals], operands=operands,
        attributes=dict(
            call_target_name=ir.StringAttr.get(_lapack_target(routine,
                                                              ctx.avals_in[0].dtype)),
            backend_config=ir.StringAttr.get(""),
            api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
            operand_layouts=_layouts(in_layouts), result_layouts=_layouts(out_layouts),
            output_operand_aliases=ir.ArrayAttr.get([] if aliased is None else [
                hlo.OutputOperandAlias.get([0] if len(out_avals) > 1 else [], aliased,
                                           [])])))
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {k: _u8(v) if isinstance(v, str) else ir.BoolAttr.get(v) if isinstance(v, bool) else
         ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(v))
         for k, v in options.items()})
    op.operation.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(batch))})
    op.operation.attributes["sdy.sharding_rule"] = _sharding_rule(
        ctx.avals_in, out_avals, batch)
    return list(op.results)


def _sharding_rule(avals_in, avals_out, batch):
    """The Shardy rule JAX attaches to its LAPACK calls: the batch dimensions are shared
    factors (a batch may be split over devices), every matrix dimension a factor of its
    own. Factors are named ``i``, ``j``, ... ``z``, ``z_1``, ... as Shardy prints them."""
    sizes = list(avals_in[0].shape[:batch])

    def dims(aval):
        own = range(len(sizes), len(sizes) + aval.ndim - batch)
        sizes.extend(aval.shape[batch:])
        return "[" + ", ".join(map(_factor, [*range(batch), *own])) + "]"
    lhs = ", ".join(map(dims, avals_in))
    rhs = ", ".join(map(dims, avals_out))
    factors = ", ".join(f"{_factor(k)}={n}" for k, n in enumerate(sizes))
    return ir.Attribute.parse(f"#sdy.op_sharding_rule<({lhs})->({rhs}) {{{factors}}}, custom>")


def _factor(k):
    return chr(ord("i") + k) if k < 18 else f"z_{k - 17}"


def _nan_unless_ok(info, values, avals, batch_ndim, direction="EQ"):
    """``values`` with the matrices whose ``info`` reports a failure replaced by NaNs
    (``nan + nanj`` when complex). LAPACK reports success as ``info == 0``; only LU also
    accepts a positive ``info`` (an exactly singular factor, still valid):
    ``direction="GE"``. Emitted as JAX emits it (one comparison; per value a mask of
    shape ``batch + (1, ...)`` broadcast to the value's)."""
    zero = lowering.ir_constant(np.array(0, np.int32))
    batch_shape = avals[0].shape[:batch_ndim]
    ok = hlo.compare(info, lowering.broadcast_in_dim(zero, batch_shape, []),
                     comparison_direction=hlo.ComparisonDirectionAttr.get(direction),
                     compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
    out = []
    for value, aval in zip(values, avals):
        mask_shape = batch_shape + (1,) * (aval.ndim - batch_ndim)
        mask = lowering.broadcast_in_dim(ok, mask_shape, list(range(batch_ndim)))
        complex_ = dtypes.issubdtype(aval.dtype, np.complexfloating)
        nan = lowering.full_like_aval(complex(np.nan, np.nan) if complex_ else np.nan, aval)
        if mask_shape != aval.shape:
            mask = lowering.broadcast_in_dim(mask, aval.shape, list(range(aval.ndim)))
        out.append(hlo.select(mask, value, nan))
    return out


def _linalg_sharding(prim, abstract_eval, *avals, **params):
    """Sharding in types (JAX's rule): each device factors its own matrices, so the
    matrix dimensions must be whole and the batch dimensions (those before the first
    operand's last two) split alike in every operand; results keep that batch split."""
    num_batch = max(avals[0].ndim - 2, 0)
    batch_specs = []
    for i, a in enumerate(avals):
        spec = spec_of(a)
        if any(spec[num_batch:]):
            raise core.ShardingTypeError(f"Input {i} to {prim} must be unsharded on "
                                         f"non-batch dimensions, but got {P(*spec)}.")
        batch_specs.append(tuple(spec[:num_batch]))
    if any(b != batch_specs[0] for b in batch_specs):
        raise core.ShardingTypeError(f"All inputs to {prim} must have the same batch "
                                     f"sharding, but got {batch_specs}.")
    outs = abstract_eval(*avals, **params)
    specs = [(*batch_specs[0], *[None] * (o.ndim - num_batch))
             for o in (outs if prim.multiple_results else [outs])]
    return specs if prim.multiple_results else specs[0]


def _standard_linalg_primitive(name, abstract_eval, lower_rule, multiple_results=True):
    prim = core.Primitive(name)
    prim.multiple_results = multiple_results
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    prim.def_abstract_eval(abstract_eval)
    prim.sharding_rule = functools.partial(_linalg_sharding, prim, abstract_eval)
    lowering.register_lowering(prim, lower_rule)

    def batch(args, dims, **params):      # LAPACK batches over leading dimensions
        args = [batching.bdim_at_front(x, d, next(
            x.shape[d] for x, d in zip(args, dims) if d is not batching.not_mapped))
                for x, d in zip(args, dims)]
        outs = prim.bind(*args, **params)
        return outs, ([0] * len(outs) if multiple_results else 0)
    batching.primitive_batchers[prim] = batch
    return prim


def _check_matrix(name, a, square=True, which="The input"):
    """JAX's checks of a (batch of) matrices: a TypeError for the rank, a ValueError
    for a matrix that must be square and is not."""
    what = "square " if square else ""
    if a.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{which} to {name} must be a square matrix. Got shape {a.shape}.")
    if not dtypes.issubdtype(a.dtype, np.inexact):
        raise TypeError(f"{name} requires a {what}floating point or complex matrix, got "
                        f"{a.dtype}")


# -- matrix helpers for the derivative rules ------------------------------------------------
# The rules are written with lax operations on (batches of) matrices, so that they
# linearize, transpose and batch like any other traced code.

def _T(x):
    """Swap the last two axes."""
    return structural.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _conj(x):
    """Complex conjugate; real arrays stay real (``lax.conj`` would make them complex)."""
    return elementwise.conj(x) if dtypes.issubdtype(x.dtype, np.complexfloating) else x


def _H(x):
    """Conjugate transpose."""
    return _conj(_T(x))


def _shifted_iotas(shape, k):
    """Row indices plus ``k`` and column indices of a 2-D ``shape``: entry ``(i, j)`` is
    on diagonal ``k`` where they are equal."""
    return (elementwise.add(structural.broadcasted_iota(np.int32, shape, 0), np.int32(k)),
            structural.broadcasted_iota(np.int32, shape, 1))


def _tri(dtype, shape, k):
    """The 2-D mask (or 0/1 matrix) of the entries on and below diagonal ``k``."""
    return elementwise.convert_element_type(elementwise.ge(*_shifted_iotas(shape, k)), dtype)


def _select_triangle(x, k, keep_lower):
    """Keep the entries of ``x`` on and below (``keep_lower``) or above diagonal ``k``,
    zero the others (one 2-D mask, broadcast over the batch axes)."""
    mask = structural.broadcast(_tri(np.bool_, x.shape[-2:], k), x.shape[:-2])
    zeros = structural.full_like(x, 0)
    return elementwise.select(mask, x, zeros) if keep_lower else elementwise.select(mask, zeros, x)


def _tril(x, k=0):
    """``x`` with the entries above diagonal ``k`` zeroed."""
    return _select_triangle(x, k, keep_lower=True)


def _triu(x, k=0):
    """``x`` with the entries below diagonal ``k`` zeroed."""
    return _select_triangle(x, k - 1, keep_lower=False)


def _eye(dtype, n, batch=()):
    """Identity matrices of size ``n`` (broadcast over ``batch``)."""
    eye = elementwise.convert_element_type(elementwise.eq(*_shifted_iotas((n, n), 0)), dtype)
    return structural.broadcast(eye, tuple(batch)) if batch else eye


def _matmul(a, b):
    """Batched matrix product at full precision (derivatives should not lose digits)."""
    return batch_matmul(a, b, precision=Precision.HIGHEST)


def _diagonal(x):
    """The main diagonals of a batch of matrices."""
    *batch, m, n = x.shape
    k = min(m, n)
    square = x[..., :k, :k]
    diag_index = slicing.broadcasted_iota(np.int32, (*batch, k, 1), len(batch))
    return slicing.take_along_last_axis(square, diag_index)[..., 0]


def _diag_matrix(d):
    """Diagonal matrices with diagonals ``d`` (the last axis)."""
    return _eye(d.dtype, d.shape[-1], d.shape[:-1]) * d[..., None, :]


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
    lu, = _nan_unless_ok(info, [lu], [aval], len(batch), "GE")
    return [lu, pivots, _pivots_to_permutation(ctx, pivots, ctx.avals_out[1], m)]


def _pivots_to_permutation(ctx, pivots, pivots_aval, m):
    """The lowering of ``lu``'s third result: the permutation, computed on the device."""
    rule_ctx = lowering.LoweringRuleContext(ctx.module_context, None, [pivots_aval],
                                            [ctx.avals_out[2]])
    return lowering.lower_fun(lambda piv: lu_pivots_to_permutation(piv, m))(rule_ctx,
                                                                           pivots)


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """Apply the row swaps ``i <-> pivots[i]`` in order to ``0..m-1`` (a small loop over
    the swaps, batched over leading axes)."""

    def swap(i, perm):
        j = slicing.dynamic_index_in_dim(pivots, i, axis=-1, keepdims=False)
        pi = slicing.dynamic_index_in_dim(perm, i, axis=-1, keepdims=False)
        pj = _take_last(perm, j)
        perm = slicing.dynamic_update_index_in_dim(perm, pj, i, axis=-1)
        return _put_last(perm, j, pi)
    perm = structural.broadcasted_iota(np.int32, (*pivots.shape[:-1], permutation_size),
                                       pivots.ndim - 1)
    return fori_loop(0, pivots.shape[-1], swap, perm)


def _take_last(x, j):
    """``x[..., j]`` for a batch of indices ``j`` (one per leading index)."""
    return slicing.take_along_last_axis(x, j[..., None])[..., 0]


def _put_last(x, j, value):
    return slicing.put_along_last_axis(x, j, value)


lu_p = _standard_linalg_primitive("lu", _lu_abstract_eval, _lu_lowering)


def _lu_jvp(primals, tangents):
    """``P A = L U`` gives ``P dA = dL U + L dU``, i.e. ``L^-1 P dA U^-1 = L^-1 dL +
    dU U^-1``: a strictly lower plus an upper triangular matrix, so ``dL`` and ``dU``
    are its two triangles multiplied back by ``L`` and ``U``. (Rectangular ``A`` pads
    ``L`` and ``U`` to square with the identity.)"""
    a, = primals
    a_dot, = tangents
    lu, pivots, permutation = lu_p.bind(a)
    *batch, m, n = a.shape
    k = min(m, n)
    pad_cols = [(0, 0, 0)] * len(batch) + [(0, 0, 0), (0, m - k, 0)]
    pad_rows = [(0, 0, 0)] * len(batch) + [(0, n - k, 0), (0, 0, 0)]
    zero = structural.full_like(lu, 0, shape=())
    l = slicing.pad(_tril(lu[..., :, :k], -1), zero, pad_cols) + _eye(a.dtype, m, batch)
    u_corner = slicing.pad(_eye(a.dtype, n - k, batch), zero,
                       [(0, 0, 0)] * len(batch) + [(k, 0, 0), (k, 0, 0)])
    u = slicing.pad(_triu(lu[..., :k, :]), zero, pad_rows) + u_corner
    # P dA: the rows of dA permuted, i.e. the columns of its transpose
    swap = (*range(len(batch)), len(batch) + 1, len(batch))
    row_of = structural.broadcast_in_dim(permutation, (*batch, n, m),
                                  (*range(len(batch)), len(batch) + 1))
    a_dot_t = structural.transpose(ad.instantiate_zeros(a_dot), swap)
    a_dot = structural.transpose(slicing.take_along_last_axis(a_dot_t, row_of), swap)
    la = triangular_solve(l, a_dot, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)
    lu_dot = _matmul(l, _tril(lau, -1)) + _matmul(_triu(lau), u)
    return [lu, pivots, permutation], [lu_dot, ad.Zero.from_primal_value(pivots),
                                       ad.Zero.from_primal_value(permutation)]


ad.primitive_jvps[lu_p] = _lu_jvp


def lu(x):
    """``(lu, pivots, permutation)``: ``P @ x == L @ U`` with ``L`` the unit lower
    triangle of ``lu`` and ``U`` its upper triangle; row ``i`` was swapped with
    ``pivots[i]``, and ``permutation`` is the resulting row order."""
    return tuple(lu_p.bind(x))



def _lu_solve_one(lu, permutation, b, trans):
    """Solve with one factorization ``P A = L U``: ``A x = b`` (``trans=0``: permute,
    then unit-lower and upper triangular solves) or ``A^T x = b`` (``trans=1``, the
    same steps transposed and in reverse order; ``trans=2`` conjugates too)."""
    m = lu.shape[0]
    x = structural.reshape(b, (m, int(np.prod(b.shape[1:], dtype=np.int64))))
    if trans == 0:
        x = x[permutation, :]
        x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
        x = triangular_solve(lu, x, left_side=True, lower=False)
    elif trans in (1, 2):
        conj = trans == 2
        x = triangular_solve(lu, x, left_side=True, lower=False, transpose_a=True,
                             conjugate_a=conj)
        x = triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True,
                             transpose_a=True, conjugate_a=conj)
        _, inverse = reductions.sort_key_val(permutation, structural.iota(np.int32, m))
        x = x[inverse, :]
    else:
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}")
    return structural.reshape(x, b.shape)


@functools.partial(jit, static_argnums=(3,))
def _lu_solve(lu, permutation, b, trans):
    if lu.ndim < 2 or lu.shape[-1] != lu.shape[-2]:
        raise ValueError("last two dimensions of LU decomposition must be equal, got "
                         f"shape {lu.shape}")
    if b.ndim < 1:
        raise ValueError(f"b matrix must have rank >= 1, got shape {b.shape}")
    vector = lu.ndim == b.ndim + 1      # NumPy's rule for solve: b is a batch of vectors
    if vector:
        if b.shape[-1] != lu.shape[-1]:
            raise ValueError("When LU decomposition matrix and b have the same number of "
                             "dimensions, last axis of LU decomposition matrix (shape "
                             f"{lu.shape}) and b array (shape {b.shape}) must match")
        b = b[..., None]
    elif b.shape[-2] != lu.shape[-1]:
        raise ValueError("When LU decomposition matrix and b different numbers of "
                         "dimensions, last axis of LU decomposition matrix (shape "
                         f"{lu.shape}) and second to last axis of b array (shape "
                         f"{b.shape}) must match")
    batch = structural.broadcast_shapes(lu.shape[:-2], permutation.shape[:-1], b.shape[:-2])
    lu = _broadcast_leading(lu, (*batch, *lu.shape[-2:]))
    permutation = _broadcast_leading(permutation, (*batch, permutation.shape[-1]))
    b = _broadcast_leading(b, (*batch, *b.shape[-2:]))
    fn = _lu_solve_one
    for _ in batch:
        fn = vmap(fn, in_axes=(0, 0, 0, None))
    x = fn(lu, permutation, b, trans)
    return x[..., 0] if vector else x


def lu_solve(lu, permutation, b, trans: int = 0):
    """Solve ``A x = b`` (or ``A^T x = b``) from ``lu``'s factorization of ``A``,
    broadcasting batch dimensions."""
    return _lu_solve(lu, permutation, b, trans)


def _broadcast_leading(x, shape):
    return structural.broadcast_in_dim(x, shape, tuple(range(len(shape) - x.ndim, len(shape))))


def _broadcasted_matvec(a, x):
    """``a @ x`` for matrices ``(..., n, m)`` and vectors ``(..., m)``, batch axes
    broadcast."""
    batch = structural.broadcast_shapes(a.shape[:-2], x.shape[:-1])
    a = _broadcast_leading(a, (*batch, *a.shape[-2:]))
    x = _broadcast_leading(x, (*batch, x.shape[-1]))
    dims = tuple(range(len(batch)))
    return dot_general(a, x, (((a.ndim - 1,), (x.ndim - 1,)), (dims, dims)),
                       precision=Precision.HIGHEST)


def _check_solve_shapes(a, b):
    if not (a.ndim >= 2 and b.ndim in (a.ndim, a.ndim - 1) and
            a.shape[-1] == a.shape[-2] == b.shape[a.ndim - 2]):
        raise ValueError("The arguments to solve must have shapes a=[..., m, m] and "
                         f"b=[..., m, k] or b=[..., m]; got a={a.shape} and b={b.shape}")


def _solve(a, b):
    """``x`` with ``a @ x == b``, differentiable in ``a`` and ``b``: one LU factorization
    (of ``a`` with its gradient stopped) serves the solve and, through
    ``custom_linear_solve``, every derivative; ``a``'s own tangent enters through the
    matrix-vector product that defines the system."""
    _check_solve_shapes(a, b)
    out_shape = tuple(d_a if d_b == 1 else d_b
                      for d_a, d_b in zip(a.shape[:-1] + (1,), b.shape))
    b = structural.broadcast_in_dim(b, out_shape, tuple(range(b.ndim)))
    lu_, _, permutation = lu(elementwise.stop_gradient(a))
    custom_solve = functools.partial(
        custom_linear_solve, lambda x: _broadcasted_matvec(a, x),
        solve=lambda _, x: lu_solve(lu_, permutation, x, trans=0),
        transpose_solve=lambda _, x: lu_solve(lu_, permutation, x, trans=1))
    if a.ndim == b.ndim + 1:
        return custom_solve(b)
    return vmap(custom_solve, b.ndim - 1, max(a.ndim, b.ndim) - 1)(b)

# -- Cholesky -------------------------------------------------------------------------------

def _cholesky_abstract_eval(a):
    _check_matrix("cholesky", a)
    return a


def _cholesky_lowering(ctx, a):
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    factor, info = _lapack_call(ctx, "potrf_ffi", [a], [
        aval, core.ShapedArray(aval.shape[:batch], np.int32)], {"uplo": "L"})
    return _nan_unless_ok(info, [factor], [aval], batch)


cholesky_p = _standard_linalg_primitive("cholesky", _cholesky_abstract_eval,
                                        lambda ctx, a: _cholesky_lowering(ctx, a)[0],
                                        multiple_results=False)


def _cholesky_jvp(primals, tangents):
    """``A = L L^H`` gives ``L^-1 dA L^-H = L^-1 dL + (L^-1 dL)^H``, whose lower triangle
    (diagonal halved) is ``L^-1 dL`` (Murray 2016, arXiv:1602.07527)."""
    a, = primals
    a_dot, = tangents
    l = _tril(cholesky_p.bind(a))
    batch = a.shape[:-2]
    n = a.shape[-1]
    tmp = triangular_solve(l, ad.instantiate_zeros(a_dot), left_side=False,
                           transpose_a=True, conjugate_a=True, lower=True)
    x = triangular_solve(l, tmp, left_side=True, lower=True)
    phi = _tril(x) / (1 + _eye(a.dtype, n, batch))
    return l, _matmul(l, phi)


ad.primitive_jvps[cholesky_p] = _cholesky_jvp


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower-triangular ``L`` with ``x == L @ L^H`` (NaNs if ``x`` is not positive
    definite). ``symmetrize_input`` first averages ``x`` with its conjugate transpose."""
    if symmetrize_input:
        x = symmetrize(x)
    return _tril(cholesky_p.bind(x))


def symmetrize(x):
    """``(x + x^H) / 2``: the Hermitian part (rounding errors otherwise break the
    symmetry the routines rely on)."""
    return (x + _H(x)) / 2


# -- Hermitian eigendecomposition ---------------------------------------------------------

def _eigh_abstract_eval(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_matrix("eigh", a)
    real = np.finfo(a.dtype).dtype
    *batch, n = a.shape[:-1]
    d = n if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
    return [core.ShapedArray((*batch, n, d), a.dtype), core.ShapedArray((*batch, d), real)]


def _eigh_lowering(ctx, a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    aval = ctx.avals_in[0]
    if subset_by_index not in (None, (0, aval.shape[-1])):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")
    if algorithm is not None:
        raise NotImplementedError(f"eigh algorithm {algorithm} is not supported on CPU")
    batch = aval.ndim - 2
    routine = "heevd_ffi" if dtypes.issubdtype(aval.dtype, np.complexfloating) \
        else "syevd_ffi"
    vectors, values, info = _lapack_call(
        ctx, routine, [a], [aval, ctx.avals_out[1],
                            core.ShapedArray(aval.shape[:batch], np.int32)],
        {"mode": "V", "uplo": "L" if lower else "U"})
    vectors, values = _nan_unless_ok(info, [vectors, values], [aval, ctx.avals_out[1]],
                                     batch)
    return [vectors, values]


eigh_p = _standard_linalg_primitive("eigh", _eigh_abstract_eval, _eigh_lowering)


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index,
              algorithm):
    """First-order perturbation theory for distinct eigenvalues: with ``A V = V diag(w)``,
    ``dw = diag(V^H dA V)`` and ``dV = V (F * (V^H dA V))`` where ``F[i, j] = 1 / (w[j] -
    w[i])`` off the diagonal and 0 on it."""
    a, = primals
    a_dot, = tangents
    n = a.shape[-1]
    if subset_by_index not in (None, (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen "
                                  "decomposition.")
    v, w_real = eigh_p.bind(symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index, algorithm=algorithm)
    w = elementwise.convert_element_type(w_real, a.dtype)
    eye = _eye(a.dtype, n)
    f = elementwise.integer_pow(eye + w[..., None, :] - w[..., :, None], -1) - eye
    vh_adot_v = _matmul(_matmul(_H(v), ad.instantiate_zeros(a_dot)), v)
    dv = _matmul(v, f * vh_adot_v)
    dw = elementwise.real(_diagonal(vh_adot_v)) if dtypes.issubdtype(
        a.dtype, np.complexfloating) else _diagonal(vh_adot_v)
    return [v, w_real], [dv, dw]


ad.primitive_jvps[eigh_p] = _eigh_jvp


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index=None, implementation=None):
    """``(vectors, values)`` of a Hermitian matrix, eigenvalues ascending."""
    if symmetrize_input:
        x = symmetrize(x)
    vectors, values = eigh_p.bind(x, lower=lower, sort_eigenvalues=sort_eigenvalues,
                                  subset_by_index=subset_by_index, algorithm=implementation)
    return vectors, values



# -- general (non-symmetric) eigendecomposition ---------------------------------------------

def _eig_abstract_eval(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                       enable_eigvec_derivs, implementation):
    _check_matrix("eig", a)
    complex_dtype = dtypes.to_complex_dtype(a.dtype)
    count = compute_left_eigenvectors + compute_right_eigenvectors
    return [core.ShapedArray(a.shape[:-1], complex_dtype),
            *[core.ShapedArray(a.shape, complex_dtype)] * count]


def _eig_lowering(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    """LAPACK ``geev``: real input gives the eigenvalues' real and imaginary parts
    separately (joined here) and the eigenvectors already unpacked to complex."""
    if implementation not in (None, "lapack") and getattr(implementation, "name",
                                                          "LAPACK") != "LAPACK":
        raise ValueError("Only the lapack implementation is supported on CPU.")
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    values_aval = core.ShapedArray(aval.shape[:-1], aval.dtype)
    vectors_aval = core.ShapedArray(aval.shape, dtypes.to_complex_dtype(aval.dtype))
    out_avals = [values_aval] * (2 if real else 1) + [
        vectors_aval, vectors_aval, core.ShapedArray(aval.shape[:batch], np.int32)]
    *w, vl, vr, info = _lapack_call(
        ctx, "geev_ffi", [a], out_avals,
        {"compute_left": "V" if compute_left_eigenvectors else "N",
         "compute_right": "V" if compute_right_eigenvectors else "N"}, aliased=None)
    w = hlo.complex(w[0], w[1]) if real else w[0]
    outs = [w] + ([vl] if compute_left_eigenvectors else []) + (
        [vr] if compute_right_eigenvectors else [])
    return _nan_unless_ok(info, outs, ctx.avals_out, batch)


eig_p = _standard_linalg_primitive("eig", _eig_abstract_eval, _eig_lowering)


def _eig_vec_jvp(w, v, da):
    """Tangents of the eigenvalues and (LAPACK-normalized) eigenvectors: with ``P =
    V^-1 dA V``, ``dw = diag(P)`` and ``dV = V (F * P)`` plus the multiple of each
    eigenvector that keeps its 2-norm 1 and its largest component real."""
    n = w.shape[-1]
    eye = _eye(w.dtype, n)
    f = elementwise.reciprocal(eye + w[..., None, :] - w[..., None]) - eye
    p = _matmul(_solve(v, da), v)
    u = _matmul(v, f * p)
    k = reductions.argmax(elementwise.abs(v), v.ndim - 2, np.int32)
    mask = elementwise.convert_element_type(
        elementwise.eq(structural.broadcasted_iota(np.int32, v.shape, v.ndim - 2),
                       structural.expand_dims(k, (v.ndim - 2,))), v.dtype)
    column_sum = lambda x: reductions.reduce_sum(x, (v.ndim - 2,))
    c = elementwise.complex(-elementwise.real(column_sum(elementwise.conj(v) * u)),
                            -elementwise.imag(column_sum(mask * u))
                            / elementwise.real(column_sum(mask * v)))
    return _diagonal(p), u + v * structural.expand_dims(c, (v.ndim - 2,))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    """Eigenvalues: ``dw = diag(V^-1 dA V)``. Eigenvectors only on request: their
    derivative assumes distinct eigenvalues, which cannot be checked."""
    a, = primals
    da = ad.instantiate_zeros(tangents[0])
    if (compute_left_eigenvectors or compute_right_eigenvectors) and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions "
            "on the input that JAX cannot check (see the enable_eigvec_derivs argument to "
            "jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to "
            "opt in. See https://github.com/jax-ml/jax/issues/2748 for discussion.")
    outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=True,
                      enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = elementwise.convert_element_type(da, vr.dtype)
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        return [w], [reductions.reduce_sum(_solve(vr, da) * _T(vr), (vr.ndim - 1,))]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        _, dvl = _eig_vec_jvp(elementwise.conj(w), outs[1], _H(da))
        primal_out.append(outs[1])
        tangent_out.append(dvl)
    if compute_right_eigenvectors:
        primal_out.append(vr)
        tangent_out.append(dvr)
    return primal_out, tangent_out


ad.primitive_jvps[eig_p] = _eig_jvp


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        enable_eigvec_derivs: bool = False, use_magma=None, implementation=None):
    """``[w, vl, vr]`` of a general square matrix (LAPACK ``geev`` on CPU): complex
    eigenvalues, and left/right eigenvectors as requested (unit norm, largest component
    real)."""
    del use_magma
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)


# -- Schur decomposition --------------------------------------------------------------------

def _schur_abstract_eval(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _check_matrix("schur", a)
    return [a] * (2 if compute_schur_vectors else 1)


def _schur_lowering(ctx, a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    """LAPACK ``gees``: the Schur form overwrites ``a``; real input also returns the
    eigenvalues' real and imaginary parts (unused here)."""
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    values_aval = core.ShapedArray(aval.shape[:-1], aval.dtype)
    info_aval = core.ShapedArray(aval.shape[:batch], np.int32)
    real = not dtypes.issubdtype(aval.dtype, np.complexfloating)
    out_avals = [aval, aval, *[values_aval] * (2 if real else 1), info_aval, info_aval]
    schur_form, vectors, *_, info = _lapack_call(
        ctx, "gees_ffi", [a], out_avals,
        {"mode": "V" if compute_schur_vectors else "N", "sort": "N"})
    outs = [schur_form] + ([vectors] if compute_schur_vectors else [])
    return _nan_unless_ok(info, outs, [aval] * len(outs), batch)


schur_p = _standard_linalg_primitive("schur", _schur_abstract_eval, _schur_lowering)


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):
    """``[T, Q]`` with ``x = Q T Q^H``: ``T`` (quasi-)upper triangular, ``Q`` unitary
    (LAPACK ``gees``; real input gives the real Schur form with 2x2 blocks)."""
    return schur_p.bind(x, compute_schur_vectors=compute_schur_vectors,
                        sort_eig_vals=sort_eig_vals, select_callable=select_callable)


# -- Hessenberg reduction -------------------------------------------------------------------

def _hessenberg_abstract_eval(a):
    _check_matrix("hessenberg", a)
    return [a, core.ShapedArray(a.shape[:-2] + (a.shape[-1] - 1,), a.dtype)]


def _hessenberg_lowering(ctx, a):
    """LAPACK ``gehrd``: H in the upper Hessenberg part, Q's reflectors below it."""
    aval = ctx.avals_in[0]
    batch = aval.ndim - 2
    out, taus, info = _lapack_call(
        ctx, "gehrd_ffi", [a], [aval, ctx.avals_out[1],
                               core.ShapedArray(aval.shape[:batch], np.int32)],
        {"low": 1, "high": aval.shape[-1]})
    return _nan_unless_ok(info, [out, taus], [aval, ctx.avals_out[1]], batch)


hessenberg_p = _standard_linalg_primitive("hessenberg", _hessenberg_abstract_eval,
                                          _hessenberg_lowering)


def hessenberg(a):
    """``[a_out, taus]``: the upper Hessenberg form of ``a`` above its first
    subdiagonal, Householder reflectors (scaled by ``taus``) below it."""
    return hessenberg_p.bind(a)


# -- QR -------------------------------------------------------------------------------------
# LAPACK computes QR in two steps, as two primitives: ``geqrf`` leaves R in the upper
# triangle and Q as Householder reflectors below it (with their scales ``taus``);
# ``householder_product`` multiplies the reflectors out into Q. The ``qr`` primitive
# (what ``jnp.linalg.qr`` binds, and what gets differentiated) lowers to the two.

def _geqrf_abstract_eval(a):
    _check_matrix("geqrf", a, square=False)
    *batch, m, n = a.shape
    return [a, core.ShapedArray((*batch, min(m, n)), a.dtype)]


geqrf_p = _standard_linalg_primitive(
    "geqrf", _geqrf_abstract_eval,
    lambda ctx, a: _lapack_call(ctx, "geqrf_ffi", [a], ctx.avals_out, {}))


def geqrf(a):
    """``(a', taus)``: R in the upper triangle of ``a'``, Q as Householder reflectors
    below it, scaled by ``taus``."""
    return tuple(geqrf_p.bind(a))


def _householder_product_abstract_eval(a, taus):
    *_, m, n = a.shape
    if m < n:
        raise ValueError("The first argument to householder_product must have at least as "
                         f"many rows as columns, got shape {a.shape}")
    if taus.shape[-1] > min(m, n):
        raise ValueError("The second argument to householder_product must not have more "
                         "rows than the minimum of the first argument's rows and columns.")
    return a


def _householder_product_lowering(ctx, a, taus):
    routine = ("ungqr_ffi" if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating)
               else "orgqr_ffi")
    return _lapack_call(ctx, routine, [a, taus], ctx.avals_out, {})[0]


householder_product_p = _standard_linalg_primitive(
    "householder_product", _householder_product_abstract_eval,
    _householder_product_lowering, multiple_results=False)


def householder_product(a, taus):
    """The product of the Householder reflectors stored below ``a``'s diagonal."""
    return householder_product_p.bind(a, taus)


def _ormqr_abstract_eval(a, taus, c, *, left, transpose):
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError("ormqr with left=True expects c to have the same number of rows as "
                         f"the Householder matrix a. Got a shape {a.shape} and c shape "
                         f"{c.shape}.")
    if not left and c.shape[-1] != m:
        raise ValueError("ormqr with left=False expects c to have the same number of "
                         "columns as the Householder matrix a has rows. Got a shape "
                         f"{a.shape} and c shape {c.shape}.")
    return core.ShapedArray(c.shape, c.dtype)


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    routine = ("unmqr_ffi" if dtypes.issubdtype(ctx.avals_in[0].dtype, np.complexfloating)
               else "ormqr_ffi")
    return _lapack_call(ctx, routine, [a, taus, c], ctx.avals_out,
                        dict(left=left, transpose=transpose), aliased=2)[0]


ormqr_p = _standard_linalg_primitive("ormqr", _ormqr_abstract_eval, _ormqr_lowering,
                                     multiple_results=False)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """``Q @ c`` (``c @ Q`` if not ``left``; ``Q^H`` if ``transpose``) for the Q whose
    Householder reflectors ``geqrf`` stored below ``a``'s diagonal, without forming Q
    (``jnp.linalg.qr(x, mode="raw")`` returns them transposed: pass ``h.mT``)."""
    return ormqr_p.bind(a, taus, c, left=left, transpose=transpose)


def _qr_abstract_eval(a, *, pivoting, full_matrices, use_magma):
    _check_matrix("qr", a, square=False)
    if pivoting:
        raise NotImplementedError("glassjax: qr(pivoting=True) is not built yet")
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return [core.ShapedArray((*batch, m, k), a.dtype),
            core.ShapedArray((*batch, k, n), a.dtype)]


def _qr_via_lapack(a, *, pivoting, full_matrices, use_magma):
    """Q and R from ``geqrf`` and ``householder_product`` (a wide matrix's Q comes from
    its leading square block; a complete Q of a tall one from the reflectors padded to
    square)."""
    *batch, m, n = a.shape
    r, taus = geqrf(a)
    if m < n:
        q = householder_product(r[..., :m, :m], taus)
    elif full_matrices:
        pads = [(0, 0, 0)] * (len(batch) + 1) + [(0, m - n, 0)]
        q = householder_product(slicing.pad(r, structural.full_like(r, 0, shape=()), pads), taus)
    else:
        q = householder_product(r, taus)
        r = r[..., :n, :n]
    return [q, _triu(r)]


qr_p = _standard_linalg_primitive("qr", _qr_abstract_eval,
                                  lowering.lower_fun(_qr_via_lapack, multiple_results=True))


def _thin_qr_jvp(q, r, a_dot):
    """For ``A = Q R`` with ``m >= n``: ``Q^H dA R^-1 = Q^H dQ + dR R^-1``, a skew-Hermitian
    plus an upper triangular matrix, split by its strictly lower triangle."""
    dx_rinv = triangular_solve(r, a_dot)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    lower = _tril(qt_dx_rinv, -1)
    do = lower - _H(lower)                     # skew-Hermitian
    if dtypes.issubdtype(q.dtype, np.complexfloating):
        imag = qt_dx_rinv - elementwise.convert_element_type(elementwise.real(qt_dx_rinv), q.dtype)
        do = do + _eye(q.dtype, r.shape[-1]) * imag
    dq = _matmul(q, do - qt_dx_rinv) + dx_rinv
    dr = _matmul(qt_dx_rinv - do, r)
    return dq, dr


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    """Square and tall ``A`` use the thin-QR rule (a complete Q of a tall ``A`` is not
    differentiated, as in JAX before its full-matrices rule); a wide ``A = Q [R1 R2]``
    differentiates its square block and ``R2 = Q^H A2``."""
    a, = primals
    a_dot = ad.instantiate_zeros(tangents[0])
    q, r = qr_p.bind(a, pivoting=pivoting, full_matrices=full_matrices,
                     use_magma=use_magma)
    *_, m, n = a.shape
    if m < n:
        dq, dr1 = _thin_qr_jvp(q, r[..., :, :m], a_dot[..., :, :m])
        dr2 = _matmul(_H(dq), a[..., :, m:]) + _matmul(_H(q), a_dot[..., :, m:])
        return [q, r], [dq, structural.concatenate([dr1, dr2], a.ndim - 1)]
    if full_matrices and m != n:
        raise NotImplementedError("glassjax: the derivative of a complete QR "
                                  "decomposition of a tall matrix is not built yet")
    dq, dr = _thin_qr_jvp(q, r, a_dot)
    return [q, r], [dq, dr]


ad.primitive_jvps[qr_p] = _qr_jvp


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """``(q, r)`` with ``x == q @ r``, ``q`` orthonormal columns and ``r`` upper
    triangular (``full_matrices=False``: the reduced decomposition)."""
    return tuple(qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                           use_magma=use_magma))

# -- singular value decomposition ---------------------------------------------------------

def _svd_abstract_eval(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_matrix("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n) if subset_by_index is None else subset_by_index[1] - subset_by_index[0]
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
    if subset_by_index not in (None, (0, k)):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if algorithm is not None:
        raise NotImplementedError(f"svd algorithm {algorithm} is not supported on CPU")
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
    if not compute_uv:
        return _nan_unless_ok(info, [s], [s_aval], len(batch))
    return _nan_unless_ok(info, [s, u, vt], [s_aval, u_aval, vt_aval], len(batch))


svd_p = _standard_linalg_primitive("svd", _svd_abstract_eval, _svd_lowering)


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    """With ``A = U S V^H`` (thin), ``dS = U^H dA V`` has the singular values' tangents
    on its diagonal; its off-diagonal part, divided by differences of squared singular
    values, rotates ``U`` and ``V`` (Giles 2008, "An extended collection of matrix
    derivative results"); rectangular ``A`` adds the component of ``dA`` outside the
    span of ``U`` or ``V``. Like JAX, full ``U``/``V`` of a non-square ``A`` have no
    derivative."""
    a, = primals
    a_dot, = tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    *_, m, n = a.shape
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for "
                                  "full matrices")
    a_dot = ad.instantiate_zeros(a_dot)
    real = lambda x: elementwise.real(x) if dtypes.issubdtype(x.dtype, np.complexfloating) else x
    ut, v = _H(u), _H(vt)
    ds_mat = _matmul(_matmul(ut, a_dot), v)
    ds = real(_diagonal(ds_mat))
    if not compute_uv:
        return [s], [ds]
    s_row = s[..., None, :]
    s_diffs = (s_row + _T(s_row)) * (s_row - _T(s_row))
    eye = _eye(s.dtype, s.shape[-1])
    f = 1 / (s_diffs + eye) - eye
    s_row_a = elementwise.convert_element_type(s_row, a.dtype)
    dss, sds = s_row_a * ds_mat, _T(s_row_a) * ds_mat
    s_zero = elementwise.convert_element_type(s == 0, s.dtype)
    s_inv = 1 / (s + s_zero) - s_zero
    du_dv_diag = .5 * (ds_mat - _H(ds_mat)) * elementwise.convert_element_type(
        _diag_matrix(s_inv), a.dtype)
    f_a = elementwise.convert_element_type(f, a.dtype)
    du = _matmul(u, f_a * (dss + _H(dss)) + du_dv_diag)
    dv = _matmul(v, f_a * (sds + _H(sds)))
    if m > n:
        dav = _matmul(a_dot, v)
        du = du + (dav - _matmul(u, _matmul(ut, dav))) / s_row_a
    if n > m:
        dahu = _matmul(_H(a_dot), u)
        dv = dv + (dahu - _matmul(v, _matmul(vt, dahu))) / s_row_a
    return [s, u, vt], [ds, du, _H(dv)]


ad.primitive_jvps[svd_p] = _svd_jvp


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None,
        algorithm=None):
    """``(u, s, vh)`` with ``x == u @ diag(s) @ vh`` (just ``s``, descending, without
    ``compute_uv``)."""
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=subset_by_index, algorithm=algorithm)
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


# -- triangular solve ---------------------------------------------------------------------

def _triangular_solve_abstract_eval(a, b, *, left_side, lower, transpose_a, conjugate_a,
                                    unit_diagonal):
    _check_matrix("triangular_solve", a, which="The first input")
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2 if left_side else -1]:
        raise ValueError("Incompatible shapes for arguments to triangular_solve: "
                         f"{a.shape} and {b.shape}.")
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


def _triangular_solve_sharding(a, b, *, left_side, transpose_a, **params):
    """JAX's rule: batches split alike; the contracted dimensions whole; the result's
    rows and columns split as the ones of ``a`` and ``b`` they come from."""
    (*batch, a0, a1), (*batch_b, b0, b1) = spec_of(a), spec_of(b)
    if batch != batch_b:
        raise core.ShardingTypeError("All inputs to triangular_solve must have the same "
                                     f"batch sharding, but got {tuple(batch)} and "
                                     f"{tuple(batch_b)}.")
    flags = f"left_side={left_side} and transpose_a={transpose_a}"
    if (a0, a1)[left_side ^ transpose_a] is not None:
        raise core.ShardingTypeError("triangular solve input `a` must be unsharded on the "
                                     f"contracting axis, but got {P(*spec_of(a))} with "
                                     f"{flags}.")
    if (b0, b1)[not left_side] is not None:
        raise core.ShardingTypeError("triangular solve input `b` must be unsharded on the "
                                     f"contracting axis, but got {P(*spec_of(b))} with "
                                     f"{flags}.")
    return [*batch, *([(a0, a1)[transpose_a], b1] if left_side
                      else [b0, (a0, a1)[not transpose_a]])]


triangular_solve_p.sharding_rule = _triangular_solve_sharding


def _triangular_solve_jvp_a(a_dot, x, a, b, *, left_side, lower, transpose_a,
                            conjugate_a, unit_diagonal):
    """``op(A) X = B`` gives ``dX = -op(A)^-1 op(dA) X`` (only ``dA``'s triangle counts);
    the solve and the product go in whichever order is cheaper."""
    m, n = b.shape[-2:]
    k = 1 if unit_diagonal else 0
    a_dot = elementwise.neg(_tril(a_dot, -k) if lower else _triu(a_dot, k))
    a_dot = _T(a_dot) if transpose_a else a_dot
    a_dot = _conj(a_dot) if conjugate_a else a_dot
    solve = functools.partial(triangular_solve, a, left_side=left_side, lower=lower,
                              transpose_a=transpose_a, conjugate_a=conjugate_a,
                              unit_diagonal=unit_diagonal)
    if left_side:
        return solve(_matmul(a_dot, x)) if m > n else _matmul(solve(a_dot), x)
    return solve(_matmul(x, a_dot)) if m < n else _matmul(x, solve(a_dot))


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a,
                                unit_diagonal):
    """Linear in ``B``: the transposed map solves with ``op(A)`` transposed."""
    if ad.is_undefined_primal(a):
        raise RuntimeError("triangular_solve is not linear in its matrix")
    if type(ct) is ad.Zero:
        return [None, ad.Zero(b.aval)]
    return [None, triangular_solve(a, ct, left_side=left_side, lower=lower,
                                   transpose_a=not transpose_a, conjugate_a=conjugate_a,
                                   unit_diagonal=unit_diagonal)]


ad.defjvp2(triangular_solve_p, _triangular_solve_jvp_a,
           lambda b_dot, x, a, b, **params: triangular_solve_p.bind(a, b_dot, **params))
ad.primitive_transposes[triangular_solve_p] = _triangular_solve_transpose


def triangular_solve(a, b, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False):
    """``x`` with ``op(a) @ x == b`` (``left_side``) or ``x @ op(a) == b``, for
    triangular ``a``; ``op`` transposes / conjugates as asked. A ``b`` of one rank less
    than ``a`` is a (batch of) vector(s)."""
    conjugate_a = conjugate_a and dtypes.issubdtype(a.dtype, np.complexfloating)
    if conjugate_a and not transpose_a:
        a, conjugate_a = _conj(a), False
    vector = np.ndim(b) == np.ndim(a) - 1
    if vector:
        b = structural.expand_dims(b, (-1 if left_side else -2,))
    out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                  transpose_a=transpose_a, conjugate_a=conjugate_a,
                                  unit_diagonal=unit_diagonal)
    if vector:
        out = out[..., 0] if left_side else out[..., 0, :]
    return out


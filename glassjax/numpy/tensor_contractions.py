"""Products of arrays: ``dot``, ``matmul`` (``@``), ``vdot``, ``inner``, ``outer``,
``tensordot`` and ``einsum``.

Every contraction is one ``lax.dot_general``: it multiplies along *contracting* axes and
loops over *batch* axes, the remaining axes of each operand following in order. The jnp
functions only work out which axes are which (``matmul`` also squeezes size-1 batch axes
and transposes its result into NumPy's axis order). Operands of different dtypes go to
``dot_general`` as they are, with the promoted ``preferred_element_type``.
"""
from __future__ import annotations

import collections
import functools
import operator

import numpy as np

from glassjax import dtypes, lax
from glassjax.interpreters import replay
from glassjax.jit import jit
from glassjax.mesh import PartitionSpec as P
from glassjax.named_sharding import as_typed, spec_to_sharding
from glassjax.numpy import contraction_paths, lax_numpy, ufuncs, util
from glassjax.numpy.util import canonicalize_axis, ensure_arraylike
from glassjax.numpy.vectorize import vectorize


def _result_dtype(name, a, b, preferred_element_type):
    """The dtype of a product (and whether it is weak): promotion, unless requested."""
    if preferred_element_type is None:
        return dtypes.result_type(a, b, return_weak_type_flag=True)
    return dtypes.check_and_canonicalize_user_dtype(preferred_element_type, name), False


def _laid_out(result, out_sharding):
    """``out_sharding`` (a NamedSharding, or a PartitionSpec over the mesh of
    ``set_mesh``) lays the result out over the devices, as a sharding constraint."""
    if out_sharding is None:
        return result
    sharding = spec_to_sharding(out_sharding, "out_sharding")
    return lax.with_sharding_constraint(result, as_typed(sharding, result.ndim))


def _dot_sharding(out_sharding, result_ndim, order):
    """``out_sharding`` as the ``dot_general`` computing the result asks for it: its
    output axis k is the result's axis ``order[k]``. (Contracting axes split on both
    sides need it: the split of the result is the user's to say.)"""
    if out_sharding is None:
        return None
    sharding = as_typed(spec_to_sharding(out_sharding, "out_sharding"), result_ndim)
    spec = sharding.spec._normalized_spec_for_aval(result_ndim)
    return sharding.with_spec(P(*[spec[i] for i in order]))


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: contract the last axis of ``a`` with the second-to-last of ``b``
    (the only one for vectors); a scalar operand multiplies elementwise."""
    a, b = ensure_arraylike("dot", a, b)
    dtype, weak = _result_dtype("dot", a, b, preferred_element_type)
    if a.ndim == 0 or b.ndim == 0:
        contract = ((), ())
    elif b.ndim == 1:
        contract = ((a.ndim - 1,), (0,))
    else:
        contract = ((a.ndim - 1,), (b.ndim - 2,))
    ndim = a.ndim + b.ndim - 2 * len(contract[0])
    result = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                             preferred_element_type=dtype,
                             out_sharding=_dot_sharding(out_sharding, ndim, range(ndim)))
    return _laid_out(util.convert(result, dtype, weak), out_sharding)


@replay.replayed             # (JAX's matmul is a jit: its trace is reused likewise)
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """``a @ b``: matrix products over broadcast batch axes; vectors are treated as a row
    (``a``) or a column (``b``) and that axis is dropped from the result."""
    a, b = ensure_arraylike("matmul", a, b)
    a_shape, b_shape = a.shape, b.shape       # (read once: tracers compute them)
    for i, shape in enumerate((a_shape, b_shape)):
        if len(shape) < 1:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it "
                             f"has ndim {len(shape)}")
    dtype, weak = _result_dtype("matmul", a, b, preferred_element_type)
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    if len(a_shape) <= 2 and len(b_shape) <= 2:
        # No batch axes (the common case): dot_general's axes are already NumPy's.
        a_squeeze = b_squeeze = both_squeeze = a_batch = b_batch = ()
        order = range(a_is_mat + b_is_mat)
        perm = tuple(order)
    else:
        a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch, order = _matmul_batch_axes(
            a, b, a_shape, b_shape)
        perm = tuple(sorted(range(len(order)), key=order.__getitem__))
    a_ndim, b_ndim = len(a_shape) - len(a_squeeze), len(b_shape) - len(b_squeeze)
    a = lax.squeeze(a, tuple(a_squeeze)) if a_squeeze else a
    b = lax.squeeze(b, tuple(b_squeeze)) if b_squeeze else b
    out = lax.dot_general(a, b, (((a_ndim - 1,), (b_ndim - 1 - b_is_mat,)),
                                 (tuple(a_batch), tuple(b_batch))),
                          precision=precision, preferred_element_type=dtype,
                          out_sharding=_dot_sharding(out_sharding,
                                                     len(order) + len(both_squeeze), order))
    result = out if perm == tuple(range(len(perm))) else lax.transpose(out, perm)
    if both_squeeze:
        result = lax.expand_dims(result, tuple(both_squeeze))
    return _laid_out(util.convert(result, dtype, weak), out_sharding)


def _matmul_batch_axes(a, b, a_shape, b_shape):
    """How ``matmul`` treats the batch axes of ``a`` and ``b`` (all axes but the last two
    of a matrix): which it squeezes from each (and from both), which are ``dot_general``
    batch axes of each, and the order of ``dot_general``'s output axes in the result."""
    a_is_mat, b_is_mat = len(a_shape) > 1, len(b_shape) > 1
    a_batch_dims = a_shape[:-2] if a_is_mat else ()
    b_batch_dims = b_shape[:-2] if b_is_mat else ()
    num_batch = max(len(a_batch_dims), len(b_batch_dims))
    a_batch_dims = (None,) * (num_batch - len(a_batch_dims)) + a_batch_dims
    b_batch_dims = (None,) * (num_batch - len(b_batch_dims)) + b_batch_dims
    # Sort each batch axis: present in one operand only ("other"), size 1 in one or both
    # (squeezed away, then broadcast by dot_general's free axes), or a true batch axis.
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_batch, b_batch = [], []
    idx_batch, idx_a_other, idx_b_other = [], [], []
    for i, (ba, bb) in enumerate(zip(a_batch_dims, b_batch_dims)):
        if ba is None:
            idx_b_other.append(i)
        elif bb is None:
            idx_a_other.append(i)
        elif ba == 1 and bb == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif ba == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif bb == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a_other))
            b_batch.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: "
                             f"{a.aval.str_short()} and {b.aval.str_short()}")
    if a_is_mat:
        idx_a_other.append(num_batch)
    if b_is_mat:
        idx_b_other.append(num_batch + a_is_mat)
    order = idx_batch + idx_a_other + idx_b_other      # dot_general's output axis order
    return a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch, order


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """The dot product of the flattened arrays, conjugating ``a``."""
    a, b = ensure_arraylike("vdot", a, b)
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        a = ufuncs.conj(a)
    return dot(a.ravel(), b.ravel(), precision=precision,
               preferred_element_type=preferred_element_type)


@jit
def matvec(x1, x2, /):
    """Matrix-vector products over broadcast batch axes: ``vectorize`` of ``matmul``."""
    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n,m),(m)->(n)")(x1, x2)


@jit
def vecmat(x1, x2, /):
    """Conjugate vector-matrix products over broadcast batch axes."""
    x1, x2 = ensure_arraylike("matvec", x1, x2)
    return vectorize(matmul, signature="(n),(n,m)->(m)")(ufuncs.conj(x1), x2)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """Conjugate dot products along ``axis`` (other axes broadcast): ``vectorize`` of
    ``vdot``."""
    x1, x2 = ensure_arraylike("jnp.vecdot", x1, x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with "
                         f"{axis=}")
    x1, x2 = lax_numpy.moveaxis(x1, axis, -1), lax_numpy.moveaxis(x2, axis, -1)
    return vectorize(functools.partial(vdot, precision=precision,
                                       preferred_element_type=preferred_element_type),
                     signature="(n),(n)->()")(x1, x2)


def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None):
    """Contract the last ``axes`` axes of ``a`` with the first of ``b``, or the given
    pairs of axes."""
    a, b = ensure_arraylike("tensordot", a, b)
    dtype, weak = _result_dtype("tensordot", a, b, preferred_element_type)
    if type(axes) is int:
        if axes > min(a.ndim, b.ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({a.shape} and {b.shape})")
        contract = (tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes)))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int) and isinstance(ax2, int):
            contract = ((canonicalize_axis(ax1, a.ndim),), (canonicalize_axis(ax2, b.ndim),))
        elif isinstance(ax1, (tuple, list)) and isinstance(ax2, (tuple, list)):
            if len(ax1) != len(ax2):
                raise TypeError("tensordot requires axes lists to have equal length, got "
                                f"{ax1} and {ax2}.")
            contract = (tuple(canonicalize_axis(i, a.ndim) for i in ax1),
                        tuple(canonicalize_axis(i, b.ndim) for i in ax2))
        else:
            raise TypeError("tensordot requires both axes lists to be either ints, tuples or "
                            f"lists, got {ax1} and {ax2}")
    else:
        raise TypeError("tensordot axes argument must be an int, a pair of ints, or a pair "
                        "of lists/tuples of ints.")
    result = lax.dot_general(a, b, (contract, ((), ())), precision=precision,
                             preferred_element_type=dtype)
    return util.convert(result, dtype, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Contract the last axes of ``a`` and ``b``."""
    a, b = ensure_arraylike("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        if preferred_element_type is not None:
            a, b = a.astype(preferred_element_type), b.astype(preferred_element_type)
        return a * b
    return tensordot(a, b, (-1, -1), precision=precision,
                     preferred_element_type=preferred_element_type)


def outer(a, b, out=None):
    """Every element of ``a`` times every element of ``b`` (a matrix)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    a, b = util.promote_dtypes(*ensure_arraylike("outer", a, b))
    return a.ravel()[:, None] * b.ravel()[None, :]


# ----------------------------------------------------------------------------------------
# einsum
# ----------------------------------------------------------------------------------------

_FRESH = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _parse_subscripts(subscripts, shapes, fresh=_FRESH, pool=None):
    """Input and output index strings, with ``...`` replaced by fresh letters and the
    implicit output (indices used once, sorted) made explicit. The ellipsis takes the
    last of the first ``pool`` unused letters of ``fresh`` (``pool`` defaults to the
    ellipsis's width; opt_einsum names them with the largest rank as the pool)."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(f"Number of einsum subscripts, {len(inputs)}, must be equal to "
                         f"the number of operands, {len(shapes)}.")
    used = set(subscripts) - set(".,->")
    ellipsis_ndim = max((len(s) - len(t.replace("...", ""))
                         for t, s in zip(inputs, shapes) if "..." in t), default=0)
    unused = [c for c in fresh if c not in used][:ellipsis_ndim if pool is None else pool]
    ellipsis = "".join(unused[len(unused) - ellipsis_ndim:])
    expanded = []
    for term, shape in zip(inputs, shapes):
        if "..." in term:
            n = len(shape) - len(term.replace("...", ""))
            term = term.replace("...", ellipsis[ellipsis_ndim - n:] if n else "")
        expanded.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        counts = collections.Counter("".join(expanded))
        output = ellipsis + "".join(sorted(c for c in counts
                                           if counts[c] == 1 and c not in ellipsis))
    return expanded, output


def _label_sizes(inputs, shapes) -> dict:
    """The size of every index label, checked as opt_einsum (which JAX uses) checks it: a
    label has one size in every operand, except that size 1 broadcasts."""
    sizes = {}
    for k, (term, shape) in enumerate(zip(inputs, shapes)):
        if len(term) != len(shape):
            raise ValueError(f"Einstein sum subscript '{term}' does not contain the correct "
                             f"number of indices for operand {k}.")
        for name, d in zip(term, shape):
            if sizes.get(name, 1) == 1:
                sizes[name] = d
            elif d not in (1, sizes[name]):
                raise ValueError(f"Size of label '{name}' for operand {k} ({sizes[name]}) "
                                 f"does not match previous terms ({d}).")
    return sizes


def _path(inputs, output, sizes, optimize):
    """The order of pairwise contractions, as positions in the shrinking operand list,
    chosen as JAX chooses it (``contraction_paths``): ``'auto'`` (the default),
    ``'optimal'`` (also ``True``), ``'greedy'`` or ``'branch-*'``; ``False`` contracts
    left to right; a list is a path given by the user. Other opt_einsum strategy names
    (``'dp'``, ...) are not written here and get ``'auto'``."""
    if isinstance(optimize, (list, tuple)):
        return [tuple(p) for p in optimize if p != "einsum_path"]
    if len(inputs) <= 2:
        return [tuple(range(len(inputs)))]
    if optimize is False:
        return [(0, 1)] * (len(inputs) - 1)
    strategy = contraction_paths.STRATEGIES.get("optimal" if optimize is True else optimize,
                                                contraction_paths.auto)
    return strategy([frozenset(t) for t in inputs], frozenset(output), sizes)


def _steps(inputs, output, path):
    """The pairwise contraction steps (opt_einsum's "einsum_call" form): which operands,
    which indices disappear, and the step's own einsum string."""
    terms = list(inputs)
    steps = []
    for n, positions in enumerate(path):
        positions = tuple(sorted(positions, reverse=True))
        contracted = set().union(*(terms[i] for i in positions))
        remaining = set(output).union(*(t for i, t in enumerate(terms) if i not in positions))
        kept = contracted & remaining
        step_inputs = [terms.pop(i) for i in positions]
        if n == len(path) - 1:
            result = output
        else:
            joined = "".join(step_inputs)
            result = "".join(sorted(kept, key=joined.find))
        terms.append(result)
        steps.append((positions, frozenset(contracted - kept),
                      ",".join(step_inputs) + "->" + result))
    return steps


_SYMBOLS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def sublist_form(args):
    """NumPy's other way to call einsum, ``einsum(op0, sublist0, op1, sublist1, ...,
    [output_sublist])`` with integers (or ``...``) for indices, as the subscripts string
    ``'ab,bc->ac'`` and the operands (integer ``i`` is the ``i``-th letter, as in
    opt_einsum)."""
    def term(sublist):
        return "".join("..." if i is Ellipsis else _SYMBOLS[operator.index(i)]
                       for i in sublist)
    pairs = args[:len(args) - len(args) % 2]
    subscripts = ",".join(term(sub) for sub in pairs[1::2])
    if len(args) % 2:
        subscripts += "->" + term(args[-1])
    return subscripts, pairs[0::2]


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None, _dot_general=lax.dot_general, out_sharding=None):
    """Einstein summation: each step contracts one or two operands with ``dot_general``
    (summing indices that appear in only one operand, taking diagonals of repeated
    indices) and transposes into the order the output string asks for.
    ``_dot_general`` replaces ``lax.dot_general`` for the products (as in JAX; flax's
    attention passes its own, e.g. a quantized one)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if not isinstance(subscripts, str):
        subscripts, operands = sublist_form((subscripts, *operands))
    operands = list(util.ensure_arraylike_tuple("einsum", operands))
    shapes = [np.shape(o) for o in operands]
    inputs, output = _parse_subscripts(subscripts, shapes)
    sizes = _label_sizes(inputs, shapes)
    steps = _steps(inputs, output, _path(inputs, output, sizes, optimize))
    if preferred_element_type is None:
        dtype, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    else:
        dtype = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "einsum")
        weak = False
    typed_out = None if out_sharding is None else as_typed(
        spec_to_sharding(out_sharding, "out_sharding"), len(output))
    for k, (positions, contracted, einstr) in enumerate(steps):
        step_inputs, result_names = einstr.split("->")
        names_in = step_inputs.split(",")
        contracted = sorted(contracted)
        if len(positions) == 1:
            operand, names = _sum_alone(operands.pop(positions[0]), names_in[0], contracted,
                                        result_names, dtype)
        else:
            operand, names = _contract_pair(operands.pop(positions[0]),
                                            operands.pop(positions[1]), *names_in,
                                            contracted, result_names, dtype, precision,
                                            typed_out if k == len(steps) - 1 else None,
                                            _dot_general)
        if names != result_names:
            operand = lax.transpose(operand, tuple(names.index(n) for n in result_names))
        operands.append(operand)
    return _laid_out(util.convert(operands[0], dtype, weak), out_sharding)


def _einsum_sum(x, axes, dtype):
    if dtypes.result_type(x, dtype) != x.dtype:
        x = x.astype(dtype)
    reduce = lax.reduce_sum if x.dtype != np.bool_ else lax.reduce_or
    return reduce(x, tuple(axes))


def _sum_uniques(operand, names, uniques, dtype):
    """Sum away indices that occur once and are not wanted any more."""
    if uniques:
        operand = _einsum_sum(operand, [names.index(n) for n in uniques], dtype)
        names = "".join(n for n in names if n not in uniques)
    return operand, names


def _sum_repeats(operand, names, counts, keep_names, dtype):
    """A repeated index (``'ii'``) selects a diagonal: zero everything off it, then sum
    all but (if the index is kept) one of its axes."""
    for name, count in counts.items():
        if count > 1:
            axes = [i for i, n in enumerate(names) if n == name]
            operand = lax.select(_delta(operand.shape, axes), operand,
                                 lax.full_like(operand, 0))
            if name not in keep_names:
                operand = _einsum_sum(operand, axes, dtype)
                names = names.replace(name, "")
            else:
                operand = _einsum_sum(operand, axes[:-1], dtype)
                names = names.replace(name, "", count - 1)
    return operand, names


def _delta(shape, axes):
    """A boolean mask that is true where the indices along ``axes`` are all equal."""
    base_shape = tuple(shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, base_shape, i) for i in range(len(base_shape))]
    eyes = [lax.eq(i1, i2) for i1, i2 in zip(iotas[:-1], iotas[1:])]
    eye = functools.reduce(lax.bitwise_and, eyes)
    return eye if len(axes) == len(shape) else lax.broadcast_in_dim(eye, shape, axes)


def _sum_alone(operand, names, contracted, result_names, dtype):
    counts = collections.Counter(names)
    operand, names = _sum_uniques(operand, names, [n for n in contracted if counts[n] == 1],
                                  dtype)
    return _sum_repeats(operand, names, counts, result_names, dtype)


def _filter_singleton_dims(operand, names, other_shape, other_names):
    """Drop size-1 axes whose index the other operand has with a larger size (they
    broadcast)."""
    keep = [operand.shape[i] != 1 or j == -1 or other_shape[j] == 1
            for i, j in enumerate(map(other_names.find, names))]
    squeezed = tuple(i for i, k in enumerate(keep) if not k)
    return (lax.squeeze(operand, squeezed),
            "".join(n for n, k in zip(names, keep) if k))


def _contract_pair(lhs, rhs, lhs_names, rhs_names, contracted, result_names, dtype,
                   precision, out_sharding=None, dot_general=lax.dot_general):
    lhs, lhs_names = _filter_singleton_dims(lhs, lhs_names, rhs.shape, rhs_names)
    rhs, rhs_names = _filter_singleton_dims(rhs, rhs_names, lhs.shape, lhs_names)
    lhs_counts = collections.Counter(lhs_names)
    rhs_counts = collections.Counter(rhs_names)
    lhs, lhs_names = _sum_uniques(
        lhs, lhs_names, [n for n in contracted if lhs_counts[n] == 1 and rhs_counts[n] == 0],
        dtype)
    rhs, rhs_names = _sum_uniques(
        rhs, rhs_names, [n for n in contracted if rhs_counts[n] == 1 and lhs_counts[n] == 0],
        dtype)
    lhs, lhs_names = _sum_repeats(lhs, lhs_names, lhs_counts, result_names + rhs_names,
                                  dtype)
    rhs, rhs_names = _sum_repeats(rhs, rhs_names, rhs_counts, result_names + lhs_names,
                                  dtype)
    contracted = [n for n in contracted if n in set(lhs_names) | set(rhs_names)]
    batch_names = "".join(n for n in result_names
                          if n in set(lhs_names) & set(rhs_names))
    lhs_batch = tuple(lhs_names.find(n) for n in batch_names)
    rhs_batch = tuple(rhs_names.find(n) for n in batch_names)
    lhs_cont = tuple(lhs_names.index(n) for n in contracted)
    rhs_cont = tuple(rhs_names.index(n) for n in contracted)
    deleted = batch_names + "".join(contracted)
    lhs_rest = "".join(n for n in lhs_names if n not in deleted)
    rhs_rest = "".join(n for n in rhs_names if n not in deleted)
    # dot_general puts batch axes, then lhs's free axes, then rhs's: call it with the
    # operands swapped if that already gives the output order.
    # (``out_sharding`` is passed only when there is one: a ``dot_general`` of the
    # caller's may not take it.)
    if batch_names + rhs_rest + lhs_rest == result_names:
        laid_out = _sharding_for(out_sharding, result_names, result_names)
        out = dot_general(rhs, lhs, ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch)),
                          precision, preferred_element_type=dtype,
                          **({} if laid_out is None else {"out_sharding": laid_out}))
        return out, result_names
    names = batch_names + lhs_rest + rhs_rest
    laid_out = _sharding_for(out_sharding, result_names, names)
    out = dot_general(lhs, rhs, ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch)),
                      precision, preferred_element_type=dtype,
                      **({} if laid_out is None else {"out_sharding": laid_out}))
    return out, names


def _sharding_for(out_sharding, result_names, names):
    """``out_sharding`` (over the indices ``result_names``) for a product whose output
    indices are ``names``."""
    if out_sharding is None:
        return None
    spec = out_sharding.spec._normalized_spec_for_aval(len(result_names))
    return out_sharding.with_spec(P(*[spec[result_names.index(n)] for n in names]))

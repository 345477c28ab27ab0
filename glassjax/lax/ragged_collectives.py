"""Collectives XLA offers beyond the dense ones of ``parallel.py``: the ragged all-to-all
and the one-sided send / receive pair.

``ragged_all_to_all`` is ``all_to_all`` for ragged data: each device sends slices of
different lengths (``operand[input_offsets[i]:][:send_sizes[i]]`` to device
``i // (K / axis_size)``) and writes what it receives into a copy of ``output``. Its
result has ``output``'s type. ``psend`` / ``precv`` send a value along a permutation of a
named axis and receive it, ordered by the token ``psend`` returns.

XLA:CPU (jaxlib 0.10.2) compiles none of them -- "HLO opcode `ragged-all-to-all` is not
supported by XLA:CPU ThunkEmitter", and JAX lowers psend / precv on GPU only -- so on this
CPU-only engine they trace, print, differentiate and lower to StableHLO as JAX 0.10.2
does, and running them fails as it does in JAX.
"""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, dtypes, tree_util
from glassjax.interpreters import ad, batching, staging
from glassjax.lax import comparison, reductions, structural
from glassjax.lax.parallel import (_as_tuple, _canonicalize_axis_index_groups,
                                   _check_axis_names, _collective_pvary, _device_groups,
                                   _groups_attr, all_to_all)
from glassjax.xla import lowering


# ----------------------------------------------------------------------------------------
# ragged_all_to_all
# ----------------------------------------------------------------------------------------

_RAGGED_ARGS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def _ragged_abstract_eval(operand, output, *offsets_and_sizes, axis_name,
                          axis_index_groups):
    for name, aval in zip(_RAGGED_ARGS, offsets_and_sizes):
        if not dtypes.issubdtype(aval.dtype, np.integer):
            raise ValueError(f"ragged_all_to_all {name} must be integer type.")
    for name, aval in zip(_RAGGED_ARGS, offsets_and_sizes):
        if aval.ndim != 1 or aval.shape[0] < 1:
            raise ValueError(f"ragged_all_to_all {name} must be rank 1 with positive "
                             f"dimension size, but got shape {aval.shape}")
    _check_axis_names(axis_name, "ragged_all_to_all")
    return output.update(weak_type=False)


def _ragged_impl(*args, **params):
    raise RuntimeError("ragged_all_to_all must be used within a mapped context like vmap "
                       "or shard_map.")


def _ragged_lowering(ctx, operand, output, *offsets_and_sizes, axis_name,
                     axis_index_groups):
    """A ``custom_call @ragged_all_to_all`` whose backend config names the device groups
    (and, between SPMD partitions, a channel), as JAX emits it."""
    groups = _device_groups(ctx, axis_name, axis_index_groups)
    if any(len(g) != len(groups[0]) for g in groups):
        raise ValueError("Replica groups must be equally sized")
    config = {"replica_groups": _groups_attr(groups)}
    if ctx.module_context.spmd:
        config["channel_id"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 1)
    return hlo.CustomCallOp(
        [output.type], [operand, output, *offsets_and_sizes],
        call_target_name=ir.StringAttr.get("ragged_all_to_all"),
        backend_config=ir.DictAttr.get(config),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4)).result


def _ragged_jvp(primals, tangents, **params):
    """Linear in (operand, output): the tangent travels the same way."""
    operand, output, *rest = primals
    operand_dot, output_dot, *_ = tangents
    out = ragged_all_to_all_p.bind(operand, output, *rest, **params)
    if type(operand_dot) is ad.Zero and type(output_dot) is ad.Zero:
        return out, ad.Zero(core.get_aval(out).to_tangent_aval())
    operand_dot, output_dot = map(ad.instantiate_zeros, (operand_dot, output_dot))
    return out, ragged_all_to_all_p.bind(operand_dot, output_dot, *rest, **params)


def _ragged_transpose(ct, operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups):
    """The cotangent of the received slices goes back to their senders (a ragged
    all-to-all the other way round); the rest of it belongs to ``output``."""
    if type(ct) is ad.Zero:
        return [ad.Zero(operand.aval) if ad.is_undefined_primal(operand) else None,
                ad.Zero(output.aval) if ad.is_undefined_primal(output) else None,
                None, None, None, None]
    zero = structural.full(operand.aval.shape, 0, operand.aval.dtype)
    written_at = all_to_all(output_offsets, axis_name, 0, 0, tiled=True)
    read_at = all_to_all(input_offsets, axis_name, 0, 0, tiled=True)
    operand_ct = ragged_all_to_all_p.bind(ct, zero, written_at, recv_sizes, read_at,
                                          send_sizes, axis_name=axis_name,
                                          axis_index_groups=axis_index_groups)
    # Rows of ``output`` overwritten by received slices get no cotangent.
    rows = structural.iota(written_at.dtype, ct.shape[0])
    starts = structural.expand_dims(written_at, (1,))
    inside = comparison.bitwise_and(
        comparison.ge(structural.expand_dims(rows, (0,)), starts),
        comparison.lt(structural.expand_dims(rows, (0,)),
                      starts + structural.expand_dims(recv_sizes, (1,))))
    received = structural.broadcast_in_dim(reductions.reduce_or(inside, (0,)), ct.shape, (0,))
    output_ct = comparison.select(received, structural.full_like(ct, 0), ct)
    return [operand_ct, output_ct, None, None, None, None]


def _ragged_batcher(axis_data, vals, dims, *, axis_name, axis_index_groups):
    """Over another axis, the batch is folded into the ragged rows: element b's rows move
    to ``b * N`` (operand) and ``b * M`` (output), and so do its offsets."""
    if all(d is None for d in dims) and axis_data.name not in axis_name:
        return ragged_all_to_all_p.bind(*vals, axis_name=axis_name,
                                        axis_index_groups=axis_index_groups), None
    if axis_data.name in axis_name or axis_index_groups:
        raise NotImplementedError("Please open a feature request!")
    size = axis_data.size

    def batch_second(x, d):
        return (structural.broadcast_in_dim(x, (x.shape[0], size), (0,)) if d is None else
                x if d == 1 else structural.transpose(x, (1, 0)))

    operand, output = (batching.bdim_at_front(x, d, size) for x, d in
                       zip(vals[:2], dims[:2]))
    n, m = operand.shape[1], output.shape[1]
    input_offsets, send_sizes, output_offsets, recv_sizes = (
        batch_second(x, d) for x, d in zip(vals[2:], dims[2:]))
    shift = structural.expand_dims(structural.iota(input_offsets.dtype, size), (0,))
    input_offsets = input_offsets + shift * n
    output_offsets = output_offsets + shift * m

    def merge(x):
        return x.reshape(-1, *x.shape[2:])
    out = ragged_all_to_all(*map(merge, (operand, output, input_offsets, send_sizes,
                                         output_offsets, recv_sizes)), axis_name=axis_name)
    return out.reshape(size, -1, *out.shape[1:]), 0


ragged_all_to_all_p = core.Primitive("ragged_all_to_all")
ragged_all_to_all_p.def_impl(_ragged_impl)
ragged_all_to_all_p.def_abstract_eval(_ragged_abstract_eval)
lowering.register_lowering(ragged_all_to_all_p, _ragged_lowering)
ad.primitive_jvps[ragged_all_to_all_p] = _ragged_jvp
ad.primitive_transposes[ragged_all_to_all_p] = _ragged_transpose
batching.fancy_primitive_batchers[ragged_all_to_all_p] = _ragged_batcher


def ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets,
                      recv_sizes, *, axis_name, axis_index_groups=None):
    """Send ``operand[input_offsets[i]:input_offsets[i] + send_sizes[i]]`` to device
    ``i // (K / axis_size)`` of ``axis_name``, where it is written at its
    ``output_offsets[i]``; return ``output`` with the slices this device received
    (``recv_sizes[j]`` rows from device ``j // (K / axis_size)``) written in."""
    return ragged_all_to_all_p.bind(
        operand, output, input_offsets, send_sizes, output_offsets, recv_sizes,
        axis_name=_as_tuple(axis_name),
        axis_index_groups=_canonicalize_axis_index_groups(axis_index_groups))


# ----------------------------------------------------------------------------------------
# psend / precv
# ----------------------------------------------------------------------------------------

class _OneSidedEffect:
    """The effect of one-sided communication (JAX's ``SingleSideCollectiveEffect``)."""
    ordered = False

    def __str__(self):
        return "one-sided communication"


one_sided_effect = _OneSidedEffect()


def _psend_abstract_eval(x, *, axis_name, perm):
    _check_axis_names(axis_name, "psend")
    return core.abstract_token


def _precv_abstract_eval(token, *, out_shape, axis_name, perm):
    _check_axis_names(axis_name, "precv")
    return out_shape


def _gpu_only(name):
    def rule(ctx, *args, **params):
        raise NotImplementedError(f"{name} is currently only implemented on GPU")
    return rule


psend_p = core.Primitive("psend")
psend_p.def_abstract_eval(_psend_abstract_eval)
lowering.register_lowering(psend_p, _gpu_only("psend"))
# Sending is the point of it: never dead code. A token varies over no axes.
staging.effects_rules[psend_p] = lambda **_: frozenset({one_sided_effect})
staging.vma_rules[psend_p] = lambda vmas, **_: None

precv_p = core.Primitive("precv")
precv_p.def_abstract_eval(_precv_abstract_eval)
lowering.register_lowering(precv_p, _gpu_only("precv"))
# The value received has the type ``out_shape`` gives it (varying over no axes).
staging.effects_rules[precv_p] = lambda **_: frozenset({one_sided_effect})


def psend(x, axis_name, perm):
    """Send ``x`` (a pytree) from axis index ``src`` to ``dst`` for each ``(src, dst)`` of
    ``perm``; returns the token a matching ``precv`` waits on."""
    axis_name = _as_tuple(axis_name)
    perm = tuple(map(tuple, perm))
    return tree_util.tree_map(lambda leaf: psend_p.bind(
        _collective_pvary(axis_name, leaf), axis_name=axis_name, perm=perm), x)


def precv(token, out_shape, axis_name, perm):
    """Receive, after ``token``, the value a matching ``psend`` sent: an array of
    ``out_shape`` (a ShapeDtypeStruct)."""
    return precv_p.bind(token, out_shape=core.ShapedArray(out_shape.shape, out_shape.dtype),
                        axis_name=_as_tuple(axis_name), perm=tuple(map(tuple, perm)))

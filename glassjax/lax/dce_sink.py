"""``dce_sink``: keep a value's computation although nothing reads the value.

Dead-code elimination drops every equation whose outputs are unused, unless the
equation has an *effect*. ``dce_sink(x)`` is an equation with no outputs and the
``NoDCE`` effect whose input is ``x``, so ``x``'s computation stays in the jaxpr (e.g.
to time it, or to keep a side computation alive). XLA would still drop it from the
compiled program; ``prevent_mlir_dce=True`` also keeps it there, as an operand of a
side-effecting ``custom_call @dce_sink`` (a no-op kernel jaxlib provides).
"""
from __future__ import annotations

import functools

import numpy as np

from glassjax import core, tree_util
from glassjax.interpreters import ad, batching, staging
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir


class NoDCEEffect:
    """The effect of ``dce_sink``: this equation must not be eliminated."""
    ordered = False

    def __hash__(self):
        return hash(type(self))

    def __eq__(self, other):
        return type(self) is type(other)


no_dce_effect = NoDCEEffect()


def dce_sink(val, *, prevent_mlir_dce: bool = False):
    """Mark every leaf of ``val`` as used."""
    tree_util.tree_map(functools.partial(dce_sink_p.bind, prevent_mlir_dce=prevent_mlir_dce),
                       val)


dce_sink_p = core.Primitive("dce_sink")
dce_sink_p.multiple_results = True
dce_sink_p.def_impl(lambda x, **_: [])
dce_sink_p.def_abstract_eval(lambda aval, **_: [])
staging.effects_rules[dce_sink_p] = lambda **_: frozenset({no_dce_effect})
ad.deflinear(dce_sink_p, lambda cts, **_: [])
batching.primitive_batchers[dce_sink_p] = lambda args, dims, **params: (
    dce_sink_p.bind(*args, **params), [])


def _dce_sink_lowering(ctx, x, *, prevent_mlir_dce):
    if prevent_mlir_dce:
        # An XLA FFI call without attributes, emitted as JAX emits FFI calls: api_version
        # 1 and the (empty) attribute dictionary in ``mhlo.backend_config``.
        op = hlo.CustomCallOp.build_generic(results=[], operands=[x], attributes=dict(
            call_target_name=ir.StringAttr.get("dce_sink"),
            has_side_effect=ir.BoolAttr.get(True),
            backend_config=ir.StringAttr.get(""),
            api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
            operand_layouts=ir.ArrayAttr.get([ir.DenseElementsAttr.get(
                np.arange(ctx.avals_in[0].ndim - 1, -1, -1, dtype=np.int64),
                type=ir.IndexType.get())]),
            result_layouts=ir.ArrayAttr.get([])))
        op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get({})
    return []


lowering.register_lowering(dce_sink_p, _dce_sink_lowering)

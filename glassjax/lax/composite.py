"""``lax.composite``: a function recorded as one named operation, ``composite``, whose
body is its decomposition.

The jaxpr holds the traced decomposition; lowering emits ``stablehlo.composite`` naming
a private function with that body, so a compiler that knows the name (and version) may
substitute its own kernel and any other compiler just calls the decomposition. As in
JAX 0.10.2 it has no differentiation or batching rules: wrap it in ``custom_jvp`` for
derivatives.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from glassjax import core, tree_util
from glassjax.errors import UnexpectedTracerError
from glassjax.interpreters import ad, mlir, staging
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo, ir


@dataclasses.dataclass(slots=True, eq=False)
class HashableArray:
    """A NumPy array attribute, hashable so that it can be a primitive parameter."""
    val: np.ndarray

    def __repr__(self):
        return f"HashableArray({self.val!r})"

    def __hash__(self):
        return hash((self.val.shape, self.val.dtype, self.val.tobytes()))

    def __eq__(self, other):
        return (isinstance(other, HashableArray) and self.val.dtype == other.val.dtype
                and np.array_equal(self.val, other.val))


_TRACER_ERROR = ("Found a JAX Tracer as {what} in the decomposition for the composite op "
                 "'{name}'. This means that the decomposition function closes over a value "
                 "that is involved in a JAX transformation. Any values that aren't "
                 "explicitly known at compile time must be explicitly passed as arguments "
                 "to the composite.")


def composite(decomposition, name, version=0):
    """``decomposition`` as a composite operation ``name``: positional arguments are the
    operands, keyword arguments become (static) composite attributes."""
    @functools.wraps(decomposition)
    def wrapped(*args, **kwargs):
        if any(isinstance(v, core.Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                _TRACER_ERROR.format(what="an attribute", name=name)
                + "\n\nNote: If you are passing jax arrays as attributes, use numpy arrays "
                "instead.")
        flat_args, in_tree = tree_util.tree_flatten(args)
        out_tree = []

        def flat_fun(*flat):
            out = decomposition(*tree_util.tree_unflatten(in_tree, flat), **kwargs)
            flat_out, tree = tree_util.tree_flatten(out)
            out_tree.append(tree)
            return flat_out
        jaxpr, consts, _ = staging.trace_to_jaxpr(flat_fun, [core.get_aval(x)
                                                             for x in flat_args])
        if any(isinstance(c, core.Tracer) for c in consts):
            raise UnexpectedTracerError(_TRACER_ERROR.format(what="a constant", name=name))
        # Captured constants become leading operands.
        closed = core.ClosedJaxpr(staging.convert_constvars_jaxpr(jaxpr), ())
        attributes = []
        for k, v in kwargs.items():
            leaves, treedef = tree_util.tree_flatten(v)
            attributes.append((k, tuple(HashableArray(x) if isinstance(x, np.ndarray) else x
                                        for x in leaves), treedef))
        out_flat = composite_p.bind(*consts, *flat_args, name=name,
                                    attributes=tuple(attributes), version=version,
                                    jaxpr=closed)
        return tree_util.tree_unflatten(out_tree[0], out_flat)
    return wrapped


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    symbol = lowering.private_function(ctx, name, jaxpr)
    attrs = {}
    for k, leaves, treedef in attributes:
        value = tree_util.tree_unflatten(treedef, leaves)
        if value is not None:
            attrs[k] = mlir.ir_attribute(value)
    return list(hlo.CompositeOp(
        [lowering.aval_to_ir_type(a) for a in ctx.avals_out], list(args),
        name=ir.StringAttr.get(name), decomposition=ir.FlatSymbolRefAttr.get(symbol),
        composite_attributes=ir.DictAttr.get(attrs),
        version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version)).results)


def _composite_jvp(*args, **params):
    raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` "
                     "to add support. See "
                     "https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html")


composite_p = core.Primitive("composite")
composite_p.multiple_results = True
composite_p.def_impl(lambda *args, jaxpr, **_: core.jaxpr_as_fun(jaxpr)(*args))
composite_p.def_abstract_eval(lambda *args, jaxpr, **_: jaxpr.out_avals)
lowering.register_lowering(composite_p, _composite_lowering)
ad.primitive_jvps[composite_p] = _composite_jvp

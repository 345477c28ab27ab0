"""``dim_as_value``: a symbolic dimension used as a number (``x + x.shape[0]``).

Under shape polymorphism ``x.shape[0]`` may be a dimension expression such as ``2*b``;
when it meets a float or an array it becomes a 0-d integer array, computed in the
program from the values of the dimension variables (``e:i32[] = dim_as_value[dim=2*b]``).
Outside an exported or lowered program there are no such values, so it has no eager rule.
"""
from __future__ import annotations

import numpy as np

from glassjax import core, dtypes, shape_poly
from glassjax.xla import lowering
from glassjax.xla.lowering import hlo

dim_as_value_p = core.Primitive("dim_as_value")


def _dim_as_value_abstract_eval(*, dim):
    return core.ShapedArray((), lowering.dim_value_dtype(), weak_type=True)


def _dim_as_value_impl(*, dim):
    raise NotImplementedError("Evaluation rule for 'dim_as_value' is not implemented. It "
                              "seems that you are using shape polymorphism outside "
                              "jax.export.")


def _dim_as_value_lowering(ctx, *, dim):
    value = lowering.eval_dim(dim)
    out_type = lowering.aval_to_ir_type(ctx.avals_out[0])
    return value if value.type == out_type else hlo.convert(out_type, value)


dim_as_value_p.def_abstract_eval(_dim_as_value_abstract_eval)
dim_as_value_p.def_impl(_dim_as_value_impl)
lowering.register_lowering(dim_as_value_p, _dim_as_value_lowering)


def dim_as_value(dim):
    """``dim`` as a 0-d integer array (a constant dimension as a NumPy scalar)."""
    if not shape_poly.is_symbolic_dim(dim):
        return np.array(dim, dtypes.canonicalize_dtype(np.int64))
    return dim_as_value_p.bind(dim=dim)


shape_poly.hooks.register(as_value=dim_as_value)

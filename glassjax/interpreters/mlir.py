"""``jax.interpreters.mlir``: registering a primitive's lowering the way JAX's
"JAX primitives" tutorial does, ``mlir.register_lowering(prim, rule, platform='cpu')``.

A rule receives the lowering context and one MLIR value per operand and returns the
result values, built with jaxlib's MLIR bindings (``ir``, and the StableHLO dialect JAX
calls ``hlo``), as glassjax's own rules are (``glassjax/xla/lowering.py``), except that
JAX's rules return a list of results even for a one-result primitive.
glassjax compiles for one platform, so ``platform`` only checks that it is that one.
"""
from jaxlib.mlir import ir

from glassjax.xla import lowering, runtime
from glassjax.xla.lowering import LoweringRuleContext

__all__ = ["LoweringRuleContext", "ir", "register_lowering"]


def register_lowering(primitive, rule, platform=None):
    """``rule(ctx, *operands) -> [results]`` lowers ``primitive`` (on ``platform``, if
    given: rules for platforms glassjax does not run on are kept out)."""
    if platform is not None and platform != runtime.default_backend():
        return

    def glassjax_rule(ctx, *operands, **params):
        outs = rule(ctx, *operands, **params)      # JAX's rules return a sequence always
        return outs if primitive.multiple_results else _single(outs)
    lowering.register_lowering(primitive, glassjax_rule)


def _single(outs):
    """glassjax's rules for one-result primitives return the value itself."""
    if isinstance(outs, ir.Value):
        return outs
    (out,) = outs
    return out

"""Automatic differentiation: rule tables and the helpers primitives use to fill them.

Forward mode needs one *JVP rule* per primitive: given primal inputs and tangents, return
the primal output and its tangent. Reverse mode additionally needs a *transpose rule* for
every primitive that is linear in some input: given the cotangent of the output, return
cotangents for the linear inputs (marked ``UndefinedPrimal``).

Tangents that are known to be zero are kept symbolic (``Zero(aval)``) so that no zeros are
materialised and no work is done for them.
"""
from __future__ import annotations

import functools

from glassjax import core

primitive_jvps: dict = {}        # prim -> rule(primals, tangents, **params) -> (out, t_out)
primitive_transposes: dict = {}  # prim -> rule(ct, *args, **params) -> cts (None if not linear)


class Zero:
    """A symbolic zero tangent/cotangent of type ``aval``."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    @staticmethod
    def from_primal_value(x):
        return Zero(core.get_aval(x).at_least_vspace())

    def __repr__(self):
        return f"Zero({self.aval})"


class UndefinedPrimal:
    """In a transpose rule: an input the primitive is linear in (its value is unknown)."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


def zeros_like_aval(aval):
    from glassjax import lax
    return lax.full(aval.shape, 0, aval.dtype)


def instantiate_zeros(t):
    return zeros_like_aval(t.aval) if type(t) is Zero else t


def add_tangents(x, y):
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_jaxvals(x, y)


def add_jaxvals(x, y):
    from glassjax.lax import add_any
    return add_any(x, y)


# -- Helpers for writing rules ------------------------------------------------------------

def defjvp(primitive, *jvp_rules):
    """One rule per input: ``rule(tangent, *primals, **params) -> output tangent``;
    ``None`` for inputs the output does not depend on differentiably."""
    primitive_jvps[primitive] = functools.partial(_standard_jvp, jvp_rules, primitive)


def _standard_jvp(jvp_rules, primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    t_outs = [rule(t, *primals, **params) for rule, t in zip(jvp_rules, tangents)
              if rule is not None and type(t) is not Zero]
    return out, functools.reduce(add_tangents, t_outs, Zero.from_primal_value(out))


def defjvp2(primitive, *jvp_rules):
    """Like defjvp, but rules also see the primal output: ``rule(t, out, *primals)``
    (e.g. exp's tangent is ``t * out``)."""
    primitive_jvps[primitive] = functools.partial(_standard_jvp2, jvp_rules, primitive)


def _standard_jvp2(jvp_rules, primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    t_outs = [rule(t, out, *primals, **params) for rule, t in zip(jvp_rules, tangents)
              if rule is not None and type(t) is not Zero]
    return out, functools.reduce(add_tangents, t_outs, Zero.from_primal_value(out))


def deflinear(primitive, transpose_rule):
    """A primitive linear in all its inputs: its JVP applies it to the tangents, and
    ``transpose_rule(ct, **params)`` returns the input cotangents."""
    primitive_jvps[primitive] = functools.partial(_linear_jvp, primitive)
    primitive_transposes[primitive] = functools.partial(_linear_transpose, transpose_rule)


def deflinear2(primitive, transpose_rule):
    """Like deflinear, but ``transpose_rule(ct, *args, **params)`` also sees the inputs
    (as UndefinedPrimal), e.g. to know their shapes."""
    primitive_jvps[primitive] = functools.partial(_linear_jvp, primitive)
    primitive_transposes[primitive] = functools.partial(_linear_transpose2, transpose_rule)


def _linear_jvp(primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
        zero = Zero.from_primal_value
        return out, ([zero(o) for o in out] if primitive.multiple_results else zero(out))
    return out, primitive.bind(*map(instantiate_zeros, tangents), **params)


def _linear_transpose(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]
    return transpose_rule(ct, **params)


def _linear_transpose2(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return [Zero(a.aval) if is_undefined_primal(a) else None for a in args]
    return transpose_rule(ct, *args, **params)


def defbilinear(primitive, lhs_rule, rhs_rule):
    """A primitive linear in each input separately (mul, dot_general): the tangent is
    ``p(tx, y) + p(x, ty)``; ``lhs_rule(ct, x, y)`` / ``rhs_rule(ct, x, y)`` transpose it
    with respect to the undefined input."""
    defjvp(primitive, lambda g, x, y, **kw: primitive.bind(g, y, **kw),
           lambda g, x, y, **kw: primitive.bind(x, g, **kw))
    primitive_transposes[primitive] = functools.partial(_bilinear_transpose, lhs_rule,
                                                        rhs_rule)


def _bilinear_transpose(lhs_rule, rhs_rule, ct, x, y, **params):
    assert is_undefined_primal(x) ^ is_undefined_primal(y)
    if is_undefined_primal(x):
        return (Zero(x.aval) if type(ct) is Zero else lhs_rule(ct, x, y, **params)), None
    return None, (Zero(y.aval) if type(ct) is Zero else rhs_rule(ct, x, y, **params))

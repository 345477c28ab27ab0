"""``jax.experimental.hijax``: JAX's "high-level" types, values that are not arrays but
that primitives and transformations handle as one (flax nnx's hijax Variables).

glassjax does not implement them: its traces carry arrays, refs and tokens only. The
names are here so that libraries which *define* hijax types next to their ordinary
code import (flax nnx uses them only with ``flax_hijax_variable`` on); binding a hijax
primitive raises NotImplementedError. The names shared with the rest of JAX (``Zero``,
``instantiate_zeros``, ``AbstractValue``, ...) are glassjax's own, and work.
"""
from glassjax.core import AbstractRef, AbstractValue, Primitive, ShapedArray
from glassjax.interpreters.ad import Zero, instantiate_zeros, is_undefined_primal

_UNSUPPORTED = ("glassjax does not implement JAX's hijax types "
                "(jax.experimental.hijax): use flax nnx without hijax Variables")


class HiPrimitive(Primitive):
    """A primitive on hijax values: defining one works, binding it does not."""

    def bind(self, *args, **params):
        raise NotImplementedError(f"{self.name}: {_UNSUPPORTED}")


class VJPHiPrimitive(HiPrimitive):
    pass


class HiType(AbstractValue):
    """The base of an immutable hijax type."""
    is_high = True
    has_qdd = False


class MutableHiType(AbstractValue):
    """The base of a mutable hijax type (its quasi-dynamic data may change)."""
    is_high = True
    has_qdd = True
    is_writer = False


class AvalQDD:
    """A mutable hijax type with the quasi-dynamic data it has at one point."""
    is_high = True
    has_qdd = True

    def __init__(self, aval, qdd):
        self.aval, self.qdd = aval, qdd


class AvalMutableQDD:
    def __init__(self, aval, mutable_qdd):
        self.aval, self.mutable_qdd = aval, mutable_qdd


class aval_method:
    """A method of a hijax value that its abstract value offers too."""

    def __init__(self, fun):
        self.fun = fun


class aval_property:
    """A property of a hijax value that its abstract value offers too."""

    def __init__(self, fget):
        self.fget = fget


class _EffectTypeSet:
    """Effect types that control flow (``cond``, ``scan``, ``while_loop``) accepts in its
    branches and bodies; glassjax's control flow accepts every effect, so the set is only
    recorded."""

    def __init__(self):
        self._types: set = set()

    def add_type(self, effect_type):
        self._types.add(effect_type)

    def contains(self, effect) -> bool:
        return isinstance(effect, tuple(self._types))


control_flow_allowed_effects = _EffectTypeSet()

# python type -> typeof function, as registered; no trace consults it (see above).
_hitypes: dict = {}


def cur_qdd(x):
    """JAX's ``jax.experimental.cur_qdd``: the quasi-dynamic data a mutable hijax value
    has now (flax nnx's hijax Variables ask it). Not implemented: see above."""
    raise NotImplementedError(f"cur_qdd: {_UNSUPPORTED}")


def register_hitype(val_cls, typeof_fn) -> None:
    """Note ``val_cls``'s values as hijax values (not usable on glassjax: see above)."""
    _hitypes[val_cls] = typeof_fn


__all__ = ["AbstractRef", "AbstractValue", "AvalMutableQDD", "AvalQDD", "HiPrimitive",
           "HiType", "MutableHiType", "ShapedArray", "VJPHiPrimitive", "Zero",
           "aval_method", "aval_property", "control_flow_allowed_effects", "cur_qdd",
           "instantiate_zeros", "is_undefined_primal", "register_hitype"]

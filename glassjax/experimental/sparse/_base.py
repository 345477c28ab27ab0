"""``JAXSparse``: the base class of sparse arrays, the interface libraries test for
(``isinstance(x, JAXSparse)``) and subclass."""
from __future__ import annotations

import abc
import math
from typing import Sequence

from glassjax import core
from glassjax.lax.utils import compiled_primitive
from glassjax.xla import lowering


class JAXSparse(abc.ABC):
    """A sparse array: ``shape`` and the buffers a subclass flattens to (``data`` among
    them); subclasses say how to densify, transpose and flatten it."""
    __hash__ = None

    def __init__(self, args, *, shape: Sequence[int]):
        del args
        self.shape = tuple(map(int, shape))

    @property
    @abc.abstractmethod
    def dtype(self): ...

    @property
    @abc.abstractmethod
    def nse(self) -> int: ...

    @abc.abstractmethod
    def tree_flatten(self): ...

    @classmethod
    @abc.abstractmethod
    def tree_unflatten(cls, aux_data, children): ...

    @abc.abstractmethod
    def transpose(self, axes=None): ...

    @abc.abstractmethod
    def todense(self): ...

    def __len__(self):
        return self.shape[0]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def T(self):
        return self.transpose()

    def block_until_ready(self):
        for arg in self.tree_flatten()[0]:
            arg.block_until_ready()
        return self

    def __repr__(self):
        name = type(self).__name__
        try:
            text = f"{name}({self.dtype}{list(self.shape)}, nse={self.nse})"
        except Exception:
            text = f"{name}(<invalid>)"
        data = getattr(self, "data", None)
        return f"{type(data).__name__}[{text}]" if isinstance(data, core.Tracer) else text


def sparse_primitive(name, impl, abstract_eval):
    """A primitive computed by ``impl`` (a jnp function), eagerly and when compiled."""
    prim = compiled_primitive(name)
    prim.def_abstract_eval(abstract_eval)
    lowering.register_lowering(prim, lowering.lower_fun(impl))
    return prim

"""``jnp.einsum_path``: the order in which ``einsum`` contracts its operands, and what it
costs, without computing anything.

A chain like ``ij,jk,kl`` can be contracted as ``(ij,jk),kl`` or ``ij,(jk,kl)``; the
floating-point work can differ by orders of magnitude. ``einsum`` picks the order
(``tensor_contractions._path``, searching as ``contraction_paths`` describes); ``einsum_path`` returns that path, reusable as
``einsum(..., optimize=path)``, and a printable report in the format of opt_einsum's
``PathInfo`` (which JAX returns): the cost of the naive single loop nest, the cost of
each pairwise step, and whether a step is a BLAS-style product.
"""
from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

import numpy as np

from glassjax.numpy.tensor_contractions import (
    _label_sizes,
    _parse_subscripts,
    _path,
    _steps,
    sublist_form,
)

# opt_einsum names the axes an ellipsis stands for with the first unused of these.
_OPT_EINSUM_SYMBOLS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _flop_count(indices, inner: bool, num_terms: int, sizes) -> int:
    """opt_einsum's cost model: one loop over every index involved, ``num_terms - 1``
    multiplications per point, one more addition if indices are summed away."""
    return math.prod(sizes[i] for i in indices) * (max(1, num_terms - 1) + inner)


def _blas_kind(inputs, result, removed, shapes):
    """opt_einsum's classification of a pairwise step: ``'GEMM'`` when the summed
    indices form a contiguous block at the ends of both operands (a matrix product
    without transposes), ``'DOT'`` for a full inner product, ``'TDOT'`` for a tensordot
    needing transposes, ``'.../EINSUM'`` where a BLAS call is possible but einsum is
    preferred, ``False`` when no BLAS call fits."""
    if len(inputs) != 2:
        return False
    left, right = inputs
    for c in set(left + right):
        nl, nr = left.count(c), right.count(c)
        if nl > 1 or nr > 1 or nl + nr > 2 or nl + nr - 1 == int(c in result):
            return False
    for c in removed:
        if shapes[0][left.find(c)] != shapes[1][right.find(c)]:
            return False
    if not removed:
        return "OUTER/EINSUM"
    keep_left, keep_right = set(left) - removed, set(right) - removed
    rs = len(removed)
    if left == right:
        return "DOT"
    if set(left) == set(right):
        return "DOT/EINSUM"
    if (left[-rs:] == right[:rs] or left[:rs] == right[-rs:] or left[-rs:] == right[-rs:]
            or left[:rs] == right[:rs]):
        return "GEMM"
    if not keep_left or not keep_right:
        return "GEMV/EINSUM"
    return "TDOT"


@dataclasses.dataclass(repr=False, eq=False)
class PathInfo:
    """A printable report on a contraction path (opt_einsum's ``PathInfo``): the fields
    opt_einsum keeps, and what they imply (shapes, costs as Decimals, speedup)."""
    contraction_list: list
    input_subscripts: str
    output_subscript: str
    indices: set
    path: list
    scale_list: list
    naive_cost: Decimal
    opt_cost: Decimal
    size_list: list
    size_dict: dict

    def __post_init__(self):
        self.naive_cost, self.opt_cost = Decimal(self.naive_cost), Decimal(self.opt_cost)
        self.speedup = self.naive_cost / max(self.opt_cost, Decimal(1))
        self.shapes = [tuple(self.size_dict[k] for k in ks)
                       for ks in self.input_subscripts.split(",")]
        self.eq = f"{self.input_subscripts}->{self.output_subscript}"
        self.largest_intermediate = Decimal(max(self.size_list, default=1))

    def __repr__(self) -> str:
        lines = [
            f"  Complete contraction:  {self.eq}\n",
            f"         Naive scaling:  {len(self.indices)}\n",
            f"     Optimized scaling:  {max(self.scale_list, default=0)}\n",
            f"      Naive FLOP count:  {self.naive_cost:.3e}\n",
            f"  Optimized FLOP count:  {self.opt_cost:.3e}\n",
            f"   Theoretical speedup:  {self.speedup:.3e}\n",
            f"  Largest intermediate:  {self.largest_intermediate:.3e} elements\n",
            "-" * 80 + "\n",
            "{:>6} {:>11} {:>22} {:>37}\n".format("scaling", "BLAS", "current", "remaining"),
            "-" * 80,
        ]
        for n, (_, _, einsum_str, remaining, do_blas) in enumerate(self.contraction_list):
            remaining_str = ("..." if remaining is None else
                             ",".join(remaining) + "->" + self.output_subscript)
            width = max(0, 56 - max(22, len(einsum_str)))
            lines.append("\n{:>4} {:>14} {:>22}    {:>{}}".format(
                self.scale_list[n], do_blas, einsum_str, remaining_str, width))
        return "".join(lines)

    __str__ = __repr__


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction path ``einsum(subscripts, *operands, optimize=optimize)`` follows,
    as ``(path, info)``: ``path`` is a list of position tuples (pass it back as
    ``optimize=path``), ``info`` prints the costs. ``True`` means ``'optimal'``,
    ``False`` left to right; ``'auto'`` (the default), ``'optimal'``, ``'greedy'`` and
    ``'branch-*'`` search as opt_einsum does (``contraction_paths``); its other
    strategies (``'dp'``, ``'random-greedy'``, ...) are not written here and search as
    ``'auto'``."""
    if not isinstance(subscripts, str):
        subscripts, operands = sublist_form((subscripts, *operands))
    shapes = [tuple(np.shape(o)) for o in operands]
    input_list, output = _parse_subscripts(subscripts, shapes, fresh=_OPT_EINSUM_SYMBOLS,
                                           pool=max((len(s) for s in shapes), default=0))
    sizes = _label_sizes(input_list, shapes)
    indices = frozenset("".join(input_list))
    inner = sum(len(set(t)) for t in input_list) > len(indices)
    naive_cost = _flop_count(indices, inner, len(input_list), sizes)
    path = _path(input_list, output, sizes, "optimal" if optimize is True else optimize)

    terms, term_shapes = list(input_list), list(shapes)
    contraction_list, scale_list, size_list, opt_cost = [], [], [], 0
    for positions, removed, einsum_str in _steps(input_list, output, path):
        step_inputs = [terms.pop(i) for i in positions]
        step_shapes = [term_shapes.pop(i) for i in positions]
        contracted = set("".join(step_inputs))
        result = einsum_str.split("->")[1]
        opt_cost += _flop_count(contracted, bool(removed), len(positions), sizes)
        scale_list.append(len(contracted))
        size_list.append(math.prod(sizes[i] for i in contracted - removed))
        terms.append(result)
        term_shapes.append(tuple(sizes[i] for i in result))
        contraction_list.append((positions, set(removed), einsum_str,
                                 tuple(terms) if len(terms) <= 20 else None,
                                 _blas_kind(step_inputs, result, removed, step_shapes)))
    info = PathInfo(contraction_list, ",".join(input_list), output, indices, path,
                    scale_list, naive_cost, opt_cost, size_list, sizes)
    return path, info

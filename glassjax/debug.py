"""``glassjax.debug``: look at values inside traced and compiled functions.

``print`` and ``callback`` work everywhere, including inside ``jit``, ``vmap`` and
``grad``: they bind the debug primitives of ``glassjax.callbacks``, which the compiled
program calls back at run time, so they show the actual values of every call (a Python
``print`` inside ``jit`` would show tracers, once, while tracing).
"""
from __future__ import annotations

import builtins
import logging
import string
from typing import Any, Callable

import numpy as np

from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, tree_util
from glassjax.interpreters import ad, batching, staging
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding, gspmd_to_named
from glassjax.xla import lowering, runtime
from glassjax.callbacks import (DebugEffect, OrderedDebugEffect, check_format,
                                debug_callback_p, debug_effect, debug_print_p,
                                make_logging_record, merge_static_args,
                                ordered_debug_effect, split_static_args)
from glassjax.callbacks import pure_callback
from glassjax.debugger import enter_debugger, split_traced, user_frames
from glassjax.lax import stop_gradient

__all__ = ["DebugEffect", "OrderedDebugEffect", "breakpoint", "callback",
           "inspect_array_sharding", "log", "print", "visualize_array_sharding",
           "visualize_sharding"]


def debug_callback(callback: Callable[..., None] | None = None, *args: Any,
                   ordered: bool = False, partitioned: bool = False, **kwargs: Any):
    """Call ``callback(*args, **kwargs)`` with the values of ``args`` (host arrays), also
    from inside transformed functions; returns None.

    ``ordered=True`` keeps the calls in program order relative to other ordered
    callbacks. Also usable in two steps: ``debug.callback(ordered=True)(f, x)``."""
    def _debug_callback(callback: Callable[..., None], *c_args: Any, **c_kwargs: Any):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, but "
                            f"got an object of type {type(callback)}")
        in_tree, dynamic, static = split_static_args(c_args, c_kwargs)

        def _flat_callback(*dynamic_flat):
            args_, kwargs_ = merge_static_args(in_tree, dynamic_flat, static)
            callback(*args_, **kwargs_)
            return ()

        debug_callback_p.bind(*dynamic, callback=_flat_callback,
                              effect=ordered_debug_effect if ordered else debug_effect,
                              partitioned=partitioned)

    return _now_or_later("debug_callback", _debug_callback, callback, args, kwargs)


def debug_print(fmt: str | None = None, *args, ordered: bool = False,
                partitioned: bool = False, skip_format_check: bool = False,
                _use_logging: bool = False, **kwargs):
    """Print ``fmt.format(*args, **kwargs)`` with the values of ``args`` at run time.

    Pass the values as arguments, not in an f-string: formatting happens when the values
    are known, e.g. ``debug.print("x = {}", x)`` prints ``x = [0. 1. 2.]``. Also usable
    in two steps: ``debug.print(ordered=True)("x = {}", x)``."""
    def _debug_print(fmt: str, *c_args, **c_kwargs):
        if not skip_format_check:
            check_format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        in_tree, dynamic, static = split_static_args(c_args, c_kwargs)
        debug_print_p.bind(*dynamic, fmt=fmt, ordered=ordered, partitioned=partitioned,
                           in_tree=in_tree, static_args=tuple(static.items()),
                           np_printoptions=tuple(np.get_printoptions().items()),
                           has_placeholders=has_placeholders,
                           logging_record=(make_logging_record(logging.INFO)
                                           if _use_logging else None))

    return _now_or_later("debug_print", _debug_print, fmt, args, kwargs)


def _now_or_later(name, run, first, args, kwargs):
    """``run(first, *args, **kwargs)`` now, or, in the two-call form (no ``first``: only
    options were given), ``run`` itself to be called with the arguments later."""
    if first is not None:
        run(first, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"{name} received unexpected arguments in the two-call form: "
                        f"{args=} {kwargs=}")
    return run


def debug_log(fmt: str | None = None, *args, **kwargs):
    """``debug.print``, but the message goes to the ``glassjax.callbacks`` logger at
    level INFO, as a record naming the line that called ``log``."""
    return debug_print(fmt, *args, _use_logging=True, **kwargs)


def breakpoint(*, backend: str | None = None, filter_frames: bool = True,  # noqa: A001
               num_frames: int | None = None, ordered: bool = False, token=None,
               **kwargs):
    """Enter the debugger (``glassjax.debugger``) here, with the values this point of
    the program has, also inside ``jit`` (when the compiled program runs). ``kwargs`` go
    to the debugger (the CLI one takes ``stdin``/``stdout``). With ``token`` (a pytree of
    arrays) the stop happens once it is computed, and ``token`` is returned to be used
    further."""
    if token is not None and ordered:
        raise ValueError("`ordered` and `token` are mutually exclusive arguments.")
    frames = user_frames(filter_frames, num_frames)
    tracers, rebuild = split_traced(frames)

    def enter(*values):
        enter_debugger(rebuild(list(values)), backend, **kwargs)

    if token is None:
        debug_callback(enter, *tracers, ordered=ordered)
        return None

    def enter_then_return(x, *values):
        enter(*values)
        return x
    token, tracers = stop_gradient((token, tracers))
    return pure_callback(enter_then_return, token, token, *tracers)


callback = debug_callback
print = debug_print  # noqa: A001 - the public name is jax.debug.print
log = debug_log


# ----------------------------------------------------------------------------------------
# Pictures of shardings
# ----------------------------------------------------------------------------------------
# ``visualize_sharding`` draws an array as a grid of blocks, one per distinct piece,
# each labelled with the devices that hold it ("CPU 0,4": replicated on two devices) and
# sized in proportion to the piece. JAX draws it with ``rich``; ShardingGrid computes
# the same layout (the same sizes in characters and lines) by itself, so glassjax needs
# no ``rich``: ``str()`` is JAX's picture as ``rich`` prints it without colours, and the
# notebook layer renders the grid as HTML.

_HEIGHT_TO_WIDTH = 2.5      # a character is about 2.5 times taller than wide


class GridCell:
    """One block: the devices holding a piece, its label, and its padding in
    characters (top, right, bottom, left) around the label."""
    __slots__ = ("device_ids", "label", "padding")

    def __init__(self, device_ids, label, padding):
        self.device_ids, self.label, self.padding = device_ids, label, padding

    @property
    def width(self) -> int:
        return self.padding[3] + len(self.label) + self.padding[1]


class ShardingGrid:
    """The picture of ``sharding`` for an array of ``shape`` (1 or 2 dimensions): rows of
    ``GridCell``s, in the order of the pieces along each dimension."""

    def __init__(self, shape, sharding, *, use_color=True, scale=1.0, min_width=9,
                 max_width=80, color_map=None):
        shape = tuple(shape)
        if not 1 <= len(shape) <= 2:
            raise ValueError(
                "`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
        self.shape, self.max_width = shape, max_width
        self.use_color, self.color_map = use_color, color_map
        base_height = int(10 * scale)
        base_width = int(base_height * (shape[1] if len(shape) == 2 else 1) / shape[0])
        kind = next(iter(sharding.device_set)).platform.upper()
        # Group devices by the block (row, column) of the piece they hold.
        blocks, fractions = {}, {}
        for device, index in sharding.devices_indices_map(shape).items():
            spans = [_span(s, n) for s, n in zip(index, shape)]
            if len(shape) == 1:
                spans = [(0, 1, None)] + spans
            key = tuple(start // size for start, size, _ in spans)
            blocks.setdefault(key, set()).add(device.id)
            fractions[key] = tuple(fraction for _, _, fraction in spans)
        self.rows = []
        for i in range(max(k[0] for k in blocks) + 1):
            row = []
            for j in range(max(k[1] for k in blocks) + 1):
                ids = sorted(blocks[i, j])
                label = f"{kind} " + ",".join(map(str, ids))
                height_fraction, width_fraction = fractions[i, j]
                width = int(width_fraction * base_width * _HEIGHT_TO_WIDTH)
                width = min(max(width, min_width), max_width)
                height = 1 if height_fraction is None else int(height_fraction * base_height)
                left, extra = divmod(width - len(label) - 2, 2)
                top, extra_lines = divmod(height - 2, 2)
                padding = (max(top, 0), max(left + extra, 0), max(top + extra_lines, 0),
                           max(left, 0))
                row.append(GridCell(ids, label, padding))
            self.rows.append(row)

    # -- sizes in characters ---------------------------------------------------------

    def column_widths(self) -> list[int]:
        """Each column as wide as its widest block; if the grid (with its ncols + 1
        border characters) is wider than ``max_width``, the widest columns shrink first
        (rich's rules)."""
        available = self.max_width - len(self.rows[0]) - 1
        widths = [min(max(row[j].width for row in self.rows), available)
                  for j in range(len(self.rows[0]))]
        excess = sum(widths) - available
        while excess > 0:
            widest = max(widths)
            second = max((w for w in widths if w != widest), default=0)
            widths = _reduce(excess, [w == widest for w in widths],
                             [min(excess, widest - second)] * len(widths), widths)
            excess = sum(widths) - available
        return [max(w, 0) for w in widths]

    def cell_lines(self, cell: GridCell, width: int) -> list[str]:
        """The block's lines at ``width`` characters: padding, then the label centred
        (wrapped at spaces, and cut with "…", when it does not fit)."""
        top, right, bottom, left = cell.padding
        inner = max(width - left - right, 0)
        block = min(len(cell.label), inner)     # wrapped lines: left-aligned in a block
        before = left + (inner - block) // 2      # the block is centred
        after = width - before - block
        lines = [(" " * before + line.ljust(block) + " " * after)[:width].ljust(width)
                 for line in _wrap(cell.label, inner)]
        blank = " " * width
        return [blank] * top + lines + [blank] * bottom

    # -- renderings ------------------------------------------------------------------

    def __str__(self):
        """The grid in box-drawing characters, as JAX prints it with
        ``use_color=False``."""
        widths = self.column_widths()
        rule = lambda left, mid, right: left + mid.join("─" * w for w in widths) + right
        out = [rule("┌", "┬", "┐")]
        for i, row in enumerate(self.rows):
            cells = [self.cell_lines(cell, w) for cell, w in zip(row, widths)]
            height = max(map(len, cells))
            cells = [c + [" " * w] * (height - len(c)) for c, w in zip(cells, widths)]
            out += ["│" + "│".join(parts) + "│" for parts in zip(*cells)]
            out.append(rule("├", "┼", "┤") if i + 1 < len(self.rows) else
                       rule("└", "┴", "┘"))
        return "\n".join(out)

    def colors(self) -> list[list[tuple[str, str]]] | None:
        """(background, text) colours of the blocks, as JAX picks them: ``color_map``
        (default matplotlib's "tab20b", None without matplotlib) at evenly spaced
        points, visited with a stride so that neighbours differ."""
        color_map = self.color_map
        if color_map is None:
            try:
                import matplotlib
            except ModuleNotFoundError:
                return None
            color_map = matplotlib.colormaps["tab20b"]
        n_rows, n_cols = len(self.rows), len(self.rows[0])
        count = n_rows * n_cols
        values = np.linspace(0, 1, count)
        index, flat = 0, []
        for _ in range(count):
            r, g, b = (int(c * 255) for c in color_map(values[index])[:3])
            luminance = r * 0.299 + g * 0.587 + b * 0.114
            flat.append((f"#{r:02X}{g:02X}{b:02X}",
                         "#000000" if luminance > 186 else "#ffffff"))
            index = (index + count // 2 + (count % 2 == 0)) % count
        return [flat[i * n_cols:(i + 1) * n_cols] for i in range(n_rows)]


def _span(index, size):
    """(start, length, fraction of the dimension) of one dimension of a piece's index."""
    if isinstance(index, int):
        index = slice(index, index + 1)
    start, stop, _ = index.indices(size)
    return start, stop - start, (stop - start) / size


def _reduce(total, shrinkable, maximums, values):
    """Take ``total`` characters from the ``shrinkable`` values, evenly, each at most its
    maximum (rich's ``ratio_reduce``)."""
    ratios = [int(s and m > 0) for s, m in zip(shrinkable, maximums)]
    remaining, ratio_left, out = total, sum(ratios), []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and ratio_left:
            taken = min(maximum, round(ratio * remaining / ratio_left))
            out.append(value - taken)
            remaining -= taken
            ratio_left -= ratio
        else:
            out.append(value)
    return out


def _wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap; a word longer than the line is cut and ends in "…"."""
    lines, line = [], ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = word if len(word) <= width else word[:max(width - 1, 0)] + "…"[:width]
    return lines + [line]


# Where grids go: printed, unless the notebook layer shows them as HTML.
_grid_display: Callable[[ShardingGrid], None] = builtins.print


def set_grid_display(display: Callable[[ShardingGrid], None] | None) -> None:
    """Show sharding grids with ``display`` (None: print them)."""
    global _grid_display
    _grid_display = builtins.print if display is None else display


def visualize_sharding(shape, sharding, *, use_color: bool = True, scale: float = 1.0,
                       min_width: int = 9, max_width: int = 80, color_map=None):
    """Show how ``sharding`` lays out an array of ``shape`` (1 or 2 dimensions) over its
    devices: a grid with one block per piece. Printed as text, without colours (as JAX
    prints it when ``rich`` finds no colour terminal); in a notebook with
    ``%load_ext glassjax``, as HTML with coloured blocks unless ``use_color=False``."""
    _grid_display(ShardingGrid(shape, sharding, use_color=use_color, scale=scale,
                               min_width=min_width, max_width=max_width,
                               color_map=color_map))


# -- inspect_sharding: the layout XLA's partitioner chose, reported at compile time ------
# Outside jit an array's sharding is known and reported at once. Inside jit it is the
# partitioner's choice: the value passes through an ``InspectSharding`` custom call, which
# jaxlib's SPMD partitioner answers by calling us back with the ``HloSharding`` it picked
# (once per compilation, as in JAX). A one-device program is not partitioned: there the
# value is simply replicated on that device.

class _InspectShardingPrimitive(core.Primitive):
    multiple_results = True


inspect_sharding_p = _InspectShardingPrimitive("inspect_sharding")
inspect_sharding_p.def_impl(lambda value, *, callback: callback(value.sharding) or [])
inspect_sharding_p.def_abstract_eval(lambda aval, **_: [])
staging.effects_rules[inspect_sharding_p] = lambda **_: frozenset({debug_effect})
batching.primitive_batchers[inspect_sharding_p] = lambda args, dims, *, callback: (
    inspect_sharding_p.bind(args[0], callback=callback), [])
ad.primitive_jvps[inspect_sharding_p] = lambda primals, tangents, **params: (
    inspect_sharding_p.bind(*primals, **params), [])


def _inspect_sharding_lowering(ctx, value, *, callback):
    mctx, aval = ctx.module_context, ctx.avals_in[0]
    mesh = mctx.mesh
    devices = (mctx.devices or (mesh.devices.flat if mesh is not None else
                                [runtime.default_device()]))

    def report(hlo: xc.HloSharding):
        if mesh is None:
            return callback(runtime.GSPMDSharding(list(devices), hlo))
        if hlo.is_manual():                  # inside a shard_map body
            return callback(NamedSharding(mesh, PartitionSpec()))
        return callback(gspmd_to_named(hlo, mesh, len(aval.shape)) or
                        runtime.GSPMDSharding(list(devices), hlo))

    if mctx.num_partitions == 1:
        report(xc.HloSharding.replicate())
        return []
    mctx.keepalives.append(report)      # alive until the partitioner has called it
    hlo.CustomCallOp([value.type], [value],
                     call_target_name=ir.StringAttr.get("InspectSharding"),
                     has_side_effect=ir.BoolAttr.get(True),
                     api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
                     called_computations=ir.ArrayAttr.get([]),
                     backend_config=ir.StringAttr.get(
                         xc.encode_inspect_sharding_callback(report)))
    return []


lowering.register_lowering(inspect_sharding_p, _inspect_sharding_lowering)


def inspect_array_sharding(value, *, callback: Callable):
    """Call ``callback(sharding)`` for every array in the pytree ``value``: at once for
    arrays; inside ``jit``, when the function is compiled, with the layout XLA chose."""
    tree_util.tree_map(lambda leaf: inspect_sharding_p.bind(leaf, callback=callback),
                       value)


def visualize_array_sharding(arr, **kwargs):
    """``visualize_sharding`` of an array's own shape and sharding."""
    inspect_array_sharding(arr, callback=lambda sharding: visualize_sharding(
        arr.shape, sharding, **kwargs))

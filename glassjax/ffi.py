"""``jax.ffi``: calling compiled foreign functions (C, C++, CUDA) from JAX programs.

XLA's *foreign function interface* (FFI) lets a library register a native handler under
a name; a program calls it with ``stablehlo.custom_call @name``. XLA passes the operand
buffers, allocates the results and hands the call's attributes to the handler, typed
(``mhlo.backend_config = {x = 3 : i64, ...}``). Nothing of the handler is visible to
JAX, so the caller states the result shapes and dtypes up front (``result_shape_dtypes``)
and how the call batches under ``vmap`` (``vmap_method``); it cannot be differentiated
(wrap it in ``custom_jvp``/``custom_vjp`` for that).

* ``register_ffi_target(name, capsule)`` registers a handler (a ``PyCapsule`` holding its
  function pointer; ``pycapsule`` wraps a ``ctypes`` one) with XLA for this process.
* ``ffi_call(name, result_shape_dtypes, ...)(*arrays, **attributes)`` binds the
  ``ffi_call`` primitive; its lowering is ``ffi_lowering``.
* ``ffi_lowering(name)`` is a lowering rule on its own, for a user-defined primitive.
* ``include_dir()`` is where jaxlib ships XLA's FFI headers (``xla/ffi/api/ffi.h``) to
  compile handlers against.

Layouts: ``ffi_call`` takes them major to minor (``(0, 1)`` = row major), the lowering
rules minor to major, as XLA writes them.
"""
from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jaxlib
import numpy as np
from jaxlib import xla_client

from glassjax import core
from glassjax.callbacks import Effect, batch_with_vmap_method
from glassjax.interpreters import ad, batching, mlir, staging
from glassjax.lax.composite import HashableArray
from glassjax.layout import Layout
from glassjax.xla import dispatch, lowering

__all__ = ["build_ffi_lowering_function", "ffi_call", "ffi_lowering", "include_dir",
           "pycapsule", "register_ffi_target", "register_ffi_target_as_batch_partitionable",
           "register_ffi_type", "register_ffi_type_id"]


# ----------------------------------------------------------------------------------------
# Registering native code with XLA
# ----------------------------------------------------------------------------------------

def register_ffi_target(name: str, fn: Any, platform: str = "cpu", api_version: int = 1,
                        **kwargs: Any) -> None:
    """Register ``fn`` (a ``PyCapsule`` of the handler, or a dict of them keyed by FFI
    stage name such as ``"execute"``) as the custom-call target ``name``.
    ``api_version=1`` is the typed FFI, ``0`` the older untyped custom-call API."""
    return xla_client.register_custom_call_target(name, fn, platform, api_version, **kwargs)


def register_ffi_type_id(name: str, obj: Any, platform: str = "cpu") -> None:
    """Removed in JAX 0.10.2 (raises, as JAX does): use ``register_ffi_type``."""
    raise ValueError("register_ffi_type_id is not supported after jaxlib version 381.")


def register_ffi_type(name: str, type_registration: dict, platform: str = "cpu") -> None:
    """Register a user type a handler receives as an opaque state object:
    ``type_registration`` is ``{"type_id": capsule, "type_info": capsule}``."""
    return xla_client.register_custom_type(name, type_registration, platform=platform)


def register_ffi_target_as_batch_partitionable(name: str) -> None:
    """Tell XLA's partitioner that target ``name`` works independently on each element
    of its leading (batch) dimensions, so it may split a sharded batch across devices."""
    xla_client.register_custom_call_as_batch_partitionable(name)


def pycapsule(funcptr):
    """Wrap a ``ctypes`` function pointer (e.g. ``ctypes.cdll.LoadLibrary(path).fn``)
    in the ``PyCapsule`` XLA's registration functions take."""
    destructor = ctypes.CFUNCTYPE(None, ctypes.py_object)
    builder = ctypes.pythonapi.PyCapsule_New
    builder.restype = ctypes.py_object
    builder.argtypes = (ctypes.c_void_p, ctypes.c_char_p, destructor)
    return builder(funcptr, None, destructor(0))


def include_dir() -> str:
    """The directory of the C/C++ headers bundled with jaxlib (``xla/ffi/api/ffi.h``)."""
    jaxlib_dir = (os.path.dirname(os.path.abspath(jaxlib.__file__))
                  if jaxlib.__file__ is not None else jaxlib.__path__[0])
    return os.path.join(jaxlib_dir, "include")


# ----------------------------------------------------------------------------------------
# Lowering to a custom call
# ----------------------------------------------------------------------------------------

def _aval_shape(aval) -> tuple:
    return () if aval is core.abstract_token else aval.shape


def _minor_to_major(aval, layout=None) -> tuple:
    """A lowering-rule layout (minor to major): row major by default."""
    if layout is None:
        return tuple(reversed(range(len(_aval_shape(aval)))))
    if isinstance(layout, Layout):
        if layout.tiling:
            raise ValueError("The FFI does not support layouts with tiling")
        return layout.major_to_minor[::-1]
    return tuple(layout)


def build_ffi_lowering_function(call_target_name: str, *, operand_layouts=None,
                                result_layouts=None, backend_config=None,
                                skip_ffi_layout_processing: bool = False,
                                **lowering_args: Any) -> Callable:
    """A function ``(ctx, *operands, **attributes) -> custom call op`` calling
    ``call_target_name`` with the operand and result types of ``ctx``. With the typed FFI
    (``api_version=4``, the default) the keyword arguments become typed attributes,
    merged into ``backend_config``; layouts are minor to major, row major by default.
    Other keyword arguments go to ``mlir.custom_call``."""
    def _lowering_op(ctx, *operands, **params):
        kwargs = dict(lowering_args)
        kwargs.setdefault("api_version", 4)
        if kwargs["api_version"] >= 4:
            if backend_config is not None and not isinstance(backend_config, dict):
                raise ValueError("When api_version > 4, backend_config must be a dictionary.")
            kwargs["backend_config"] = dict(
                backend_config or {}, **{k: mlir.ir_attribute(v) for k, v in params.items()})
        else:
            if params:
                raise ValueError(
                    "The use of ffi_call attributes requires a custom call API version of "
                    f"at least 4; got api_version={kwargs['api_version']}.")
            kwargs["backend_config"] = backend_config
        kwargs.setdefault("result_types",
                          [lowering.aval_to_ir_type(a) for a in ctx.avals_out])
        if not skip_ffi_layout_processing:
            kwargs["operand_layouts"] = [
                _minor_to_major(aval, layout) for aval, layout in
                zip(ctx.avals_in, operand_layouts or [None] * len(ctx.avals_in))]
            kwargs["result_layouts"] = [
                _minor_to_major(aval, layout) for aval, layout in
                zip(ctx.avals_out, result_layouts or [None] * len(ctx.avals_out))]
        return mlir.custom_call(call_target_name, operands=operands, **kwargs)
    return _lowering_op


def ffi_lowering(call_target_name: str, *, operand_layouts=None, result_layouts=None,
                 backend_config=None, skip_ffi_layout_processing: bool = False,
                 **lowering_args: Any) -> Callable:
    """A lowering rule (for ``mlir.register_lowering``) that calls the FFI target
    ``call_target_name``; see ``build_ffi_lowering_function``."""
    build = build_ffi_lowering_function(
        call_target_name, operand_layouts=operand_layouts, result_layouts=result_layouts,
        backend_config=backend_config, skip_ffi_layout_processing=skip_ffi_layout_processing,
        **lowering_args)
    return lambda ctx, *operands, **params: list(build(ctx, *operands, **params).results)


# ----------------------------------------------------------------------------------------
# The ffi_call primitive
# ----------------------------------------------------------------------------------------

class FfiEffect(Effect):
    """An FFI call with ``has_side_effect=True``: kept although its results are unused."""
    __str__ = lambda self: "FFI"


_ffi_effect = FfiEffect()


class FrozenDict(Mapping):
    """A dict attribute, hashable so that it can be a primitive parameter."""

    def __init__(self, d):
        self._d = dict(d)

    __getitem__ = lambda self, k: self._d[k]
    __iter__ = lambda self: iter(self._d)
    __len__ = lambda self: len(self._d)
    __hash__ = lambda self: hash(tuple(sorted(self._d.items())))
    __repr__ = lambda self: f"FrozenDict({self._d!r})"


def _hashable_attributes(kwargs: dict) -> tuple:
    """The call's attributes as a sorted tuple of pairs (a primitive parameter): NumPy
    arrays and dicts are wrapped to hash by value."""
    out = []
    for k, v in sorted(kwargs.items()):
        if isinstance(v, np.ndarray):
            v = HashableArray(v)
        elif isinstance(v, dict):
            v = FrozenDict(v)
        else:
            try:
                hash(v)
            except TypeError as e:
                raise TypeError(f"Non-hashable keyword argument to ffi_call {k}: {v}") from e
        out.append((k, v))
    return tuple(out)


def _unwrapped_attributes(attributes) -> dict:
    return {k: v.val if isinstance(v, HashableArray) else
            dict(v) if isinstance(v, FrozenDict) else v for k, v in attributes}


ffi_call_p = core.Primitive("ffi_call")
ffi_call_p.multiple_results = True
ffi_call_p.def_impl(functools.partial(dispatch.apply_primitive, ffi_call_p))
ffi_call_p.def_abstract_eval(lambda *avals, result_avals, **_: list(result_avals))
staging.effects_rules[ffi_call_p] = lambda has_side_effect, **_: (
    frozenset({_ffi_effect}) if has_side_effect else frozenset())


def _ffi_call_lowering(ctx, *operands, target_name, has_side_effect, input_layouts,
                       output_layouts, input_output_aliases, custom_call_api_version,
                       legacy_backend_config, attributes, **_):
    rule = ffi_lowering(target_name, has_side_effect=has_side_effect,
                        operand_layouts=input_layouts, result_layouts=output_layouts,
                        operand_output_aliases=dict(input_output_aliases),
                        api_version=custom_call_api_version,
                        backend_config=legacy_backend_config)
    return rule(ctx, *operands, **_unwrapped_attributes(attributes))


lowering.register_lowering(ffi_call_p, _ffi_call_lowering)


def _not_differentiable(*, target_name, **_):
    raise ValueError(f"The FFI call to `{target_name}` cannot be differentiated. You can "
                     "use `jax.custom_jvp` or `jax.custom_jvp` to add support.")


ad.primitive_jvps[ffi_call_p] = lambda primals, tangents, **params: _not_differentiable(
    **params)
ad.primitive_transposes[ffi_call_p] = lambda cts, *args, **params: _not_differentiable(
    **params)


def _with_batch_axis(layouts):
    """The layouts of the batched operands or results: the new leading axis is the
    most major one (minor-to-major lists: every axis shifts up by one, 0 goes last)."""
    return tuple(None if l is None else tuple(n + 1 for n in l) + (0,) for l in layouts)


def _ffi_call_batching(args, dims, *, vmap_method, input_layouts, output_layouts,
                       **params):
    """As for ``pure_callback`` (``callbacks.batch_with_vmap_method``); a call on the
    whole batch also needs its layouts extended by the batch axis."""
    sequential = vmap_method in ("sequential", "sequential_unrolled")
    if not sequential:
        output_layouts = _with_batch_axis(output_layouts)
    if vmap_method == "legacy_vectorized":
        input_layouts = tuple(l if d is batching.not_mapped else _with_batch_axis([l])[0]
                              for l, d in zip(input_layouts, dims))
    elif not sequential:
        input_layouts = _with_batch_axis(input_layouts)
    return batch_with_vmap_method(ffi_call_p, args, dims, vmap_method=vmap_method,
                                  input_layouts=input_layouts,
                                  output_layouts=output_layouts, **params)


batching.primitive_batchers[ffi_call_p] = _ffi_call_batching


# ----------------------------------------------------------------------------------------
# ffi_call
# ----------------------------------------------------------------------------------------

_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                 "legacy_vectorized", None]


def _result_avals(results) -> tuple:
    avals = []
    for idx, result in enumerate(results):
        if result is core.abstract_token:
            avals.append(result)
        elif not hasattr(result, "shape") or not hasattr(result, "dtype"):
            raise ValueError("All elements of result_shape_dtypes must have 'shape' and "
                             f"'dtype' attributes. Got {result} at position {idx}.")
        else:
            avals.append(core.ShapedArray(result.shape, np.dtype(result.dtype)))
    return tuple(avals)


def _major_to_minor_layouts(avals, layouts) -> tuple:
    """``ffi_call``'s layouts (major to minor, or a ``Layout``) in lowering form."""
    return tuple(_minor_to_major(aval, l if l is None or isinstance(l, Layout) else l[::-1])
                 for aval, l in zip(avals, layouts))


def _compatible(a, b) -> bool:
    return (getattr(a, "shape", ()) == getattr(b, "shape", ()) and
            getattr(a, "dtype", ()) == getattr(b, "dtype", ()))


def _checked_aliases(input_output_aliases, in_avals, result_avals, in_layouts,
                     out_layouts) -> tuple:
    """``{input index: output index}`` as sorted pairs, each checked for range, type
    and layout (an output reusing an input's buffer must look exactly like it)."""
    pairs = []
    for i, o in sorted((input_output_aliases or {}).items()):
        i, o = int(i), int(o)
        mapping = f"input_output_aliases contains the mapping '{i}:{o}'"
        if i >= len(in_avals):
            raise ValueError(f"{mapping} with input index {i} outside the range "
                             f"[0, {len(in_avals)}).")
        if o >= len(result_avals):
            raise ValueError(f"{mapping} with output index {o} outside the range "
                             f"[0, {len(result_avals)}).")
        if not _compatible(in_avals[i], result_avals[o]):
            raise ValueError(f"{mapping} referring to an input with abstract value "
                             f"{in_avals[i]} and an output with a different abstract "
                             f"value {result_avals[o]}.")
        if in_layouts[i] != out_layouts[o]:
            raise ValueError(f"{mapping} referring to an input with layout {in_layouts[i]} "
                             "and an output with a different layout "
                             f"{out_layouts[o]}.")
        pairs.append((i, o))
    return tuple(pairs)


def ffi_call(target_name: str, result_shape_dtypes, *, has_side_effect: bool = False,
             vmap_method: str | None = None, input_layouts=None, output_layouts=None,
             input_output_aliases: dict[int, int] | None = None,
             custom_call_api_version: int = 4, legacy_backend_config: str | None = None
             ) -> Callable:
    """A function that calls the registered FFI target ``target_name``.

    ``result_shape_dtypes`` describes the results: one object with ``shape`` and
    ``dtype`` (the call returns one array) or a sequence of them (it returns a list, or
    a tuple if a tuple was given); ``core.abstract_token`` stands for a token result.
    The returned function takes the input arrays positionally; its keyword arguments
    are passed to the handler as typed attributes. ``vmap_method`` is one of
    ``"sequential"``, ``"sequential_unrolled"`` (a loop of calls), ``"expand_dims"``,
    ``"broadcast_all"`` (one call with a leading batch axis on every input: size 1 or
    the batch size for unbatched ones), ``"legacy_vectorized"`` or ``None`` (vmap
    fails). Layouts are major to minor per array; ``input_output_aliases`` maps input
    indices to the outputs that reuse their buffers."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, "
                         f"but got: {vmap_method}")
    multiple_results = isinstance(result_shape_dtypes, Sequence)
    result_avals = _result_avals(result_shape_dtypes if multiple_results
                                 else [result_shape_dtypes])
    out_layouts = output_layouts if multiple_results else (output_layouts,)
    if custom_call_api_version >= 4 and legacy_backend_config is not None:
        raise ValueError("The use of the legacy_backend_config parameter requires "
                         f"custom_call_api_version < 4; got {custom_call_api_version}.")

    def wrapped(*args, **kwargs):
        in_avals = [core.typeof(x) for x in args]
        if input_layouts is not None and len(input_layouts) != len(in_avals):
            raise ValueError(f"The number of input arguments ({len(in_avals)}) must equal "
                             f"the number of input layouts ({len(input_layouts)}).")
        if out_layouts is not None and len(out_layouts) != len(result_avals):
            raise ValueError(f"The number of outputs ({len(result_avals)}) must equal the "
                             f"number of output layouts ({len(out_layouts)}).")
        static_in = _major_to_minor_layouts(in_avals, input_layouts or [None] * len(args))
        static_out = _major_to_minor_layouts(result_avals,
                                             out_layouts or [None] * len(result_avals))
        results = ffi_call_p.bind(
            *args, result_avals=result_avals, vmap_method=vmap_method,
            target_name=target_name, has_side_effect=has_side_effect,
            input_layouts=static_in, output_layouts=static_out,
            input_output_aliases=_checked_aliases(input_output_aliases, in_avals,
                                                  result_avals, static_in, static_out),
            custom_call_api_version=custom_call_api_version,
            legacy_backend_config=legacy_backend_config,
            attributes=_hashable_attributes(kwargs))
        if not multiple_results:
            return results[0]
        return tuple(results) if isinstance(result_shape_dtypes, tuple) else list(results)
    return wrapped

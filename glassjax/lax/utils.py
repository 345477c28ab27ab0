"""The machinery shared by lax primitives: shape, dtype and weak-type rules.

A *standard* primitive computes its output aval from three small rules (shape, dtype,
weak type), runs eagerly through ``dispatch.apply_primitive`` and lowers through a rule
registered with the lowering module. Elementwise primitives are built by ``unop`` and
``naryop``, which add JAX's dtype checks and its messages. Also here: the small helpers
several families' rules share (comparisons in StableHLO, the zero JVP of piecewise
constant ops), the region jaxpr of a reduce-like op, and ``above``, the slots through
which rules of lower lax modules reach ``reduce_sum`` / ``reduce_and``.
Read next: lax/conversion.py.
"""
from __future__ import annotations

import functools
import math
import operator

import numpy as np

from glassjax import caches, core, dtypes, pretty, shape_poly
from glassjax.config import config
from glassjax.interpreters import ad, batching, staging
from glassjax.mesh import PartitionSpec
from glassjax.named_sharding import NamedSharding
from glassjax.slots import Slot, Slots
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo


class _Above(Slots):
    """The reductions that rules of lower lax modules need. Their own rules broadcast, so
    reductions.py sits above those modules and fills these slots when it is imported
    (read as ``above.reduce_sum(x, axes)``)."""
    reduce_sum = Slot("glassjax.lax.reductions", "the transpose of every broadcast (of "
                      "broadcast_in_dim, tile, a binary op's rank-0 operand, a pad's "
                      "padding value) sums the cotangent")
    reduce_and = Slot("glassjax.lax.reductions", "a gather that fills out-of-bounds "
                      "windows checks its indices")


above = _Above()


def operand_weak_type(x, *args, **params):
    """The weak-type rule of an operation whose result is a piece of its first operand
    (a dynamic slice, a gather): weak exactly when that operand is."""
    return x.weak_type


def all_weak(*avals, **params):
    """JAX's default: a result is weakly typed only if every input is."""
    return all(a.weak_type for a in avals)


def compiled_primitive(name, multiple_results=False):
    """A primitive whose eager implementation compiles the one equation with XLA (every
    lax primitive's): its rules are then only abstract eval and lowering."""
    prim = core.Primitive(name)
    prim.multiple_results = multiple_results
    prim.memory_space_rule = core.same_memory_space
    prim.def_impl(functools.partial(dispatch.apply_primitive, prim))
    return prim


def operand_memory_space(prim, operand, *rest, **params):
    """The memory-space rule of operations that write into their first operand
    (``broadcast_in_dim`` of a scalar, the scatters): its memory space, whatever the
    others' (``core.same_memory_space`` is the default)."""
    return operand.memory_space


def standard_primitive(shape_rule, dtype_rule, name, weak_type_rule=all_weak):
    prim = compiled_primitive(name)

    def rules(avals, params):
        return core.ShapedArray(shape_rule(*avals, **params), dtype_rule(*avals, **params),
                                weak_type_rule(*avals, **params))
    prim.def_abstract_eval(cached_abstract_eval(rules))
    prim.abstract_eval_is_pure = True
    return prim


def cached_abstract_eval(rules):
    """``rules(avals, params)`` as an abstract-eval rule, memoized: the rules are pure
    functions of the input avals, the params and the x64 flag (which canonicalizes
    dtypes), and tracing asks the same question for almost every equation of a layer.
    A param value's type is part of the key (``2`` and ``2.0`` are equal but need not be
    valid alike); unhashable params are simply not cached. Errors are never cached.
    Reference mode (``glassjax_reference_mode``) runs ``rules`` on every call."""
    cache = _abstract_evals.new()

    def abstract_eval(*avals, **params):
        if caches.reference.on:
            return rules(avals, params)
        key = (avals, tuple(params.items()), tuple(map(type, params.values())),
               config.jax_enable_x64)
        try:
            return cache[key]
        except KeyError:
            pass
        except TypeError:           # an unhashable param
            return rules(avals, params)
        if len(cache) >= _ABSTRACT_EVAL_CACHE_SIZE:
            cache.clear()
        out = cache[key] = rules(avals, params)
        return out
    return abstract_eval


_ABSTRACT_EVAL_CACHE_SIZE = 4096
_abstract_evals = caches.family("lax.utils.abstract_evals", bound=_ABSTRACT_EVAL_CACHE_SIZE,
                                 shortcut=True)


def standard_multi_result_primitive(shape_rule, dtype_rule, weak_type_rule, name):
    """Like ``standard_primitive`` for primitives with several results (``split``,
    ``sort``, ...): each rule returns one entry per result."""
    prim = compiled_primitive(name, multiple_results=True)

    def rules(avals, params):
        return tuple(core.ShapedArray(s, d, w) for s, d, w in zip(
            shape_rule(*avals, **params), dtype_rule(*avals, **params),
            weak_type_rule(*avals, **params)))
    cached = cached_abstract_eval(rules)
    prim.def_abstract_eval(lambda *avals, **params: list(cached(*avals, **params)))
    return prim


# -- dtype rules --------------------------------------------------------------------------

# lax functions whose jnp counterparts promote types (named in the dtype error's tip).
JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "bitwise_and": "bitwise_and", "bitwise_not": "bitwise_not", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "cbrt": "cbrt", "ceil": "ceil",
    "concatenate": "concatenate", "cos": "cos", "cosh": "cosh", "div": "divide",
    "eq": "equal", "exp": "exp", "expm1": "expm1", "floor": "floor", "greater": "greater",
    "greater_equal": "greater_equal", "less": "less", "less_equal": "less_equal",
    "log": "log", "logical_and": "logical_and", "logical_not": "logical_not",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "log1p": "log1p",
    "max": "maximum", "min": "minimum", "mul": "multiply", "ne": "not_equal",
    "neg": "negative", "nextafter": "nextafter", "pow": "float_power", "round": "round",
    "select": "where", "shift_left": "left_shift", "shift_right_logical": "right_shift",
    "shift_right_arithmetic": "right_shift", "sign": "sign", "sin": "sin", "sinh": "sinh",
    "sqrt": "sqrt", "sub": "subtract", "tan": "tan", "tanh": "tanh"}


def check_same_dtypes(name, *avals):
    """The one dtype of ``avals`` (an error naming the jnp function that would promote
    them when they differ)."""
    if len({a.dtype for a in avals}) > 1:
        msg = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(str(a.dtype) for a in avals)}.")
        if name in JNP_EQUIVALENTS:
            msg += (f" (Tip: jnp.{JNP_EQUIVALENTS[name]} is a similar function that does "
                    "automatic type promotion on inputs).")
        raise TypeError(msg)
    return avals[0].dtype


def _typenames(types):
    return ", ".join(t.__name__ for t in types)


def _float0_error(name, where):
    return TypeError(
        f"Called {name} with a float0 {where}. float0s do not support any "
        "operations by design, because they are not compatible with non-trivial vector "
        "spaces. No implicit dtype conversion is done. You can use "
        "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular zeros "
        "array. \nIf you didn't expect to get a float0 you might have accidentally taken "
        "a gradient with respect to an integer argument.")


@caches.lru("lax.utils._accepts", None, why="dtypes times the few accepted-type tuples")
def _accepts(dtype, types: tuple) -> bool:
    """Is ``dtype`` a subtype of one of ``types``? (asked for every equation: cached)"""
    return any(dtypes.issubdtype(dtype, t) for t in types)


def unop_dtype_rule(result_dtype, accepted, name, aval, **params):
    if not _accepts(aval.dtype, tuple(accepted)):
        if aval.dtype == dtypes.float0:
            raise _float0_error(name, "array")
        raise TypeError(f"{name} does not accept dtype {dtypes.dtype_to_string(aval.dtype)}."
                        f" Accepted dtypes are subtypes of {_typenames(accepted)}.")
    return result_dtype(aval.dtype)


def naryop_dtype_rule(result_dtype, accepted, name, *avals, require_same=True,
                      allow_extended_dtype=False, **params):
    for i, (aval, types) in enumerate(zip(avals, accepted)):
        if allow_extended_dtype and isinstance(aval.dtype, dtypes.ExtendedDType):
            continue                       # (typed keys compare equal or not, as in JAX)
        if not _accepts(aval.dtype, tuple(types)):
            if aval.dtype == dtypes.float0:
                raise _float0_error(name, f"at position {i}")
            raise TypeError(
                f"{name} does not accept dtype {dtypes.dtype_to_string(aval.dtype)} at "
                f"position {i}. Accepted dtypes at position {i} are subtypes of "
                f"{_typenames(types)}.")
    out_dtype = params.get("out_dtype")     # mul's: both operands are converted to it
    if out_dtype is not None:
        return dtypes.canonicalize_dtype(out_dtype)
    if require_same:
        check_same_dtypes(name, *avals)
    return result_dtype(*(a.dtype for a in avals))


# -- shape rules --------------------------------------------------------------------------

def broadcast_shapes(*shapes, name):
    """Shapes of one rank broadcast where axes are equal or 1; rank-0 operands are left
    out before calling (they broadcast against anything)."""
    if all(s == shapes[0] for s in shapes):      # the common case: nothing to broadcast
        return tuple(shapes[0])
    if len({len(s) for s in shapes}) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                        f"{ {len(s) for s in shapes} }")
    out = []
    for ds in zip(*shapes):
        non_1s = [d for d in ds if d != 1]
        if not non_1s:
            out.append(1)
        elif all(d == non_1s[0] for d in non_1s):
            out.append(non_1s[0])
        else:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(tuple(s)) for s in shapes)}.")
    return tuple(out)


def broadcasting_shape_rule(name, *avals, **params):
    shapes = [a.shape for a in avals if a.shape]
    return broadcast_shapes(*shapes, name=name) if shapes else ()


# -- elementwise primitives ---------------------------------------------------------------

_num = (np.integer, np.floating, np.complexfloating)
_float = (np.floating,)
_complex = (np.complexfloating,)
_inexact = (np.floating, np.complexfloating)
_int = (np.integer,)
_bool_or_int = (np.integer, np.bool_)
_any = (np.integer, np.floating, np.complexfloating, np.bool_)
_ordered = (np.integer, np.floating, np.bool_)

_same = lambda *dts: dts[0]


# -- sharding rules (sharding in types: see core.Primitive) -------------------------------

def spec_of(aval) -> tuple:
    """How an operand is split: one entry per dimension (all None when it is not)."""
    typed = getattr(aval, "_sharding", None)
    return typed[1] if typed is not None else (None,) * aval.ndim


def same_sharding(x, *rest, **params):
    """Elementwise on one operand (and most shape-keeping ops): split as the operand."""
    return spec_of(x)


def resized_sharding(name, operand, out_shape):
    """Slicing, padding, splitting: each dimension keeps the operand's split. A split
    dimension whose new size its devices cannot share evenly is JAX's error (uneven
    splits are not built, in JAX either)."""
    spec = spec_of(operand)
    for size, new, entry in zip(operand.shape, out_shape, spec):
        if size == new or entry is None:
            continue
        mesh_shape = operand._sharding[0].shape
        n = math.prod(mesh_shape[a] for a in ((entry,) if isinstance(entry, str) else entry))
        if new % n:
            raise core.ShardingTypeError(
                f"{name} on sharded dims where out dim ({new}) is not divisible by mesh "
                f"axes ({n}) with spec ({entry}) is not implemented. Got input "
                f"type={operand.str_short(True)} and output shape="
                f"{tuple(int(d) if isinstance(d, np.integer) else d for d in out_shape)}")
    return spec


def sharding_text(aval, mesh) -> str:
    """``str(aval.sharding)`` as JAX's messages word it: a value that is not split is
    still over the mesh in force (JAX types every value made under ``set_mesh`` so)."""
    return str(NamedSharding(mesh, PartitionSpec(*spec_of(aval))))


def typed_text(aval, mesh) -> str:
    """JAX's ``str_short(mesh_axis_types=True)``: ``float32[8@X,4]({Explicit: ('X',)})``."""
    kinds = {}
    for name, kind in zip(mesh.axis_names, mesh.axis_types):
        kinds.setdefault(kind.name, []).append(name)
    listed = ", ".join(f"{k}: {tuple(v)}" for k, v in kinds.items())
    return f"{aval.str_short()}({{{listed}}})"


def same_sharding_of_all(message, *avals, sep=", "):
    """Operands that must be split alike (concatenate, stack, sort): their common spec,
    or JAX's error listing each operand's sharding."""
    specs = [tuple(spec_of(a)) for a in avals]
    if any(s != specs[0] for s in specs):
        mesh = next(a._sharding[0] for a in avals if a._sharding is not None)
        raise core.ShardingTypeError(
            message.format(sep.join(sharding_text(a, mesh) for a in avals)))
    return specs[0]


def unsplit_along(axis, message, aval):
    """Operations along one dimension (sort, cumulative sums, top_k) need it whole:
    ``message`` (formatted with the operand and axis) otherwise."""
    if spec_of(aval)[axis] is not None:
        raise core.ShardingTypeError(message.format(x=aval, axis=axis))
    return spec_of(aval)


def broadcasting_sharding(name, *avals, **params):
    """Elementwise on several operands: each dimension is split as the operands split it;
    a size-1 dimension (broadcast) that is not split says nothing. Operands split over
    different axes along one dimension are JAX's error."""
    ranked = [a for a in avals if a.shape]
    if not ranked:
        return None
    specs = [spec_of(a) for a in ranked]
    out = []
    for i, entries in enumerate(zip(*specs)):
        known = [e for e, a in zip(entries, ranked) if not (a.shape[i] == 1 and e is None)]
        if all(e == entries[0] for e in entries):
            out.append(entries[0])
        elif not known or all(e == known[0] for e in known):
            out.append(known[0] if known else None)
        else:
            split = [e for e in entries if e is not None]
            if any(e != split[0] for e in split):
                raise core.ShardingTypeError(
                    f"{name} got incompatible shardings for broadcasting: "
                    f"{', '.join(map(str, specs))}.")
            out.append(split[0])
    return out


def unop(name, accepted, lower_op, result_dtype=_same):
    """An elementwise one-input primitive (shape and weak type pass through), lowered to
    the op named ``lower_op`` (e.g. ``"stablehlo.negate"``) or by a function
    ``lower_op(x, **params)``; with ``lower_op=None`` the caller registers a rule."""
    prim = standard_primitive(lambda x, **p: x.shape,
                              functools.partial(unop_dtype_rule, result_dtype, accepted,
                                                name), name)
    prim.sharding_rule = same_sharding
    batching.defvectorized(prim)
    if isinstance(lower_op, str):
        lowering.register_lowering(prim, lambda ctx, x: lowering.result(ctx, lower_op, [x]),
                                   single_op=lower_op)
    elif lower_op is not None:
        lowering.register_lowering(prim, lambda ctx, x, **p: lower_op(x, **p))
    return prim


def naryop(name, accepted, lower_op, result_dtype=_same, require_same=True,
           allow_extended_dtype=False):
    """An elementwise n-input primitive whose operands broadcast (rank-0 or size-1 axes),
    lowered to the op named ``lower_op`` (e.g. ``"stablehlo.add"``) or by a function
    ``lower_op(*xs, **params)``; with ``lower_op=None`` the caller registers a rule.
    ``allow_extended_dtype``: operands may also be of an extended dtype (typed keys)."""
    prim = standard_primitive(
        functools.partial(broadcasting_shape_rule, name),
        functools.partial(naryop_dtype_rule, result_dtype, accepted, name,
                          require_same=require_same,
                          allow_extended_dtype=allow_extended_dtype), name)
    prim.sharding_rule = functools.partial(broadcasting_sharding, name)
    batching.defbroadcasting(prim)
    if isinstance(lower_op, str):
        lowering.register_lowering(prim, lambda ctx, *xs: lowering.result(
            ctx, lower_op, broadcast_operands(ctx, xs)), single_op=lower_op)
    elif lower_op is not None:
        lowering.register_lowering(prim, lambda ctx, *xs, **p: lower_op(
            *broadcast_operands(ctx, xs), **p))
    return prim


def broadcast_operands(ctx, xs, avals=None) -> list:
    """The operands of an n-ary op (of types ``avals``, by default the equation's inputs)
    broadcast to its output's shape (``lowering.broadcast_to``)."""
    return lowering.broadcast_to(ctx.module_context, xs, avals or ctx.avals_in,
                                 ctx.avals_out[0].shape)


def _zero_jvp(prim):
    """Piecewise-constant ops (floor, sign, comparisons, bitwise ops): zero tangent."""
    def jvp(primals, tangents, **params):
        out = prim.bind(*primals, **params)
        return out, ad.Zero.from_primal_value(out)
    ad.primitive_jvps[prim] = jvp


def _hide_none(*names):
    """Printing rule: leave out these params when they are None (e.g. ``accuracy``)."""
    return pretty.hide_params(lambda p: {k: v for k, v in p.items()
                                         if not (k in names and v is None)})


def _complex_basetype(dtype):
    """complex64 -> float32, complex128 -> float64; real dtypes are their own base."""
    return np.abs(np.zeros((), dtype)).dtype


def _compare_kind(dtype):
    """How ``stablehlo.compare`` orders values of ``dtype``: as floats, or as integers
    with or without a sign (booleans are unsigned)."""
    if dtypes.issubdtype(dtype, np.inexact):
        return "FLOAT"
    return "SIGNED" if dtypes.issubdtype(dtype, np.signedinteger) else "UNSIGNED"


def _compare(x, y, direction, kind):
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


# -- static arguments: shapes and axes ----------------------------------------------------

def is_array(x) -> bool:
    """JAX's ``isinstance(x, jax.Array)``: a device array or a tracer (NumPy arrays and
    Python scalars are not). Functions return such an operand unchanged when an
    operation would be the identity."""
    return isinstance(x, core.Tracer) or isinstance(getattr(x, "aval", None),
                                                    core.ShapedArray)


def canonicalize_shape(shape, context: str = "") -> tuple:
    """A user-provided shape as a tuple of Python ints or symbolic dimensions (a lone
    dimension is a 1-D shape)."""
    if isinstance(shape, int) or shape_poly.is_symbolic_dim(shape):
        shape = (shape,)
    try:
        return tuple(map(shape_poly.canonicalize_dim, shape))
    except TypeError:
        pass
    msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
    if context:
        msg += f" {context}."
    tracers = [d for d in shape if isinstance(d, core.Tracer)]
    if tracers:
        msg += ("\nIf using `jit`, try using `static_argnums` or applying `jit` to "
                "smaller subfunctions.")
        msg += "".join(t._origin_msg() for t in tracers if hasattr(t, "_origin_msg"))
    raise TypeError(msg)


def canonicalize_axis(axis, num_dims: int) -> int:
    """An axis in ``[-num_dims, num_dims)`` as one in ``[0, num_dims)``."""
    axis = operator.index(axis)
    if not -num_dims <= axis < num_dims:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {num_dims}")
    return axis + num_dims if axis < 0 else axis


_INT = frozenset({int})


def is_int_tuple(x) -> bool:
    """Is ``x`` a tuple of Python ints (a shape, axes)? Checked in C (``map(type, x)``):
    static shapes and axes are checked for nearly every staged operation."""
    return type(x) is tuple and _INT.issuperset(map(type, x))


def ensure_index_tuple(x) -> tuple:
    """A static index or sequence of indices as a tuple of Python ints."""
    if is_int_tuple(x):                  # (already one: the common case)
        return x
    x = core.concrete_or_error(None, x, "expected a static index or sequence of indices.")
    if isinstance(x, (tuple, list)):     # (no exception to catch)
        return tuple(map(operator.index, x))
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def check_shapelike(fun_name: str, *, non_zero_shape=False, **params):
    """The checks shape rules make of shape-like params (tuples of nonnegative ints, or
    of positive ones with ``non_zero_shape``), e.g. ``check_shapelike("slice",
    start_indices=start_indices)``: each keyword names a param and gives its value."""
    for arg_name, obj in params.items():
        _check_one_shapelike(fun_name, arg_name, obj, non_zero_shape)


def _check_one_shapelike(fun_name, arg_name, obj, non_zero_shape):
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, got "
                        f"{type(obj)}.")
    if not len(obj):
        return
    try:
        if not all(type(d) is int for d in obj):     # Python ints need no conversion
            canonicalize_shape(list(np.array(obj)))
    except TypeError as err:
        raise TypeError(f"{fun_name} {arg_name} must have every element be an integer "
                        f"type, got {tuple(map(type, obj))}.") from err
    lower_bound, bound_error = (1, "strictly positive") if non_zero_shape else \
        (0, "nonnegative")
    if not all(d >= lower_bound for d in obj):
        raise TypeError(f"{fun_name} {arg_name} must have every element be {bound_error}, "
                        f"got {obj}.")


# -- the region of a reduce-like op --------------------------------------------------------

def reduction_jaxpr(computation, aval):
    """The jaxpr (and consts) of the binary ``computation`` on two scalars of type
    ``aval``: the region of a reduce-like op (e.g. a scatter's ``update_jaxpr``).
    Cached per trace context, so that ops with one computation share one jaxpr, as in
    JAX."""
    return _reduction_jaxpr(computation, aval, config.trace_context())


@caches.lru("lax.utils._reduction_jaxpr", 4096)
def _reduction_jaxpr(computation, aval, trace_context):
    def comp(x, y):
        result = computation(x, y)
        if not core.valid_jaxtype(result):
            raise ValueError(
                f"Invalid return type from reduction function: {type(result)}\n"
                "Reduction functions should only return an array.\n"
                f"Full return value: {result}")
        return [result]
    jaxpr, consts, _ = staging.trace_to_jaxpr(comp, [aval, aval])
    if any(isinstance(c, core.Tracer) for c in consts):
        raise NotImplementedError(
            "Reduction computations can't close over Tracers. Please open an issue at "
            "https://github.com/jax-ml/jax.")
    return jaxpr, tuple(consts)

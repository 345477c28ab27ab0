"""Mutable array references: ``jax.new_ref(x)``, ``ref[idx]``, ``ref[idx] = v``.

A ref is one of two things, depending on where it is made:

- **Staged** (made, or passed in, while ``jit`` or ``make_jaxpr`` traces, perhaps under
  ``vmap`` or ``jvp``): a jaxpr variable of type ``Ref{f32[3]}``, read and written by the state
  primitives of ``lax/state.py``, so the jaxpr shows ``b:Ref{f32[3]} = new_ref a``,
  ``c:f32[3] <- b[...]``, ``b[0] <- d`` as JAX prints them. Compiling such a program
  first *discharges* it (``discharge`` below): it is re-run with boxes, and each read or
  write becomes array operations (``slice``, ``scatter``, ...) on the box's value.
- **A box** (``Ref``, everywhere else: eagerly, and under ``grad``): a Python
  object holding an array that indexing reads and assignment replaces. glassjax keeps the
  box's value functional: ``ref[idx] = v`` rebinds the box to ``value.at[idx].set(v)``, so
  under a transformation the box simply holds the traced value (JAX's "discharge",
  done while tracing). So ``make_jaxpr(grad(f))`` shows the discharged operations where
  JAX shows ref equations with cotangent refs.

Boxes cross a boundary where a transformation runs a function once for many values:

- ``jit``: a ref passed to, or closed over by, the function is *state*. The function is
  traced with the ref's value as an extra input and its final value as an extra output,
  which the call writes into the ref. Such a call is traced anew each time (a closed-over
  ref's value is read at trace time). A ``Scope`` (one per ``jit`` trace) notes the outer
  refs a trace touches and puts their values back when it ends, so no tracer stays in a
  ref. JAX's rules are checked: no ref is returned, passed twice, or passed and closed over.
- ``scan``, ``while_loop``, ``cond``: refs the body closes over join the carry (operands).
- ``vmap``: a ref argument's value is mapped along its axis; ``custom_vjp``: ref arguments
  are closed over. A mapped (differentiated) value written into a ref that ``vmap``
  (``grad``) does not track is JAX's error.

``jit``, the control-flow primitives, ``vmap`` and ``custom_vjp`` sit below this module:
they reach it through ``jit.ref_hooks``.
"""
from __future__ import annotations

import contextlib
import dataclasses
import inspect

import numpy as np

from glassjax import caches, core, tree_util
from glassjax.ad_checkpoint import remat_p
from glassjax.custom_derivatives import custom_jvp_call_p, custom_vjp, custom_vjp_call_p
from glassjax.jit import jit, jit_p, ref_hooks
from glassjax.interpreters import ad, batching, staging
from glassjax.vmap_api import vmap
from glassjax import numpy as jnp
from glassjax import lax
from glassjax.lax import state
from glassjax.lax.slicing import Slice, ds
from glassjax.rule_tables import Rules
from glassjax.xla import lowering

# The traces under way that refs may not leak out of (``jit``'s, and those of control-flow
# bodies), outermost first.
_scopes: list["Scope"] = []


class Scope:
    """The outer refs one trace (of ``jit``, or of a loop body or branch) reads or
    writes, with their values before."""

    def __init__(self, stages_refs=False):
        self.depth = len(_scopes) + 1
        self.stages_refs = stages_refs   # a ``jit`` trace: outer boxes become Ref consts
        self.touched: dict = {}          # id(ref) -> (ref, value before the trace)
        self.staged: dict = {}           # id(ref) -> ref, for those staged instead
        self.written: dict = {}          # id(ref) -> ref

    def note(self, ref, write: bool):
        self.touched.setdefault(id(ref), (ref, ref._value))
        if write:
            self.written[id(ref)] = ref

    def restore(self):
        for ref, value in self.touched.values():
            ref._value = value


@contextlib.contextmanager
def scope(stages_refs=False):
    s = Scope(stages_refs)
    _scopes.append(s)
    try:
        yield s
    finally:
        _scopes.pop()
        s.restore()


AbstractRef = core.AbstractRef


def _has_ds(idx) -> bool:
    return any(isinstance(i, Slice) for i in (idx if isinstance(idx, tuple) else (idx,)))


def _windowed(idx, shape):
    """Split an index holding ``jax.ds`` slices into the window they cut out
    (``starts``, ``sizes`` for ``dynamic_slice``) and the NumPy index into that window."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    starts, sizes, rest = [0] * len(shape), list(shape), []
    for axis, i in enumerate(idx):
        if isinstance(i, Slice):
            if any(j is Ellipsis or j is None for j in idx[:axis]):
                raise NotImplementedError("jax.ds after ... or None in an index")
            starts[axis], sizes[axis] = i.start, (i.size - 1) * i.stride + 1
            rest.append(slice(None, None, i.stride))
        else:
            rest.append(i)
    return starts, sizes, tuple(rest)


class _RefType(type):
    """``isinstance(x, jax.Ref)`` holds for boxes and for staged refs (tracers of type
    ``Ref{...}``), as in JAX. (glassjax's own code tells boxes apart with ``_is_box``.)"""

    def __instancecheck__(cls, x):
        return type(x) is cls or isinstance(getattr(x, "aval", None), AbstractRef)


class Ref(metaclass=_RefType):
    """A mutable array reference (JAX's ``jax.Ref``): ``ref[idx]`` reads, ``ref[idx] = v``
    writes, with NumPy indexing (ints, slices, ``...``, integer arrays, ``jax.ds``)."""

    made = False    # any ref yet? (until then jit and vmap need not look; see caches.flag)

    def __init__(self, value):
        Ref.made = True
        self._value = value
        self._depth = len(_scopes)       # created inside this many scopes
        self._made_under = core.trace_ctx.trace

    # -- its type ---------------------------------------------------------------------
    # (the value's type, kept private: a ref is no array, and ``jnp`` must refuse it)
    @property
    def _aval(self):
        return core.get_aval(self._value)

    @property
    def jax_type(self) -> AbstractRef:
        """What ``jax.typeof`` gives."""
        return AbstractRef(self._aval)

    shape = property(lambda self: tuple(self._aval.shape))
    dtype = property(lambda self: self._aval.dtype)
    weak_type = property(lambda self: self._aval.weak_type)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=int)))
    sharding = property(lambda self: self._value.sharding)

    def type_str(self) -> str:
        """``Ref{float32[3]}``: how JAX names a ref's type in its messages."""
        return str(self.jax_type)

    # -- reading and writing ----------------------------------------------------------
    def _touch(self, write: bool):
        for s in _scopes:
            if self._depth < s.depth:
                s.note(self, write)

    def _read(self, idx):
        if idx is Ellipsis:
            return self._value
        if not _has_ds(idx):
            return self._value[idx]
        starts, sizes, rest = _windowed(idx, self.shape)
        return lax.dynamic_slice(self._value, starts, sizes)[rest]

    def _write(self, idx, value):
        """The ref's whole new value after ``ref[idx] = value``."""
        if idx is Ellipsis:
            return value
        if not _has_ds(idx):
            return self._value.at[idx].set(value)
        starts, sizes, rest = _windowed(idx, self.shape)
        window = lax.dynamic_slice(self._value, starts, sizes).at[rest].set(value)
        return lax.dynamic_update_slice(self._value, window, starts)

    def _staged_in_jit(self):
        """This box, read or written while ``jit`` traces a function that closes over
        it, as a staged ref: a ``Ref{...}`` constant of the jaxpr (of every jaxpr from
        here out to the ``jit``'s), whose value the call passes in and whose final value
        it writes back (``_call_with_boxes``), as JAX does. Else None."""
        if not (_scopes and type(core.trace_ctx.trace) is staging.DynamicJaxprTrace
                and not state.discharging_now()
                and any(s.stages_refs and self._depth < s.depth for s in _scopes)):
            return None
        for s in _scopes:
            if self._depth < s.depth:
                s.staged[id(self)] = self
        return core.trace_ctx.trace.to_tracer(self)

    def __getitem__(self, idx):
        if (staged := self._staged_in_jit()) is not None:
            return state.ref_get(staged, idx)
        self._touch(write=False)
        return self._read(idx)

    def __setitem__(self, idx, value):
        """``ref[idx] = value``. As in JAX, the value must have exactly the shape and
        dtype of ``ref[idx]``; only a weakly typed float (int) is cast to a float (int)
        ref's dtype, and any int to an int ref's. What is written is strongly typed (a
        ``new_ref(0.)`` holds a weak value until its first write, as in JAX)."""
        if (staged := self._staged_in_jit()) is not None:
            state.ref_swap(staged, idx, value)
            return
        self._touch(write=True)
        value = state.implicit_cast(self.dtype, value)
        got, want = core.get_aval(value), core.get_aval(self._read(idx))
        state.check_write(self.shape, want, got,
                          "()" if idx is Ellipsis else f"({idx!r},)")
        _check_write(self, value)
        self._value = core.hooks.convert_element_type(self._write(idx, value), self.dtype,
                                                      False)

    def addupdate(self, value, idx=()):
        """``ref[idx] += value`` (JAX's ``Ref.addupdate``)."""
        if (staged := self._staged_in_jit()) is not None:
            state.ref_addupdate(staged, idx, value)
        else:
            self[idx] = self[idx] + value

    @property
    def at(self):
        raise NotImplementedError()     # (as in JAX 0.10.2)

    def unsafe_buffer_pointer(self):
        return self._value.unsafe_buffer_pointer()

    def __repr__(self):
        """``Ref([0., 1.], dtype=float32)``; under a transformation, its tracer's repr
        with the ref's type in it (``JitTracer(Ref{float32[3]})``), as JAX prints."""
        v = self._value
        if isinstance(v, staging.DynamicJaxprTracer):
            return f"JitTracer({self.jax_type})"
        if isinstance(v, ad.LinearizeTracer):
            tangent = core.get_aval(v.tangent).str_short(True)
            return f"GradTracer(primal={new_ref(v.primal)!r}, typeof(tangent)=Ref{{{tangent}}})"
        if isinstance(v, ad.JVPTracer):
            return f"JVPTracer(primal={new_ref(v.primal)!r}, tangent={new_ref(v.tangent)!r})"
        if isinstance(v, batching.BatchTracer):
            return (f"VmapTracer(aval={self.jax_type}, "
                    f"batched={AbstractRef(core.get_aval(v.val))})")
        return "Ref" + repr(v)[len("Array"):]

    __str__ = __repr__

    def __len__(self):
        return self.shape[0]


caches.flag("ref.Ref.made", lambda: setattr(Ref, "made", True))


def _is_box(x) -> bool:
    return type(x) is Ref


def _staged(ref) -> bool:
    return isinstance(ref, core.Tracer) and isinstance(ref.aval, AbstractRef)


def get(ref: Ref, idx=Ellipsis):
    """``ref[idx]``."""
    return ref[idx]


def swap(ref: Ref, idx, value):
    """``ref[idx] = value``, returning the value ``ref[idx]`` had before."""
    if _staged(ref):
        return state.ref_swap(ref, idx, value)
    old = ref[idx]
    ref[idx] = value
    return old


def set(ref: Ref, idx, value) -> None:    # noqa: A001  (JAX's name)
    """``ref[idx] = value``."""
    ref[idx] = value


def addupdate(ref: Ref, idx, value) -> None:
    """``ref[idx] += value``."""
    if _staged(ref):
        state.ref_addupdate(ref, idx, value)
    else:
        ref.addupdate(value, idx)


def new_ref(init_val, *, kind=None, memory_space=None):
    """A new reference holding ``init_val`` (JAX's ``jax.new_ref``): a ``Ref`` box, or
    under ``jit``/``make_jaxpr`` a staged ref (a ``new_ref`` equation)."""
    if not isinstance(init_val, (core.Tracer, int, float, complex, bool, np.generic)):
        init_val = jnp.asarray(init_val)
    return state.new_ref_p.bind(init_val, kind=kind, memory_space=memory_space)


def _box(init_val) -> Ref:
    return Ref(init_val if isinstance(init_val, core.Tracer) else jnp.asarray(init_val))


def empty_ref(ty) -> Ref:
    """A new reference of the given type (``ShapeDtypeStruct`` or aval). Its contents
    are undefined (glassjax zero-fills; JAX has no eager rule for it)."""
    return Ref(jnp.zeros(ty.shape, ty.dtype))


def freeze(r: Ref):
    """The reference's final value (JAX: the reference is not to be used afterwards)."""
    return state.ref_freeze(r) if _staged(r) else r[...]


def free_ref(r: Ref):
    """Give up a reference (its value is dropped)."""
    r._value = None


def _inner_refs(tree, is_ref, ref_values, others):
    """Rebuild a call's ``(args, kwargs)`` from its flat leaves with a fresh ref (made
    in the trace under way) for each ref leaf, holding the value given for it."""
    inner = [Ref(v) for v in ref_values]
    it_ref, it_other = iter(inner), iter(others)
    args, kwargs = tree_util.tree_unflatten(
        tree, [next(it_ref) if r else next(it_other) for r in is_ref])
    return args, kwargs, inner


def _takes_refs(args, kwargs) -> bool:
    return Ref.made and any(_is_box(x)
                            for x in tree_util.tree_leaves((args, kwargs)))


def _arg_names(jitted, args, kwargs, static):
    """The name of each flat (non-static) argument, as JAX's messages give it."""
    try:
        params = list(inspect.signature(jitted._fun).parameters)
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        if i not in static:
            name = params[i] if i < len(params) else f"args[{i}]"
            names += [name + tree_util.keystr(path)
                      for path, _ in tree_util.tree_flatten_with_path(a)[0]]
    for k in sorted(kwargs):
        if k not in jitted._static_argnames:
            names += [k + tree_util.keystr(path)
                      for path, _ in tree_util.tree_flatten_with_path(kwargs[k])[0]]
    return names


def _merge(static: dict, dyn) -> list:
    """The positional arguments: the static ones (by position) among the others."""
    rest = list(dyn)[::-1]
    return [static[i] if i in static else rest.pop()
            for i in range(len(static) + len(rest))]


def _call(jitted, args, kwargs):
    """Run ``jit(f)(*args, **kwargs)`` where ``f`` takes or closes over refs: trace
    ``f`` with each ref's value as an input and its final value as an output."""
    static = {i: a for i, a in enumerate(args) if i in jitted._static_argnums}
    static_kw = {k: v for k, v in kwargs.items() if k in jitted._static_argnames}
    dyn = tuple(a for i, a in enumerate(args) if i not in static)
    dyn_kw = {k: v for k, v in kwargs.items() if k not in static_kw}
    leaves, tree = tree_util.tree_flatten((dyn, dyn_kw))
    is_ref = [_is_box(x) for x in leaves]
    passed = [x for x, r in zip(leaves, is_ref) if r]
    names = [n for n, r in zip(_arg_names(jitted, args, kwargs, static), is_ref) if r]
    where = staging.fun_sourceinfo(jitted._fun)
    for i, r in enumerate(passed):
        for j in range(i):
            if passed[j] is r:
                raise ValueError(
                    "only one reference to a mutable array may be passed as an argument "
                    f"to a function, but when tracing {where} for jit the mutable array "
                    f"reference of type {r.type_str()} appeared at both {names[j]} and "
                    f"{names[i]}.")
    closed = []

    def stateful(ref_values, others):
        with scope() as s:
            dyn, dyn_kw, inner = _inner_refs(tree, is_ref, ref_values, others)
            out = jitted._fun(*_merge(static, dyn), **static_kw, **dyn_kw)
            for x in tree_util.tree_leaves(out):
                if _is_box(x):
                    origin = ("\n\nThe returned mutable array was passed in as the "
                              f"argument {names[inner.index(x)]}." if x in inner else "")
                    raise ValueError(
                        f"function {where} traced for jit returned a mutable array "
                        f"reference of type {x.type_str()}, but mutable array references "
                        f"cannot be returned.{origin}")
            for r in [r for r, _ in s.touched.values()] + list(s.staged.values()):
                if any(r is p for p in passed):
                    i = next(i for i, p in enumerate(passed) if p is r)
                    raise ValueError(
                        f"when tracing {where} for jit, a mutable array reference of type "
                        f"{r.type_str()} was both closed over and passed as the argument "
                        f"{names[i]}")
            closed[:] = list(s.written.values())
            finals = [r._value for r in closed], [r._value for r in inner]
        return out, finals[1], finals[0]

    stateful.__name__ = jitted._name
    stateful.discharges_refs = True     # (its jit must not come back here)
    others = [x for x, r in zip(leaves, is_ref) if not r]
    out, passed_values, closed_values = jit(stateful)(
        [r._value for r in passed], others)
    _write_back(passed, passed_values)
    _write_back(closed, closed_values)
    return out


def _vmap(fun, in_axes, out_axes, axis_name, axis_size, args, kwargs):
    """``vmap(f, in_axes, out_axes)(*args, **kwargs)`` where refs are among the arguments:
    ``f`` is vectorised with each ref's value mapped along the ref's axis, and each
    ref's final value comes back mapped along that axis too, to be written into it."""
    leaves, tree = tree_util.tree_flatten((args, kwargs))
    dims = tree_util.broadcast_prefix((in_axes, 0), (args, kwargs),
                                      is_leaf=lambda x: x is None)
    is_ref = [_is_box(x) for x in leaves]
    passed = [x for x, r in zip(leaves, is_ref) if r]
    ref_dims = [d for d, r in zip(dims, is_ref) if r]

    def stateful(ref_values, others):
        a, k, inner = _inner_refs(tree, is_ref, ref_values, others)
        return fun(*a, **k), [r._value for r in inner]

    out, finals = vmap(stateful, in_axes=(ref_dims, [d for d, r in zip(dims, is_ref) if not r]),
                       out_axes=(out_axes, ref_dims), axis_name=axis_name,
                       axis_size=axis_size)([r._value for r in passed],
                                            [x for x, r in zip(leaves, is_ref) if not r])
    _write_back(passed, finals)
    return out


@contextlib.contextmanager
def _bound(refs, values):
    """Give ``refs`` the ``values`` a loop body or branch is traced with. The refs count
    as made inside that trace meanwhile, so they are not noted (and carried) again."""
    saved = [(r._value, r._depth) for r in refs]
    for r, v in zip(refs, values):
        r._value, r._depth = v, len(_scopes)
    try:
        yield
    finally:
        for r, (v, depth) in zip(refs, saved):
            r._value, r._depth = v, depth


def _write_back(refs, values):
    """The refs' new values, from a transformed call (checked as a write would be)."""
    for r, v in zip(refs, values):
        r._touch(write=True)
        _check_write(r, v)
        r._value = v


def _carry_refs(refs, loop, f, init, xs):
    """``loop(f, init, xs)`` (a scan) where ``f`` closes over ``refs``: each iteration
    starts from the refs' values in the carry and hands on their new values."""
    def body(carry, x):
        c, values = carry
        with _bound(refs, values):
            c, y = f(c, x)
            return (c, [r._value for r in refs]), y

    (out, finals), ys = loop(body, (init, [r._value for r in refs]), xs)
    _write_back(refs, finals)
    return out, ys


def _while_refs(refs, while_loop, cond_fun, body_fun, init):
    """``while_loop`` whose functions close over ``refs``: their values join the carry."""
    def cond(carry):
        with _bound(refs, carry[1]):
            return cond_fun(carry[0])

    def body(carry):
        with _bound(refs, carry[1]):
            out = body_fun(carry[0])
            return out, [r._value for r in refs]

    out, finals = while_loop(cond, body, (init, [r._value for r in refs]))
    _write_back(refs, finals)
    return out


def _branch_refs(refs, bind, funs, operands):
    """``cond``/``switch`` whose branches close over ``refs``: each branch takes their
    values as an extra operand and returns their new values."""
    def with_refs(f):
        def branch(*ops):
            *ops, values = ops
            with _bound(refs, values):
                out = f(*ops)
                return out, [r._value for r in refs]
        return branch

    out, finals = bind(tuple(with_refs(f) for f in funs),
                       (*operands, [r._value for r in refs]))
    _write_back(refs, finals)
    return out


def _custom_vjp(fun, fwd, bwd, args, symbolic_zeros):
    """A ``custom_vjp`` function called with refs among ``args`` (a ref to stash
    gradients in, say): the refs are closed over, and any refs among ``fwd``'s residuals
    are handed to ``bwd`` outside the residuals, which must be arrays."""
    leaves, tree = tree_util.tree_flatten(args)
    is_ref = [_is_box(x) for x in leaves]

    def with_refs(others):
        it = iter(others)
        return tree_util.tree_unflatten(tree, [x if r else next(it)
                                               for x, r in zip(leaves, is_ref)])

    stash = []

    def fwd_arrays(*others):
        out, res = fwd(*with_refs(others))
        res_leaves, res_tree = tree_util.tree_flatten(res)
        stash[:] = [res_tree, res_leaves]
        return out, [x for x in res_leaves if not _is_box(x)]

    def bwd_arrays(kept, g):
        res_tree, res_leaves = stash
        it = iter(kept)
        res = tree_util.tree_unflatten(
            res_tree, [x if _is_box(x) else next(it) for x in res_leaves])
        per_leaf = tree_util.broadcast_prefix(tuple(bwd(res, g)), args,
                                              is_leaf=lambda x: x is None)
        return tuple(c for c, r in zip(per_leaf, is_ref) if not r)

    f = custom_vjp(lambda *others: fun(*with_refs(others)))
    f.defvjp(fwd_arrays, bwd_arrays, symbolic_zeros)
    return f(*[x for x, r in zip(leaves, is_ref) if not r])


# What a transformation's tracer is called in JAX's message, and its inner value.
_TRANSFORMED = {
    batching.BatchTracer: ("vmapped value on an unbatched", "to the vmapped function",
                           lambda t: t.val),
    ad.PrimalTangentTracer: ("a differentiated value on a non-differentiated",
                   "of the differentiated function", lambda t: t.primal),
}


def _innermost_vmap():
    trace = core.trace_ctx.trace
    while trace is not None and not isinstance(trace, batching.BatchTrace):
        trace = getattr(trace, "parent_trace", None)
    return trace


def _check_write(ref, value):
    """A value that ``vmap`` maps (or ``grad``/``jvp`` differentiate) may only go into a
    ref that transformation tracks: one made inside it, or passed to it (whose value it
    maps). Otherwise one array would have to hold a batch (a tangent): JAX's error. Under
    ``vmap`` every write counts as mapped, as in JAX."""
    kind = next((k for k in _TRANSFORMED if isinstance(value, k)), None)
    if kind is not None:
        trace = value._trace
    else:       # (any write under vmap counts as mapped, as in JAX)
        kind, trace = batching.BatchTracer, _innermost_vmap()
        if trace is None:
            return
    t = ref._made_under
    while t is not None:                 # made while the transformation ran?
        if t is trace:
            return
        t = getattr(t, "parent_trace", None)
    v = ref._value
    while isinstance(v, core.Tracer):    # or holding a value it transforms?
        if v._trace is trace:
            return
        inner = next((f for k, (_, _, f) in _TRANSFORMED.items() if isinstance(v, k)),
                     None)
        if inner is None:
            break
        v = inner(v)
    what, where, _ = _TRANSFORMED[kind]
    raise Exception(f"performing a set/swap operation with {what} array reference of type "
                    f"{ref.type_str()}. Move the array reference to be an argument {where}?")


# ----------------------------------------------------------------------------------------
# Discharge: a staged program with refs as one of plain array operations
# ----------------------------------------------------------------------------------------

def discharge(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """The program ``closed`` with every staged ref replaced by a box: it is re-run
    (traced again) with ``new_ref`` giving boxes, so each read and write becomes the
    array operations a box does (``slice``, ``scatter``, ...). XLA knows no refs: this
    is what lowering compiles."""
    if any(isinstance(a, AbstractRef) for a in closed.in_avals):
        raise NotImplementedError(
            "glassjax cannot compile a jaxpr whose inputs are refs (jit(f).lower(ref)); "
            "call the jitted function with the refs instead")
    with state.discharging():
        out, lifted = staging.trace_to_closed_jaxpr(
            lambda *args: _run(closed.jaxpr, closed.consts, args), closed.in_avals)
    assert not lifted
    return out.replace(jaxpr=out.jaxpr.replace(debug_info=closed.jaxpr.debug_info))


# the program of a jit equation with refs among its operands, with values for them
_values_for_refs = caches.table("ref.values_for_refs", weak=True,
                                why="entries die with their jaxpr")


def _refs_as_values(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """``closed``, taking the values of its ``Ref`` inputs instead and returning their
    final values after its outputs (discharged, as compiling needs)."""
    out = _values_for_refs.get(closed)
    if out is None:
        is_ref = [isinstance(a, AbstractRef) for a in closed.in_avals]

        def values_in_and_out(*values):
            args = [Ref(v) if r else v for v, r in zip(values, is_ref)]
            outs = _run(closed.jaxpr, closed.consts, args)
            return [*outs, *(a._value for a, r in zip(args, is_ref) if r)]

        with state.discharging():
            out, lifted = staging.trace_to_closed_jaxpr(values_in_and_out, [
                a.inner_aval if r else a for a, r in zip(closed.in_avals, is_ref)])
        assert not lifted
        _values_for_refs[closed] = out
    return out


def _call_with_boxes(args, *, jaxpr, **params):
    """A ``jit`` equation run eagerly with refs among its operands (those its function
    closed over): the program runs on their values, and their final values are written
    back."""
    boxes = [a for a in args if _is_box(a)]
    outs = jit_p.bind(*(a._value if _is_box(a) else a for a in args),
                      jaxpr=_refs_as_values(jaxpr), **params)
    n = len(outs) - len(boxes)
    _write_back(boxes, outs[n:])
    return outs[:n]


def _run(jaxpr, consts, args):
    return core.interpret(jaxpr, consts, list(args), _discharge_equation)


def _discharge_equation(eqn, invals):
    """Equations whose sub-programs use refs are re-expressed with the API that made
    them (``lax.scan``, ...), their bodies run with boxes; the rest are bound as they are
    (the state primitives act on boxes by themselves)."""
    rule = discharge_rules.get(eqn.primitive)
    if rule is not None and core.state_effect in eqn.effects:
        return rule(invals, **eqn.params)
    if core.state_effect in eqn.effects and not isinstance(eqn.primitive,
                                                           state.StatePrimitive):
        if eqn.primitive is not state.new_ref_p:
            raise NotImplementedError(f"glassjax cannot yet compile mutable array refs "
                                      f"used inside '{eqn.primitive}'")
    return core.eval_equation(eqn, invals)


def _inline(key):
    """A call (jit, remat, custom derivatives): its body, run in place (compiled code
    needs no call boundary, and differentiation is over by now)."""
    def rule(invals, **params):
        body = params[key]
        consts = body.consts if isinstance(body, core.ClosedJaxpr) else ()
        return _run(body.jaxpr if isinstance(body, core.ClosedJaxpr) else body, consts,
                    invals)
    return rule


def _discharge_scan(invals, *, jaxpr, num_consts, num_carry, length, reverse, unroll,
                    **_):
    consts, init, xs = (invals[:num_consts], invals[num_consts:num_consts + num_carry],
                        invals[num_consts + num_carry:])

    def body(carry, x):
        outs = _run(jaxpr.jaxpr, jaxpr.consts, [*consts, *carry, *x])
        return outs[:num_carry], outs[num_carry:]

    carry, ys = lax.scan(body, list(init), list(xs), length=length, reverse=reverse,
                         unroll=unroll)
    return [*carry, *ys]


def _discharge_while(invals, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts, **_):
    cconsts, bconsts = invals[:cond_nconsts], invals[cond_nconsts:cond_nconsts + body_nconsts]
    init = invals[cond_nconsts + body_nconsts:]
    return lax.while_loop(
        lambda c: _run(cond_jaxpr.jaxpr, cond_jaxpr.consts, [*cconsts, *c])[0],
        lambda c: _run(body_jaxpr.jaxpr, body_jaxpr.consts, [*bconsts, *c]),
        list(init))


def _discharge_cond(invals, *, branches, **_):
    """The branches close over the boxes among the operands (``switch`` carries their
    values in and out) and take the other operands."""
    index, *ops = invals
    arrays = [x for x in ops if not _is_box(x)]

    def branch(b):
        def run(*given):
            it = iter(given)
            return _run(b.jaxpr, b.consts,
                        [x if _is_box(x) else next(it) for x in ops])
        return run

    return lax.switch(index, [branch(b) for b in branches], *arrays)


discharge_rules = Rules("state_discharge", "refs: the equation with its refs as arrays")
discharge_rules.update({
    jit_p: _inline("jaxpr"), remat_p: _inline("jaxpr"),
    custom_jvp_call_p: _inline("call_jaxpr"), custom_vjp_call_p: _inline("call_jaxpr"),
    lax.scan_p: _discharge_scan, lax.while_p: _discharge_while, lax.cond_p: _discharge_cond,
})
for _p in discharge_rules:
    _p.takes_refs = True        # (their bodies may use the refs they are given)
state.hooks.register(eager_ref=_box)
lowering.hooks.register(discharge_state=discharge)

ref_hooks.register(call_with_boxes=_call_with_boxes, scope=scope, takes_refs=_takes_refs, call=_call, vmap=_vmap,
                   carry_refs=_carry_refs, while_refs=_while_refs,
                   branch_refs=_branch_refs, custom_vjp=_custom_vjp)

"""The key-reuse checker (``jax.config.update("jax_debug_key_reuse", True)``).

A typed PRNG key should be used once: drawing numbers from it, or splitting it, *consumes*
it; drawing again from the same key gives the same numbers, a classic silent bug. With
the option on, glassjax tracks this as JAX 0.10.2 does and raises ``KeyReuseError``.

Every primitive has a *signature* saying what it does to keys: ``Sink(i)`` consumes input
``i`` (``random_bits``, ``random_split``), ``Source(j)`` makes output ``j`` a fresh key
(``random_seed``, ``random_split``, ``random_fold_in``, ``random_clone``), ``Forward(i,
j)`` passes input ``i`` through as output ``j`` (reshapes, sharding constraints); any
other primitive given a key sinks it. A jaxpr's signature is found by walking its
equations (``jaxpr_type_signature``), which is also the check: a key sunk twice inside
one traced function raises ("In jit, argument 0 is already consumed."). Loops must not
consume a key they receive on every iteration.

Eagerly, each concrete key array carries a ``_consumed`` flag (a boolean mask for an
array of keys); the eval trace checks a primitive's signature against its arguments
before running it ("Previously-consumed key passed to random_split at index 0") and then
updates the flags of its inputs and outputs. Calls of jitted functions are checked with
their jaxpr's signature, so they leave the C++ fast path while the option is on.

Not done (JAX does them): the traceback of the first use attached to the error, and
``jax.experimental.key_reuse``'s ``consume`` / ``assert_consumed`` helpers.
"""
from __future__ import annotations

import functools
from collections import defaultdict
from typing import Callable, NamedTuple

import numpy as np

from glassjax import core, dtypes, prng, random
from glassjax.ad_checkpoint import remat_p
from glassjax.callbacks import debug_callback_p
from glassjax.errors import KeyReuseError
from glassjax.jit import jit_p
from glassjax.lax import comparison, conversion, gather_scatter, slicing, structural
from glassjax.lax.control_flow import cond_p, scan_p, while_p
from glassjax.lax.device_put import device_put_p
from glassjax.lax.ragged_collectives import psend_p
from glassjax.lax.sharding_constraint import reshard_p, sharding_constraint_p
from glassjax.lax.stage import stage_p
from glassjax.rule_tables import Rules
from glassjax.shard_map import shard_map_p


# ----------------------------------------------------------------------------------------
# Signatures
# ----------------------------------------------------------------------------------------

class _Mark:
    """``Sink`` / ``Source`` of argument ``idx``; ``mask`` says which keys of an array
    (True: all of them)."""
    __slots__ = ("idx", "mask")

    def __init__(self, idx: int, mask=True):
        mask = np.asarray(mask, dtype=bool)
        self.idx = idx
        self.mask = bool(mask) if not mask.ndim or mask.all() or not mask.any() else mask

    def __eq__(self, other):
        return (type(self) is type(other) and self.idx == other.idx and
                np.array_equal(self.mask, other.mask))

    def __hash__(self):
        return hash((type(self), self.idx))

    def __repr__(self):
        return (f"{type(self).__name__}({self.idx})" if self.mask is True else
                f"{type(self).__name__}({self.idx}, {self.mask})")


class Sink(_Mark):
    pass


class Source(_Mark):
    pass


class Forward(NamedTuple):
    in_idx: int
    out_idx: int

    def __repr__(self):
        return f"Forward({self.in_idx}, {self.out_idx})"


class KeyReuseSignature:
    def __init__(self, *marks):
        self.marks = frozenset(marks)

    def __repr__(self):
        return f"KeyReuseSignature{tuple(sorted(self.marks, key=repr))}"

    def __eq__(self, other):
        return isinstance(other, KeyReuseSignature) and self.marks == other.marks

    def __hash__(self):
        return hash(self.marks)

    sinks = property(lambda self: [m for m in self.marks if isinstance(m, Sink)])
    sources = property(lambda self: [m for m in self.marks if isinstance(m, Source)])
    forwards = property(lambda self: [m for m in self.marks if isinstance(m, Forward)])

    def check(self, args, funcname):
        for sink in self.sinks:
            key = args[sink.idx]
            if isinstance(key, prng.PRNGKeyArray) and np.any(key._consumed & sink.mask):
                raise KeyReuseError(f"Previously-consumed key passed to {funcname} at "
                                    f"index {sink.idx}")

    def update_consumption(self, args, outs):
        for sink in self.sinks:
            if isinstance(args[sink.idx], prng.PRNGKeyArray):
                args[sink.idx]._consumed = args[sink.idx]._consumed | sink.mask
        for out in outs:
            if isinstance(out, prng.PRNGKeyArray):
                out._consumed = True            # consumed unless a source or a forward
        for source in self.sources:
            if isinstance(outs[source.idx], prng.PRNGKeyArray):
                outs[source.idx]._consumed = ~np.asarray(source.mask)
        for forward in self.forwards:
            arg, out = args[forward.in_idx], outs[forward.out_idx]
            if isinstance(arg, prng.PRNGKeyArray) and isinstance(out, prng.PRNGKeyArray):
                out._consumed = arg._consumed


def _is_key(atom) -> bool:
    return dtypes.issubdtype(getattr(atom.aval, "dtype", np.float32), dtypes.prng_key)


def _open(jaxpr) -> core.Jaxpr:
    return getattr(jaxpr, "jaxpr", jaxpr)


# primitive -> KeyReuseSignature, or a function(eqn) -> KeyReuseSignature
signatures = Rules("key_reuse", "key reuse checker: which keys it consumes")


def signature_of_eqn(eqn) -> KeyReuseSignature:
    sig = signatures.get(eqn.primitive)
    if sig is None:           # unknown: every key it is given is consumed
        return KeyReuseSignature(*(Sink(i) for i, v in enumerate(eqn.invars) if _is_key(v)))
    return sig if isinstance(sig, KeyReuseSignature) else sig(eqn)


def jaxpr_type_signature(jaxpr: core.Jaxpr) -> KeyReuseSignature:
    """What ``jaxpr`` does to the keys it is given and returns; raises KeyReuseError if
    it consumes a key twice."""
    consumed: dict = {}      # key variable -> consumed (bool, or a mask over its keys)
    forwards: dict = {}      # output variable -> the variable it forwards

    def resolve(var):
        while not isinstance(var, core.Literal) and var in forwards:
            var = forwards[var]
        return var

    for eqn in jaxpr.eqns:
        sig = signature_of_eqn(eqn)
        for f in sig.forwards:
            forwards[eqn.outvars[f.out_idx]] = eqn.invars[f.in_idx]
        for sink in sig.sinks:
            var = eqn.invars[sink.idx]
            if not _is_key(var):
                continue
            var = resolve(var)
            if np.any(np.logical_and(consumed.get(var, False), sink.mask)):
                raise KeyReuseError(f"In {eqn.primitive}, argument {sink.idx} is already "
                                    "consumed.")
            consumed[var] = np.logical_or(consumed.get(var, False), sink.mask)
        for var in eqn.outvars:
            if _is_key(var) and var not in forwards:
                consumed[var] = True            # consumed unless a source
        for source in sig.sources:
            if _is_key(eqn.outvars[source.idx]):
                consumed[eqn.outvars[source.idx]] = np.logical_not(source.mask)

    inputs = [*jaxpr.invars, *jaxpr.constvars]
    return KeyReuseSignature(
        *(Sink(i, consumed[v]) for i, v in enumerate(inputs)
          if _is_key(v) and np.any(consumed.get(v, False))),
        *(Source(i) for i, v in enumerate(jaxpr.outvars)
          if _is_key(v) and resolve(v) not in inputs and not np.any(consumed.get(v, False))),
        *(Forward(inputs.index(resolve(v)), i) for i, v in enumerate(jaxpr.outvars)
          if _is_key(v) and resolve(v) in inputs))


def check_key_reuse_jaxpr(jaxpr) -> None:
    """Raise KeyReuseError if ``jaxpr`` (or a ClosedJaxpr) consumes a key twice."""
    jaxpr_type_signature(_open(jaxpr))


# -- the signatures of primitives -----------------------------------------------------------

_forward = KeyReuseSignature(Forward(0, 0))
signatures.update({
    random.random_clone_p: KeyReuseSignature(Source(0)),
    prng.random_bits_p: KeyReuseSignature(Sink(0)),
    prng.random_fold_in_p: KeyReuseSignature(Source(0)),      # (JAX: does not sink)
    prng.random_seed_p: KeyReuseSignature(Source(0)),
    prng.random_split_p: KeyReuseSignature(Sink(0), Source(0)),
    prng.random_wrap_p: KeyReuseSignature(Source(0)),
    prng.random_unwrap_p: KeyReuseSignature(),
    random.random_gamma_p: KeyReuseSignature(Sink(0)),
    structural.broadcast_in_dim_p: _forward,
    structural.copy_p: _forward,
    stage_p: _forward,
    conversion.convert_element_type_p: _forward,
    structural.reshape_p: _forward,
    structural.squeeze_p: _forward,
    sharding_constraint_p: _forward,
    reshard_p: _forward,
    debug_callback_p: KeyReuseSignature(),
    slicing.dynamic_slice_p: _forward,
    slicing.dynamic_update_slice_p: KeyReuseSignature(Sink(1), Forward(0, 0)),
    gather_scatter.gather_p: _forward,
    gather_scatter.scatter_p: KeyReuseSignature(Sink(2), Forward(0, 0)),
    comparison.eq_p: KeyReuseSignature(),          # comparing keys does not use them
    comparison.ne_p: KeyReuseSignature(),
    psend_p: KeyReuseSignature(),
})


def _slice_signature(eqn):
    """A slice consumes the keys it takes (only those) and gives fresh copies."""
    aval = eqn.invars[0].aval
    if not _is_key(eqn.invars[0]):
        return _forward
    taken = np.zeros(aval.shape, dtype=bool)
    strides = eqn.params["strides"] or (1,) * aval.ndim
    taken[tuple(slice(*t) for t in zip(eqn.params["start_indices"],
                                       eqn.params["limit_indices"], strides))] = True
    return KeyReuseSignature(Sink(0, taken), Source(0))


def _concatenate_signature(eqn):
    if len(eqn.invars) == 1:
        return _forward
    return KeyReuseSignature(*(Sink(i) for i in range(len(eqn.invars))), Source(0))


def _cond_signature(eqn):
    """A branch may run: a key any branch consumes is consumed; an output is fresh only
    if every branch makes it so. (Input 0 is the branch index.)"""
    sigs = [jaxpr_type_signature(_open(b)) for b in eqn.params["branches"]]
    sinks, sources = defaultdict(list), defaultdict(list)
    for sig in sigs:
        for s in sig.sinks:
            sinks[s.idx].append(s.mask)
        for s in sig.sources:
            sources[s.idx].append(s.mask)
    return KeyReuseSignature(
        *(Sink(i + 1, functools.reduce(np.logical_or, m)) for i, m in sinks.items()),
        *(Source(i, functools.reduce(np.logical_and, m)) for i, m in sources.items()),
        *(Forward(f.in_idx + 1, f.out_idx)
          for f in set.intersection(*(set(sig.forwards) for sig in sigs))))


def _scan_signature(eqn):
    body = _open(eqn.params["jaxpr"])
    num_consts, num_carry = eqn.params["num_consts"], eqn.params["num_carry"]
    sig = jaxpr_type_signature(body)
    if any(np.any(s.mask) for s in sig.sinks if s.idx < num_consts):
        raise KeyReuseError("scan body function leads to key reuse when repeatedly "
                            "executed, because key constants are repeatedly consumed:\n"
                            f"  signature={sig}\n  eqn={eqn}\n  jaxpr={body}")
    carry_sinks = {s.idx - num_consts for s in sig.sinks
                   if 0 <= s.idx - num_consts < num_carry and np.any(s.mask)}
    carry_sources = {s.idx for s in sig.sources if s.idx < num_carry and np.any(s.mask)}
    if not carry_sinks <= carry_sources:
        raise KeyReuseError("scan body function leads to key reuse when repeatedly "
                            "executed, because consumed inputs don't match sourced outputs:\n"
                            f"  signature={sig}\n  eqn={eqn}\n  jaxpr={body}")
    return sig


def _while_signature(eqn):
    p = eqn.params
    cond_sig = jaxpr_type_signature(_open(p["cond_jaxpr"]))
    body_sig = jaxpr_type_signature(_open(p["body_jaxpr"]))
    for name, sig, nconsts in (("cond", cond_sig, p["cond_nconsts"]),
                               ("body", body_sig, p["body_nconsts"])):
        if any(np.any(s.mask) for s in sig.sinks if s.idx < nconsts):
            raise KeyReuseError(f"while_loop {name} function leads to key reuse when "
                                f"repeatedly executed:   {name}_signature={sig}\n  eqn={eqn}")
    body_sinks = {s.idx - p["body_nconsts"] for s in body_sig.sinks
                  if s.idx >= p["body_nconsts"]}
    cond_sinks = {s.idx - p["cond_nconsts"] for s in cond_sig.sinks
                  if s.idx >= p["cond_nconsts"]}
    sources = {s.idx for s in body_sig.sources}
    for name, sig, sinks in (("cond", cond_sig, cond_sinks), ("body", body_sig, body_sinks)):
        if not sinks <= sources:
            raise KeyReuseError(f"while_loop {name} function leads to key reuse when "
                                f"repeatedly executed:   {name}_signature={sig}\n  eqn={eqn}")
    if body_sinks & cond_sinks:
        raise KeyReuseError("while_loop cond and body functions both use the same key: "
                            f"  cond_signature={cond_sig}\n  body_signature={body_sig}\n"
                            f"  eqn={eqn}")
    return body_sig


def _remat_signature(eqn):
    """The differentiated copy of a checkpointed body recomputes what the first one did:
    it consumes nothing new."""
    if eqn.params["differentiated"]:
        return KeyReuseSignature()
    return jaxpr_type_signature(_open(eqn.params["jaxpr"]))


signatures.update({
    slicing.slice_p: _slice_signature,
    structural.concatenate_p: _concatenate_signature,
    jit_p: lambda eqn: jaxpr_type_signature(_open(eqn.params["jaxpr"])),
    shard_map_p: lambda eqn: jaxpr_type_signature(_open(eqn.params["jaxpr"])),
    cond_p: _cond_signature,
    scan_p: _scan_signature,
    while_p: _while_signature,
    remat_p: _remat_signature,
    device_put_p: lambda eqn: KeyReuseSignature(
        *(Forward(i, i) for i in range(len(eqn.invars)))),
})


# ----------------------------------------------------------------------------------------
# Eager checking
# ----------------------------------------------------------------------------------------

def _signature_of_call(primitive, args, params) -> KeyReuseSignature:
    """The signature of one eager application (a dynamic rule sees a one-equation jaxpr)."""
    if primitive is jit_p:
        return jaxpr_type_signature(_open(params["jaxpr"]))
    sig = signatures[primitive]
    if isinstance(sig, KeyReuseSignature):
        return sig
    avals = [core.get_aval(a) for a in args]
    outs = primitive.abstract_eval(*avals, **params)
    outs = outs if primitive.multiple_results else [outs]
    eqn = core.JaxprEqn([core.Var(a) for a in avals], [core.Var(a) for a in outs],
                        primitive, params)
    return sig(eqn)


def call_with_key_reuse_checks(primitive, impl: Callable, args, params):
    """Run ``impl`` on concrete ``args`` after checking that no consumed key is consumed
    again, then record what it consumed and made (the eval trace calls this while
    ``jax_debug_key_reuse`` is on)."""
    if primitive not in signatures:
        return impl(*args, **params)
    sig = _signature_of_call(primitive, args, params)
    consts = list(params["jaxpr"].consts) if primitive is jit_p else []
    funcname = "jit-compiled function" if primitive is jit_p else str(primitive)
    sig.check([*args, *consts], funcname)
    result = impl(*args, **params)
    sig.update_consumption([*args, *consts],
                           result if primitive.multiple_results else [result])
    return result


core.hooks.register(key_reuse_eval=call_with_key_reuse_checks,
                    check_key_reuse=check_key_reuse_jaxpr)

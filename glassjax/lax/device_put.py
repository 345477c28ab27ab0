"""``device_put`` inside traced functions: the ``device_put`` primitive.

Eagerly, ``jax.device_put`` moves data at once. Inside ``jit`` there is nothing to
move yet, so it is recorded as an equation (JAX's ``device_put[copy_semantics devices
srcs]``) whose values pass through unchanged in the compiled program: where a jitted
function's results live is decided by the function's placement, not by this equation.
It is linear: its tangent is put the same way, and its transpose puts the cotangent
back where the value came from (``srcs``), always as a copy.

A target may also be a memory space (``jax.memory.Space.Host``): the value's type then
says where it lives (``f32<host>[3]``), and the program's arguments and results carry
their memory kinds (``dispatch.memory_kinds``); on CPU the copy itself is XLA's
business. Remat policies that offload residuals (``Offloadable``) move them with
these equations (``_move``).
"""
from __future__ import annotations

from jaxlib import xla_client as xc

from glassjax import core
from glassjax.interpreters import ad, batching, partial_eval as pe
from glassjax.lax.utils import spec_of
from glassjax.named_sharding import NamedSharding, typed_aval
from glassjax.xla import dispatch, lowering, runtime

Copy = xc.ArrayCopySemantics

device_put_p = core.Primitive("device_put")
device_put_p.multiple_results = True


def _device_put_impl(*xs, devices, srcs, copy_semantics):
    return [runtime.device_put(x, device, committed=device is not None)
            for x, device in zip(xs, devices)]


device_put_p.def_impl(_device_put_impl)


def _put_aval(aval, target):
    if isinstance(target, core.MemorySpace):
        return aval.update(memory_space=target) if type(aval) is core.ShapedArray else aval
    return aval if target is None else typed_aval(aval, target)


def _device_put_abstract_eval(*avals, devices, **params):
    """The values' types: a target memory space (``jax.memory.Space``), or the memory
    kind and split over Explicit axes of a target sharding, is part of them."""
    return list(map(_put_aval, avals, devices))


device_put_p.def_abstract_eval(_device_put_abstract_eval)
device_put_p.sharding_rule = lambda *avals, **params: [
    spec_of(a) for a in _device_put_abstract_eval(*avals, **params)]
lowering.register_lowering(device_put_p, lambda ctx, *xs, **_: list(xs))


def _kinds_moved_to(params):
    return [(None if d is core.MemorySpace.Any else core.mem_space_to_kind(d))
            if isinstance(d, core.MemorySpace) else getattr(d, "memory_kind", None)
            for d in params["devices"]]


dispatch.memory_transfer_rules[device_put_p] = _kinds_moved_to
# (a program putting values on a mesh runs on the mesh's devices; on CPU the put itself
# lowers to nothing, as in JAX: XLA lays the results out)
dispatch.mesh_rules[device_put_p] = lambda params: [
    d.mesh for d in params["devices"] if isinstance(d, NamedSharding)]
batching.primitive_batchers[device_put_p] = lambda args, dims, **params: (
    device_put_p.bind(*args, **params), dims)


def _device_put_jvp(primals, tangents, **params):
    tangents = list(map(ad.instantiate_zeros, tangents))
    return device_put_p.bind(*primals, **params), device_put_p.bind(*tangents, **params)


def _device_put_transpose(cts, *args, devices, srcs, copy_semantics):
    """Put the cotangents of the undefined inputs back on their sources, as copies."""
    picked = [i for i, (ct, x) in enumerate(zip(cts, args))
              if not isinstance(ct, ad.Zero) and ad.is_undefined_primal(x)]
    results = [None] * len(cts)
    if not picked:
        return results
    if any(copy_semantics[i] == Copy.DONATE_INPUT for i in picked):
        raise ValueError("donate=True is not allowed during tranpose. Please open an "
                         "issue if you want this to be supported.")
    copies = [Copy.ALWAYS_COPY if c == Copy.REUSE_INPUT else c for c in copy_semantics]
    # (a value that came from host memory gets its cotangent there, as in JAX)
    srcs = [core.MemorySpace.Host if s is None and ad.is_undefined_primal(x) and
            x.aval.memory_space is core.MemorySpace.Host else s for s, x in zip(srcs, args)]
    outs = device_put_p.bind(*(cts[i] for i in picked),
                             devices=tuple(srcs[i] for i in picked),
                             srcs=tuple(devices[i] for i in picked),
                             copy_semantics=tuple(copies[i] for i in picked))
    for i, out in zip(picked, outs):
        results[i] = out
    return results


def _move(var, space, out=None):
    """A ``device_put`` equation copying ``var`` into memory ``space`` (into ``out``, or
    a new variable): how remat offloads a residual and brings it back."""
    out = out or core.Var(_put_aval(var.aval, space))
    return core.new_jaxpr_eqn([var], [out], device_put_p, dict(
        devices=(space,), srcs=(None,), copy_semantics=(Copy.ALWAYS_COPY,))), out


pe.hooks.register(move=_move)
ad.primitive_jvps[device_put_p] = _device_put_jvp
ad.primitive_transposes[device_put_p] = _device_put_transpose

"""``device_put`` inside traced functions: the ``device_put`` primitive.

Eagerly, ``jax.device_put`` moves data at once. Inside ``jit`` there is nothing to
move yet, so it is recorded as an equation (JAX's ``device_put[copy_semantics devices
srcs]``) whose values pass through unchanged in the compiled program: where a jitted
function's results live is decided by the function's placement, not by this equation.
It is linear: its tangent is put the same way, and its transpose puts the cotangent
back where the value came from (``srcs``), always as a copy.
"""
from __future__ import annotations

from jaxlib import xla_client as xc

from glassjax import core
from glassjax.interpreters import ad, batching
from glassjax.lax.utils import spec_of
from glassjax.named_sharding import typed_aval
from glassjax.xla import lowering, runtime

Copy = xc.ArrayCopySemantics

device_put_p = core.Primitive("device_put")
device_put_p.multiple_results = True


def _device_put_impl(*xs, devices, srcs, copy_semantics):
    return [runtime.device_put(x, device, committed=device is not None)
            for x, device in zip(xs, devices)]


device_put_p.def_impl(_device_put_impl)


def _device_put_abstract_eval(*avals, devices, **params):
    """The values' types; a NamedSharding target over Explicit axes is part of it."""
    return [a if d is None else typed_aval(a, d) for a, d in zip(avals, devices)]


device_put_p.def_abstract_eval(_device_put_abstract_eval)
device_put_p.sharding_rule = lambda *avals, **params: [
    spec_of(a) for a in _device_put_abstract_eval(*avals, **params)]
lowering.register_lowering(device_put_p, lambda ctx, *xs, **_: list(xs))
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
    outs = device_put_p.bind(*(cts[i] for i in picked),
                             devices=tuple(srcs[i] for i in picked),
                             srcs=tuple(devices[i] for i in picked),
                             copy_semantics=tuple(copies[i] for i in picked))
    for i, out in zip(picked, outs):
        results[i] = out
    return results


ad.primitive_jvps[device_put_p] = _device_put_jvp
ad.primitive_transposes[device_put_p] = _device_put_transpose

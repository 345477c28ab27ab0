"""``stage(x)``: lift a value into the active trace.

Logically the identity. Its use is the *lift*: a NumPy array or Python scalar becomes a
value of whatever is being traced (a constant of the jaxpr under ``jit``, printed as a
literal when it is a scalar; an ``Array`` outside any trace), so the code after it treats
it like any traced value. Staging therefore records no equation for it, as in JAX 0.10.2::

    make_jaxpr(lambda a: lax.stage(np.arange(3.)) + a)(1.)
    { lambda a:f32[3]; b:f32[]. let ... d:f32[3] = add a c in (d,) }
"""
from glassjax import core
from glassjax.interpreters import ad, batching, staging
from glassjax.xla import dispatch, lowering, runtime

stage_p = core.Primitive("stage")
stage_p.def_abstract_eval(lambda aval: aval)


def _stage_impl(x):
    """Outside any trace: an Array as it is, anything else put on the device."""
    return x if isinstance(x, runtime.Array) else dispatch.apply_primitive(stage_p, x)


stage_p.def_impl(_stage_impl)
staging.staging_rules[stage_p] = lambda trace, x: trace.to_tracer(x)
batching.defvectorized(stage_p)
ad.deflinear2(stage_p, lambda ct, x: [ct])
lowering.register_lowering(stage_p, lambda ctx, x: x)


def stage(x, /):
    """``x`` lifted into the active trace (an Array when nothing is being traced)."""
    return stage_p.bind(x)

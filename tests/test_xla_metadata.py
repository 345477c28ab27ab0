"""``jax.experimental.xla_metadata.set_xla_metadata``: XLA frontend attributes on the
operations of a value, of a ``with`` block, or of a decorated function. Expected HLO is
what JAX 0.10.2 prints."""
import numpy as np

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.experimental.xla_metadata import set_xla_metadata


def test_tagging_a_value_tags_only_the_op_that_computed_it():
    def f(x):
        return set_xla_metadata(jnp.sin(x) * jnp.cos(x), breakpoint=True)
    assert jax.jit(f).lower(1.0).as_text("hlo") == (
        "HloModule jit_f, entry_computation_layout={(f32[])->f32[]}\n\n"
        "ENTRY main.1 {\n"
        "  x.1 = f32[] parameter(0)\n"
        "  sin.1 = f32[] sine(x.1)\n"
        "  cos.1 = f32[] cosine(x.1)\n"
        '  ROOT mul.1 = f32[] multiply(sin.1, cos.1), frontend_attributes={breakpoint="true"}\n'
        "}\n\n")
    # An identity for values and derivatives.
    assert jax.grad(lambda x: set_xla_metadata(x * 3., a=1))(2.) == 3.
    np.testing.assert_array_equal(jax.vmap(lambda x: set_xla_metadata(x, a=1))(
        jnp.arange(3.)), jnp.arange(3.))


def test_a_with_block_tags_what_is_staged_inside_and_is_part_of_the_jit_key():
    def g(x):
        return jnp.sin(x) + 1
    jitted = jax.jit(g)
    assert "frontend_attributes" not in jitted.lower(1.0).as_text("hlo")
    with set_xla_metadata(_xla_log=True, k="v"):
        text = jitted.lower(1.0).as_text("hlo")      # traced again, tagged
    assert text.count('frontend_attributes={_xla_log="true",k="v"}') == 2
    assert "frontend_attributes" not in jitted.lower(1.0).as_text("hlo")

    def h(x):
        with set_xla_metadata(a="1"):
            y = jnp.sin(x)
            with set_xla_metadata(b="2"):
                y = jnp.cos(y)
        return y * 2
    assert jax.jit(h).lower(1.0).as_text("hlo") == (
        "HloModule jit_h, entry_computation_layout={(f32[])->f32[]}\n\n"
        "ENTRY main.1 {\n"
        "  x.1 = f32[] parameter(0)\n"
        '  sin.1 = f32[] sine(x.1), frontend_attributes={a="1"}\n'
        '  cos.1 = f32[] cosine(sin.1), frontend_attributes={a="1",b="2"}\n'
        "  constant.1 = f32[] constant(2)\n"
        "  ROOT mul.1 = f32[] multiply(cos.1, constant.1)\n"
        "}\n\n")


def test_a_decorated_function_lowers_inside_the_block():
    @set_xla_metadata(_xla_log=True)
    @jax.jit
    def f(x):
        return jnp.sin(x)
    assert 'sine(x.1), frontend_attributes={_xla_log="true"}' in f.lower(1.0).as_text("hlo")
    assert f(0.) == 0.

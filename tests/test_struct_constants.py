"""A ``ShapeDtypeStruct`` a traced function returns (or closes over) is staged as a
constant with a type and no value, as in JAX 0.10.2: ``make_jaxpr`` shows it as a
constvar, ``eval_shape`` gives it back (lineax compares pytree structures so), and
compiling refuses it with JAX's error."""
import pytest

import glassjax as jax
import glassjax.numpy as jnp

S = jax.ShapeDtypeStruct((2,), jnp.float32)


def test_staged_as_a_typed_constant():
    assert str(jax.make_jaxpr(lambda: S)()) == "{ lambda a:f32[2]; . let  in (a,) }"
    assert jax.eval_shape(lambda: {"y": S}) == {"y": S}


def test_compiling_refuses_it():
    with pytest.raises(TypeError, match="A ShapeDtypeStruct does not have a value and "
                                        "cannot be used as a constant in a JAX function."):
        jax.jit(lambda: S)()

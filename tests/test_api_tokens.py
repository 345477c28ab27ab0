"""lax.create_token / lax.after_all: tokens in jaxprs (printed ``Tok`` as in JAX 0.10.2),
lowered to ``!stablehlo.token``, passed into and out of compiled functions."""
import numpy as np
import pytest

import glassjax as jax
from glassjax import lax


def test_token_jaxprs_print_as_in_jax():
    f = lambda x: lax.after_all(lax.create_token(), lax.create_token(x))
    assert str(jax.make_jaxpr(f)(1.0)) == """\
{ lambda ; a:f32[]. let
    b:Tok = create_token 
    c:Tok = create_token 
    d:Tok = after_all b c
  in (d,) }"""
    assert str(jax.make_jaxpr(lambda: lax.after_all())()) == \
        "{ lambda ; . let a:Tok = after_all  in (a,) }"
    assert str(jax.make_jaxpr(lambda t: lax.after_all(t, t))(lax.create_token())) == \
        "{ lambda ; a:Tok. let b:Tok = after_all a a in (b,) }"
    assert (lax.create_token_p.name, lax.after_all_p.name) == ("create_token", "after_all")


def test_tokens_lower_to_stablehlo_tokens():
    text = jax.jit(lambda t: lax.after_all(t, t)).lower(lax.create_token()).as_text()
    assert ("func.func public @main(%arg0: !stablehlo.token) -> (!stablehlo.token "
            "{jax.result_info = \"result\"})") in text
    assert "%0 = stablehlo.after_all %arg0, %arg0 : !stablehlo.token" in text
    text = jax.jit(lambda x: lax.create_token(x)).lower(1.0).as_text()
    assert "%0 = stablehlo.create_token : !stablehlo.token" in text


def test_tokens_flow_through_compiled_functions():
    t = lax.create_token()
    assert isinstance(t, jax.core.Token)
    assert jax.core.get_aval(t) is jax.core.abstract_token
    f = jax.jit(lambda t, x: (lax.after_all(t), x * 2))
    for _ in range(3):        # (later calls take the cached path)
        t, y = f(t, np.float32(3))
        assert isinstance(t, jax.core.Token) and y == 6
    t.block_until_ready()
    assert jax.tree_util.tree_leaves(t) == [t]
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        lax.after_all(1.0)

"""jax.ad_checkpoint.print_saved_residuals on the examples of JAX's "Gradient
checkpointing" tutorial: the same lines JAX 0.10.2 prints (file:line:column (function)
of the user code that made each residual); Saveable/Recompute answers of policies."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.ad_checkpoint import checkpoint_name, print_saved_residuals

HERE = __file__


def g(W, x):
    y = jnp.dot(W, x)
    return jnp.sin(y)


def f(W1, W2, W3, x):
    x = g(W1, x)
    x = g(W2, x)
    x = g(W3, x)
    return x


def f4(W1, W2, W3, x):
    x = checkpoint_name(g(W1, x), name='a')
    x = checkpoint_name(g(W2, x), name='b')
    x = checkpoint_name(g(W3, x), name='c')
    return x


ARGS = (jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones((7, 6)), jnp.ones(4))
ARG_LINES = ["f32[5,4] from the argument W1", "f32[6,5] from the argument W2",
             "f32[7,6] from the argument W3", "f32[4] from the argument x"]
SIN = f"from {HERE}:16:11 (g)"      # (columns count from 0, as in JAX)
DOT = f"from {HERE}:15:8 (g)"


def _printed(capsys, fun, *args):
    print_saved_residuals(fun, *args)
    return capsys.readouterr().out.splitlines()


def test_plain_function_saves_sin_and_cos(capsys):
    assert _printed(capsys, f, *ARGS) == ARG_LINES + [
        f"f32[5] output of sin {SIN}", f"f32[5] output of cos {SIN}",
        f"f32[6] output of sin {SIN}", f"f32[6] output of cos {SIN}",
        f"f32[7] output of cos {SIN}"]


def test_checkpoint_saves_only_the_arguments(capsys):
    assert _printed(capsys, jax.checkpoint(f), *ARGS) == ARG_LINES


def test_policies_and_names(capsys):
    policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
    f2 = lambda *a: jax.checkpoint(f, policy=policy)(*a)
    assert _printed(capsys, f2, *ARGS) == [
        line.replace("argument " + n, f"argument a[{i}]")
        for i, (line, n) in enumerate(zip(ARG_LINES, ["W1", "W2", "W3", "x"]))] + [
        f"f32[5] output of dot_general {DOT}", f"f32[6] output of dot_general {DOT}",
        f"f32[7] output of dot_general {DOT}"]
    named = jax.checkpoint(f4, policy=jax.checkpoint_policies.save_only_these_names('a'))
    assert _printed(capsys, named, *ARGS) == ARG_LINES + [
        f"f32[5] named 'a' from {HERE}:27:8 (f4)"]


def test_pytree_arguments_and_expressions(capsys):
    def loss(params, x, y):
        return jnp.sum((jnp.tanh(x @ params[0]) @ params[1] - y) ** 2)
    line = loss.__code__.co_firstlineno + 1
    args = ((jnp.ones((3, 4)), jnp.ones((4, 2))), jnp.ones((5, 3)), jnp.ones((5, 2)))
    assert _printed(capsys, loss, *args) == [
        "f32[3,4] from the argument params[0]", "f32[4,2] from the argument params[1]",
        "f32[5,3] from the argument x",
        f"f32[5,4] output of tanh from {HERE}:{line}:24 ({loss.__qualname__})",
        f"f32[5,4] output of sub from {HERE}:{line}:24 ({loss.__qualname__})",
        f"f32[5,2] output of mul from {HERE}:{line}:23 ({loss.__qualname__})"]


def test_policies_may_answer_saveable_or_recompute(capsys):
    def custom_policy(prim, *avals, **params):
        from glassjax import ad_checkpoint
        return ad_checkpoint.Saveable if prim.name == "sin" else ad_checkpoint.Recompute
    fun = jax.checkpoint(f, policy=custom_policy)
    assert _printed(capsys, fun, *ARGS) == ARG_LINES + [
        f"f32[5] output of sin {SIN}", f"f32[6] output of sin {SIN}"]
    grad = jax.grad(lambda *a: fun(*a).sum(), argnums=(0, 1, 2))(*ARGS)
    want = jax.grad(lambda *a: f(*a).sum(), argnums=(0, 1, 2))(*ARGS)
    for got, ref in zip(grad, want):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
    with pytest.raises(TypeError, match="Value returned by a remat policy should be a bool"):
        jax.grad(lambda x: jax.checkpoint(jnp.sin, policy=lambda *a, **k: 1)(x))(1.0)

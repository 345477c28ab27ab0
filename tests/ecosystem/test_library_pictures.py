"""Library structure in the explorer: each module of a library model is a cluster.

A flax linen model runs its modules under ``jax.named_scope`` (flax's ``flax_profile``),
so ``make_jaxpr`` alone gives the explorer one cluster per module path (``MLP`` holding
``Dense_0`` and ``Dense_1``). flax nnx and brainstate modules name nothing; the notebook
names them while it traces (``glassjax.notebook.module_scopes``), by the attribute that
holds each module (``blocks[0]``, ``linear``). Each program runs in a fresh process, since
it flips the switch."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

PRELUDE = textwrap.dedent("""
    import json, glassjax
    glassjax.as_jax()
    import jax, jax.numpy as jnp
    from glassjax.notebook import explorer
    from glassjax.notebook.stages import Stages

    def clusters(nodes):
        return [{"title": n["title"],
                 "inside": [c for part in n["children"] or [] for c in clusters(part["nodes"])]}
                for n in nodes if n.get("children")]
""")


def clusters_of(library: str, *program: str) -> list:
    """The clusters of the explorer's view of ``closed_jaxpr``, which the ``program``
    (its parts one after the other) makes."""
    if importlib.util.find_spec(library) is None:
        pytest.skip(f"{library} is not installed")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    code = "".join(map(textwrap.dedent, (PRELUDE, *program))) + textwrap.dedent("""
        view = explorer.View(closed_jaxpr)
        print(json.dumps(clusters(view.root["nodes"])))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_linen_modules_are_clusters():
    assert clusters_of("flax", """
        import flax.linen as nn

        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                hidden = nn.tanh(nn.Dense(8)(x))
                return nn.Dense(1)(hidden)

        model = MLP()
        params = model.init(jax.random.key(0), jnp.ones((2, 3)))
        closed_jaxpr = jax.make_jaxpr(model.apply)(params, jnp.ones((2, 3)))
    """) == [{"title": "MLP", "inside": [
        {"title": "Dense_0", "inside": []}, {"title": "Dense_1", "inside": []}]}]


NNX_MLP = """
    from flax import nnx

    class Block(nnx.Module):
        def __init__(self, rngs):
            self.linear = nnx.Linear(3, 3, rngs=rngs)
        def __call__(self, x):
            return jnp.tanh(self.linear(x))

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.blocks = nnx.List([Block(rngs), Block(rngs)])
            self.out = nnx.Linear(3, 1, rngs=rngs)
        def __call__(self, x):
            for block in self.blocks:
                x = block(x)
            return self.out(x)

    model = MLP(nnx.Rngs(0))
"""


def test_nnx_module_paths_are_clusters_and_the_jaxpr_is_make_jaxprs():
    assert clusters_of("flax", NNX_MLP, """
        def loss(model, x):
            return jnp.mean(model(x) ** 2)
        stages = Stages(loss, (model, jnp.ones((2, 3))))
        closed_jaxpr = stages.closed_jaxpr
        assert str(closed_jaxpr) == str(jax.make_jaxpr(loss)(model, jnp.ones((2, 3))))
    """) == [{"title": "MLP", "inside": [
        {"title": "blocks[0]", "inside": [{"title": "linear", "inside": []}]},
        {"title": "blocks[1]", "inside": [{"title": "linear", "inside": []}]},
        {"title": "out", "inside": []}]}]


def test_nnx_train_step_shows_the_model_in_the_forward_and_the_backward_pass():
    found = clusters_of("flax", NNX_MLP, """
        import optax
        optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)

        @nnx.jit
        def train_step(model, optimizer, x, y):
            loss = lambda model: jnp.mean((model(x) - y) ** 2)
            value, grads = nnx.value_and_grad(loss)(model)
            optimizer.update(model, grads)
            return value
        closed_jaxpr = Stages(train_step, (model, optimizer, jnp.ones((2, 3)),
                                           jnp.ones((2, 1)))).closed_jaxpr
    """)
    (step,) = found
    titles = [c["title"] for c in step["inside"]]
    assert step["title"] == "jit: train_step"
    assert "jvp(MLP)" in titles and "transpose(jvp(MLP))" in titles
    forward = step["inside"][titles.index("jvp(MLP)")]["inside"]
    backward = step["inside"][titles.index("transpose(jvp(MLP))")]["inside"]
    assert [c["title"] for c in forward] == ["blocks[0]", "blocks[1]", "out"]
    assert [c["title"] for c in backward] == ["out", "blocks[1]", "blocks[0]"]


def test_brainstate_modules_are_clusters():
    assert clusters_of("brainstate", """
        import brainstate

        class Net(brainstate.nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = brainstate.nn.Linear(3, 4)
                self.l2 = brainstate.nn.Linear(4, 1)
            def update(self, x):
                return self.l2(jnp.tanh(self.l1(x)))

        net = Net()
        closed_jaxpr = Stages(lambda x: net(x).sum(), (jnp.ones((2, 3)),)).closed_jaxpr
    """) == [{"title": "Net", "inside": [{"title": "l1", "inside": []},
                                          {"title": "l2", "inside": []}]}]


def test_brainstate_states_a_step_writes_are_state_nodes():
    """A function that writes a brainstate State is traced by brainstate (a bare jit
    refuses it); its states' values are drawn as stores, labelled by their place."""
    found = clusters_of("brainstate", """
        import brainstate

        class Net(brainstate.nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = brainstate.nn.Linear(3, 4)
                self.count = brainstate.ShortTermState(jnp.zeros(()))
            def update(self, x):
                self.count.value += 1
                return jnp.tanh(self.l1(x))

        net = Net()
        closed_jaxpr = Stages(lambda x: net(x).sum(), (jnp.ones((2, 3)),)).closed_jaxpr
        nodes = explorer.View(closed_jaxpr).root["nodes"]
        stores = [(n["type"], n["label"][-1]) for n in nodes if n.get("kind") == "state"]
        assert stores == [("input", "count"), ("input", "l1.weight['bias']"),
                          ("input", "l1.weight['weight']"), ("output", "output 1 count")], stores
        assert float(net.count.value) == 0.0      # (tracing wrote nothing back)
    """)
    assert found == [{"title": "Net", "inside": [{"title": "l1", "inside": []}]}]

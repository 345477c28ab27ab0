"""Library structure in the explorer: a flax linen model runs its modules under
``jax.named_scope`` (flax's ``flax_profile``), so the explorer folds the model's jaxpr
into one cluster per module path (``MLP`` holding ``Dense_0`` and ``Dense_1``). Run in a
fresh process, since it flips the switch."""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent("""
    import json, glassjax
    glassjax.as_jax()
    import jax, jax.numpy as jnp, flax.linen as nn
    from glassjax.notebook import explorer

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            hidden = nn.tanh(nn.Dense(8)(x))
            return nn.Dense(1)(hidden)

    model = MLP()
    params = model.init(jax.random.key(0), jnp.ones((2, 3)))
    view = explorer.View(jax.make_jaxpr(model.apply)(params, jnp.ones((2, 3))))

    def clusters(nodes):
        return [{"title": n["title"],
                 "inside": [c for part in n["children"] or [] for c in clusters(part["nodes"])]}
                for n in nodes if n.get("kind") == "scope"]
    print(json.dumps(clusters(view.root["nodes"])))
""")


@pytest.mark.skipif(importlib.util.find_spec("flax") is None, reason="flax is not installed")
def test_linen_modules_are_clusters():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"title": "MLP", "inside": [
        {"title": "Dense_0", "inside": []}, {"title": "Dense_1", "inside": []}]}]

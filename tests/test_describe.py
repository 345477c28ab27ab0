"""glassjax.describe: a primitive's rules and where each is defined."""
import re

import pytest

import glassjax as jax
from glassjax import lax


def test_describe_lists_rules_with_their_source_lines():
    text = str(jax.describe(lax.psum_p))
    assert text.splitlines()[0] == "psum"
    names = [line.split()[0] for line in text.splitlines()[1:]]
    assert names[:5] == ["abstract_eval", "impl", "lowering", "jvp", "transpose"]
    # every location points at a real line that exists in that file
    for where in re.findall(r"(glassjax/\S+\.py):(\d+)", text):
        path, line = where
        with open(path) as f:
            assert int(line) <= len(f.readlines())
    assert "glassjax/lax/parallel.py" in text


def test_describe_sees_through_wrappers_and_reports_missing_rules():
    from glassjax.shard_map import shard_map_p
    text = str(jax.describe(shard_map_p))
    assert text.startswith("shard_map (multiple results)")
    assert re.search(r"partial_eval\s+glassjax/shard_map.py:\d+", text)
    lines = dict(re.findall(r"  (\w+)\s+glassjax/shard_map.py:(\d+)", text))
    assert len(set(lines.values())) == len(lines)       # each rule its own function
    prim = jax.core.Primitive("my_prim")
    d = jax.describe(prim)
    assert d.rules == () and d.missing == ("abstract_eval", "impl", "lowering", "jvp",
                                           "batching")


def test_primitives_index_and_errors():
    prims = jax.primitives()
    names = [p.name for p in prims]
    assert {"sin", "psum", "shard_map", "jit", "scan"} <= set(names)
    assert names == sorted(names)
    with pytest.raises(TypeError, match="describe expects a Primitive"):
        jax.describe("sin")


@pytest.mark.parametrize("module, name", [
    ("glassjax.jit", "jit_p"), ("glassjax.lax.control_flow.conditionals", "cond_p"),
    ("glassjax.lax.control_flow.while_loops", "while_p"),
    ("glassjax.lax.control_flow.scans", "scan_p"), ("glassjax.shard_map", "shard_map_p"),
    ("glassjax.custom_derivatives", "custom_jvp_call_p"),
    ("glassjax.custom_derivatives", "custom_vjp_call_p"),
    ("glassjax.ad_checkpoint", "remat_p")])
def test_describe_lists_the_drawing_declared_in_the_registration_block(module, name):
    import importlib
    prim = getattr(importlib.import_module(module), name)
    text = str(jax.describe(prim))
    where = dict(re.findall(r"  (\w+)\s+(glassjax/\S+\.py:\d+)", text))
    path, line = where["drawing"].split(":")
    assert path == where["abstract_eval"].split(":")[0]     # next to its other rules
    with open(path) as f:
        assert f"{name}.drawing = core.Drawing(" in f.readlines()[int(line) - 1]
    assert f"drawn as a {prim.drawing.kind} cluster" in text
    assert "drawing" not in str(jax.describe(lax.sin_p))

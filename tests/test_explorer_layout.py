"""The graph explorer's layout (``layoutGraph`` in extension/src/graph_widget.js), run by
node on the models the kernel sends: nodes never overlap, every edge points down, the
outputs are at the bottom, open clusters enclose their regions."""
import json
import pathlib
import shutil
import subprocess

import pytest

import glassjax.numpy as jnp
from glassjax import make_jaxpr
from glassjax.notebook import explorer
from test_explorer import nested        # while ∘ scan ∘ cond

ROOT = pathlib.Path(__file__).resolve().parent.parent
NODE = shutil.which("node")
WIDGET = ROOT / "extension" / "src" / "graph_widget.js"

# Lays out every graph of the model (open clusters as boxes) and prints the places.
RUNNER = r"""
const { layoutGraph, layoutCluster } = await import(process.argv[1]);
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const model = JSON.parse(chunks.join(""));
const out = [];
const open = (node) => node.children ? layoutCluster(node, node.children, open) : null;
const visit = (graph) => {
  const laid = layoutGraph(graph, open);
  out.push({ id: graph.id, w: laid.w, h: laid.h,
             items: laid.items.map((it) => ({ id: it.node.id, type: it.node.type, x: it.x,
                                               y: it.y, w: it.w, h: it.h,
                                               inner: it.inner && { w: it.inner.w, h: it.inner.h,
                                                 parts: it.inner.parts.map((p) => ({ x: p.x, y: p.y, w: p.w, h: p.h })) } })),
             edges: laid.edges.map((e) => ({ from: e.from, to: e.to, points: e.points,
                                              back: !!e.back })) });
  graph.nodes.forEach((n) => (n.children || []).forEach(visit));
};
visit(model);
console.log(JSON.stringify(out));
"""


def wide(x):
    """Many independent branches joined at the end: layers of many nodes."""
    parts = [jnp.sin(x * float(i)) + jnp.cos(x) for i in range(12)]
    return sum(parts[1:], parts[0])


def layout(model):
    result = subprocess.run([NODE, "--input-type=module", "-e", RUNNER, WIDGET.as_uri()],
                            input=json.dumps(model), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("fun", [nested, wide])
def test_layout_places_nodes_apart_and_edges_downwards(fun):
    model = explorer.View(make_jaxpr(fun)(jnp.ones(3))).root
    graphs = layout(model)
    assert len(graphs) == 1 + sum(1 for _ in _open_regions(model))
    for g in graphs:
        items = {it["id"]: it for it in g["items"]}
        boxes = list(items.values())
        for a in boxes:                                  # inside the graph's box
            assert 0 <= a["x"] and a["x"] + a["w"] <= g["w"] + 1e-6
            assert 0 <= a["y"] and a["y"] + a["h"] <= g["h"] + 1e-6
            for b in boxes:                              # and apart from each other
                if a is not b:
                    assert (a["x"] + a["w"] <= b["x"] or b["x"] + b["w"] <= a["x"] or
                            a["y"] + a["h"] <= b["y"] or b["y"] + b["h"] <= a["y"]), (a, b)
            if a["inner"]:                               # regions inside their cluster
                for p in a["inner"]["parts"]:
                    assert p["x"] + p["w"] <= a["w"] and p["y"] + p["h"] <= a["h"]
        outputs = [it for it in boxes if it["type"] == "output"]
        assert min(o["y"] for o in outputs) >= max(it["y"] for it in boxes
                                                  if it["type"] != "output")
        for e in g["edges"]:
            src, dst = items[e["from"]], items[e["to"]]
            if e["back"]:                                # a loop's carry: up the right side
                assert (src["type"], dst["type"]) == ("output", "input")
                assert e["points"][0] == [src["x"] + src["w"], src["y"] + src["h"] / 2]
                assert e["points"][-1] == [dst["x"] + dst["w"], dst["y"] + dst["h"] / 2]
                assert min(p[0] for p in e["points"][1:3]) > max(b["x"] + b["w"] for b in boxes)
                assert max(p[0] for p in e["points"]) <= g["w"]
                continue
            assert e["points"][0] == [src["x"] + src["w"] / 2, src["y"] + src["h"]]
            assert e["points"][-1] == [dst["x"] + dst["w"] / 2, dst["y"]]
            ys = [p[1] for p in e["points"]]
            assert ys == sorted(ys)                      # down, layer after layer
    assert sum(e["back"] for g in graphs for e in g["edges"]) == (fun is nested) * 2
    assert layout(model) == graphs                       # the same model, the same picture


def _open_regions(graph):
    for node in graph["nodes"]:
        for child in node.get("children") or []:
            yield child
            yield from _open_regions(child)

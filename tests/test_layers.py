"""The layers of glassjax, and the test that every import follows them.

glassjax reads from the bottom up. Each module belongs to one layer and imports only from
its own layer and the layers below it, and no chain of imports comes back to where it
started. Imports inside functions count as much as those at the top: a function that
imports upward hides the same dependency. Where a lower module needs code from above, the
need is inverted with an upward slot (glassjax/slots.py): the lower module declares a
named slot, with the module that fills it and what for, and that module fills it when it
is imported; ``glassjax.slots.listing()`` lists them all (tests/test_slots.py).

    0 base          config, caches, dtypes, errors, layout, version, tree_util, tree,
                    monitoring, linear_util (JAX's WrappedFun, for libraries built on its
                    internals), source_info, lib, shape_poly (symbolic dimensions),
                    rule_tables, slots (the upward slots), debug_info, and xla/'s doors to the
                    jaxlib C++ these build on: xla/cells.py (config cells),
                    xla/pytrees.py, xla/errors.py
    1 core          core.py (avals, primitives, traces, jaxprs), pretty.py (the printer),
                    placement.py (the advanced part of a type: shard_map's manual axes,
                    memory spaces), drawing.py (how the notebook draws a primitive)
    2 interpreters  interpreters/ (staging, ad, batching, partial_eval), api_util.py
    3 runtime       xla/ (the jaxlib client, lowering, dispatch), jit.py, call.py,
                    cache_misses.py,
                    mesh.py,
                    named_sharding.py, array.py, array_creation.py,
                    distributed.py, typing.py, dlpack.py, profiler.py,
                    interpreters/mlir.py (JAX's name for registering a lowering)
    4 transforms    vmap_api.py and custom_derivatives.py: the transformations lax's own
                    rules are written with (batching rules that vmap a simpler function;
                    logaddexp and the linear solves are custom_jvp functions)
    5 lax           lax/: every primitive with all its rules, and ad_api.py (grad, jvp,
                    vjp, the jacobians), which splits and casts with lax's operations
    6 libraries     numpy/, scipy/, nn/, random.py, prng.py, image.py, ops/,
                    flatten_util.py
    7 API           pmap.py, shard_map.py, shard_map_eager.py, sharding.py (the
                    public facade), axis_modes.py, key_reuse.py, state/, ref.py, ad_checkpoint.py,
                    callbacks.py, debug.py, debugger.py, export/, ffi.py, example_libraries/,
                    custom_batching.py,
                    describe.py, api.py, test_util.py, experimental/, extend/ and _src/
                    (JAX's names for core objects, as its tutorials import them)
    8 notebook      notebook/ (magics, graphs, widgets, display), kernel.py, and the
                    switch that makes ``import jax`` mean glassjax (as_jax.py,
                    __main__.py, switch_site/)

The package root ``glassjax/__init__.py`` is the public facade above all layers.
jaxlib's private API (``jaxlib._jax``) is reached only through glassjax/xla/, one module
per concern (runtime, pytrees, cells, errors, partition_specs, distributed_runtime,
fastpath); the rest of the engine calls those (``test_private_jaxlib_only_in_xla``).
A module is placed by the longest entry of ``LAYERS`` that names it or a package holding
it; a new module that no entry places fails ``test_every_module_has_a_layer``.
"""
import ast
import pathlib
import re


ROOT = pathlib.Path(__file__).resolve().parent.parent / "glassjax"

LAYERS = {
    "base": ["config", "caches", "dtypes", "errors", "layout", "version", "tree_util",
             "tree",
             "linear_util",
             "monitoring", "source_info", "lib", "shape_poly", "rule_tables", "slots",
             "debug_info",
             "xla.cells", "xla.pytrees", "xla.errors"],
    "core": ["core", "pretty", "placement", "drawing"],
    "interpreters": ["interpreters", "api_util"],
    "runtime": ["xla", "jit", "call", "cache_misses", "mesh", "named_sharding", "array",
                "array_creation", "distributed", "typing", "dlpack", "profiler",
                "interpreters.mlir"],
    "transforms": ["vmap_api", "custom_derivatives"],
    "lax": ["lax", "ad_api"],
    "libraries": ["numpy", "scipy", "nn", "random", "prng", "image", "ops", "flatten_util"],
    "API": ["pmap", "shard_map", "shard_map_eager", "sharding", "axis_modes", "key_reuse",
            "state", "ad_checkpoint", "callbacks", "debug", "debugger", "export", "ffi",
            "custom_batching", "describe", "api", "stages", "ref", "example_libraries",
            "test_util", "experimental", "extend", "_src"],
    "notebook": ["notebook", "kernel", "as_jax", "__main__", "switch_site"],
}
LAYER_ORDER = list(LAYERS)



def _modules():
    """``{dotted name relative to glassjax ("" for the root): path}``."""
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _resolve(name):
    """The module a dotted ``glassjax.…`` name lives in (a name inside a module, e.g.
    ``glassjax.lax.elementwise.add``, is resolved to that module)."""
    rel = name[len("glassjax"):].lstrip(".")
    while rel not in MODULES:
        rel = rel.rpartition(".")[0]
    return rel


def _imports(module):
    """``[(imported module, line)]`` for every glassjax import in ``module``, wherever
    it is written (in functions too)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ["glassjax"] + [p for p in package.split(".") if p]
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names = [f"{source}.{a.name}" for a in node.names] if source else []
        else:
            continue
        for name in names:
            if name == "glassjax" or name.startswith("glassjax."):
                target = _resolve(name)
                if target != module:
                    found.append((target, node.lineno))
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def layer_of(module):
    """The index in ``LAYER_ORDER`` of the layer holding ``module`` (None if unplaced);
    the root facade is above every layer."""
    if module == "":
        return len(LAYER_ORDER)
    best, best_len = None, -1
    for i, layer in enumerate(LAYER_ORDER):
        for entry in LAYERS[layer]:
            if (module == entry or module.startswith(entry + ".")) and len(entry) > best_len:
                best, best_len = i, len(entry)
    return best


def _cycles():
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w, _ in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return set(found)


CYCLES = _cycles()


def test_the_parser_sees_imports_inside_functions():
    """The checks below are only as good as the import graph, which must include imports
    written inside functions: ``glassjax.load_ipython_extension`` imports the notebook
    layer only when IPython calls it."""
    assert "notebook.magics" in {t for t, _ in GRAPH[""]}


def test_every_module_has_a_layer():
    unplaced = sorted(m for m in MODULES if m and layer_of(m) is None)
    assert not unplaced, f"modules missing from LAYERS: {unplaced}"


def test_imports_point_only_downwards():
    def where(m, line):
        return f"glassjax/{MODULES[m].relative_to(ROOT)}:{line}"

    def name(m):
        return f"{m} ({LAYER_ORDER[layer_of(m)]})" if m else "the glassjax facade"
    placed = [m for m in sorted(MODULES) if m and layer_of(m) is not None]
    upward = [f"{where(m, line)}: {name(m)} imports {name(t)}"
              for m in placed for t, line in GRAPH[m]
              if layer_of(t) is not None and layer_of(t) > layer_of(m)]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def _describe(cycle):
    return "\n".join(f"  {m} -> {sorted({t for t, _ in GRAPH[m]} & cycle)}"
                     for m in sorted(cycle))


def test_no_import_cycles():
    assert not CYCLES, "import cycles:\n" + "\n--\n".join(map(_describe, CYCLES))


def test_readme_layer_table_is_this_one():
    """README shows the layers as this module's docstring states them (one table)."""
    readme = (ROOT.parent / "README.md").read_text()
    shown = readme.split("<!-- layers:start")[1].split("```\n")[1]
    table = __doc__[__doc__.index("    0 base"):__doc__.index("\nThe package root")]
    assert shown.rstrip("\n") == table.rstrip("\n")


def test_private_jaxlib_only_in_xla():
    """jaxlib's private ``_jax`` module is imported or named only in glassjax/xla/."""
    private = re.compile(r"jaxlib\._jax|from jaxlib import _jax|jaxlib import _jax")
    outside = sorted(m for m, path in MODULES.items()
                     if not (m == "xla" or m.startswith("xla."))
                     and private.search(path.read_text()))
    assert outside == []


def test_no_module_over_1500_lines():
    """A module a reader can hold: longer ones are split by concept."""
    long = sorted(m for m, path in MODULES.items()
                  if len(path.read_text().splitlines()) > 1500)
    assert long == []

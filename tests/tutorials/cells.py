"""JAX's own tutorials, cell by cell: extract their code cells and run them as a notebook
would, recording what each cell prints and displays.

    python tests/tutorials/cells.py extract DOCS_DIR [NAME...]  # write NAME.json files
    python tests/tutorials/cells.py run NAME [--glassjax]  # a tutorial's outputs (JSON)

The tutorials are the MyST sources of JAX 0.10.2's documentation (``docs/**/*.md`` at the
``jax-v0.10.2`` tag). ``run`` works under JAX and under glassjax alike (``import jax``
is whatever the interpreter provides, or glassjax with ``--glassjax``): recording once
under JAX 0.10.2 gives the ``.expected`` outputs the test compares with. A cell's output
is what it prints, then the ``repr`` of its last expression (what Jupyter shows), or the
exception it raised (type and first line). IPython magics (``%timeit``, ``!pip``) are
left out: they time or install, they don't compute.

Docs that are not notebooks (MyST without a ``jupytext`` header, or reStructuredText) show
their code in ````python`` fences, ``.. code-block:: python`` directives and ``>>>``
doctests; there each block is a cell, or each ``>>>`` example of a block is, in the order
of the doc, after a cell with the imports JAX's doctests assume. A block that does not
parse as Python (a sketch with ``...`` placeholders) is left out, as are shell commands
(not in Python blocks) and blocks that stop at a debugger prompt (``breakpoint()``) to
wait for a person. ``extract DOCS_DIR NAME...`` rewrites only the named tutorials.
(``export.expected`` was recorded with the optional ``flatbuffers`` importable, which
JAX's serialization needs: ``PYTHONPATH=<flatbuffers dir>``.)
"""
from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
import json
import pathlib
import re
import sys
import textwrap
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent

# The tutorials a learner of glassjax meets first (paths under docs/ at jax-v0.10.2).
TUTORIALS = {
    "key_concepts": "key-concepts.md",
    "jit_compilation": "jit-compilation.md",
    "automatic_vectorization": "automatic-vectorization.md",
    "automatic_differentiation": "automatic-differentiation.md",
    "pytrees": "pytrees.md",
    "control_flow": "control-flow.md",
    "stateful_computations": "stateful-computations.md",
    "random_numbers": "random-numbers.md",
    "jaxpr": "jaxpr.md",
    "tracing": "tracing.md",
    "thinking_in_jax": "notebooks/thinking_in_jax.md",
    "common_gotchas": "notebooks/Common_Gotchas_in_JAX.md",
    "autodiff_cookbook": "notebooks/autodiff_cookbook.md",
    "custom_derivative_rules": "notebooks/Custom_derivative_rules_for_Python_code.md",
    "custom_interpreters": "notebooks/Writing_custom_interpreters_in_Jax.md",
    "jax_primitives": "jax-primitives.md",
    "gradient_checkpointing": "gradient-checkpointing.md",
    "array_refs": "array_refs.md",
    "jacobian_vector_products": "jacobian-vector-products.md",
    "higher_order": "higher-order.md",
    "complex_differentiation": "complex-differentiation.md",
    "custom_pytrees": "custom_pytrees.md",
    "external_callbacks": "external-callbacks.md",
    "shard_map": "notebooks/shard_map.md",
    "parallel": "parallel.md",
    "autodiff_remat": "notebooks/autodiff_remat.md",
    "type_promotion": "jep/9407-type-promotion.md",
    "convolutions": "notebooks/convolutions.md",
    "vmapped_log_probs": "notebooks/vmapped_log_probs.md",
    "debugging": "debugging.md",
    "autodidax": "autodidax.md",
    "autodidax2_part1": "autodidax2_part1.md",
    "layout": "notebooks/layout.md",
    "host_offloading": "notebooks/host-offloading.md",
    # Docs whose code is in Python blocks and doctests rather than notebook cells.
    "aot": "aot.md",
    "export": "export/export.md",
    "shape_poly": "export/shape_poly.md",
    "typed_keys": "jep/9263-typed-keys.md",
    "sequencing_effects": "jep/10657-sequencing-effects.md",
    "custom_derivatives_jep": "jep/2026-custom-derivatives.md",
    "prng_jep": "jep/263-prng.md",
    "omnistaging": "jep/4410-omnistaging.md",
    "shard_map_jep": "jep/14273-shard-map.md",
    "shmap_transpose": "jep/17111-shmap-transpose.md",
    "stateful_rng": "jep/28845-stateful-rng.md",
    "remat_checkpoint_jep": "jep/11830-new-remat-checkpoint.md",
    "custom_vjp_update": "jep/4008-custom-vjp-update.md",
    "type_annotations": "jep/12049-type-annotations.md",
    "array_protocol": "jep/28661-jax-array-protocol.md",
    "checkify_guide": "debugging/checkify_guide.md",
    "print_breakpoint": "debugging/print_breakpoint.md",
    "debugging_flags": "debugging/flags.md",
    "debugging_index": "debugging/index.md",
    "xla_metadata": "debugging/xla_metadata.md",
    "buffer_donation": "buffer_donation.md",
    "async_dispatch": "async_dispatch.rst",
    "faq": "faq.rst",
    "default_dtypes": "default_dtypes.md",
    "persistent_compilation_cache": "persistent_compilation_cache.md",
    "migrate_pmap": "migrate_pmap.md",
    "training_cookbook": "the-training-cookbook.rst",
    "type_promotion_rst": "type_promotion.rst",
    "rank_promotion_warning": "rank_promotion_warning.rst",
    "transfer_guard": "transfer_guard.rst",
    "constants": "internals/constants.md",
    "numpy_api": "jax.numpy.rst",
    "random_api": "jax.random.rst",
    "multi_process": "multi_process.md",
    "jex": "jep/15856-jex.md",
    "benchmarking": "benchmarking.md",
    "nn_data_loading": "notebooks/Neural_Network_and_Data_Loading.md",
    "ffi": "ffi.md",
}

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
# A doc's Python: MyST fences, or reStructuredText's directive with its indented body.
_BLOCK = re.compile(r"^```(?:python|\{code-block\} python)[^\n]*\n(.*?)^```"
                    r"|^( *)\.\. code-block:: python *\n((?:\2 +[^\n]*\n|[ \t]*\n)*)", re.M | re.S)


def extract_cells(markdown: str) -> list[str]:
    """The code cells of a MyST notebook, without their options (``:option:`` lines or a
    YAML block between ``---`` lines) and IPython magics."""
    cells = []
    for body in _CELL.findall(markdown):
        lines = body.splitlines()
        if lines and lines[0] == "---":
            del lines[:lines.index("---", 1) + 1]
        while lines and (lines[0].startswith(":") or not lines[0].strip()):
            lines.pop(0)
        code = "\n".join(l for l in lines if not l.lstrip().startswith(("%", "!")))
        if code.strip():
            cells.append(code + "\n")
    return cells


# What JAX's doctest run gives every doc (its conftest.py's ``doctest_namespace``).
_DOCTEST_IMPORTS = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nimport numpy as np\n"


def extract_doc_cells(text: str) -> list[str]:
    """The Python blocks and ``>>>`` examples of a doc that is not a notebook, in order,
    after a cell with the imports JAX's doctests may assume."""
    cells, end = [_DOCTEST_IMPORTS], 0
    for block in _BLOCK.finditer(text):
        cells += _doctest_cells(text[end:block.start()])   # rst doctests between blocks
        body = textwrap.dedent(block[1] if block[1] is not None else block[3])
        while body.lstrip().startswith(":"):                # directive options
            body = body.lstrip().split("\n", 1)[1] if "\n" in body.lstrip() else ""
        cells += _doctest_cells(body) if re.search(r"^\s*>>>", body, re.M) else [body]
        end = block.end()
    cells += _doctest_cells(text[end:])
    code = ["\n".join(l for l in cell.splitlines()
                      if not l.lstrip().startswith(("%", "!"))).strip("\n") + "\n"
            for cell in cells]
    return [c for c in code if c.strip() and _parses(c) and "breakpoint()" not in c]


def _doctest_cells(text: str) -> list[str]:
    return [example.source for example in doctest.DocTestParser().get_examples(text)]


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
        return True
    except SyntaxError:
        return False


def run_cell(code: str, namespace: dict) -> str:
    """Run one cell as Jupyter would; its printed text and displayed value."""
    out = io.StringIO()
    try:
        tree = ast.parse(code)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(tree, "<cell>", "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval"),
                             namespace)
                if value is not None:
                    print(repr(value))
    except BaseException as e:         # noqa: BLE001 (a cell may raise anything)
        if isinstance(e, KeyboardInterrupt):
            raise
        first = (str(e).strip().splitlines() or [""])[0]
        out.write(f"!! {type(e).__name__}: {first}\n")
    return _normalize(out.getvalue())


def _normalize(text: str) -> str:
    """Object addresses, ids and timings differ run to run."""
    text = re.sub(r" at 0x[0-9a-fA-F]+", " at 0x...", text)
    text = re.sub(r"\bid=\d+", "id=...", text)
    return re.sub(r"\d+(\.\d+)? ?(ms|µs|us|ns|s) ± .*", "<timing>", text)


def run(name: str) -> list[str]:
    cells = json.loads((HERE / f"{name}.json").read_text())
    namespace = {"__name__": "__main__"}
    importlib.import_module("jax")       # (importing JAX draws from NumPy's generator)
    np.random.seed(0)                    # for tutorials that draw from it
    return [run_cell(code, namespace) for code in cells]


def main(argv):
    if argv[:1] == ["run"] and "--glassjax" in argv:
        argv.remove("--glassjax")
        import glassjax
        glassjax.as_jax()           # ``import jax`` means glassjax, as for any JAX program
    if argv[:1] == ["extract"]:
        docs, names = pathlib.Path(argv[1]), argv[2:] or list(TUTORIALS)
        for name in names:
            text = (docs / TUTORIALS[name]).read_text()
            notebook = "\njupytext:" in text[:200]
            cells = extract_cells(text) if notebook else extract_doc_cells(text)
            (HERE / f"{name}.json").write_text(json.dumps(cells, indent=1) + "\n")
            print(f"{name}: {len(cells)} cells")
    elif argv[:1] == ["run"]:
        print(json.dumps(run(argv[1]), indent=1))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except Exception:
        traceback.print_exc()
        raise SystemExit(1)

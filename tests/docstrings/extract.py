"""The ``>>>`` examples in JAX 0.10.2's API docstrings, as programs that run under JAX and
under glassjax alike, recording what each example prints and displays.

    python tests/docstrings/extract.py extract        # under JAX: write tests/docstrings/*.json
    python tests/docstrings/extract.py run MODULE... [--glassjax]   # outputs (JSON)

``extract`` walks JAX's public modules (``MODULES``) for public functions and classes
(and a class's own methods and properties), parses each docstring with
``doctest.DocTestParser`` and records each example's output under JAX into
``MODULE.json``. The examples of one docstring share a namespace, which starts as a
doctest of JAX starts it: the names of the module (doctest's globals; here the public
names of the public module, which glassjax has too), then what JAX's doctest conftest
adds (``jax``, ``jnp``, ``lax``, ``np``). An example's output is
what doctest compares: what it prints, and the ``repr`` of an expression statement's
value; or the exception it raised (type and first line).

Some examples cannot be recorded once and compared forever. Those that need a GPU or
TPU, or time something, are left out (and don't run). Those that print something that
changes from run to run (NumPy's unseeded generator, object ids) run, since later
examples may use what they define, but their output is not compared: ``extract`` runs
every module twice and keeps ``None`` as the output of an example whose two runs
disagree. The counts of both are in ``summary.json``.
"""
from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tutorials"))
from cells import _normalize  # noqa: E402

MODULES = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.lax.linalg",
    "jax.nn", "jax.nn.initializers", "jax.random", "jax.image", "jax.ops", "jax.tree",
    "jax.tree_util", "jax.debug", "jax.export", "jax.sharding", "jax.dtypes",
    "jax.custom_derivatives", "jax.profiler", "jax.distributed", "jax.ref", "jax.errors",
    "jax.api_util", "jax.flatten_util", "jax.stages", "jax.ffi",
    "jax.experimental.multihost_utils", "jax.experimental.shard_map",
    "jax.scipy.cluster.vq", "jax.scipy.fft", "jax.scipy.integrate", "jax.scipy.interpolate",
    "jax.scipy.linalg", "jax.scipy.ndimage", "jax.scipy.optimize", "jax.scipy.signal",
    "jax.scipy.sparse.linalg", "jax.scipy.spatial.transform", "jax.scipy.special",
    "jax.scipy.stats", "jax.scipy.stats.poisson",
]

PRELUDE = "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"

# Left out, with why: a word in the example's source that says it can't be replayed.
LEAVE_OUT = [
    (r"\b(gpu|tpu|cuda|rocm|cudnn|pallas|triton)", "needs a GPU or TPU"),
    (r"\btime\.(time|perf_counter)|timeit", "timing"),
    (r"distributed\.initialize", "needs several processes"),
    (r"profiler\.(start_server|start_trace|trace)|/tmp/", "writes profiles or files"),
]

TIMEOUT = 30     # CPU seconds per example (wall time depends on the machine's load)


def _public(module):
    names = getattr(module, "__all__", None) or dir(module)
    return sorted(n for n in names if not n.startswith("_"))


def docstrings(module_name: str, seen: set):
    """(qualified name, docstring) of the public objects of a module not seen before."""
    module = importlib.import_module(module_name)
    for name in _public(module):
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj):
            continue
        members = [(f"{module_name}.{name}", obj)]
        if inspect.isclass(obj):
            members += [(f"{module_name}.{name}.{k}", v) for k, v in sorted(vars(obj).items())
                        if not k.startswith("_")]
        for qualname, member in members:
            doc = member.__doc__ if isinstance(getattr(member, "__doc__", None), str) else None
            if doc and ">>>" in doc and doc not in seen:
                seen.add(doc)
                yield qualname, doc


def leave_out(source: str, options: dict) -> str | None:
    """Why an example can't be replayed (None if it can)."""
    if options.get(doctest.SKIP):
        return "marked +SKIP in the docstring"
    for pattern, reason in LEAVE_OUT:
        if re.search(pattern, source, re.I):
            return reason
    return None


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout(f"example used more than {TIMEOUT}s of CPU time")


def run_example(source: str, namespace: dict) -> str:
    """Run one example as doctest does: statements one by one in 'single' mode, so the
    value of an expression statement is displayed."""
    out = io.StringIO()
    signal.setitimer(signal.ITIMER_PROF, TIMEOUT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(source, "<doctest>", "single"), namespace)
    except BaseException as e:         # noqa: BLE001 (an example may raise anything)
        if isinstance(e, KeyboardInterrupt):
            raise
        first = (str(e).strip().splitlines() or [""])[0]
        out.write(f"!! {type(e).__name__}: {first}\n")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return _normalize(out.getvalue())


def run_program(names: dict, sources: list[str]) -> list[str]:
    """The outputs of one docstring's examples, in a fresh namespace (``names`` and the
    prelude); configuration and NumPy's print options are put back afterwards (some
    examples change them)."""
    import jax
    import numpy as np
    config, printoptions = dict(jax.config.values), np.get_printoptions()
    namespace = dict(names, __name__="__main__")
    exec(PRELUDE, namespace)
    try:
        return [run_example(s, namespace) for s in sources]
    finally:
        for k, v in config.items():
            if jax.config.values.get(k) != v:
                jax.config.update(k, v)
        np.set_printoptions(**printoptions)


def run(part: str) -> list[list[str]]:
    """The outputs of a module's docstrings; ``MODULE@I/N`` runs every N-th docstring from
    the I-th on (so that a big module can be split across processes)."""
    module_name, _, share = part.partition("@")
    corpus = json.loads((HERE / f"{module_name}.json").read_text())["docstrings"]
    if share:
        i, n = map(int, share.split("/"))
        corpus = corpus[i::n]
    try:
        module = importlib.import_module(module_name)
        names = {n: getattr(module, n) for n in _public(module) if hasattr(module, n)}
    except ImportError:      # (a module glassjax lacks: its examples fail, as they should)
        names = {}
    return [run_program(names, [source for source, _ in d["examples"]]) for d in corpus]


def _run_under_jax(module_name: str) -> list[list[str]]:
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8",
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, __file__, "run", module_name], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)[module_name]


def extract():
    parser, seen, summary = doctest.DocTestParser(), set(), {}
    for module_name in MODULES:
        corpus, left_out = [], {}
        for name, doc in docstrings(module_name, seen):
            examples = []
            for ex in parser.get_examples(doc):
                reason = leave_out(ex.source, ex.options)
                if reason:
                    left_out[reason] = left_out.get(reason, 0) + 1
                else:
                    examples.append([ex.source, None])
            if examples:
                corpus.append({"name": name, "examples": examples})
        if not corpus:
            continue
        path = HERE / f"{module_name}.json"
        path.write_text(json.dumps({"docstrings": corpus}))
        first, second = _run_under_jax(module_name), _run_under_jax(module_name)
        unstable = 0
        for d, a, b in zip(corpus, first, second):
            for example, out_a, out_b in zip(d["examples"], a, b):
                example[1] = out_a if out_a == out_b else None
                unstable += out_a != out_b
        if unstable:
            left_out["output differs run to run (not compared)"] = unstable
        path.write_text("{\"docstrings\": [\n" + ",\n".join(
            json.dumps(d) for d in corpus) + "\n]}\n")
        compared = sum(out is not None for d in corpus for _, out in d["examples"])
        summary[module_name] = {"docstrings": len(corpus), "examples": compared,
                                "left out": left_out}
        print(module_name, summary[module_name], flush=True)
    (HERE / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")


def main(argv):
    if argv[:1] == ["run"] and "--glassjax" in argv:
        argv.remove("--glassjax")
        import glassjax
        glassjax.as_jax()           # ``import jax`` means glassjax, as for any JAX program
    if argv[:1] == ["extract"]:
        extract()
    elif argv[:1] == ["run"]:
        os.chdir(tempfile.mkdtemp())       # (some examples save files)
        signal.signal(signal.SIGPROF, _alarm)
        print(json.dumps({part: run(part) for part in argv[1:]}))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

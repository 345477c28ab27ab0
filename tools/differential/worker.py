"""Run programs (or mistake scripts) under one implementation and print one JSON line
per case. Started by ``run.py`` with the Python of the implementation's environment:

    python tools/differential/worker.py IMPL CASES.json START

``IMPL`` is ``jax`` or ``glassjax`` (imported as ``jax``); each case is
``{"kind": "program"|"mistake", "source": ...}``. Before each case the worker prints
``{"start": i}``, so that if the process dies (a segmentation fault) the runner knows
which case killed it and starts a new worker after it.
"""
import importlib
import json
import math
import os
import sys
import warnings

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
warnings.simplefilter("ignore")

import numpy as np  # noqa: E402


def _error(err) -> str:
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"


def _leaf(x) -> dict:
    if type(x) in (bool, int, float, complex):     # a Python scalar passed through
        return {"shape": [], "dtype": f"python {type(x).__name__}", "weak_type": True,
                "value": [x if not isinstance(x, complex) else [x.real, x.imag]]}
    value = np.asarray(x)
    if value.dtype.kind == "V" or str(value.dtype) in ("bfloat16", "float16"):
        value = value.astype(np.float32)
    flat = [None if isinstance(v, float) and math.isnan(v) else
            (("inf" if v > 0 else "-inf") if isinstance(v, float) and math.isinf(v) else v)
            for v in value.ravel().tolist()]
    return {"shape": list(np.shape(x)), "dtype": str(x.dtype),
            "weak_type": bool(getattr(x, "weak_type", False)), "value": flat}


def run_program(jax, namespace_base, source) -> dict:
    ns = dict(namespace_base)
    try:
        exec(source, ns)
    except Exception as err:           # noqa: BLE001 - a broken program is a result too
        return {"error": _error(err), "stage": "define"}
    g, args = ns["g"], ns["args"]
    result = {}
    try:
        result["jaxpr"] = str(jax.make_jaxpr(g)(*args))
    except Exception as err:           # noqa: BLE001
        return {"error": _error(err), "stage": "trace"}
    try:
        out = g(*args)
        result["outs"] = [_leaf(x) for x in jax.tree_util.tree_leaves(out)]
    except Exception as err:           # noqa: BLE001
        return {"error": _error(err), "stage": "run"}
    return result


def run_mistake(namespace_base, source) -> dict:
    ns = dict(namespace_base)
    try:
        exec(source, ns)
    except Exception as err:           # noqa: BLE001
        return {"error": _error(err)}
    return {"error": None}


def main():
    impl, cases_file, start = sys.argv[1], sys.argv[2], int(sys.argv[3])
    jax = importlib.import_module(impl)
    base = {"jax": jax, "jnp": importlib.import_module(impl + ".numpy"),
            "lax": importlib.import_module(impl + ".lax"), "np": np}
    importlib.import_module(impl + ".nn")
    with open(cases_file) as f:
        cases = json.load(f)
    for i in range(start, len(cases)):
        print(json.dumps({"start": i}), flush=True)
        case = cases[i]
        result = (run_program(jax, base, case["source"]) if case["kind"] == "program"
                  else run_mistake(base, case["source"]))
        print(json.dumps({"index": i, "result": result}), flush=True)


if __name__ == "__main__":
    main()

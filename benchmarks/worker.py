"""Runs benchmark cases with one implementation and prints their timings as JSON.

Usage: ``python worker.py IMPL CASE [CASE ...]`` where IMPL is ``glassjax`` or ``jax``.
Each case is timed over a few samples of many repetitions; the per-repetition time of
every sample is reported, and the parent takes medians.
"""
import importlib
import json
import sys
import time

import cases


def main():
    impl, names = sys.argv[1], sys.argv[2:]
    jax = importlib.import_module(impl)
    importlib.import_module(impl + ".numpy")
    results = {}
    for name in names:
        case, reps = cases.CASES[name]
        rep = case(jax)
        if rep is None:                             # (a case of the other library only)
            continue
        rep()                                       # warm-up outside the samples
        samples = []
        for _ in range(cases.SAMPLES):
            start = time.perf_counter()
            for _ in range(reps):
                out = rep()
            if hasattr(out, "block_until_ready"):
                out.block_until_ready()
            samples.append((time.perf_counter() - start) / reps)
        results[name] = samples
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()

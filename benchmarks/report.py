"""Turn a benchmark run into the README's table and a plot of time against size.

    python benchmarks/report.py [--results benchmarks/results/latest.json] [--readme README.md]

The table between the README's ``<!-- benchmarks:start -->`` and ``<!-- benchmarks:end -->``
markers is rewritten from the results file (never typed by hand), and cases named
``<stage>_<size>`` (``print_1k``, ``print_10k``, ...) are drawn as time against size for
both libraries in ``benchmarks/results/scaling.png`` (when matplotlib is installed).
The explorer's and memory's tables come from ``explorer.json`` and ``memory.json`` next to
the results file, when those benchmarks have run.
"""
import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
_SIZE = re.compile(r"^(?P<stage>\w+?)_(?P<n>\d+)(?P<unit>k?)$")

sys.path.insert(0, str(HERE))
import cases  # noqa: E402
import memory_bench  # noqa: E402


def fmt(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def describe(name: str) -> str:
    """A case's one-line description: the first line of its docstring."""
    if name == "import":
        return "import"
    case = cases.CASES[name][0] if name in cases.CASES else None
    doc = (case.__doc__ or name) if case else name
    return doc.strip().splitlines()[0].rstrip(".")


def table(results: dict) -> str:
    medians = results["medians"]
    glassjax, jax = medians["glassjax"], medians.get("jax", {})
    lines = ["| case | glassjax | JAX 0.10.2 | ratio |", "|---|---|---|---|"]
    for name, g in glassjax.items():
        j = jax.get(name)
        ratio = f"{g / j:.2f}" if j else "-"
        lines.append(f"| {describe(name)} (`{name}`) | {fmt(g)} | "
                     f"{fmt(j) if j else '-'} | {ratio} |")
    for name, seconds in results.get("differences", {}).items():
        case, baseline, limit = cases.DIFFERENCES[name]
        lines.append(f"| `{case}` less `{baseline}` (`{name}`, target <= {fmt(limit)}) | "
                     f"{fmt(seconds)} | - | - |")
    lines.append("")
    lines.append(f"Medians of {results['rounds']} alternating rounds; ratio is glassjax / "
                 "JAX (below 1: glassjax is faster). Regenerate with `make bench`.")
    return "\n".join(lines)


def explorer_table(results: dict) -> str:
    """``explorer_bench.py``'s numbers: kernel time to display big jaxprs, first paint."""
    lines = ["| explorer | time | target |", "|---|---|---|"]
    targets = {1_000: 0.3, 10_000: 1.0, 100_000: 5.0}
    for n, seconds in results["kernel_s"].items():
        target = min((t for size, t in targets.items() if int(n) <= size), default=None)
        lines.append(f"| kernel: display of a {int(n):,}-equation jaxpr | {fmt(seconds)} | "
                     f"{'< ' + fmt(target) if target else '-'} |")
    paint = results.get("browser_first_paint_10k_s")
    if paint is not None:
        lines.append(f"| browser: first paint of a 10,000-equation jaxpr | {fmt(paint)} | "
                     "< 1.00 s |")
    return "\n".join(lines)


def memory_table(results: dict) -> str:
    """``memory_bench.py``'s numbers: peak and retained Python memory, both libraries."""
    glassjax, jax = results["glassjax"], results.get("jax", {})
    rows = {"trace_peak": "peak while tracing",
            "retained_per_eqn": "kept by the jaxpr, per equation",
            "print_peak": "peak while printing (`str`)"}
    lines = ["| program | memory | glassjax | JAX 0.10.2 | ratio |", "|---|---|---|---|---|"]
    for name, g in glassjax.items():
        j = jax.get(name, {})
        program = memory_bench.CASES[name][0].__doc__.splitlines()[0].rstrip(".")
        for key, what in rows.items():
            ratio = f"{g[key] / j[key]:.2f}" if key in j else "-"
            lines.append(f"| {program}, {g['equations']:,} equations (`{name}`) | {what} | "
                         f"{_bytes(g[key])} | {_bytes(j[key]) if key in j else '-'} | {ratio} |")
    return "\n".join(lines)


def _bytes(n: float) -> str:
    return f"{n / 1e6:.2f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e4 else f"{n:.0f} B"


def update_readme(readme: Path, text: str, start=START, end=END) -> None:
    content = readme.read_text()
    if start not in content or end not in content:
        raise SystemExit(f"{readme} has no {start} ... {end} block")
    before, rest = content.split(start, 1)
    _, after = rest.split(end, 1)
    readme.write_text(f"{before}{start}\n{text}\n{end}{after}")


def scaling_plot(results: dict, path: Path) -> bool:
    """Time against size, one line per (stage, library); False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    series = {}
    for impl, medians in results["medians"].items():
        for name, seconds in medians.items():
            m = _SIZE.match(name)
            if m:
                n = int(m["n"]) * (1000 if m["unit"] else 1)
                series.setdefault((m["stage"], impl), []).append((n, seconds))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(6, 4))
    for (stage, impl), points in sorted(series.items()):
        xs, ys = zip(*sorted(points))
        ax.plot(xs, ys, marker="o", linestyle="-" if impl == "glassjax" else "--",
                label=f"{stage} ({impl})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("equations")
    ax.set_ylabel("seconds")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default=str(HERE / "results" / "latest.json"))
    parser.add_argument("--readme", default=str(HERE.parent / "README.md"))
    args = parser.parse_args()
    results = json.loads(Path(args.results).read_text())
    update_readme(Path(args.readme), table(results))
    print(f"updated the benchmark table in {args.readme}")
    explorer = Path(args.results).with_name("explorer.json")
    if explorer.exists():
        update_readme(Path(args.readme), explorer_table(json.loads(explorer.read_text())),
                      "<!-- explorer-bench:start -->", "<!-- explorer-bench:end -->")
    memory = Path(args.results).with_name("memory.json")
    if memory.exists():
        update_readme(Path(args.readme), memory_table(json.loads(memory.read_text())),
                      "<!-- memory-bench:start -->", "<!-- memory-bench:end -->")
    png = Path(args.results).with_name("scaling.png")
    if scaling_plot(results, png):
        print(f"wrote {png}")


if __name__ == "__main__":
    main()

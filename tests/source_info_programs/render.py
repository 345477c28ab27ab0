"""Run a program of this directory and print its jaxprs with their source info, in the
``NAME.expected`` format that tests/test_source_info.py compares. Run this file with JAX
0.10.2's Python to record the expected text of the named programs (all by default) again:
``make record CORPORA=source_info_programs`` (tests/record.py)."""
import pathlib
import sys

PROGRAMS = pathlib.Path(__file__).parent
CASES = sorted(p.stem for p in PROGRAMS.glob("*.py") if p.stem != "render")
FLAGS = {"both": dict(source_info=True, name_stack=True),
         "source_info": dict(source_info=True),
         "name_stack": dict(name_stack=True)}


def render(name: str, package: str = "glassjax") -> str:
    """Run program ``name`` with ``package`` as its jax (compiled with its own file name,
    so its frames are the user's) and print its jaxprs: each with both flags, the first
    with each flag alone too. The directory is written ``DIR``."""
    path = PROGRAMS / f"{name}.py"
    source = path.read_text().replace("glassjax", package)
    namespace = {"__name__": f"source_info_programs.{name}"}
    exec(compile(source, str(path), "exec"), namespace)
    jaxprs = [(k, v) for k, v in namespace.items() if k.endswith("jaxpr")]
    blocks = []
    for i, (var, jaxpr) in enumerate(jaxprs):
        for flag in (FLAGS if i == 0 else ["both"]):
            text = jaxpr.pretty_print(**FLAGS[flag], use_color=False)
            blocks.append(f"== {var} {flag}\n{text.replace(str(PROGRAMS), 'DIR')}\n")
    return "".join(blocks)


if __name__ == "__main__":
    for case in sys.argv[1:] or CASES:
        (PROGRAMS / f"{case}.expected").write_text(render(case, package="jax"))
        print("recorded", case)

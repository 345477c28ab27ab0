"""Bundle the front-end sources into the package: ``python extension/build.py``.

glassjax's front end is plain CSS used by its HTML outputs and by the explorer, which is
built from stock ipywidgets (so it needs no JavaScript of its own and works wherever
ipywidgets works). The sources in ``extension/src`` are concatenated, in name order, into
``glassjax/notebook/static/glassjax.css`` with comments and spacing removed (every
HTML output carries the styles, so they are kept small), which ships inside the wheel
(``[tool.setuptools.package-data]``) and is read by ``glassjax/notebook/display.py``.
``--check`` only reports whether the bundle is up to date (the tests run it).
"""
from __future__ import annotations

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = HERE / "src"
BUNDLE = HERE.parent / "glassjax" / "notebook" / "static" / "glassjax.css"
HEADER = "/* Built by extension/build.py from extension/src; do not edit. */\n"


def minify(css: str) -> str:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    return re.sub(r"\s*([{};:,])\s*", r"\1", css).strip()


def bundle() -> str:
    parts = [minify(p.read_text(encoding="utf-8")) for p in sorted(SOURCES.glob("*.css"))]
    return HEADER + "\n".join(parts) + "\n"


def main(argv) -> int:
    text = bundle()
    if "--check" in argv:
        current = BUNDLE.read_text(encoding="utf-8") if BUNDLE.exists() else None
        if current != text:
            print(f"{BUNDLE} is out of date: run python extension/build.py")
            return 1
        return 0
    BUNDLE.write_text(text, encoding="utf-8")
    print(f"wrote {BUNDLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

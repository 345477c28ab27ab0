"""Bundle the front-end sources into the package: ``python extension/build.py``.

Two products, both shipped inside the wheel (``[tool.setuptools.package-data]``):

* ``glassjax.css``: the styles of glassjax's HTML outputs and of the explorer's panels,
  the static CSS sources concatenated in name order with comments and spacing removed
  (every HTML output carries them, so they are kept small); read by ``display.py``.
* ``graph_widget.js`` and ``graph_widget.css``: the graph explorer, an anywidget front end
  (``glassjax/notebook/explorer.py`` loads them). It is one plain ES module with no
  imports, so no bundler is needed: the files are copied with a header, unminified, so
  that a learner can read what runs in the browser.

``--check`` only reports whether the built files are up to date (the tests run it).
"""
from __future__ import annotations

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = HERE / "src"
STATIC = HERE.parent / "glassjax" / "notebook" / "static"
WIDGET = ("graph_widget.js", "graph_widget.css")


def header(comment: str) -> str:
    return comment.format("Built by extension/build.py from extension/src; do not edit.")


def minify(css: str) -> str:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    return re.sub(r"\s*([{};:,])\s*", r"\1", css).strip()


def products() -> dict[str, str]:
    """File name in ``static/`` -> its text."""
    styles = [minify(p.read_text(encoding="utf-8")) for p in sorted(SOURCES.glob("*.css"))
              if p.name not in WIDGET]
    out = {"glassjax.css": header("/* {} */\n") + "\n".join(styles) + "\n"}
    for name in WIDGET:
        comment = "// {}\n" if name.endswith(".js") else "/* {} */\n"
        out[name] = header(comment) + (SOURCES / name).read_text(encoding="utf-8")
    return out


def main(argv) -> int:
    stale = []
    for name, text in products().items():
        path = STATIC / name
        if "--check" in argv:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    for name in stale:
        print(f"{STATIC / name} is out of date: run python extension/build.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

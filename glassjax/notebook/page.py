"""The pieces every notebook output is made of: the ``.glassjax`` box that carries the
styles, sections, code blocks and error boxes.

The styles live in ``static/glassjax.css`` (built from ``extension/``) and travel
inside each output, so saved notebooks look the same anywhere, offline too. Text given
to these helpers is HTML-escaped; ``wrap`` takes HTML that is already escaped.
"""
from __future__ import annotations

import html
import importlib.resources

from glassjax import caches


@caches.lru("notebook.page.css", None, why="one stylesheet")
def css() -> str:
    return (importlib.resources.files("glassjax.notebook") / "static" /
            "glassjax.css").read_text(encoding="utf-8")


def wrap(*parts: str) -> str:
    """One output's HTML: its parts in a ``.glassjax`` box that carries the styles."""
    return f'<div class="glassjax"><style>{css()}</style>{"".join(parts)}</div>'


def section(title: str, body: str) -> str:
    return (f'<div class="gj-section"><div class="gj-title">{html.escape(title)}</div>'
            f'{body}</div>')


# A text longer than this is shown in a box that scrolls, so that no output is taller
# than a screen unless the reader asks for all of it.
FOLD_LINES = 40


def folded(block: str, n_lines: int) -> str:
    """A text's block (a ``<pre>``): past ``FOLD_LINES`` lines, in a scrolled box under a
    "N lines: show all" switch. The switch is a ``<details>`` element whose opening
    the styles turn into an unbounded box: no script, so it works in saved outputs."""
    if n_lines <= FOLD_LINES:
        return block
    return (f'<div class="gj-fold"><details><summary>{n_lines:,} lines: show all'
            f'</summary></details>{block}</div>')


def pre(text: str, cls: str = "gj-code") -> str:
    return folded(f'<pre class="{cls}">{html.escape(text)}</pre>', text.count("\n") + 1)


def saved_view(*parts: str) -> str:
    """The static rendering carried beside a widget in its output: what nbconvert,
    GitHub and a front end without the widget's kernel show, under a notice that the
    live view needs the cell to run again."""
    return ('<div class="gj-saved"><div class="gj-saved-note">saved view: run the cell '
            f'to explore</div>{"".join(parts)}</div>')


def error_box(message: str) -> str:
    return f'<div class="gj-error">{html.escape(message)}</div>'

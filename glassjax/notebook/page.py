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


def pre(text: str, cls: str = "gj-code") -> str:
    return f'<pre class="{cls}">{html.escape(text)}</pre>'


def error_box(message: str) -> str:
    return f'<div class="gj-error">{html.escape(message)}</div>'

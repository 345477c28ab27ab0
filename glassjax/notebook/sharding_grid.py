"""``visualize_sharding``'s grid in a notebook: an HTML table, one cell per piece.

The layout is the one ``debug.ShardingGrid`` computes for text (column widths in
characters, row heights in lines), so the notebook picture has the proportions of the
printed one; cells are coloured as JAX colours them (unless ``use_color=False``, or
without matplotlib, when they get borders as in the text). Labels are HTML-escaped.

``%load_ext glassjax`` routes ``visualize_sharding`` / ``visualize_array_sharding`` here
(``debug.set_grid_display``); without it they print text.
"""
from __future__ import annotations

import html

from glassjax.debug import ShardingGrid
from glassjax.notebook.page import wrap


def shards(x) -> list:
    """The per-device pieces of an array that lives on several devices, else []."""
    pieces = getattr(x, "addressable_shards", None) or []
    return pieces if len(pieces) > 1 else []


def grid_table(grid: ShardingGrid) -> str:
    """The grid as a bare ``<table>`` (to place inside another output)."""
    widths = grid.column_widths()
    colors = grid.colors() if grid.use_color else None
    border = "none" if colors else "1px solid currentColor"
    rows = []
    for i, row in enumerate(grid.rows):
        height = max(len(grid.cell_lines(cell, width)) for cell, width in zip(row, widths))
        cells = []
        for j, (cell, width) in enumerate(zip(row, widths)):
            style = (f"width:{width}ch;height:{1.2 * height:.1f}em;border:{border};"
                     "text-align:center;vertical-align:middle;padding:0;")
            if colors:
                background, text = colors[i][j]
                style += f"background:{background};color:{text};"
            devices = ", ".join(map(str, cell.device_ids))
            cells.append(f'<td style="{style}" title="devices {html.escape(devices)}">'
                         f"{html.escape(cell.label)}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return ('<table class="gj-sharding" style="border-collapse:collapse;'
            f'font-family:monospace;table-layout:fixed">{"".join(rows)}</table>')


def grid_html(grid: ShardingGrid) -> str:
    """The grid as one notebook output, styles included."""
    return wrap(grid_table(grid))


def grid_mimebundle(grid: ShardingGrid) -> dict:
    return {"text/plain": str(grid), "text/html": grid_html(grid)}

"""``glassjax.experimental.layout``: array layouts (see ``glassjax/layout.py``)."""
from glassjax.layout import Format, Layout

__all__ = ["Format", "Layout"]

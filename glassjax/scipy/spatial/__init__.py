"""``glassjax.scipy.spatial``: rotations in 3-D (``transform``)."""
from glassjax.scipy.spatial import transform

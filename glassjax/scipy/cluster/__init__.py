"""``glassjax.scipy.cluster``: vector quantization (``vq``)."""
from glassjax.scipy.cluster import vq

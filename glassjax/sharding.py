"""``glassjax.sharding``: how an array is placed on devices. glassjax places every array
on one device (``SingleDeviceSharding``) or splits/replicates it over several
(``GSPMDSharding``, for pmap); both are jaxlib's C++ classes with methods from
``xla/runtime.py``."""
from glassjax.xla.runtime import GSPMDSharding, Sharding, SingleDeviceSharding

__all__ = ["GSPMDSharding", "Sharding", "SingleDeviceSharding"]

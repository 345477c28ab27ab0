"""``glassjax.sharding``: how an array is placed on devices. glassjax places every array
on one device (``SingleDeviceSharding``) or splits/replicates it over several
(``GSPMDSharding``, for pmap); both are jaxlib's C++ classes with methods from
``xla/runtime.py``. Meshes and partition specs come from ``mesh.py``."""
from glassjax.mesh import AbstractMesh, AxisType, Mesh, PartitionSpec, get_abstract_mesh
from glassjax.xla.runtime import GSPMDSharding, Sharding, SingleDeviceSharding

__all__ = ["AbstractMesh", "AxisType", "GSPMDSharding", "Mesh", "PartitionSpec",
           "Sharding", "SingleDeviceSharding", "get_abstract_mesh"]

"""``glassjax.sharding``: how an array is placed on devices.

An array lives on one device (``SingleDeviceSharding``) or is laid out over a mesh of
devices by a partition spec (``NamedSharding(mesh, P(...))``); XLA may report layouts
no spec can say as ``GSPMDSharding`` (a tile grid). All three are jaxlib's C++ classes
with methods from ``xla/runtime.py`` and ``named_sharding.py``. Meshes and partition
specs come from ``mesh.py``; ``reshard`` (a value moved to another layout, its type's
split on a mesh of Explicit axes) from ``lax/sharding_constraint.py``."""
from glassjax.mesh import (AbstractMesh, AxisType, Mesh, PartitionSpec, get_abstract_mesh,
                           get_mesh, set_mesh)
from glassjax.lax.sharding_constraint import reshard
from glassjax.named_sharding import NamedSharding
from glassjax.xla.runtime import GSPMDSharding, Sharding, SingleDeviceSharding


def make_single_device_sharding(device, memory_kind=None):
    return SingleDeviceSharding(device, memory_kind=memory_kind)


__all__ = ["AbstractMesh", "AxisType", "GSPMDSharding", "Mesh", "NamedSharding",
           "PartitionSpec", "Sharding", "SingleDeviceSharding", "get_abstract_mesh",
           "get_mesh", "make_single_device_sharding", "reshard", "set_mesh"]

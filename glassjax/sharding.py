"""``glassjax.sharding``: how an array is placed on devices.

An array lives on one device (``SingleDeviceSharding``) or is laid out over a mesh of
devices by a partition spec (``NamedSharding(mesh, P(...))``); XLA may report layouts
no spec can say as ``GSPMDSharding`` (a tile grid). All three are jaxlib's C++ classes
with methods from ``xla/runtime.py`` and ``named_sharding.py``. Meshes, partition specs
and abstract meshes come from ``mesh.py``; ``reshard`` from
``lax/sharding_constraint.py``; ``auto_axes`` / ``explicit_axes`` from ``axis_modes.py``."""
import numpy as np

from glassjax.axis_modes import auto_axes, explicit_axes
from glassjax.core import ManualAxisType
from glassjax.lax.sharding_constraint import reshard
from glassjax import mesh as _mesh
from glassjax.mesh import (AbstractDevice, AbstractMesh, AxisType, Mesh, PartitionSpec,
                           get_abstract_mesh, set_mesh, use_abstract_mesh)
from glassjax.named_sharding import NamedSharding
from glassjax.xla.runtime import GSPMDSharding, Sharding, SingleDeviceSharding


def get_mesh() -> Mesh:
    """The mesh of the innermost ``set_mesh`` (an empty ``Mesh()`` when there is none)."""
    mesh = _mesh.get_mesh()
    return Mesh(np.empty((), dtype=object), ()) if mesh is None else mesh


def make_single_device_sharding(device, memory_kind=None):
    return SingleDeviceSharding(device, memory_kind=memory_kind)


__all__ = ["AbstractDevice", "AbstractMesh", "AxisType", "GSPMDSharding", "ManualAxisType",
           "Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding",
           "auto_axes", "explicit_axes", "get_abstract_mesh", "get_mesh",
           "make_single_device_sharding", "reshard", "set_mesh", "use_abstract_mesh"]

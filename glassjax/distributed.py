"""``glassjax.distributed``: one program, several processes (JAX's multi-controller model).

Every process runs the same Python program and owns some devices; together they see
all devices: ``glassjax.devices()`` lists every process's devices, ``local_devices()``
this process's, and a global array keeps on each process only the pieces its own devices
hold. A computation over such arrays is compiled by every process for the same global
device assignment, and XLA's collectives exchange data between the processes.

The machinery is jaxlib's own, as in JAX:

* process 0 runs the *coordination service* (a gRPC server at ``coordinator_address``);
* every process connects a *distributed-runtime client* to it. The clients agree on who
  is there, share a key-value store, and watch each other's heartbeats, so that a
  process that dies takes the others down instead of leaving them waiting forever;
* the CPU client is then created knowing its node id and the number of nodes: it
  publishes its devices through the key-value store and learns everybody else's (remote
  devices get ids from 2048 on per process), and CPU collectives run over Gloo (TCP)
  connections that the processes set up through the same store.

That is why ``initialize`` must run before anything creates the client (the first
``devices()``, ``device_put`` or computation): the client is made once, for the whole
run.
"""
from __future__ import annotations

import atexit
import os
from typing import Sequence

from glassjax.xla import distributed_runtime, runtime


class State:
    """The distributed runtime of this process: None/defaults until ``initialize``."""
    process_id: int = 0
    num_processes: int = 1
    service = None          # the coordination service (process 0 only)
    client = None           # this process's connection to it
    coordinator_address: str | None = None

    def initialize(self, coordinator_address, num_processes, process_id,
                   initialization_timeout, coordinator_bind_address,
                   heartbeat_timeout_seconds, shutdown_timeout_seconds):
        coordinator_address = (coordinator_address or
                               os.environ.get("JAX_COORDINATOR_ADDRESS"))
        if coordinator_address is None:
            raise ValueError("coordinator_address should be defined.")
        if num_processes is None:
            raise ValueError("Number of processes must be defined.")
        if process_id is None:
            raise ValueError("The process id of the current process must be defined.")
        if not isinstance(process_id, int):
            raise TypeError("process_id must be a nonnegative int. "
                            f"Got process_id={process_id} of type {type(process_id)}.")
        if not isinstance(num_processes, int):
            raise TypeError("num_processes must be a positive int. Got "
                            f"num_processes={num_processes} of type {type(num_processes)}.")
        if not 0 <= process_id < num_processes:
            raise ValueError("process_id and num_processes must be nonnegative, with "
                             "process_id < num_processes. Got "
                             f"process_id={process_id}, num_processes={num_processes}.")
        # By default the service listens on every interface, at the coordinator's port.
        port = coordinator_address.rsplit(":", 1)[1]
        coordinator_bind_address = (coordinator_bind_address or
                                    os.environ.get("JAX_COORDINATOR_BIND_ADDRESS",
                                                   f"[::]:{port}"))
        self.coordinator_address = coordinator_address
        self.process_id = process_id
        if process_id == 0:
            if self.service is not None:
                raise RuntimeError("distributed.initialize should only be called once.")
            self.service = distributed_runtime.service(
                coordinator_bind_address, num_processes,
                heartbeat_timeout=heartbeat_timeout_seconds,
                shutdown_timeout=shutdown_timeout_seconds)
        self.num_processes = num_processes
        if self.client is not None:
            raise RuntimeError("distributed.initialize should only be called once.")
        self.client = distributed_runtime.client(
            coordinator_address, process_id, init_timeout=initialization_timeout,
            heartbeat_timeout=heartbeat_timeout_seconds, use_compression=True)
        self.client.connect()           # waits until all processes have connected
        runtime.set_cpu_client_options(
            distributed_client=self.client, node_id=process_id, num_nodes=num_processes,
            collectives=distributed_runtime.gloo_collectives(self.client))

    def shutdown(self):
        """Disconnect (waiting, up to the shutdown timeout, for the other processes to
        disconnect too), then stop the service."""
        if self.client is not None:
            self.client.shutdown()
            self.client = None
        if self.service is not None:
            self.service.shutdown()
            self.service = None


global_state = State()


def initialize(coordinator_address: str | None = None,
               num_processes: int | None = None,
               process_id: int | None = None,
               local_device_ids: int | Sequence[int] | None = None,
               cluster_detection_method: str | None = None,
               initialization_timeout: int = 300,
               heartbeat_timeout_seconds: int = 100,
               shutdown_timeout_seconds: int = 300,
               coordinator_bind_address: str | None = None,
               slice_index: int | None = None,
               partition_index: int | None = None):
    """Join this process to a multi-process run; call it first, in every process.

    ``coordinator_address`` (``"host:port"``, or ``$JAX_COORDINATOR_ADDRESS``) is where
    process 0 serves the coordination service; ``num_processes`` processes with ids
    ``process_id`` = 0 .. num_processes-1 connect to it. ``initialization_timeout``
    bounds the wait for all processes to connect, ``heartbeat_timeout_seconds`` how long
    a silent process is presumed alive, ``shutdown_timeout_seconds`` how long
    ``shutdown`` waits for the others.

    glassjax knows no cluster managers (Slurm, MPI, TPU pods), so the three
    arguments above are required, and ``local_device_ids``, which restricts the visible
    GPUs in JAX, has nothing to restrict on the CPU. ``slice_index``/``partition_index``
    (TPU slices) are accepted and unused.

    Raises RuntimeError if called twice, or after the backends were initialized."""
    del local_device_ids, cluster_detection_method, slice_index, partition_index
    if runtime.backends_are_initialized():
        raise RuntimeError("jax.distributed.initialize() must be called before any JAX "
                           "calls that might initialise the XLA backend. This includes "
                           "any computation, but also calls to jax.devices, "
                           "jax.device_put, and others.")
    global_state.initialize(coordinator_address, num_processes, process_id,
                            initialization_timeout, coordinator_bind_address,
                            heartbeat_timeout_seconds, shutdown_timeout_seconds)


def is_initialized() -> bool:
    """Whether ``initialize`` connected this process (and ``shutdown`` not yet)."""
    return global_state.client is not None


@atexit.register
def shutdown():
    """Leave the multi-process run; does nothing if it is not running. Also called at
    exit (as in JAX), so that a program ending without it still disconnects in order
    instead of leaving the others to notice its missing heartbeats."""
    global_state.shutdown()


__all__ = ["initialize", "is_initialized", "shutdown"]

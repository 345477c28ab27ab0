"""jaxlib's coordination service and client for multi-process runs: the door through
which distributed.py reaches them. Process 0 runs the service; every process connects a
client to it, and the CPU client's collectives talk over Gloo through that client."""
from jaxlib import _jax


def service(bind_address: str, num_processes: int, **timeouts):
    """Start the coordination service (in process 0) listening on ``bind_address``."""
    return _jax.get_distributed_runtime_service(bind_address, num_processes, **timeouts)


def client(coordinator_address: str, process_id: int, **options):
    """A client of the service at ``coordinator_address`` (not yet connected)."""
    return _jax.get_distributed_runtime_client(coordinator_address, process_id, **options)


def gloo_collectives(distributed_client):
    """Cross-process CPU collectives (all-reduce, ...) over TCP, coordinated by the
    client."""
    return _jax.make_gloo_tcp_collectives(distributed_client=distributed_client)

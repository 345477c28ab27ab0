"""``jax.profiler``: record what the program did, for TensorBoard or Perfetto.

jaxlib carries XLA's profiler (``jaxlib._profiler``). A *trace* collects, between
``start_trace`` and ``stop_trace``, the Python functions and the compiled programs that
ran on each device, and writes them under ``log_dir/plugins/profile/<run>/`` (an
``.xplane.pb`` TensorBoard reads, and with ``create_perfetto_trace`` a
``perfetto_trace.json.gz`` for ui.perfetto.dev). ``TraceAnnotation`` marks a region of
your own code in it. ``device_memory_profile`` is a pprof picture of device memory:
which arrays and executables hold it, allocated where.
"""
from __future__ import annotations

import contextlib
import functools
import gzip
import json
import logging
import os
import pathlib
import threading
from typing import Callable

from jaxlib import _profile_data, _profiler
import jaxlib

from glassjax import version
from glassjax.xla import runtime

logger = logging.getLogger(__name__)

ProfileData = _profile_data.ProfileData
ProfileEvent = _profile_data.ProfileEvent
ProfilePlane = _profile_data.ProfilePlane
ProfileOptions = _profiler.ProfileOptions


class TraceAnnotation(_profiler.TraceMe):
    """``with TraceAnnotation("load batch"):`` names this region in a running trace
    (costs almost nothing when no trace runs)."""


class StepTraceAnnotation(TraceAnnotation):
    """A training step (``step_num=...``): TensorBoard's per-step analysis groups by it."""

    def __init__(self, name: str, **kwargs):
        super().__init__(name, _r=1, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs):
    """``func``, each call of which is a ``TraceAnnotation`` named after it."""
    name = name or getattr(func, "__qualname__", None) or func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with TraceAnnotation(name, **decorator_kwargs):
            return func(*args, **kwargs)
    return wrapper


# -- traces ------------------------------------------------------------------------------

class _ProfileState:
    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.session = None
        self.log_dir = None
        self.create_perfetto_link = self.create_perfetto_trace = False


_state = _ProfileState()


def start_trace(log_dir, create_perfetto_link: bool = False,
                create_perfetto_trace: bool = False,
                profiler_options: ProfileOptions | None = None) -> None:
    """Start collecting a trace, to be written to ``log_dir`` by ``stop_trace``."""
    with _state.lock:
        if _state.session is not None:
            raise RuntimeError("Profile has already been started. Only one profile may be "
                               "run at a time.")
        _profiler.clear_metadata()
        runtime.get_backend()        # (devices must exist before the session starts)
        _profiler.set_metadata("jax_version", version.__version__)
        _profiler.set_metadata("jaxlib_version", jaxlib.__version__)
        _state.session = _profiler.ProfilerSession(profiler_options or ProfileOptions())
        _state.create_perfetto_link = create_perfetto_link
        _state.create_perfetto_trace = create_perfetto_trace or create_perfetto_link
        _state.log_dir = str(log_dir)


def stop_trace() -> None:
    """Stop the trace and write it under the ``log_dir`` given to ``start_trace``."""
    with _state.lock:
        if _state.session is None:
            raise RuntimeError("No profile started")
        _state.session.stop_and_export(_state.log_dir)
        if _state.create_perfetto_trace:
            path = _write_perfetto_trace_file(_state.log_dir)
            if _state.create_perfetto_link:
                _host_perfetto_trace_file(path)
        _state.reset()
        _profiler.clear_metadata()


@contextlib.contextmanager
def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False,
          profiler_options: ProfileOptions | None = None):
    """``start_trace`` on entry, ``stop_trace`` on exit."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


def _write_perfetto_trace_file(log_dir) -> pathlib.Path:
    """The newest run's ``*.trace.json.gz`` without its ``metadata`` (which Perfetto
    rejects), as ``perfetto_trace.json.gz`` beside it."""
    runs = (pathlib.Path(log_dir).absolute() / "plugins" / "profile").iterdir()
    latest = max(runs, key=os.path.getmtime)
    try:
        trace_json, = latest.glob("*.trace.json.gz")
    except ValueError as err:
        raise ValueError(f"Invalid trace folder: {latest}") from err
    with gzip.open(trace_json, "rb") as f:
        events = json.load(f)
    events.pop("metadata", None)
    path = latest / "perfetto_trace.json.gz"
    with gzip.open(path, "w") as f:
        f.write(json.dumps(events).encode("utf-8"))
    return path


def _host_perfetto_trace_file(path):
    """Serve ``path`` on 127.0.0.1:9001 (where ui.perfetto.dev looks) until it is read.
    (The HTTP server modules are imported here: they would add ~50 ms to every
    ``import glassjax``.)"""
    import http.server
    import socketserver

    class PerfettoServer(http.server.SimpleHTTPRequestHandler):
        def end_headers(self):
            self.send_header("Access-Control-Allow-Origin", "*")
            return super().end_headers()

        def do_GET(self):
            self.server.last_request = self.path
            return super().do_GET()

    directory, filename = os.path.split(path)
    handler = functools.partial(PerfettoServer, directory=directory)
    socketserver.TCPServer.allow_reuse_address = True
    with socketserver.TCPServer(("127.0.0.1", 9001), handler) as httpd:
        print(f"Open URL in browser: https://ui.perfetto.dev/#!/?url="
              f"http://127.0.0.1:9001/{filename}")
        while getattr(httpd, "last_request", None) != "/" + filename:
            httpd.handle_request()


# -- a server TensorBoard can sample from --------------------------------------------------

_server = None


def start_server(port: int, requires_backend: bool = True):
    """Serve profiles on ``port`` (TensorBoard's "capture profile" connects to it)."""
    global _server
    if _server is not None:
        raise ValueError("Only one profiler server can be active at a time.")
    if requires_backend:
        runtime.get_backend()
    _server = _profiler.start_server(port)
    return _server


def stop_server():
    global _server
    if _server is None:
        raise ValueError("No active profiler server.")
    _server = None          # (dropping the last reference stops it)


def register_subprocess(pid: int, port: int) -> Callable[[], None]:
    """Profile the process ``pid`` (serving on ``port``) along with this one; returns
    the function that unregisters it."""
    return _profiler.register_subprocess(pid, port)


# -- device memory -------------------------------------------------------------------------

def device_memory_profile(backend: str | None = None) -> bytes:
    """A gzipped pprof profile of the device memory held by live arrays and
    executables, with the Python stack that allocated each."""
    return gzip.compress(runtime.get_backend(backend).heap_profile())


def save_device_memory_profile(filename, backend: str | None = None) -> None:
    with open(filename, "wb") as f:
        f.write(device_memory_profile(backend))


__all__ = ["ProfileData", "ProfileEvent", "ProfileOptions", "ProfilePlane",
           "StepTraceAnnotation", "TraceAnnotation", "annotate_function",
           "device_memory_profile", "register_subprocess", "save_device_memory_profile",
           "start_server", "start_trace", "stop_server", "stop_trace", "trace"]

"""``jax.monitoring``: named events a program reports, for whoever listens.

glassjax reports how long each step of turning a function into a program took, under
JAX's event names (with ``fun_name``): ``/jax/core/compile/jaxpr_trace_duration``
(tracing), ``/jax/core/compile/jaxpr_to_mlir_module_duration`` (lowering) and
``/jax/core/compile/backend_compile_duration`` (XLA). A listener is any callable; a
metrics exporter would aggregate what it receives.
"""
from __future__ import annotations

from typing import Callable

JAXPR_TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
JAXPR_TO_MLIR_MODULE_EVENT = "/jax/core/compile/jaxpr_to_mlir_module_duration"
BACKEND_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"

_event_listeners: list[Callable] = []
_event_duration_secs_listeners: list[Callable] = []
_event_time_span_listeners: list[Callable] = []
_scalar_listeners: list[Callable] = []


def record_event(event: str, **kwargs) -> None:
    """Tell every event listener ``listener(event, **kwargs)``."""
    for callback in list(_event_listeners):
        callback(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
    """Tell every duration listener ``listener(event, duration, **kwargs)``."""
    for callback in list(_event_duration_secs_listeners):
        callback(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs) -> None:
    """Tell every time-span listener ``listener(event, start_time, end_time, **kwargs)``."""
    for callback in list(_event_time_span_listeners):
        callback(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs) -> None:
    """Tell every scalar listener ``listener(event, value, **kwargs)``."""
    for callback in list(_scalar_listeners):
        callback(event, value, **kwargs)


def register_event_listener(callback: Callable) -> None:
    _event_listeners.append(callback)


def register_event_duration_secs_listener(callback: Callable) -> None:
    _event_duration_secs_listeners.append(callback)


def register_event_time_span_listener(callback: Callable) -> None:
    _event_time_span_listeners.append(callback)


def register_scalar_listener(callback: Callable) -> None:
    _scalar_listeners.append(callback)


def unregister_event_listener(callback: Callable) -> None:
    _event_listeners.remove(callback)


def unregister_event_duration_listener(callback: Callable) -> None:
    _event_duration_secs_listeners.remove(callback)


def unregister_event_time_span_listener(callback: Callable) -> None:
    _event_time_span_listeners.remove(callback)


def unregister_scalar_listener(callback: Callable) -> None:
    _scalar_listeners.remove(callback)


def clear_event_listeners() -> None:
    """Forget every listener."""
    for listeners in (_event_listeners, _event_duration_secs_listeners,
                      _event_time_span_listeners, _scalar_listeners):
        listeners.clear()


__all__ = ["clear_event_listeners", "record_event", "record_event_duration_secs",
           "record_event_time_span", "record_scalar", "register_event_duration_secs_listener",
           "register_event_listener", "register_event_time_span_listener",
           "register_scalar_listener", "unregister_event_duration_listener",
           "unregister_event_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener"]

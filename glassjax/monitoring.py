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


class _Listeners:
    """The callables listening to one kind of record, told in registration order."""

    def __init__(self):
        self.callbacks: list[Callable] = []

    def register(self, callback: Callable) -> None:
        self.callbacks.append(callback)

    def unregister(self, callback: Callable) -> None:
        self.callbacks.remove(callback)

    def tell(self, *args, **kwargs) -> None:
        for callback in list(self.callbacks):   # a listener may unregister itself
            callback(*args, **kwargs)


_events = _Listeners()
_durations = _Listeners()
_time_spans = _Listeners()
_scalars = _Listeners()


def record_event(event: str, **kwargs) -> None:
    """Tell every event listener ``listener(event, **kwargs)``."""
    _events.tell(event, **kwargs)


def record_event_duration_secs(event: str, duration: float, **kwargs) -> None:
    """Tell every duration listener ``listener(event, duration, **kwargs)``."""
    _durations.tell(event, duration, **kwargs)


def record_event_time_span(event: str, start_time: float, end_time: float,
                           **kwargs) -> None:
    """Tell every time-span listener ``listener(event, start_time, end_time, **kwargs)``."""
    _time_spans.tell(event, start_time, end_time, **kwargs)


def record_scalar(event: str, value: float | int, **kwargs) -> None:
    """Tell every scalar listener ``listener(event, value, **kwargs)``."""
    _scalars.tell(event, value, **kwargs)


# (Un)registering a listener of each kind, under JAX's names.
register_event_listener, unregister_event_listener = _events.register, _events.unregister
register_event_duration_secs_listener, unregister_event_duration_listener = (
    _durations.register, _durations.unregister)
register_event_time_span_listener, unregister_event_time_span_listener = (
    _time_spans.register, _time_spans.unregister)
register_scalar_listener, unregister_scalar_listener = _scalars.register, _scalars.unregister


def clear_event_listeners() -> None:
    """Forget every listener."""
    for listeners in (_events, _durations, _time_spans, _scalars):
        listeners.callbacks.clear()


__all__ = ["clear_event_listeners", "record_event", "record_event_duration_secs",
           "record_event_time_span", "record_scalar", "register_event_duration_secs_listener",
           "register_event_listener", "register_event_time_span_listener",
           "register_scalar_listener", "unregister_event_duration_listener",
           "unregister_event_listener", "unregister_event_time_span_listener",
           "unregister_scalar_listener"]

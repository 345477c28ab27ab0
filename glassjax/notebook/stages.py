"""One call ``fun(*args)`` taken through the stages of a JAX program, one at a time.

trace (Python -> jaxpr) -> lower (jaxpr -> StableHLO) -> compile (StableHLO -> XLA's
optimized HLO, an executable) -> run (on the device). This is exactly what ``jit`` does
on a cache miss; the notebook shows each stage's product and how long it took. Each
stage runs once, when first asked for, and its time is recorded.

With an ``axis_env`` (named axes for collectives such as ``psum``, as ``make_jaxpr``
takes them) the program is only traced: collectives need the devices of a ``pmap``.
"""
from __future__ import annotations

import time

import functools

from glassjax.jit import Jitted
from glassjax import core, state, tree_util
from glassjax.notebook import library_states
from glassjax.notebook.module_scopes import module_scopes


def _is_data(x) -> bool:
    """Whether a pytree holds only arrays and numbers, which can be traced. (An object
    that fails even to be looked at is not data: it is left static, and the error it
    raises there is the user's own, shown from the user's call.)"""
    try:
        return all(map(core.valid_jaxtype, tree_util.tree_leaves(x)))
    except Exception:
        return False


def _not_data(args) -> list[int]:
    """Positions of the arguments that can only be static."""
    return [i for i, a in enumerate(args) if not _is_data(a)]


class StageError(Exception):
    """A stage after tracing failed; the message says which one and why."""


class Stages:
    """The stages of ``fun(*args, **kwargs)``; ``static_argnums`` as for ``jit``. An
    argument that is not made of arrays and numbers (an axis name like ``'i'``, a
    function, a dtype) is always static: a positional one is added to
    ``static_argnums``, keyword ones are bound into ``fun``."""

    def __init__(self, fun, args=(), kwargs=None, *, static_argnums=(), axis_env=None):
        kwargs = dict(kwargs or {})
        static_kwargs = {k: v for k, v in kwargs.items() if not _is_data(v)}
        self.fun = fun
        if static_kwargs:
            self.fun = functools.partial(fun, **static_kwargs)
            self.fun.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.args = tuple(args)
        self.kwargs = {k: v for k, v in kwargs.items() if k not in static_kwargs}
        self.static_argnums = tuple(sorted({*static_argnums, *_not_data(self.args)}))
        self.axis_env = list(axis_env) if axis_env else None
        self.stateful = False       # (set when tracing finds state writes)
        self.timings: dict[str, float] = {}      # stage -> milliseconds
        self._done: dict = {}

    def _stage(self, name, compute):
        if name not in self._done:
            start = time.perf_counter()
            self._done[name] = compute()
            self.timings[name] = (time.perf_counter() - start) * 1e3
        return self._done[name]

    # -- trace ----------------------------------------------------------------------------

    def _trace(self):
        """``jit(fun).trace(...)`` of the call (what ``make_jaxpr`` shows), kept whole so
        that lowering starts from this very trace; a function that writes
        ``glassjax.state`` objects is traced by ``state.make_jaxpr`` instead, its states'
        values becoming extra inputs and outputs (drawn as such); so is one that writes
        brainstate ``State``s, by brainstate (``library_states``). Library modules that
        name no scope of their own (flax nnx, brainstate) get one (``module_scopes``).
        Returns (closed jaxpr, output shapes, the jit trace or None)."""
        try:
            # jit's Python side, as make_jaxpr uses it (no C++ dispatcher is needed)
            jitted = Jitted(self.fun, self.static_argnums, None, None, None, None, None,
                            False, False)
            with core.extend_axis_env(self.axis_env or []), module_scopes():
                traced = jitted.trace(*self.args, **self.kwargs)
            return traced.jaxpr, traced.out_info, traced
        except state.StateLeakError:
            self.stateful = True
            with module_scopes():
                jaxpr, _, shapes = state.make_jaxpr(
                    self.fun, static_argnums=self.static_argnums, axis_env=self.axis_env,
                    return_shape=True)(*self.args, **self.kwargs)
            return jaxpr, shapes, None
        except Exception as e:
            if not library_states.is_state_error(e):
                raise
            self.stateful = True
            with module_scopes():
                jaxpr, shapes = library_states.trace(self.fun, self.args, self.kwargs,
                                                     self.static_argnums)
            return jaxpr, shapes, None

    @property
    def closed_jaxpr(self):
        """The program as a ClosedJaxpr (what ``make_jaxpr`` shows). Errors raised by the
        user's function propagate unchanged."""
        return self._stage("trace", self._trace)[0]

    @property
    def result_names(self) -> list[str]:
        """``result``, ``result[0]``, ``result['w']``: one name per output."""
        shapes = self._stage("trace", self._trace)[1]
        paths = tree_util.tree_flatten_with_path(shapes)[0]
        return ["result" + tree_util.keystr(p) for p, _ in paths]

    @property
    def dynamic_args(self) -> tuple:
        return tuple(a for i, a in enumerate(self.args) if i not in self.static_argnums)

    @property
    def arg_leaves(self) -> list:
        """The arguments the jaxpr's invars stand for (static arguments left out)."""
        return tree_util.tree_leaves((self.dynamic_args, self.kwargs))

    # -- lower, compile, run ------------------------------------------------------------

    def _traced(self, stage):
        """The jit trace the later stages start from: lowering it gives what
        ``jit(fun).lower(...)`` gives, without running the user's Python code again."""
        if self.axis_env:
            raise StageError(f"cannot {stage}: with an axis environment the program is "
                             "only traced (its collectives need the devices of a pmap)")
        traced = self._stage("trace", self._trace)[2]
        if self.stateful:
            raise StageError(f"cannot {stage}: the function writes glassjax.state "
                             "objects, so its program takes and returns their values "
                             "(shown above); run it with glassjax.state.jit(f)")
        return traced

    def _guarded(self, stage, compute):
        try:
            return self._stage(stage, compute)
        except StageError:
            raise
        except Exception as e:
            raise StageError(f"{stage} failed: {type(e).__name__}: {e}") from e

    # Each stage first gets the product of the stage before it (as an argument of
    # ``_guarded``, so before the clock starts), then starts its clock.

    @property
    def lowered(self):
        return self._guarded("lower", self._traced("lower").lower)

    @property
    def stablehlo(self) -> str:
        """The lowered module, in StableHLO's text form."""
        return self.lowered.as_text()

    @property
    def compiled(self):
        return self._guarded("compile", self.lowered.compile)

    @property
    def optimized_hlo(self) -> str:
        """What XLA made of it: the optimized HLO of the compiled executable."""
        return self.compiled.as_text()

    @property
    def outputs(self):
        """The result pytree, computed on the device by the compiled executable."""
        compiled = self.compiled
        return self._guarded("run", lambda: _ready(compiled(*self.dynamic_args,
                                                            **self.kwargs)))

    @property
    def output_leaves(self) -> list:
        return tree_util.tree_leaves(self.outputs)


def _ready(out):
    """Wait for the device, so the run time measures the computation itself."""
    for leaf in tree_util.tree_leaves(out):
        getattr(leaf, "block_until_ready", lambda: None)()
    return out

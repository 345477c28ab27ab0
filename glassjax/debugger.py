"""``jax.debug.breakpoint``: stop inside a (possibly jitted) function and look around.

At the call, the Python stack is captured: each user frame's file, line, source and
local variables. Locals that are tracers (values computed by the program) become the
arguments of a ``debug_callback``, so when the compiled program reaches that point, the
debugger receives their *actual values*; everything else was known while tracing. The
debugger is a small ``cmd.Cmd`` prompt, ``(jdb)``, with pdb's core commands: ``p``/``pp``
(evaluate), ``u``/``d`` (move between frames), ``l`` (list source), ``w``/``bt`` (the
stack), ``c`` (continue), ``q`` (quit the program). When its input ends (no terminal, as
in a test or a batch run) it continues instead of waiting.
"""
from __future__ import annotations

import cmd
import dataclasses
import inspect
import pprint
import sys
import threading
import traceback
import warnings
from typing import Any, Callable

from glassjax import core, tree_util


@dataclasses.dataclass(frozen=True)
class DebuggerFrame:
    """One stack frame as the debugger shows it (``offset``: the current line's index
    in ``source``, None when the source is unavailable)."""
    filename: str
    locals: dict
    globals: dict
    code_context: Any
    source: list
    lineno: int
    offset: int | None

    @classmethod
    def from_frameinfo(cls, info) -> DebuggerFrame:
        try:
            lines, start = inspect.getsourcelines(info.frame)
            source = "".join(lines).split("\n")
            offset = info.lineno - max(start, 1)
            if offset >= len(source):       # (code run by eval has no matching source)
                source, offset = [], None
        except (OSError, TypeError):
            source, offset = [], None
        return cls(info.filename, dict(info.frame.f_locals), {}, info.code_context,
                   source, info.lineno, offset)


def split_traced(frames: list[DebuggerFrame]):
    """The tracers among the frames' locals (to be passed to the program), and a function
    rebuilding the frames from their values. A local that is no pytree stays as it is."""
    tracers, rebuilders = [], []
    for frame in frames:
        slots = {}
        for name, value in frame.locals.items():
            try:
                with warnings.catch_warnings():     # (e.g. generators: leaves anyway)
                    warnings.simplefilter("ignore")
                    leaves, tree = tree_util.tree_flatten(value)
            except Exception:
                continue
            traced = [isinstance(x, core.Tracer) for x in leaves]
            if any(traced):
                slots[name] = (tree, leaves, traced, len(tracers))
                tracers += [x for x, t in zip(leaves, traced) if t]
        rebuilders.append(slots)

    def rebuild(values):
        out = []
        for frame, slots in zip(frames, rebuilders):
            local = dict(frame.locals)
            for name, (tree, leaves, traced, start) in slots.items():
                it = iter(values[start:start + sum(traced)])
                local[name] = tree_util.tree_unflatten(
                    tree, [next(it) if t else x for x, t in zip(leaves, traced)])
            out.append(dataclasses.replace(frame, locals=local))
        return out
    return tracers, rebuild


class CliDebugger(cmd.Cmd):
    """The ``(jdb)`` prompt over a list of frames (innermost first)."""
    prompt = "(jdb) "

    def __init__(self, frames, thread_id, stdin=None, stdout=None, completekey="tab"):
        super().__init__(stdin=stdin, stdout=stdout, completekey=completekey)
        self.use_rawinput = stdin is None
        self.frames, self.frame_index, self.thread_id = frames, 0, thread_id
        self.intro = "Entering jdb:"

    def evaluate(self, expr):
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})

    def _error_message(self):
        message = traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip()
        print("***", message, file=self.stdout)

    def _show(self, arg, format_value):
        try:
            print(format_value(self.evaluate(arg)), file=self.stdout)
        except Exception:
            self._error_message()

    def default(self, line):
        """Evaluate an expression."""
        self._show(line, repr)

    def do_p(self, arg):
        """p expression: evaluate and print an expression."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: evaluate and pretty-print an expression."""
        self._show(arg, pprint.pformat)

    def print_context(self, num_lines=2):
        frame = self.frames[self.frame_index]
        lines = [f"> {frame.filename}({frame.lineno})"]
        for i, line in enumerate(frame.source):
            if frame.offset - 1 - num_lines <= i <= frame.offset + num_lines:
                lines.append(("->  " if i == frame.offset else "    ") + line)
        print("\n".join(lines), file=self.stdout)

    def do_up(self, arg):
        """u(p): move up a stack frame."""
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()
    do_u = do_up

    def do_down(self, arg):
        """d(own): move down a stack frame."""
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()
    do_d = do_down

    def do_list(self, arg):
        """l(ist): the source around the current line."""
        self.print_context(num_lines=5)
    do_l = do_list

    def do_where(self, arg):
        """w(here) / bt: the stack, most recent frame last."""
        lines = ["Traceback:"]
        for frame in self.frames[::-1]:
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append("    <no source>" if frame.offset is None
                         else f"    {frame.source[frame.offset].strip()}")
        print("\n".join(lines), file=self.stdout)
    do_w = do_bt = do_where

    def do_continue(self, arg):
        """c(ont(inue)): continue the program."""
        return True
    do_c = do_cont = do_continue

    def do_quit(self, arg):
        """q(uit) / exit, or the end of input: end the program (as JAX's jdb does; under
        ``jit`` the exit surfaces as the callback's ``JaxRuntimeError``)."""
        sys.exit(0)
    do_q = do_EOF = do_exit = do_quit

    def run(self):
        while True:
            try:
                self.cmdloop()
                break
            except KeyboardInterrupt:
                print("--KeyboardInterrupt--", file=sys.stdout)


def run_cli_debugger(frames, thread_id, **kwargs):
    CliDebugger(frames, thread_id, **kwargs).run()


# name -> (priority, debugger); the highest priority wins unless one is named.
_debuggers: dict[str, tuple[int, Callable]] = {"cli": (-1, run_cli_debugger)}
_debug_lock = threading.Lock()


def register_debugger(name: str, debugger: Callable, priority: int) -> None:
    if name in _debuggers:
        raise ValueError(f'Debugger with name "{name}" already registered.')
    _debuggers[name] = (priority, debugger)


def get_debugger(backend: str | None = None) -> Callable:
    if backend is not None and backend in _debuggers:
        return _debuggers[backend][1]
    return max(_debuggers.values(), key=lambda entry: entry[0])[1]


def user_frames(filter_frames: bool = True, num_frames: int | None = None):
    """The stack above the caller of our caller (innermost first) as DebuggerFrames,
    glassjax's own frames left out if ``filter_frames``."""
    infos = inspect.stack()[2:]
    frames = [DebuggerFrame.from_frameinfo(i) for i in infos
              if not filter_frames or
              not i.frame.f_globals.get("__name__", "").startswith("glassjax")]
    return frames if num_frames is None else frames[:num_frames]


def enter_debugger(frames, backend: str | None = None, **kwargs):
    """Run the chosen debugger on ``frames`` (one at a time across threads)."""
    thread_id = (None if threading.current_thread() is threading.main_thread()
                 else threading.get_ident())
    with _debug_lock:
        get_debugger(backend)(frames, thread_id, **kwargs)

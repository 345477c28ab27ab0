"""``%jaxpr`` and ``%%jaxpr``: show the jaxpr of a call, its graph and its result
(and ``%gjsource PRIM [RULE]``: the code of a rule, see source_view.py).

    %jaxpr [options] f(x, y)            the call is traced, drawn and run
    %jaxpr jax.grad(f)(1.0)             transformed functions too

    %%jaxpr [options]
    def f(x):                           the cell runs in the notebook's namespace;
        return jnp.sin(x) * 2           its last line must be a call
    f(jnp.arange(3.0))

The call's function and arguments are evaluated in the user's namespace, then the call is
taken through its stages (``stages.Stages``: trace, lower, compile, run) and displayed
(``display.stages_bundle``). A mistake in the options or a last line that is not a call
gives a one-line usage error; an exception raised by the user's code shows the user's
own traceback, with the magic's frames hidden.
"""
from __future__ import annotations

import ast
import functools
import os
import re

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments
from IPython.display import display

from glassjax import core, debug, errors, tree_util
from glassjax.config import config
from glassjax.notebook import display as display_lib
from glassjax.notebook import sharding_grid, source_view
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.stages import Stages

_GLASSJAX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Options that take a value (the others are flags).
_VALUED = {"--view", "--axis-env", "--static", "--depth", "--rankdir", "--save", "--name"}
_CAPTURE = "__glassjax_capture_call__"


def _axis_env(text: str) -> list[tuple[str, int]]:
    """``i=4,j=2`` -> ``[("i", 4), ("j", 2)]``."""
    env = []
    for item in text.split(","):
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(\d+)\s*", item)
        if not m:
            raise ValueError(f"--axis-env wants name=size pairs like i=4,j=2, got {text!r}")
        env.append((m.group(1), int(m.group(2))))
    return env


def _int_list(text: str) -> tuple[int, ...]:
    """``0,2`` -> ``(0, 2)``."""
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise ValueError(f"--static wants argument positions like 0,2, got {text!r}") from None


def _split_options(line: str) -> tuple[list[str], str]:
    """Split ``%jaxpr``'s line into its leading options and the call expression."""
    def split(text):                           # (first word, the rest)
        first, *rest = text.split(None, 1)
        return first, (rest[0] if rest else "")

    rest, words = line.strip(), []
    while rest.startswith("--"):
        word, rest = split(rest)
        words.append(word)
        if word in _VALUED and rest:
            value, rest = split(rest)
            words.append(value)
    return words, rest


def _static_by_default(value) -> bool:
    """Is an argument of the call static (as if listed in ``--static``) without being
    asked? Arrays, Python scalars and containers holding arrays are traced, as ``jit``
    traces them; anything else -- a shape like ``(3,)``, a string, None, a function, a
    dtype -- would fail to trace, so it is passed as a Python value (when hashable)."""
    if type(value) in (bool, int, float, complex):
        return False
    if any(hasattr(leaf, "shape") and hasattr(leaf, "dtype")
           for leaf in tree_util.tree_leaves(value)):
        return False
    try:
        hash(value)
    except Exception:          # noqa: BLE001 - unhashable (or a broken __hash__): traced
        return False
    return True


def _bind_static_keywords(fun, kwargs):
    """Keyword arguments that are static by default are bound into the function."""
    static = {k: v for k, v in kwargs.items() if _static_by_default(v)}
    if not static:
        return fun, kwargs
    bound = functools.partial(fun, **static)
    bound.__name__ = getattr(fun, "__name__", type(fun).__name__)
    return bound, {k: v for k, v in kwargs.items() if k not in static}


_CONCRETIZATION_ERRORS = (errors.ConcretizationTypeError, errors.TracerIntegerConversionError,
                          errors.TracerArrayConversionError,
                          errors.NonConcreteBooleanIndexError)


def _static_hint(traced: list[int]) -> str:
    positions = ", ".join(map(str, traced)) or "none"
    example = traced[-1] if traced else 0
    return (f"%jaxpr traced the arguments at positions {positions} (arrays and Python "
            "numbers are traced, like jit's arguments). If the function needs one of "
            f"them as a Python value, make it static, e.g.: %jaxpr --static {example} ...")


def _in_glassjax(tb) -> bool:
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_GLASSJAX_DIR + os.sep)


def _user_frames(tb):
    """The traceback without its leading glassjax frames, so it starts in the user's
    code; if the error never reached user code, just the frame that raised it."""
    while tb is not None and tb.tb_next is not None and _in_glassjax(tb):
        tb = tb.tb_next
    return tb


class _UserError(Exception):
    """Carries an exception raised by the user's code (or an interrupt of it) out of the
    magic."""


@magics_class
class JaxprMagics(Magics):

    @magic_arguments()
    @argument("--view", choices=["text", "graph", "both", "widget"], default="both",
              help="what to show: the jaxpr text, its graph, both (default), or the "
                   "explorer widget")
    @argument("--hlo", action="store_true", help="also show the lowered StableHLO")
    @argument("--compiled", action="store_true",
              help="also show the HLO after XLA's optimizations")
    @argument("--axis-env", metavar="NAME=SIZE,...",
              help="named axes for collectives, like make_jaxpr's axis_env (e.g. "
                   "i=4,j=2); the program is traced only, without devices")
    @argument("--static", metavar="I,J,...", help="positions of static arguments "
                                                  "(static_argnums), e.g. 0,2")
    @argument("--no-run", action="store_true", help="do not run the program")
    @argument("--depth", type=int, help="nesting levels of sub-jaxprs drawn expanded "
                                        "(default: all)")
    @argument("--rankdir", choices=["TB", "LR"], default="TB",
              help="graph direction: top to bottom (default) or left to right")
    @argument("--save", metavar="FILE.svg|FILE.dot", help="also write the graph to a file")
    @argument("--name", metavar="VAR",
              help="store the ClosedJaxpr in the notebook variable VAR")
    @line_cell_magic
    def jaxpr(self, line, cell=None):
        """Show the jaxpr of a call, its graph, and its result computed on the device.

        Line magic:  %jaxpr [options] f(x, y)
        Cell magic:  %%jaxpr [options]  -- the cell runs, and its last line (a call) is
        traced, drawn and run.
        """
        __tracebackhide__ = True          # IPython hides this frame in tracebacks
        words, expr = _split_options(line)
        if cell is None and not expr:
            raise UsageError("%jaxpr needs a call, like: %jaxpr f(x)  (see %jaxpr?)")
        if cell is not None and expr:
            raise UsageError(f"%%jaxpr takes only options on its first line, got {expr!r}")
        opts = self.jaxpr.parser.parse_args(words)      # errors raise UsageError
        settings = self._settings(opts)
        try:
            fun, args, kwargs = (self._eval_call(expr, "line") if cell is None
                                 else self._run_cell(cell))
            fun, kwargs = _bind_static_keywords(fun, kwargs)
            static = tuple(sorted({*settings["static"],
                                   *(i for i, a in enumerate(args) if _static_by_default(a))}))
            stages = Stages(fun, args, kwargs, static_argnums=static,
                            axis_env=settings["axis_env"])
            self._show(stages, opts, settings)
        except _UserError as e:
            error = e.__cause__
            if isinstance(error, _CONCRETIZATION_ERRORS) or (
                    isinstance(error, TypeError) and "static_argnums" in str(error)):
                # printed first, so a notebook shows it above the traceback, where the
                # eye lands (a note on the exception would come after it)
                traced = [i for i in range(len(args)) if i not in static]
                print(f"Hint: {_static_hint(traced)}")
            raise error.with_traceback(_user_frames(error.__traceback__)) from None

    @line_magic
    def glassjax(self, line):
        """``%glassjax reference on|off``: reference mode (``glassjax/caches.py``), in
        which no shortcut skips the Python a reader reads: a breakpoint in a rule fires
        on every call that needs it."""
        words = line.split()
        if words[:1] != ["reference"] or len(words) != 2 or words[1] not in ("on", "off"):
            raise UsageError("usage: %glassjax reference on|off")
        config.update("glassjax_reference_mode", words[1] == "on")

    # -- options ------------------------------------------------------------------------

    @staticmethod
    def _settings(opts) -> dict:
        try:
            axis_env = _axis_env(opts.axis_env) if opts.axis_env else None
            static = _int_list(opts.static) if opts.static else ()
        except ValueError as e:
            raise UsageError(str(e)) from None
        if opts.depth is not None and opts.depth < 0:
            raise UsageError(f"--depth must be 0 or more, got {opts.depth}")
        if opts.save and not opts.save.endswith((".svg", ".dot")):
            raise UsageError(f"--save writes FILE.svg or FILE.dot, got {opts.save!r}")
        if opts.name and not opts.name.isidentifier():
            raise UsageError(f"--name wants a variable name, got {opts.name!r}")
        if axis_env and (opts.hlo or opts.compiled):
            raise UsageError("--hlo and --compiled need devices; with --axis-env the "
                             "program is only traced")
        return {"axis_env": axis_env, "static": static,
                "run": not opts.no_run and not axis_env}

    # -- the user's code ----------------------------------------------------------------

    def _parse(self, source, mode):
        """Parse user code under a file name IPython knows, so that tracebacks show
        the user's lines."""
        filename = self.shell.compile.cache(source, self.shell.execution_count)
        try:
            return ast.parse(source, filename, mode), filename
        except SyntaxError as e:
            where = f" on line {e.lineno}: {e.text.strip()}" if e.text else ""
            raise UsageError(f"invalid syntax{where} ({e.msg})") from None

    def _eval_call(self, source, where):
        """Evaluate a call's function and arguments (not the call itself)."""
        tree, filename = self._parse(source, "eval")
        if not isinstance(tree.body, ast.Call):
            raise UsageError(f"%jaxpr needs a call, like f(x); got {source.strip()!r}"
                             if where == "line" else
                             "the last line of a %%jaxpr cell must be a call, like f(x)")
        call = tree.body
        capture = ast.Expression(ast.Call(ast.Name(_CAPTURE, ast.Load()),
                                          [call.func, *call.args], call.keywords))
        ast.copy_location(capture.body, call)
        code = compile(ast.fix_missing_locations(capture), filename, "eval")
        try:
            return eval(code, self.shell.user_ns,
                        {_CAPTURE: lambda f, *a, **k: (f, a, k)})
        except (Exception, KeyboardInterrupt) as e:
            raise _UserError() from e

    def _run_cell(self, cell):
        """Run all but the cell's last line; return the last line's call, unevaluated."""
        source = self.shell.transform_cell(cell)
        tree, filename = self._parse(source, "exec")
        if not tree.body or not isinstance(tree.body[-1], ast.Expr):
            raise UsageError("the last line of a %%jaxpr cell must be a call, like f(x)")
        last = tree.body.pop()
        code = compile(tree, filename, "exec")
        try:
            exec(code, self.shell.user_global_ns, self.shell.user_ns)
        except (Exception, KeyboardInterrupt) as e:
            raise _UserError() from e
        # The last line alone, after blank lines that keep its line numbers.
        last_source = "\n" * (last.lineno - 1) + ast.get_source_segment(source, last)
        return self._eval_call(last_source, "cell")

    # -- showing ------------------------------------------------------------------------

    def _show(self, stages, opts, settings):
        try:
            closed = stages.closed_jaxpr            # runs the user's function
        except (Exception, KeyboardInterrupt) as e:
            raise _UserError() from e
        if opts.name:
            self.shell.user_ns[opts.name] = closed
        if opts.save:
            self._save(stages, opts)
        if opts.view == "widget":
            from glassjax.notebook import widgets     # ipywidgets: only when asked for
            display(widgets.Explorer.from_stages(stages))
            return
        display(display_lib.stages_bundle(
            stages, view=opts.view, hlo=opts.hlo, compiled=opts.compiled,
            run=settings["run"], depth=opts.depth, rankdir=opts.rankdir), raw=True)

    @staticmethod
    def _save(stages, opts):
        g = graph_lib.to_graphviz(stages.closed_jaxpr, depth=opts.depth,
                                  rankdir=opts.rankdir, result_names=stages.result_names,
                                  axis_env=stages.axis_env)
        text = g.source if opts.save.endswith(".dot") else display_lib.svg(g)
        try:
            with open(opts.save, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            raise UsageError(f"--save cannot write {opts.save!r}: {e.strerror}") from None
        print(f"Saved the graph to {opts.save}")

    @line_magic
    def gjsource(self, line):
        """Show the code of a primitive's rules with file and line, e.g.
        ``%gjsource sin_p jvp`` (every rule of the primitive without a RULE)."""
        display(source_view.source_bundle(line, self.shell.user_ns), raw=True)


def load(ip):
    """``%load_ext glassjax``: the magics, and the rich display of jaxprs (core knows
    nothing of notebooks: the formatter is registered here, for the ClosedJaxpr type)."""
    ip.register_magics(JaxprMagics)
    formatter = ip.display_formatter.mimebundle_formatter
    formatter.for_type(core.ClosedJaxpr, display_lib.closed_jaxpr_mimebundle)
    formatter.for_type(debug.ShardingGrid, sharding_grid.grid_mimebundle)
    debug.set_grid_display(display)     # visualize_sharding: HTML instead of print


def unload(ip):
    """``%unload_ext glassjax``: IPython has no call for this, so we take our magics out
    of its tables."""
    for kind, name in (("line", "jaxpr"), ("cell", "jaxpr"), ("line", "glassjax"),
                       ("line", "gjsource")):
        ip.magics_manager.magics[kind].pop(name, None)
    ip.magics_manager.registry.pop(JaxprMagics.__name__, None)
    ip.display_formatter.mimebundle_formatter.pop(core.ClosedJaxpr, None)
    ip.display_formatter.mimebundle_formatter.pop(debug.ShardingGrid, None)
    debug.set_grid_display(None)

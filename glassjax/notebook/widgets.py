"""The explorer: one call, every stage, live transformations and a step-through view.

``explore(f, x)`` (or ``%%jaxpr --view widget``) shows tabs for the jaxpr, its graph, the
lowered StableHLO, the compiled HLO, the result and the time each stage took. A bar of
transformations wraps the function in jit, grad, value_and_grad, vmap, jvp, linearize
or checkpoint, one after another, and everything is re-traced at once: that is the best
way to see what a transformation does to a program. The Graph tab (the graph explorer)
marks the equations the last transformation added, in the graph and in the text. The Step tab is the graph explorer
with a debugger (``debugger``): it runs the jaxpr one equation at a time, into and out
of jit, cond, while and scan bodies, marking the current equation in the text and in
the graph and showing its input and output values.

The tabs are stock ipywidgets; the Step tab's graph is the anywidget of ``explorer``.
"""
from __future__ import annotations

import ast
import html

import ipywidgets as w
import numpy as np

from glassjax import ad_api, ad_checkpoint, vmap_api
from glassjax.jit import jit
from glassjax import core, tree_util
from glassjax.notebook import display as display_lib
from glassjax.notebook import explorer as explorer_lib
from glassjax.notebook import provenance
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.stages import StageError, Stages

VMAP_BATCH = 3            # vmap's example batch: the arguments stacked this many times


# ----------------------------------------------------------------------------------------
# Transformations: each turns (function, example arguments) into new ones
# ----------------------------------------------------------------------------------------

def _ones_like(x):
    return np.ones(np.shape(x), core.get_aval(x).dtype)


def _batched(args, in_axes):
    """Example arguments for ``vmap(f, in_axes)``: each mapped argument stacked
    ``VMAP_BATCH`` times along its axis."""
    axes = in_axes if isinstance(in_axes, (tuple, list)) else [in_axes] * len(args)
    if len(axes) != len(args):
        raise ValueError(f"in_axes has {len(axes)} entries for {len(args)} arguments")
    return tuple(a if ax is None else tree_util.tree_map(
        lambda x, ax=ax: np.stack([np.asarray(x)] * VMAP_BATCH, axis=ax), a)
        for a, ax in zip(args, axes))


def _jvp(f):
    def f_jvp(*xs):
        return ad_api.jvp(f, xs, tree_util.tree_map(_ones_like, xs))
    return f_jvp


def _linearize(f):
    def f_lin(*xs):
        y, f_jvp = ad_api.linearize(f, *xs)
        return y, f_jvp(*tree_util.tree_map(_ones_like, xs))
    return f_lin


# name -> (how it reads, making the new function, making the new example arguments)
TRANSFORMS = {
    "jit": ("jit({})", lambda f, ax: jit(f), None),
    "grad": ("grad({})", lambda f, ax: ad_api.grad(f), None),
    "value_and_grad": ("value_and_grad({})", lambda f, ax: ad_api.value_and_grad(f),
                       None),
    "vmap": ("vmap({}, in_axes={ax})", lambda f, ax: vmap_api.vmap(f, in_axes=ax),
             _batched),
    "jvp": ("jvp({}) with tangents of ones", lambda f, ax: _jvp(f), None),
    "linearize": ("linearize({}) applied to ones", lambda f, ax: _linearize(f), None),
    "checkpoint": ("checkpoint({})", lambda f, ax: ad_checkpoint.checkpoint(f), None),
}


def _parse_in_axes(text: str):
    try:
        return ast.literal_eval(text.strip() or "0")
    except (ValueError, SyntaxError):
        raise ValueError(f"in_axes must be a Python literal such as 0, None or (0, None); "
                         f"got {text!r}") from None


# ----------------------------------------------------------------------------------------
# The widget
# ----------------------------------------------------------------------------------------

TABS = ["Jaxpr", "Graph", "StableHLO", "Compiled HLO", "Result", "Timings", "Step"]


def _html(*parts):
    return display_lib.wrap(*parts)


class Explorer:
    """The explorer for ``fun(*args, **kwargs)``; displays itself in a notebook."""

    def __init__(self, fun, args=(), kwargs=None, *, static_argnums=(), axis_env=None,
                 stages: Stages | None = None):
        """``stages``: the call's ``Stages``, when it was traced already (``%jaxpr --view
        widget``): the untransformed program is then not traced again."""
        self.fun = fun
        self.args = tuple(args)
        self.kwargs = dict(kwargs or {})
        self.static_argnums = tuple(static_argnums)
        self.axis_env = axis_env          # named axes: the program is only traced
        self.transforms: list[tuple[str, object]] = []     # (name, in_axes)
        self._untransformed = stages
        self._build()
        self._retrace()

    @classmethod
    def from_stages(cls, stages: Stages) -> "Explorer":
        return cls(stages.fun, stages.args, stages.kwargs,
                   static_argnums=stages.static_argnums, axis_env=stages.axis_env,
                   stages=stages)

    # -- the current program ------------------------------------------------------------

    def _program(self, upto: int | None = None):
        """The base function with the transformations (the first ``upto``) applied,
        and its arguments."""
        fun, args = self.fun, self.args
        for name, in_axes in self.transforms[:upto]:
            _, make, new_args = TRANSFORMS[name]
            if new_args is not None:
                args = new_args(args, in_axes)
            fun = make(fun, in_axes)
        return fun, args

    def description(self, upto: int | None = None) -> str:
        text = getattr(self.fun, "__name__", "f")
        for name, in_axes in self.transforms[:upto]:
            text = TRANSFORMS[name][0].format(text, ax=in_axes)
        return text

    # -- layout -------------------------------------------------------------------------

    def _build(self):
        self.title = w.HTML()
        self.choice = w.Dropdown(options=list(TRANSFORMS), value="grad",
                                 description="transform", layout=w.Layout(width="16em"))
        self.in_axes = w.Text(value="0", description="in_axes", layout=w.Layout(width="14em"))
        self.apply_button = w.Button(description="apply", button_style="primary")
        self.undo_button = w.Button(description="undo")
        self.reset_button = w.Button(description="reset")
        self.apply_button.on_click(self._on_apply)
        self.undo_button.on_click(lambda _: self.undo())
        self.reset_button.on_click(lambda _: self.reset())
        self.message = w.HTML()
        bar = w.HBox([self.choice, self.in_axes, self.apply_button, self.undo_button,
                      self.reset_button])
        self.panes = [w.HTML() for _ in TABS[:-1]]
        self.graph_pane = w.VBox()
        self.step_pane = w.VBox()
        self.tabs = w.Tab(children=[self.panes[0], self.graph_pane, *self.panes[2:],
                                    self.step_pane])
        for i, name in enumerate(TABS):
            self.tabs.set_title(i, name)
        self.tabs.observe(lambda change: self._render_tab(change["new"]),
                          names="selected_index")
        self.widget = w.VBox([self.title, bar, self.message, self.tabs])

    def _repr_mimebundle_(self, **kwargs):
        return display_lib.with_static_view(
            self.widget, self.static_html(), f"glassjax explorer: {self.description()}")

    def static_html(self) -> str:
        """The explorer as a page without its kernel shows it: the title, the graph and
        the result side by side, then the jaxpr's text."""
        try:
            side = display_lib.section("Result", self._tab_body("Result"))
        except StageError as e:
            side = display_lib.error_box(str(e))
        graph = self._tab_body("Graph")
        return _html(display_lib.saved_view(
            self.title_html(), f'<div class="gj-row">{graph}{side}</div>',
            self._tab_body("Jaxpr")))

    def title_html(self) -> str:
        return display_lib.section("Explorer",
                                   f"<code>{html.escape(self.description())}</code>")

    # -- transformations ----------------------------------------------------------------

    def _on_apply(self, _button):
        try:
            self.apply(self.choice.value, self.in_axes.value)
        except ValueError as e:               # a bad in_axes: say so next to the bar
            self.message.value = _html(display_lib.error_box(str(e)))

    def apply(self, name: str, in_axes="0"):
        """Wrap the current function in one more transformation and re-trace."""
        if name not in TRANSFORMS:
            raise ValueError(f"unknown transformation {name!r}; one of {list(TRANSFORMS)}")
        if name != "vmap":
            in_axes = None
        elif isinstance(in_axes, str):
            in_axes = _parse_in_axes(in_axes)
        self.transforms.append((name, in_axes))
        if not self._retrace():
            self.transforms.pop()
            self._retrace(keep_message=True)

    def undo(self):
        if self.transforms:
            self.transforms.pop()
            self._retrace()

    def reset(self):
        self.transforms.clear()
        self._retrace()

    def _retrace(self, keep_message=False) -> bool:
        """Trace the current program; if a transformation makes that fail, say why and
        return False (errors of the function itself are the caller's to see)."""
        self.title.value = _html(self.title_html())
        if not keep_message:
            self.message.value = ""
        try:
            if self.transforms or self._untransformed is None:
                fun, args = self._program()
                stages = Stages(fun, args, self.kwargs,
                                static_argnums=self.static_argnums, axis_env=self.axis_env)
            else:
                stages = self._untransformed
            stages.closed_jaxpr
        except Exception as e:
            if not self.transforms:
                raise
            self.message.value = _html(display_lib.error_box(
                f"{self.description()} could not be traced: {type(e).__name__}: {e}"))
            return False
        self.stages = stages
        if not self.transforms:
            self._untransformed = stages
        # printed once, for the text, the static picture and the graph explorers
        self.names = display_lib.printed(stages.closed_jaxpr)
        self._rendered: set = set()
        self.step_pane.children = self.graph_pane.children = ()
        self._render_tab(self.tabs.selected_index or 0)
        return True

    # -- tabs ---------------------------------------------------------------------------

    def _render_tab(self, i):
        """Fill tab ``i`` the first time it is shown (compiling can take a while)."""
        if i is None or i in self._rendered:
            return
        self._rendered.add(i)
        if TABS[i] == "Step":
            self._show_stepper()
            return
        if TABS[i] == "Graph":
            self._show_graph()
            return
        try:
            body = self._tab_body(TABS[i])
        except StageError as e:
            body = display_lib.error_box(str(e))
        self.panes[i].value = _html(body)

    def _tab_body(self, tab) -> str:
        s = self.stages
        if tab == "Jaxpr":
            return display_lib.jaxpr_html(s.closed_jaxpr, self.names)
        if tab == "Graph":
            return display_lib.graph_html(s.closed_jaxpr, view=self._view(),
                                          result_names=s.result_names, axis_env=s.axis_env)
        if tab == "StableHLO":
            return display_lib.pre(s.stablehlo)
        if tab == "Compiled HLO":
            return display_lib.pre(s.optimized_hlo)
        if tab == "Result":
            return display_lib.results_html(s.result_names, s.output_leaves)
        if tab == "Timings":
            s.output_leaves                  # every stage has run once
            rows = "".join(f"<tr><td>{stage}</td><td>{ms:.2f} ms</td></tr>"
                           for stage, ms in s.timings.items())
            return f'<table class="gj-table"><tr><th>stage</th><th>time</th></tr>{rows}</table>'
        raise ValueError(tab)

    # -- step through -------------------------------------------------------------------

    def _show_graph(self):
        """The graph explorer; after a transformation, with the equations it added
        marked (``provenance``): the program before it is traced again to compare.
        A program with named axes (only traced) gets the static picture, whose legend
        names the axis environment."""
        widget = None if self.axis_env else self._graph_widget()
        if widget is None:                   # no anywidget: the static picture
            self.panes[1].value = _html(self._tab_body("Graph"))
            self.graph_pane.children = (self.panes[1],)
            return
        if self.transforms:
            fun, args = self._program(len(self.transforms) - 1)
            before = Stages(fun, args, self.kwargs, static_argnums=self.static_argnums,
                            axis_env=self.axis_env).closed_jaxpr
            widget.marks = provenance.transform_marks(
                before, self.stages.closed_jaxpr, widget.view, widget.links(),
                self.description(len(self.transforms) - 1))
        self.graph_pane.children = (widget,)

    def _view(self) -> explorer_lib.View:
        return explorer_lib.View(self.stages.closed_jaxpr, names=self.names,
                                 result_names=self.stages.result_names)

    def _graph_widget(self, args=None):
        """The graph explorer of the current program (None without anywidget)."""
        return explorer_lib.graph_widget(self.stages.closed_jaxpr, view=self._view(),
                                         text=self.names.text(), args=args)

    def _show_stepper(self):
        s = self.stages
        if self.axis_env:
            self.step_pane.children = (w.HTML(_html(display_lib.error_box(
                "This program uses named axes (axis_env): it is only traced, so it "
                "cannot be stepped."))),)
            return
        widget = self._graph_widget(args=s.arg_leaves)
        if widget is None:
            widget = w.HTML(_html(display_lib.error_box(
                "Stepping needs the anywidget package (pip install anywidget).")))
        self.step_pane.children = (widget,)


def explore(fun, *args, static_argnums=(), axis_env=None, **kwargs) -> Explorer:
    """An explorer for the call ``fun(*args, **kwargs)`` (display it in a notebook);
    ``axis_env`` as for ``make_jaxpr``, for functions that use collectives."""
    return Explorer(fun, args, kwargs, static_argnums=static_argnums, axis_env=axis_env)

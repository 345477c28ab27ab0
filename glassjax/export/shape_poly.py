"""Shape polymorphism in ``jax.export``: argument specs with symbolic shapes, and how the
values of the dimension variables are found from the shapes of the actual arguments.

An exported function takes only arrays; its dimension variables are *solved* from their
shapes: ``args[0].shape[2] = 2*d`` gives ``d = shape[2] // 2`` (only expressions linear
in one unknown variable can be solved). The same ``Solution`` is run twice: in Python
when ``Exported.call`` sees concrete shapes (to check them, with JAX's error messages,
and to compute the result types), and as StableHLO in the exported module's ``main``
(``get_dimension_size`` of the arguments, then a call of the wrapped function with the
variables' values as leading arguments, JAX's calling convention).
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from glassjax import core, shape_poly, tree_util
from glassjax.shape_poly import SymbolicScope, is_symbolic_dim, symbolic_shape
from glassjax.xla import lowering

_MISMATCH = "Input shapes do not match the polymorphic shapes specification."
_HELP_ASSERT = ("Please see https://docs.jax.dev/en/latest/export/shape_poly.html"
                "#shape-assertion-errors for more details.")


def symbolic_args_specs(args, shapes_specs, constraints: Sequence[str] = (),
                        scope: SymbolicScope | None = None):
    """``ShapeDtypeStruct``s shaped like ``args`` (arrays or structs), with the symbolic
    shapes of ``shapes_specs``: one spec string for all arguments, or a pytree prefix of
    ``args`` (None: keep the shape). Placeholders ``_`` and ``...`` are taken from the
    arguments' shapes; all specs share one scope."""
    leaves, treedef = tree_util.tree_flatten(args)
    if isinstance(args, tuple) and isinstance(shapes_specs, list):
        shapes_specs = tuple(shapes_specs)
    specs = tree_util.broadcast_prefix(shapes_specs, args, is_leaf=lambda x: x is None)
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot use both `scope` and `constraints`")
    out = []
    for leaf, spec in zip(leaves, specs):
        if isinstance(leaf, core.ShapeDtypeStruct):
            shape, dtype = leaf.shape, leaf.dtype
        else:
            aval = core.shaped_abstractify(leaf)
            shape, dtype = aval.shape, aval.dtype
        out.append(core.ShapeDtypeStruct(symbolic_shape(spec, like=shape, scope=scope),
                                         dtype))
    return tree_util.tree_unflatten(treedef, out)


def arg_paths(in_tree) -> list[str]:
    """``args[0]``, ``kwargs['u']``: where each flat argument sits in ``(args, kwargs)``."""
    leaves = tree_util.tree_unflatten(in_tree, range(in_tree.num_leaves))
    return [("args", "kwargs")[path[0].idx] + tree_util.keystr(path[1:])
            for path, _ in tree_util.tree_flatten_with_path(leaves)[0]]


def _shape_str(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


class _Step(NamedTuple):
    """``var = (args[arg].shape[axis] - rest) // k`` if ``var`` is set, else a check that
    ``args[arg].shape[axis]`` equals ``dim`` (all of whose variables are known by then)."""
    var: str | None
    arg: int
    axis: int
    dim: object
    k: int = 1
    rest: object = 0


class Solution:
    """How to compute the dimension variables of ``in_avals`` from argument shapes: the
    symbolic dimensions in argument order, each solving its one unknown variable or, when
    it has none left, checked against the values found so far (JAX's order)."""

    def __init__(self, in_avals, paths: Sequence[str]):
        self.in_avals, self.paths = tuple(in_avals), list(paths)
        self.specs = ",".join(f"{p}.shape = {_shape_str(a.shape)}"
                              for p, a in zip(paths, in_avals))
        pending = [(i, j, d) for i, a in enumerate(in_avals) for j, d in enumerate(a.shape)
                   if is_symbolic_dim(d)]
        self.steps: list[_Step] = []
        known: set[str] = set()
        progress = True
        while pending and progress:
            progress = False
            for eqn in list(pending):
                i, j, d = eqn
                unknown = d.variables() - known
                if not unknown:
                    self.steps.append(_Step(None, i, j, d))
                elif len(unknown) == 1:
                    var, = unknown
                    linear = d.linear_in(var)
                    if linear is None or shape_poly.variables_of(linear[1]) - known:
                        continue
                    self.steps.append(_Step(var, i, j, d, *linear))
                    known.add(var)
                else:
                    continue
                pending.remove(eqn)
                progress = True
        self.dim_vars = tuple(sorted(known))
        self.scope = next((d.scope for a in in_avals for d in a.shape
                           if is_symbolic_dim(d)), None)
        if pending:
            unsolved = set().union(*(d.variables() for _, _, d in pending)) - known
            where = ", ".join(f"'{d}' for dimension size {paths[i]}.shape[{j}]"
                              for i, j, d in pending)
            raise ValueError(
                f"Cannot solve for values of dimension variables {unsolved}. We can only "
                "solve linear uni-variate constraints. Using the following polymorphic "
                f"shapes specifications: {self.specs}. Unprocessed specifications: "
                f"{where}. Please see https://docs.jax.dev/en/latest/export/"
                "shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes"
                " for more details.")

    def _message(self, first: str, solved, show) -> str:
        """JAX's shape assertion message after its ``first`` sentence; ``show(x)`` writes
        a value (a number, or a ``{k}`` placeholder when the message is checked inside
        the module)."""
        obtained = "".join(f"'{s.var}' = {show(value)} from specification '{s.dim}' for "
                           f"dimension {self.paths[s.arg]}.shape[{s.axis}] "
                           f"(= {show(size)}), " for s, value, size in solved)
        return (f"{first} Using the following polymorphic shapes specifications: "
                f"{self.specs}. Obtained dimension variables: {obtained}. {_HELP_ASSERT}")

    def _run(self, size_of, ops, fail):
        """The steps, with ``size_of(arg, axis)`` the dimension sizes and ``ops`` the
        arithmetic; ``fail(ok, first, solved)`` is called for each assertion (``ok`` its
        condition, ``first(show)`` the first sentence of its message). The scope's
        explicit constraints are checked last."""
        env, solved = {}, []
        for s in self.steps:
            size = size_of(s.arg, s.axis)
            if s.var is None:
                expected = shape_poly.evaluate(s.dim, env, ops)
                fail(ops.eq(size, expected),
                     lambda show: f"{_MISMATCH} Found inconsistency between dimension size "
                     f"{self.paths[s.arg]}.shape[{s.axis}] (= {show(size)}) and the "
                     f"specification '{s.dim}' (= {show(expected)}).", solved)
                continue
            if s.rest != 0:
                size_minus_rest = ops.sub(size, shape_poly.evaluate(s.rest, env, ops))
            else:
                size_minus_rest = size
            value = size_minus_rest
            if s.k != 1:
                remainder = ops.mod(size_minus_rest, ops.const(s.k))
                fail(ops.eq(remainder, ops.const(0)),
                     lambda show: f"{_MISMATCH} Division had remainder {show(remainder)} "
                     f"when computing the value of '{s.var}'.", solved)
                value = ops.floordiv(size_minus_rest, ops.const(s.k))
            env[s.var] = value
            solved = solved + [(s, value, size)]
            fail(ops.ge(value, ops.const(1)),
                 lambda show: f"{_MISMATCH} Expected value >= 1 for dimension variable "
                 f"'{s.var}'.", solved)
        for text, cmp, diff in self.scope._constraints if self.scope else ():
            value = shape_poly.evaluate(diff, env, ops)
            relation = "equal to" if cmp == "==" else "greater or equal to"
            fail((ops.eq if cmp == "==" else ops.ge)(value, ops.const(0)),
                 lambda show: f"Input shapes do not match the symbolic shape constraint "
                 f"{text}. Expected '{diff}' to be {relation} 0, but found "
                 f"{show(value)}. ", solved)
        return env

    def solve(self, shapes) -> dict:
        """The variables' values for arguments of these concrete ``shapes``; JAX's
        ``ValueError`` when the shapes do not fit the specification."""
        def fail(ok, first, solved):
            if not ok:
                raise ValueError(self._message(first(str), solved, str))
        return self._run(lambda i, j: shapes[i][j], _PY_OPS, fail)

    def emit(self, args: dict) -> list[ir.Value]:
        """The variables' values (in ``dim_vars`` order) computed in the function being
        emitted from its arguments (``args``: flat index -> value), with JAX's
        ``shape_assertion``s (checked when the shapes are refined for compilation)."""
        scalar = lowering.aval_to_ir_type(core.ShapedArray((), lowering.dim_value_dtype()))
        sizes = {}
        for i, aval in enumerate(self.in_avals):        # all sizes first, as JAX does
            for j, d in enumerate(aval.shape):
                if is_symbolic_dim(d):
                    size = hlo.get_dimension_size(args[i], j)
                    sizes[i, j] = size if size.type == scalar else hlo.convert(scalar, size)

        def fail(ok, first, solved):
            operands = []

            def show(value):
                for k, v in enumerate(operands):
                    if v == value:
                        return f"{{{k}}}"
                operands.append(value)
                return f"{{{len(operands) - 1}}}"
            _shape_assertion(ok, operands, self._message(first(show), solved, show))
        env = self._run(lambda i, j: sizes[i, j], _MLIR_OPS, fail)
        return [env[v] for v in self.dim_vars]


class _PyOps(shape_poly.Ops):
    """Integer arithmetic, or symbolic arithmetic when the caller's shapes are symbolic:
    then a check that cannot be decided now is left to the module's assertions."""
    sub = staticmethod(lambda x, y: x - y)
    eq = staticmethod(lambda x, y: x == y or shape_poly.is_symbolic_dim(x - y))

    @staticmethod
    def ge(x, y):
        try:
            return x >= y
        except shape_poly.InconclusiveDimensionOperation:
            return True


class _MlirOps(lowering.DimOps):
    sub = staticmethod(hlo.subtract)

    @staticmethod
    def eq(x, y):
        return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get("EQ"),
                           compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))

    @staticmethod
    def ge(x, y):
        return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get("GE"),
                           compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))


_PY_OPS, _MLIR_OPS = _PyOps(), _MlirOps()


def _shape_assertion(ok: ir.Value, values, message: str):
    """JAX's ``shape_assertion`` custom call: shape refinement fails with ``message``
    (``{0}`` replaced by the first value, ...) when ``ok`` turns out false."""
    hlo.CustomCallOp([], [ok, *values], call_target_name="shape_assertion",
                     has_side_effect=True,
                     api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 2),
                     backend_config=None).operation.attributes["error_message"] = \
        ir.StringAttr.get(message)

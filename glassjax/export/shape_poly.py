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
    """``var = (args[arg].shape[axis] - rest) // k``."""
    var: str
    arg: int
    axis: int
    k: int
    rest: object


class Solution:
    """How to compute the dimension variables of ``in_avals`` from argument shapes."""

    def __init__(self, in_avals, paths: Sequence[str]):
        self.in_avals, self.paths = tuple(in_avals), list(paths)
        self.specs = ",".join(f"{p}.shape = {_shape_str(a.shape)}"
                              for p, a in zip(paths, in_avals))
        dims = [(d, i, j) for i, a in enumerate(in_avals) for j, d in enumerate(a.shape)
                if is_symbolic_dim(d)]
        self.steps: list[_Step] = []
        known: set[str] = set()
        progress = True
        while progress:
            progress = False
            for d, i, j in dims:
                unknown = d.variables() - known
                if len(unknown) != 1:
                    continue
                var, = unknown
                linear = d.linear_in(var)
                if linear is not None and not (shape_poly._variables(linear[1]) - known):
                    self.steps.append(_Step(var, i, j, *linear))
                    known.add(var)
                    progress = True
        self.dim_vars = tuple(sorted(known))
        unsolved = set().union(*(d.variables() for d, _, _ in dims)) - known
        if unsolved:
            pending = ", ".join(f"'{d}' for dimension size {paths[i]}.shape[{j}]"
                                for d, i, j in dims if d.variables() & unsolved)
            raise ValueError(
                f"Cannot solve for values of dimension variables {unsolved}. We can only "
                "solve linear uni-variate constraints. Using the following polymorphic "
                f"shapes specifications: {self.specs}. Unprocessed specifications: "
                f"{pending}. Please see https://docs.jax.dev/en/latest/export/"
                "shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes"
                " for more details.")

    def _message(self, what: str, obtained: str) -> str:
        return ("Input shapes do not match the polymorphic shapes specification. "
                f"{what}. Using the following polymorphic shapes specifications: "
                f"{self.specs}. Obtained dimension variables: {obtained}. {_HELP_ASSERT}")

    def _obtained(self, steps, values, sizes) -> str:
        return "".join(f"'{s.var}' = {v} from specification "
                       f"'{self.in_avals[s.arg].shape[s.axis]}' for dimension "
                       f"{self.paths[s.arg]}.shape[{s.axis}] (= {n}), "
                       for s, v, n in zip(steps, values, sizes))

    def solve(self, shapes) -> dict:
        """The variables' values for arguments of these concrete ``shapes``; JAX's
        ``ValueError`` when the shapes do not fit the specification."""
        env, values, sizes = {}, [], []
        for n_done, s in enumerate(self.steps):
            size = shapes[s.arg][s.axis]
            value, remainder = divmod(size - shape_poly.evaluate(s.rest, env), s.k)
            obtained = self._obtained(self.steps[:n_done], values, sizes)
            if remainder:
                raise ValueError(self._message(
                    f"Division had remainder {remainder} when computing the value of "
                    f"'{s.var}'", obtained))
            if value < 1:
                raise ValueError(self._message(
                    f"Expected value >= 1 for dimension variable '{s.var}'",
                    self._obtained(self.steps[:n_done + 1], values + [value],
                                   sizes + [size])))
            env[s.var] = value
            values.append(value)
            sizes.append(size)
        for i, aval in enumerate(self.in_avals):
            for j, d in enumerate(aval.shape):
                expected = shape_poly.evaluate(d, env)
                if shapes[i][j] != expected:
                    raise ValueError(self._message(
                        f"Found inconsistency between dimension size "
                        f"{self.paths[i]}.shape[{j}] (= {shapes[i][j]}) and the "
                        f"specification '{d}' (= {expected})",
                        self._obtained(self.steps, values, sizes)))
        return env

    def emit(self, args: Sequence[ir.Value]) -> list[ir.Value]:
        """The variables' values (in ``dim_vars`` order) computed in the function being
        emitted from its arguments ``args``, with JAX's ``shape_assertion`` that each is
        >= 1 (checked when the shapes are refined for compilation)."""
        dtype = lowering.dim_value_dtype()
        scalar = lowering.aval_to_ir_type(core.ShapedArray((), dtype))
        env = {}
        for s in self.steps:
            size = hlo.get_dimension_size(args[s.arg], s.axis)
            if size.type != scalar:
                size = hlo.convert(scalar, size)
            if s.rest != 0:
                size = hlo.subtract(size, lowering.eval_dim(s.rest, env))
            env[s.var] = size if s.k == 1 else lowering.DimOps.floordiv(
                size, lowering.DimOps.const(s.k))
            ok = hlo.compare(env[s.var], lowering.DimOps.const(1),
                             hlo.ComparisonDirectionAttr.get("GE"),
                             compare_type=hlo.ComparisonTypeAttr.get("SIGNED"))
            _shape_assertion(ok, [env[s.var], size], self._message(
                f"Expected value >= 1 for dimension variable '{s.var}'",
                f"'{s.var}' = {{0}} from specification "
                f"'{self.in_avals[s.arg].shape[s.axis]}' for dimension "
                f"{self.paths[s.arg]}.shape[{s.axis}] (= {{1}}), "))
        return [env[v] for v in self.dim_vars]


def _shape_assertion(ok: ir.Value, values, message: str):
    """JAX's ``shape_assertion`` custom call: shape refinement fails with ``message``
    (``{0}`` replaced by the first value, ...) when ``ok`` turns out false."""
    hlo.CustomCallOp([], [ok, *values], call_target_name="shape_assertion",
                     has_side_effect=True,
                     api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 2),
                     backend_config=None).operation.attributes["error_message"] = \
        ir.StringAttr.get(message)

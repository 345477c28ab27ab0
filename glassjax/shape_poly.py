"""Symbolic dimensions: shapes like ``(b, 2*b + 1)`` for shape polymorphism.

A symbolic dimension (``DimExpr``) is an integer polynomial over *dimension variables*,
each standing for an unknown integer >= 1. It is a sum of terms, each a coefficient times
a product of factors; a factor is a variable or an operation that polynomials cannot
express (``floordiv``, ``mod``, ``max``, ``min``). ``+ - *`` are exact, ``// %`` are exact
when the division is, and otherwise become ``floordiv``/``mod`` factors. A polynomial that
turns out constant is a plain ``int`` again, so concrete code paths never see symbols.

Comparisons are decided from bounds: every variable is >= 1, plus the scope's explicit
constraints. ``==`` is total (False unless the difference is the constant 0; JAX chooses
this because hashing shapes must not raise), while ``>= > <= <`` raise
``InconclusiveDimensionOperation`` when the bounds cannot decide.

Expressions live in a ``SymbolicScope`` (which holds the constraints); mixing scopes is an
error. The representation, sort order and printing follow JAX's, so ``str`` of an
expression is the text JAX prints (``2*b + 1``, ``- b + a``, ``mod(a, 3)``, ``a^2``).

This module is base layer: core's avals hold these objects. What needs the layers above
(turning a dimension into an array with ``dim_as_value``) is reached through ``hooks``.
"""
from __future__ import annotations

import io
import math
import operator
import tokenize
from typing import Any, Callable, Sequence

from glassjax import errors, source_info
from glassjax.slots import Slot, Slots

_HELP = """
This error arises for comparison operations with shapes that
are non-constant, and the result of the operation cannot be represented as
a boolean value for all values of the symbolic dimensions involved.

Please see https://docs.jax.dev/en/latest/export/shape_poly.html#comparison-of-symbolic-dimensions-is-partially-supported
for more details.
"""


class InconclusiveDimensionOperation(errors.InconclusiveDimensionOperation):
    """A comparison or conversion whose answer depends on the values of the variables."""

    def __init__(self, message: str):
        super().__init__(message + _HELP)


class UnexpectedDimVar(Exception):
    """A dimension variable that no argument shape determines."""


class _Hooks(Slots):
    """What symbolic dimensions need from lax."""
    as_value = Slot("glassjax.lax.dim_as_value", "as_value(dim): the dimension as an "
                    "array (dim_as_value_p.bind), for arithmetic with arrays")


hooks = _Hooks()


# ----------------------------------------------------------------------------------------
# Factors, terms and expressions
# ----------------------------------------------------------------------------------------

FLOORDIV, MOD, MAX, MIN = "floordiv", "mod", "max", "min"


class _Factor:
    """A variable, or ``operation(operands)`` for floordiv/mod/max/min.

    ``key`` is JAX's syntactic order: smaller *size* first, then by name. It only sorts
    the terms for printing and hashing; it says nothing about values."""
    __slots__ = ("var", "operation", "operands", "size", "key")

    def __init__(self, var=None, operation=None, operands=()):
        self.var, self.operation, self.operands = var, operation, tuple(operands)
        if var is not None:
            self.size = 1
            self.key = (1, var)
        else:
            self.size = 1 + sum(_size(o) for o in self.operands)
            self.key = (self.size, operation, tuple(_key(o) for o in self.operands))

    def __eq__(self, other):
        return isinstance(other, _Factor) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __str__(self):
        if self.var is not None:
            return self.var
        # (an integer operand prints as an expression does: ``mod(4*b, - 3)``)
        operands = (f"- {-o}" if isinstance(o, int) and o < 0 else str(o)
                    for o in self.operands)
        return f"{self.operation}({', '.join(operands)})"

    def variables(self) -> set[str]:
        if self.var is not None:
            return {self.var}
        return set().union(*(variables_of(o) for o in self.operands))


class _Term:
    """A product of factors with positive exponents, ``((factor, exponent), ...)`` in
    ascending factor order; no factors is the constant term 1."""
    __slots__ = ("factors", "size", "key")

    def __init__(self, factors):
        self.factors = tuple(sorted(factors, key=lambda fe: fe[0].key))
        self.size = sum(1 + e * f.size for f, e in self.factors)
        self.key = (self.size, tuple((f.key, e) for f, e in self.factors))

    def __eq__(self, other):
        return isinstance(other, _Term) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __str__(self):
        return "*".join(str(f) if e == 1 else f"{f}^{e}" for f, e in self.factors)

    def mul(self, other: _Term) -> _Term:
        exps = dict(self.factors)
        for f, e in other.factors:
            exps[f] = exps.get(f, 0) + e
        return _Term(exps.items())

    def divide(self, other: _Term) -> _Term | None:
        """``self / other`` if it is a term (every exponent stays positive), else None."""
        exps = dict(self.factors)
        for f, e in other.factors:
            if exps.get(f, 0) < e:
                return None
            exps[f] -= e
        return _Term((f, e) for f, e in exps.items() if e)

    def variables(self) -> set[str]:
        return set().union(*(f.variables() for f, _ in self.factors))


_ONE = _Term(())


def _size(d) -> int:
    return d.size if isinstance(d, DimExpr) else 1 + abs(d) * _ONE.size


def _key(d):
    return d.key if isinstance(d, DimExpr) else (_size(d), ((_ONE.key, d),))


def variables_of(d) -> set[str]:
    """The dimension variables ``d`` (an int or a ``DimExpr``) mentions."""
    return d.variables() if isinstance(d, DimExpr) else set()


def _is_int_like(x) -> bool:
    """Whether ``x`` is an integer (a traced value refuses ``__index__`` in its own way)."""
    try:
        operator.index(x)
        return True
    except Exception:
        return False


class DimExpr:
    """A symbolic dimension: ``sum(coeff * term)``, the largest term first. Build one
    with ``symbolic_shape``, then compute with it as with an ``int``; mixing it with
    floats or arrays turns it into an array (``dim_as_value``). Its type is named
    ``_DimExpr`` as JAX's, since Python's own errors show it (``'_DimExpr' object cannot
    be interpreted as an integer``)."""
    __slots__ = ("terms", "scope", "size", "key", "_hash")
    __array_priority__ = 1000       # numpy defers to our reflected operators

    def __init__(self, terms, scope: SymbolicScope):
        self.terms = tuple(terms)
        self.scope = scope
        self.size = sum(1 + abs(k) * t.size for t, k in self.terms)
        self.key = (self.size, tuple((t.key, k) for t, k in self.terms))
        self._hash = None

    # -- building ------------------------------------------------------------------------
    @staticmethod
    def _make(coeffs: dict, scope: SymbolicScope, normalize=True):
        """The normal form of ``sum(k * t for t, k in coeffs)``: zero terms dropped,
        the scope's equality constraints applied, a constant returned as an ``int``."""
        coeffs = {t: k for t, k in coeffs.items() if k}
        if normalize and scope._rules:
            coeffs = scope._rewrite(coeffs)
        if not coeffs:
            return 0
        if len(coeffs) == 1 and _ONE in coeffs:
            return coeffs[_ONE]
        return DimExpr(sorted(coeffs.items(), key=lambda tk: (tk[0].key, tk[1]),
                              reverse=True), scope)

    @staticmethod
    def _from_factor(factor: _Factor, scope: SymbolicScope):
        return DimExpr._make({_Term(((factor, 1),)): 1}, scope)

    def _coeffs(self) -> dict:
        return dict(self.terms)

    def _poly(self, other, what: str) -> dict:
        """``other`` (same scope or an integer) as a coefficient dictionary."""
        if isinstance(other, DimExpr):
            self.scope._check_same_scope(other, f"for {what}")
            return other._coeffs()
        return {_ONE: operator.index(other)} if operator.index(other) else {}

    def _combine(self, k1, other, k2):
        coeffs = {t: k * k1 for t, k in self.terms}
        for t, k in self._poly(other, "linear combination").items():
            coeffs[t] = coeffs.get(t, 0) + k * k2
        return DimExpr._make(coeffs, self.scope)

    # -- queries -------------------------------------------------------------------------
    def variables(self) -> set[str]:
        return set().union(*(t.variables() for t, _ in self.terms))

    def _leading(self):
        return self.terms[0]

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.key, id(self.scope)))
        return self._hash

    def __str__(self):
        parts = []
        for t, k in self.terms:
            sign = "+" if k > 0 else "-"
            if t == _ONE:
                parts.append(f"{sign} {abs(k)}")
            else:
                parts.append(f"{sign} {t}" if abs(k) == 1 else f"{sign} {abs(k)}*{t}")
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else text

    __repr__ = __str__

    # -- arithmetic ----------------------------------------------------------------------
    def _as_array(self):
        if hooks.as_value is None:
            raise TypeError(f"Symbolic dimension '{self}' cannot become an array here")
        return hooks.as_value(self)

    def _defer(name):
        """An operator that works on dimensions and integers, and otherwise turns the
        dimension into an array (``x.shape[0] / 2``, ``x + x.shape[0]``)."""
        def method(self, other):
            if not (isinstance(other, DimExpr) or _is_int_like(other)):
                return getattr(self._as_array(), f"__{name}__")(other)
            return getattr(self, f"_{name}")(other)
        method.__name__ = f"__{name}__"
        return method

    def _add(self, other):
        return self._combine(1, other, 1)

    _radd = _add

    def _sub(self, other):
        return self._combine(1, other, -1)

    def _rsub(self, other):
        return self._combine(-1, other, 1)

    def _mul(self, other):
        coeffs = {}
        for t2, k2 in self._poly(other, "mul").items():
            for t1, k1 in self.terms:
                t = t1.mul(t2)
                coeffs[t] = coeffs.get(t, 0) + k1 * k2
        return DimExpr._make(coeffs, self.scope)

    _rmul = _mul

    def _floordiv(self, other):
        return self._divmod(other)[0]

    def _rfloordiv(self, other):
        return _divmod_any(other, self)[0]

    def _mod(self, other):
        return self._divmod(other)[1]

    def _rmod(self, other):
        return _divmod_any(other, self)[1]

    __add__, __radd__ = _defer("add"), _defer("radd")
    __sub__, __rsub__ = _defer("sub"), _defer("rsub")
    __mul__, __rmul__ = _defer("mul"), _defer("rmul")
    __floordiv__, __rfloordiv__ = _defer("floordiv"), _defer("rfloordiv")
    __mod__, __rmod__ = _defer("mod"), _defer("rmod")
    del _defer

    def __divmod__(self, other):
        return self._divmod(other)

    def __rdivmod__(self, other):
        return _divmod_any(other, self)

    def __truediv__(self, other):       # "/" always makes a float: an array
        return self._as_array() / other

    def __rtruediv__(self, other):
        return other / self._as_array()

    def __neg__(self):
        return self._combine(-1, 0, 0)

    def __pos__(self):
        return self

    def __pow__(self, power, modulo=None):
        if isinstance(power, DimExpr) or power != int(power):
            raise ValueError("Symbolic dimension cannot be raised to non-integer powers: "
                             f"'{self}' ** '{power}'")
        if power < 0:
            raise ValueError("Symbolic dimension cannot be raised to negative powers: "
                             f"'{self}' ** '{power}'")
        result = 1
        for _ in range(int(power)):
            result = self * result
        return result

    def __rpow__(self, other):
        return other ** self._as_array()

    def _divmod(self, divisor):
        """Polynomial long division: exact quotient and integer remainder when the
        leading terms divide, else ``floordiv(self, divisor)`` and ``mod(...)``."""
        if not isinstance(divisor, DimExpr):
            divisor = operator.index(divisor)
        else:
            self.scope._check_same_scope(divisor, "for divmod")
        dividend, quotient = self, 0
        while isinstance(dividend, DimExpr):
            term, count = dividend._leading()
            if isinstance(divisor, DimExpr):
                dterm, dcount = divisor._leading()
                qterm = term.divide(dterm)
            else:
                qterm, dcount = term, divisor
            if qterm is None or count % dcount:
                break
            q = DimExpr._make({qterm: count // dcount}, self.scope)
            quotient = quotient + q
            dividend = dividend - q * divisor
        else:
            if not isinstance(divisor, DimExpr):
                q, r = divmod(dividend, divisor)
                return quotient + q, r
            if dividend == 0:
                return quotient, 0
        return (DimExpr._from_factor(_Factor(operation=FLOORDIV, operands=(self, divisor)),
                                     self.scope),
                DimExpr._from_factor(_Factor(operation=MOD, operands=(self, divisor)),
                                     self.scope))

    def __int__(self):
        raise InconclusiveDimensionOperation(
            f"Symbolic dimension '{self}' used in a context that requires a constant")

    # -- comparisons ---------------------------------------------------------------------
    def __eq__(self, other):
        if isinstance(other, DimExpr):
            if other.scope is not self.scope:
                return False
        elif not _is_int_like(other):
            return False
        diff = self - other             # a constant difference is an int again
        return not isinstance(diff, DimExpr) and diff == 0

    def __ne__(self, other):
        return not self.__eq__(other)

    def __ge__(self, other):
        return _geq(self, other, lambda: f"'{self}' >= '{other}'")

    def __le__(self, other):
        return _geq(other, self, lambda: f"'{self}' <= '{other}'")

    def __gt__(self, other):
        return not _geq(other, self, lambda: f"'{self}' > '{other}'")

    def __lt__(self, other):
        return not _geq(self, other, lambda: f"'{self}' < '{other}'")

    # -- evaluation ----------------------------------------------------------------------
    def evaluate(self, env: dict, ops: Ops | None = None):
        """The value of the expression when the variables have the values in ``env``;
        ``ops`` says how to compute (Python integers by default, MLIR ops when lowering)."""
        ops = ops or _INT_OPS
        total = None
        for t, k in self.terms:
            value = ops.const(k) if t == _ONE else _mul_const(
                ops, _evaluate_term(t, env, ops), k)
            total = value if total is None else ops.add(total, value)
        return total

    def linear_in(self, var: str):
        """``(k, rest)`` with ``self == k*var + rest`` and ``var`` not in ``rest``, if
        ``var`` appears only so (how argument shapes determine variables), else None."""
        found = None
        for t, k in self.terms:
            if var not in t.variables():
                continue
            if found is not None or t.factors != ((_Factor(var=var), 1),):
                return None
            found = (t, k)
        if found is None:
            return None
        coeffs = self._coeffs()
        del coeffs[found[0]]
        return found[1], DimExpr._make(coeffs, self.scope, normalize=False)

    def dimension_as_value(self):
        """The dimension as a 0-d integer array to compute with."""
        return self._as_array()

    def __jax_array__(self):
        return self._as_array()

    def max(self, other):
        return max_dim(self, other)

    def min(self, other):
        return min_dim(self, other)


DimExpr.__name__ = DimExpr.__qualname__ = "_DimExpr"


def _divmod_any(dividend, divisor: DimExpr):
    """``divmod(int, dim)``: only exact when the dividend is 0."""
    dividend = operator.index(dividend)
    if dividend == 0:
        return 0, 0
    scope = divisor.scope
    return (DimExpr._from_factor(_Factor(operation=FLOORDIV, operands=(dividend, divisor)),
                                 scope),
            DimExpr._from_factor(_Factor(operation=MOD, operands=(dividend, divisor)), scope))


def is_symbolic_dim(d) -> bool:
    """Whether ``d`` is a symbolic dimension (not a constant)."""
    return isinstance(d, DimExpr)


def is_constant_dim(d) -> bool:
    return not isinstance(d, DimExpr) and _is_int_like(d)


def is_constant_shape(shape) -> bool:
    """Whether no dimension of ``shape`` is symbolic (a plain loop: lowering asks this
    for every type it makes)."""
    for d in shape:
        if isinstance(d, DimExpr):
            return False
    return True


def canonicalize_dim(d):
    """A dimension as ``int`` or ``DimExpr``; anything else is JAX's ``TypeError``."""
    if isinstance(d, DimExpr):
        return d
    return operator.index(d)


def slice_indices(s: slice, dim) -> tuple:
    """``s.indices(dim)`` for a possibly symbolic ``dim`` (the step must be a constant):
    start and stop clamped into the axis as Python clamps them."""
    if not isinstance(dim, DimExpr):
        return s.indices(dim)
    step = 1 if s.step is None else operator.index(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")

    def clamp(i, low, high):
        if not isinstance(i, DimExpr) and i < 0:
            i = i + dim
        return min_dim(high, max_dim(i, low))
    if step > 0:
        start = 0 if s.start is None else clamp(s.start, 0, dim)
        stop = dim if s.stop is None else clamp(s.stop, 0, dim)
    else:
        start = dim - 1 if s.start is None else clamp(s.start, -1, dim - 1)
        stop = -1 if s.stop is None else clamp(s.stop, -1, dim - 1)
    return start, stop, step


def slice_size(start, stop, step):
    """``len(range(start, stop, step))`` for possibly symbolic bounds."""
    if step > 0:
        return max_dim(0, (stop - start + step - 1) // step)
    return max_dim(0, (start - stop - step - 1) // -step)


def max_dim(d1, d2):
    """``max(d1, d2)``, decided now when the bounds tell, else a ``max`` factor."""
    return _max_min(d1, d2, MAX)


def min_dim(d1, d2):
    """``min(d1, d2)``, decided now when the bounds tell, else a ``min`` factor."""
    return _max_min(d1, d2, MIN)


def _max_min(d1, d2, operation):
    if not (isinstance(d1, DimExpr) or isinstance(d2, DimExpr)):
        return (max if operation == MAX else min)(d1, d2)
    lb, ub = bounds(d1 - d2)
    if lb >= 0:
        return d1 if operation == MAX else d2
    if ub <= 0:
        return d2 if operation == MAX else d1
    scope = (d1 if isinstance(d1, DimExpr) else d2).scope
    return DimExpr._from_factor(_Factor(operation=operation, operands=(d1, d2)), scope)


# ----------------------------------------------------------------------------------------
# Evaluating expressions: with Python ints, or with anything that has these operations
# ----------------------------------------------------------------------------------------

class Ops:
    """How ``DimExpr.evaluate`` computes: overridden to emit MLIR when lowering."""
    const = staticmethod(lambda k: k)
    add = staticmethod(operator.add)
    mul = staticmethod(operator.mul)
    floordiv = staticmethod(operator.floordiv)
    mod = staticmethod(operator.mod)
    max = staticmethod(max)
    min = staticmethod(min)


_INT_OPS = Ops()


def _mul_const(ops, value, k):
    return value if k == 1 else ops.mul(value, ops.const(k))


def _evaluate_dim(d, env, ops):
    return d.evaluate(env, ops) if isinstance(d, DimExpr) else ops.const(d)


def _evaluate_term(t: _Term, env, ops):
    value = None
    for f, e in t.factors:
        if f.var is not None:
            if f.var not in env:
                raise UnexpectedDimVar(f"Encountered dimension variable '{f.var}' that is "
                                       "not appearing in the shapes of the function "
                                       "arguments.")
            v = env[f.var]
        else:
            operands = [_evaluate_dim(o, env, ops) for o in f.operands]
            v = getattr(ops, f.operation)(*operands)
        for _ in range(e):
            value = v if value is None else ops.mul(value, v)
    return value


def evaluate(d, env: dict, ops: Ops | None = None):
    """``d`` (an int or a ``DimExpr``) with the variables' values from ``env``."""
    return _evaluate_dim(d, env, ops or _INT_OPS)


# ----------------------------------------------------------------------------------------
# Scopes and bounds
# ----------------------------------------------------------------------------------------

class SymbolicScope:
    """Where symbolic expressions live, with the constraints on their variables.

    ``constraints_str`` are strings ``e1 >= e2``, ``e1 <= e2`` or ``e1 == e2``. An
    equality is a rewrite rule: its left side (one term times a coefficient) is replaced
    by its right side wherever it appears. Expressions from different scopes must not be
    mixed."""

    def __init__(self, constraints_str: Sequence[str] = ()):
        if isinstance(constraints_str, str):
            raise ValueError("The symbolic constraints should be a sequence of strings. "
                             f"Got {constraints_str!r}")
        self._location = _user_location()
        self._rules: dict[_Term, tuple[Any, int]] = {}   # t*k == e  as  t -> (e, k)
        # (text, "==" or ">=", diff): the constraint says ``diff == 0`` or ``diff >= 0``
        self._constraints: list[tuple[str, str, Any]] = []
        for c in constraints_str:
            self._add_constraint(c)

    def __str__(self):
        text = f"{id(self)} created at {self._location}"
        if self._constraints or self._rules:
            text += " with constraints:" + "".join(f"\n  {c}" for c in self._texts)
        return text

    __repr__ = __str__

    @property
    def _texts(self):
        return [c for c, _, _ in self._constraints]

    def _add_constraint(self, text: str):
        if not isinstance(text, str):
            raise ValueError(f"SymbolicScope constraint must be a string: got {text!r}")
        for cmp in ("==", ">=", "<="):
            left, found, right = text.partition(cmp)
            if found:
                break
        else:
            raise ValueError("Constraint parsing error: must contain one of '==' or '>=' "
                             "or '<='")
        e1, = _Parser(left, None, repr(left), self).parse()
        e2, = _Parser(right, None, repr(right), self).parse()
        if cmp == "<=":
            e1, e2 = e2, e1
        diff = e1 - e2
        if not isinstance(diff, DimExpr):
            if (cmp == "==" and diff != 0) or diff < 0:
                raise ValueError(f"Unsatisfiable explicit constraint: {text}")
            return
        if cmp == "==":
            if not isinstance(e1, DimExpr) or len(e1.terms) != 1:
                raise ValueError(f"Invalid equality constraint: {e1} == {e2}. The "
                                 "left-hand-side must be of the form `term * coefficient`.")
            (term, k), = e1.terms
            if term in self._rules:
                raise NotImplementedError("Found multiple equality constraints with the "
                                          f"same left-hand-side: {term}")
            self._rules[term] = (e2, k)
            self._constraints.append((text, "==", diff))
        else:
            self._constraints.append((text, ">=", diff))

    def _rewrite(self, coeffs: dict) -> dict:
        """Apply the first equality rule that matches a term (JAX applies one)."""
        for t, k in list(coeffs.items()):
            for lhs, (rhs, rk) in self._rules.items():
                rest = t.divide(lhs)
                if rest is None or k % rk:
                    continue
                coeffs = dict(coeffs)
                del coeffs[t]
                rhs_coeffs = rhs._coeffs() if isinstance(rhs, DimExpr) else {_ONE: rhs}
                for t2, k2 in rhs_coeffs.items():
                    t3 = t2.mul(rest)
                    coeffs[t3] = coeffs.get(t3, 0) + k2 * (k // rk)
                return {t: k for t, k in coeffs.items() if k}
        return coeffs

    def _check_same_scope(self, other: DimExpr, when: str = ""):
        if other.scope is not self:
            raise ValueError(f"Invalid mixing of symbolic scopes {when}.\n"
                             f"Expected  scope {self}\n"
                             f"and found for '{other}' (unknown) scope {other.scope}\n"
                             "See https://docs.jax.dev/en/latest/export/shape_poly.html"
                             "#user-specified-symbolic-constraints.")

    def _geq_constraints(self):
        return [d for _, cmp, d in self._constraints if cmp == ">="]


def _user_location() -> str:
    """``file:line:col (function)`` of the user's frame that made a scope."""
    frame = source_info.user_frame(source_info.current().traceback)
    return source_info.summarize_frame(frame) if frame is not None else "unknown"


_INF = math.inf


def _mul_bounds(a, b):
    """The product of two intervals (0 times an infinite bound is 0, not NaN)."""
    products = [0 if 0 in (x, y) else x * y for x in a for y in b]
    return min(products), max(products)


def _floordiv_bound(x, y):
    """``x // y`` for ``y >= 1``, where either may be an infinite bound."""
    if y == _INF:
        return 0 if x >= 0 else -1
    if x in (_INF, -_INF):
        return x
    return x // y


def _term_bounds(t: _Term, scope: SymbolicScope):
    """Bounds of one term: from the constraints naming it alone, then from its factors
    (a variable is >= 1)."""
    lo, hi = 1, 1
    for f, e in t.factors:
        flo, fhi = _factor_bounds(f, scope)
        for _ in range(e):
            lo, hi = _mul_bounds((lo, hi), (flo, fhi))
    for diff in scope._geq_constraints():
        # k*t + c >= 0 bounds t alone
        if len(diff.terms) <= 2 and any(t2 == t for t2, _ in diff.terms) and all(
                t2 == t or t2 == _ONE for t2, _ in diff.terms):
            coeffs = diff._coeffs()
            k, c = coeffs[t], coeffs.get(_ONE, 0)
            if k > 0:
                lo = max(lo, -(c // k))
            else:
                hi = min(hi, c // -k)
    return lo, hi


def _factor_bounds(f: _Factor, scope: SymbolicScope):
    if f.var is not None:
        return 1, _INF
    (lo1, hi1), (lo2, hi2) = (_interval(o) for o in f.operands)
    if f.operation == MAX:
        return max(lo1, lo2), max(hi1, hi2)
    if f.operation == MIN:
        return min(lo1, lo2), min(hi1, hi2)
    if lo2 >= 1:                        # floordiv/mod by a positive divisor
        if f.operation == MOD:
            return 0, hi2 - 1
        corners = [_floordiv_bound(x, y) for x in (lo1, hi1) for y in (lo2, hi2)]
        return min(corners), max(corners)
    return -_INF, _INF


def _interval(d):
    """Bounds of ``d`` by interval arithmetic over its terms."""
    if not isinstance(d, DimExpr):
        return d, d
    lo = hi = 0
    for t, k in d.terms:
        tlo, thi = (1, 1) if t == _ONE else _term_bounds(t, d.scope)
        lo, hi = (lo + k * tlo, hi + k * thi) if k > 0 else (lo + k * thi, hi + k * tlo)
    return lo, hi


def bounds(d) -> tuple:
    """Lower and upper bounds of ``d`` (possibly infinite). Each explicit ``c >= 0`` of
    the scope can tighten them: eliminating a term ``t`` that ``d`` and ``c`` share gives
    ``|kc|*d - sgn(kc)*kd*c``, whose interval bounds ``d`` from one side (JAX's idea)."""
    if not isinstance(d, DimExpr):
        return d, d
    lo, hi = _interval(d)
    coeffs = d._coeffs()
    for c in d.scope._geq_constraints() + _implicit_constraints(d):
        for t, kc in c.terms:
            kd = coeffs.get(t)
            if t == _ONE or not kd:
                continue
            sign = 1 if kc > 0 else -1
            e0_lo, e0_hi = _interval(d * abs(kc) - c * (sign * kd))
            if sign * kd > 0 and e0_lo > -_INF:
                lo = max(lo, -(-e0_lo // abs(kc)))
            elif sign * kd < 0 and e0_hi < _INF:
                hi = min(hi, e0_hi // abs(kc))
    return lo, hi


def _implicit_constraints(d: DimExpr) -> list:
    """What every ``min``/``max`` factor of ``d`` satisfies, as expressions >= 0:
    ``min(x, y) <= x, y`` and ``max(x, y) >= x, y``."""
    out = []
    for t, _ in d.terms:
        for f, _ in t.factors:
            if f.operation in (MIN, MAX):
                e = DimExpr._from_factor(f, d.scope)
                out += [o - e if f.operation == MIN else e - o for o in f.operands]
    return [c for c in out if isinstance(c, DimExpr)]


def _geq(e1, e2, describe: Callable[[], str]) -> bool:
    """``e1 >= e2``, or ``InconclusiveDimensionOperation``."""
    scope = None
    for e in (e1, e2):
        if isinstance(e, DimExpr):
            if scope is not None:
                scope._check_same_scope(e, f"when comparing {describe()}")
            scope = e.scope
    if scope is None:
        return operator.index(e1) >= operator.index(e2)
    lo, hi = bounds(e1 - e2)
    if lo >= 0:
        return True
    if hi < 0:
        return False
    where = f"\nUsing symbolic scope {scope}" if scope._constraints else ""
    raise InconclusiveDimensionOperation(
        f"Symbolic dimension comparison {describe()} is inconclusive.{where}")


# ----------------------------------------------------------------------------------------
# Parsing "b, 2*b + 1, _"
# ----------------------------------------------------------------------------------------

def symbolic_shape(shape_spec: str | None, *, constraints: Sequence[str] = (),
                   scope: SymbolicScope | None = None,
                   like: Sequence[int | None] | None = None) -> tuple:
    """The shape that ``shape_spec`` writes, e.g. ``"b, 2*b + 1"``: a tuple of ints and
    symbolic dimensions. ``_`` (one dimension) and ``...`` (the rest) are taken from
    ``like``. A new scope holds ``constraints`` unless ``scope`` is given."""
    spec_repr = repr(shape_spec)
    if shape_spec is None:
        shape_spec = "..."
    elif not isinstance(shape_spec, str):
        raise ValueError("polymorphic shape spec should be None or a string. "
                         f"Found {spec_repr}.")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    return _Parser(shape_spec, like, spec_repr, scope).parse()


class _Parser:
    """A recursive-descent parser over Python's tokens: shape := expr (',' expr)*,
    expr := ['-'] term (('+'|'-') term)*, term := factor ['^' int] ('*' ...)*,
    factor := name | int | op '(' expr ',' expr ')'."""

    def __init__(self, spec: str, like, spec_repr: str, scope: SymbolicScope):
        self.spec, self.like, self.spec_repr, self.scope = spec, like, spec_repr, scope
        self.dims: list = []

    def parse(self) -> tuple:
        self.tokens = tokenize.tokenize(io.BytesIO(self.spec.encode()).readline)
        tok = self.consume(self.next(), tokenize.ENCODING)
        shape, tok = self.shape(tok)
        self.expect(tok, [tokenize.ENDMARKER])
        return shape

    def error(self, tok, detail: str) -> ValueError:
        msg = (f"syntax error in symbolic shape {self.spec_repr} in dimension "
               f"{len(self.dims)}: {detail}. ")
        if tok is not None:
            msg += (f"Parsed '{tok.line[:tok.start[1]]}', remaining "
                    f"'{tok.line[tok.start[1]:]}'.")
        return ValueError(msg)

    def next(self):
        for tok in self.tokens:
            if tok.exact_type not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                return tok
        raise self.error(None, "unexpected end of string")

    def expect(self, tok, kinds):
        if tok.exact_type not in kinds:
            raise self.error(tok, "expecting one of {" + ", ".join(
                tokenize.tok_name[k] for k in kinds) + "} but found "
                + tokenize.tok_name[tok.exact_type])

    def consume(self, tok, kind):
        self.expect(tok, [kind])
        return self.next()

    def add_dim(self, d, tok):
        if d is None:
            raise self.error(tok, f"unexpected placeholder for unknown dimension; "
                                  f"like={self.like}")
        if is_constant_dim(d) and self.like is not None and d != self.like[len(self.dims)]:
            raise self.error(tok, f"different size {d} for known dimension; "
                                  f"like={self.like}")
        self.dims.append(d)

    END_SHAPE = (tokenize.ENDMARKER, tokenize.RPAR)

    def shape(self, tok):
        if tok.exact_type == tokenize.LPAR:
            shape, tok = self.shape(self.next())
            return shape, self.consume(tok, tokenize.RPAR)
        while tok.exact_type not in self.END_SHAPE:
            placeholder = tok.exact_type == tokenize.ELLIPSIS or (
                tok.exact_type == tokenize.NAME and tok.string == "_")
            if placeholder:
                if self.like is None:
                    raise self.error(tok, "spec contains ... but no 'like' shape was given")
                need = len(self.dims) + (tok.string == "_")
                if len(self.like) < need:
                    raise self.error(tok, f"cannot resolve placeholder '{tok.string}' "
                                          f"because we parsed {len(self.dims)} already and "
                                          f"'like' shape has only {len(self.like)} "
                                          "dimensions")
            if tok.exact_type == tokenize.ELLIPSIS:
                for d in self.like[len(self.dims):]:
                    self.add_dim(d, tok)
                tok = self.next()
                break
            if placeholder:
                d, tok = self.like[len(self.dims)], self.next()
            else:
                d, tok = self.expr(tok)
            self.add_dim(d, tok)
            if tok.exact_type in self.END_SHAPE:
                break
            tok = self.consume(tok, tokenize.COMMA)
        return tuple(self.dims), tok

    def expr(self, tok):
        negate = tok.exact_type == tokenize.MINUS
        if tok.exact_type in (tokenize.MINUS, tokenize.PLUS):
            tok = self.next()
        total = None
        while True:
            t, tok = self.term(tok)
            t = -t if negate else t
            total = t if total is None else total + t
            if tok.exact_type in self.END_SHAPE + (tokenize.COMMA,):
                return total, tok
            self.expect(tok, [tokenize.PLUS, tokenize.MINUS])
            negate = tok.exact_type == tokenize.MINUS
            tok = self.next()

    def term(self, tok):
        product = None
        while True:
            f, tok = self.factor(tok)
            if tok.exact_type == tokenize.CIRCUMFLEX:
                tok = self.next()
                self.expect(tok, [tokenize.NUMBER])
                power, tok = self.integer(tok)
                f = f ** power
            product = f if product is None else product * f
            if tok.exact_type in self.END_SHAPE + (tokenize.COMMA, tokenize.PLUS,
                                                   tokenize.MINUS):
                return product, tok
            tok = self.consume(tok, tokenize.STAR)

    def integer(self, tok):
        self.expect(tok, [tokenize.NUMBER])
        try:
            return int(tok.string), self.next()
        except ValueError:
            raise self.error(tok, f"expecting integer, found {tok.string}") from None

    def factor(self, tok):
        if tok.exact_type == tokenize.NAME:
            if tok.string in (FLOORDIV, MOD, MAX, MIN):
                return self.operation(tok.string, self.next())
            var = DimExpr._from_factor(_Factor(var=tok.string), self.scope)
            return var, self.next()
        sign = 1
        if tok.exact_type == tokenize.MINUS:
            sign, tok = -1, self.next()
            self.expect(tok, [tokenize.NUMBER])
        if tok.exact_type == tokenize.NUMBER:
            k, tok = self.integer(tok)
            return sign * k, tok
        self.expect(tok, [tokenize.NAME, tokenize.MINUS, tokenize.NUMBER])

    def operation(self, op, tok):
        tok = self.consume(tok, tokenize.LPAR)
        e1, tok = self.expr(tok)
        tok = self.consume(tok, tokenize.COMMA)
        e2, tok = self.expr(tok)
        tok = self.consume(tok, tokenize.RPAR)
        if op == MAX:
            return max_dim(e1, e2), tok
        if op == MIN:
            return min_dim(e1, e2), tok
        scope = self.scope
        return DimExpr._from_factor(_Factor(operation=op, operands=(e1, e2)), scope), tok

"""``jax_explain_cache_misses``: say why ``jit`` traced a function again.

A jitted function is traced once per *cache key*: the pytree structure of its
arguments, their types, the static arguments and the tracing context (options such as
``enable_x64``). When a call misses the cache this logs, at WARNING, the function and
call site and, against the closest key seen before, the first kind of difference:
context, then structure, then types (JAX's wording, so the explanations match JAX's).
"""
from __future__ import annotations

import logging
import operator
import os

from glassjax import source_info, tree_util
from glassjax.config import config

logger = logging.getLogger(__name__)
_callsites_with_misses: set = set()


def explain(fun, seen_keys, key, debug) -> None:
    """Log why ``key`` (``(in_tree, in_avals, static_args, trace context, axis env)``)
    is not among ``seen_keys`` of ``fun`` (traced for ``debug``)."""
    code = getattr(fun, "__code__", None)
    if code is None or _is_glassjax_file(code.co_filename):
        return              # (our own jitted library functions are not explained)
    callsite = source_info.summarize(source_info.current()) or "unknown"
    name = getattr(fun, "__name__", "<unnamed function>")
    where = f" defined at {code.co_filename}:{code.co_firstlineno}"
    lines = [f"TRACING CACHE MISS at {callsite}:"]
    if not seen_keys:
        lines.append(f"  never seen function:\n    {name} id={id(fun)}{where}")
        if str(callsite) in _callsites_with_misses:
            lines.append("  but seen another function defined on the same line; maybe the "
                         "function is\n  being re-defined repeatedly, preventing caching?")
        _callsites_with_misses.add(str(callsite))
    else:
        lines.append(f"  for {name}{where}")
        closest = min(_diff(key, old, debug.arg_names) for old in seen_keys)[-1]
        lines.append("  all previously seen cache keys differ. For the closest previous "
                     "key:")
        lines.append("  " + closest)
    logger.warning("\n".join(lines))


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _is_glassjax_file(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE_DIR)


def _diff(new, old, arg_names) -> tuple[int, int, str]:
    """(severity, number of differences, explanation): lower severity is closer."""
    (new_tree, new_avals, new_static, new_ctx, *_), (old_tree, old_avals, old_static,
                                                     old_ctx, *_) = new, old
    return (_diff_context(new_ctx, old_ctx) or
            _diff_trees(new_tree, old_tree, new_static, old_static) or
            _diff_types(arg_names, new_avals, old_avals) or
            (4, 0, "cache miss explanation unavailable"))


def _diff_context(new, old):
    if new == old:
        return None
    message = "Tracing context doesn't match, e.g. due to config or context manager."
    num = sum(map(operator.ne, new, old))
    names = config.trace_context_names()
    diffs = [f"  * {name} differs: now {n} and before {o}"
             for name, n, o in zip(names, new, old) if n != o]
    return 0, num, message + "\n" + "\n".join(diffs)


def _diff_trees(new, old, new_static, old_static):
    """Differences in the arguments' structure; static arguments count as part of it
    (JAX holds them as pytree nodes whose metadata is the value), at ``[0][i]`` for
    positional ones and ``[1]['name']`` for keywords."""
    diffs = [f"  * at input path {tree_util.keystr(tuple(path))}, now {thing1} and before "
             f"{thing2}, so {explanation}"
             for path, thing1, thing2, explanation
             in tree_util.equality_errors_pytreedef(new, old)]
    old_by_key = dict(old_static)
    for where, arg in new_static:
        before = old_by_key.get(where)
        if before is not None and before != arg:
            path = f"[0][{where}]" if isinstance(where, int) else f"[1][{where!r}]"
            diffs.append(f"  * at input path {path}, now {type(arg)} with pytree metadata "
                         f"{arg!r} and before {type(before)} with pytree metadata "
                         f"{before!r}, so the pytree node metadata does not match")
    if not diffs and [w for w, _ in new_static] != [w for w, _ in old_static]:
        diffs.append("  * the static arguments given differ")
    if diffs:
        return 1, len(diffs), "different input pytree:\n" + "\n".join(diffs)
    return None


def _diff_types(arg_names, new, old):
    diffs, weak_hint = [], False
    for name, n, o in zip(arg_names, new, old):
        if n != o or getattr(n, "_sharding", None) != getattr(o, "_sharding", None):
            n_str, o_str = n.str_short(True), o.str_short(True)
            if n.ndim != o.ndim:
                # JAX's types carry a sharding (over no mesh: one ``None`` per axis), so
                # they also differ there and it shows the (empty) mesh axis types.
                n_str, o_str = n_str + "({})", o_str + "({})"
            if n.weak_type != o.weak_type:
                weak_hint = True
                n_str += f"{{weak_type={n.weak_type}}}"
                o_str += f"{{weak_type={o.weak_type}}}"
            diffs.append(f"  * at {name}, now {n_str} and before {o_str}")
    if not diffs:
        return None
    message = "different input types:\n" + "\n".join(diffs)
    if weak_hint:
        message += "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"
    return 3, len(diffs), message

"""Module paths as scopes in the notebook's pictures of library models.

flax linen and equinox run each module's method under ``jax.named_scope``, so their
equations carry the module path in their name stack and the explorer folds each module
into a cluster. flax nnx and brainstate modules name nothing. While the notebook traces a
program (``%jaxpr``, the explorer), ``module_scopes()`` names them the same way: a
profile hook sees each call of a module's ``__call__`` (or a method the user wrote) and
pushes a name for it (the attribute that holds the module in the module that calls it,
``layers[0]``, else its class, ``MLP``) onto the name stack while it runs.

Only the name stack changes: the jaxpr, its text and its values are those of JAX (which
prints no name stacks unless asked). The hook is a plain ``sys.setprofile`` on the
tracing thread, on for the trace only, and only when nnx or brainstate is imported.
"""
from __future__ import annotations

import contextlib
import sys
import sysconfig
from collections.abc import Mapping, Sequence

from glassjax import source_info

# Where modules' base classes live (only looked up when their library is imported).
_BASES = (("flax.nnx", "Module"), ("brainstate.nn", "Module"))
_LIBRARIES = tuple(p for p in {sysconfig.get_paths()["purelib"],
                               sysconfig.get_paths()["platlib"]})


def _module_bases() -> tuple:
    bases = (getattr(sys.modules.get(lib), name, None) for lib, name in _BASES)
    return tuple(b for b in bases if isinstance(b, type))


def _attribute_name(parent, child) -> str | None:
    """The attribute of ``parent`` that holds ``child`` (``linear``, ``layers[0]``,
    ``blocks['a']``), looking one container deep (a list or dict, or a library's own
    such as ``nnx.List``)."""
    for name, value in vars(parent).items():
        if value is child:
            return name
        if isinstance(value, str) or not isinstance(value, (Sequence, Mapping)):
            continue
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        for key, item in items:
            if item is child:
                return f"{name}[{key!r}]"
    return None


def _names_a_scope(code, obj, bases) -> bool:
    """A module's ``__call__``, or a public method the user wrote (the libraries' own
    helpers, such as nnx's ``iter_modules``, are not the model's structure)."""
    if not isinstance(obj, bases):
        return False
    return code.co_name == "__call__" or (not code.co_name.startswith("_") and
                                          not code.co_filename.startswith(_LIBRARIES))


@contextlib.contextmanager
def module_scopes():
    """Push a name-stack entry for each module call made while tracing inside."""
    bases = _module_bases()
    if not bases or sys.getprofile() is not None:
        yield
        return
    open_scopes = []        # (frame, module, the entered extend_name_stack)

    def profile(frame, event, arg):
        if event == "call":
            code = frame.f_code
            if not (code.co_argcount and code.co_varnames[0] == "self"):
                return
            obj = frame.f_locals.get("self")
            if not _names_a_scope(code, obj, bases):
                return
            if open_scopes and open_scopes[-1][1] is obj:
                return      # (brainstate's __call__ calls update: one module, one scope)
            parent = open_scopes[-1][1] if open_scopes else None
            name = (parent is not None and _attribute_name(parent, obj)) or type(obj).__name__
            scope = source_info.extend_name_stack(name)
            scope.__enter__()
            open_scopes.append((frame, obj, scope))
        elif event == "return" and open_scopes and open_scopes[-1][0] is frame:
            open_scopes.pop()[2].__exit__(None, None, None)

    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        while open_scopes:
            open_scopes.pop()[2].__exit__(None, None, None)

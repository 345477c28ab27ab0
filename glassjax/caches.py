"""Every cache glassjax keeps, in one registry, and the reference mode that turns off the
ones that are shortcuts.

A cache is made here, never by hand (``functools.lru_cache`` or a module dict used as a
memo): ``table`` makes a dict, ``family`` a dict per closure or instance (one per
primitive, per jnp function, ...), ``lru`` wraps a function in ``functools.lru_cache``,
``external`` names a cache that lives in jaxlib's C++. Each is registered under a name,
with its bound (or why it needs none), so ``glassjax.clear_caches()`` can empty all of
them and ``tests/test_caches.py`` can check that none is missed.

Each cache is one of two kinds:

- a *shortcut* skips Python that a reader reads: a jnp function replayed from a recipe
  instead of run, an abstract-eval rule answered from memory, a jit call or an eager
  operation dispatched by jaxlib's C++ without entering Python. With reference mode on
  (``glassjax.config.update("glassjax_reference_mode", True)``, the environment variable
  ``GLASSJAX_REFERENCE_MODE=1`` read at import, or ``%glassjax reference on`` in a
  notebook) every shortcut is bypassed, so a breakpoint or a ``print`` in such a rule
  fires on every call that needs it. The results are the same, only slower.
- a *store* keeps what JAX keeps too, and what it keeps is part of the semantics: the
  trace of a jitted function per argument types (a ``print`` in it runs once, as in
  JAX), compiled executables (compiling is XLA's work, not a rule), and derived jaxprs
  whose identity makes a jaxpr used twice print once (``let name = {...} in``).
  Reference mode leaves stores alone.

A *flag* is a shortcut that is one bit: "no value placed in host memory has been seen
yet, so skip the passes that look for one". Reference mode raises every flag (the full
path runs); nothing lowers a flag, since a value that raised it may still be alive.

A memo that lives only as long as one call (one lowering's attribute table, one
contraction-path search) or one object (``functools.cached_property``) is not a cache in
this sense: it is gone when its owner is.
"""
from __future__ import annotations

import functools
import weakref
from typing import Callable

from glassjax.config import config


class _Reference:
    """``reference.on``: is reference mode on? A plain attribute, because shortcuts read
    it on hot paths (a config option costs a C++ call); the option keeps it current.
    It is process-wide: even a ``with reference_mode(True):`` block (the option, from
    the module ``glassjax/config.py``) switches every thread."""
    __slots__ = ("on",)

    def __init__(self):
        self.on = False


reference = _Reference()


class Cache:
    """One registered cache: its name, its bound (None: ``why`` says why it needs none),
    whether it is a shortcut, and how to empty and measure it."""
    __slots__ = ("name", "bound", "why", "shortcut", "clear", "size")

    def __init__(self, name, bound, why, shortcut, clear: Callable, size: Callable):
        if bound is None and not why:
            raise ValueError(f"cache {name!r} is unbounded: say why it need not be bounded")
        self.name, self.bound, self.why, self.shortcut = name, bound, why, shortcut
        self.clear, self.size = clear, size

    def __repr__(self):
        kind = "shortcut" if self.shortcut else "store"
        bound = f"at most {self.bound}" if self.bound is not None else f"unbounded: {self.why}"
        return f"<{kind} {self.name}: {self.size()} entries, {bound}>"


registry: dict[str, Cache] = {}
flags: dict[str, Callable] = {}      # name -> a function raising the flag


def _register(name, bound, why, shortcut, clear, size):
    if name in registry:
        raise ValueError(f"a cache named {name!r} is already registered")
    registry[name] = Cache(name, bound, why, shortcut, clear, size)


def table(name: str, *, bound: int | None = None, why: str = "", shortcut: bool = False,
          weak: bool = False) -> dict:
    """A new registered dict (a ``WeakKeyDictionary`` if ``weak``: entries die with their
    key). The caller keeps it within ``bound`` (clearing it when full)."""
    made = weakref.WeakKeyDictionary() if weak else {}
    _register(name, bound, why, shortcut, made.clear, made.__len__)
    return made


class _Memo(dict):
    """A dict that can be weakly referenced (a family forgets the memos of dead owners)."""
    __slots__ = ("__weakref__",)


class Family:
    """Many dicts of one kind, one per closure or instance (``family.new()``), registered
    once: clearing the family clears each. Members are held weakly (by id: dicts are
    unhashable), so a memo dies with its owner."""

    def __init__(self, weak):
        self.members: dict[int, weakref.ref] = {}
        self.kind = weakref.WeakKeyDictionary if weak else _Memo

    def new(self) -> dict:
        memo = self.kind()
        self.members[id(memo)] = weakref.ref(
            memo, lambda _, key=id(memo): self.members.pop(key, None))
        return memo

    def live(self) -> list:
        return [m for ref in list(self.members.values()) if (m := ref()) is not None]


def family(name: str, *, bound: int | None = None, why: str = "", shortcut: bool = False,
           weak: bool = False) -> Family:
    """A registered family of dicts (``WeakKeyDictionary``s if ``weak``); ``bound`` is per
    member."""
    made = Family(weak)

    def clear():
        for memo in made.live():
            memo.clear()
    _register(name, bound, why, shortcut, clear, lambda: sum(map(len, made.live())))
    return made


def lru(name: str, maxsize: int | None, *, why: str = "", shortcut: bool = False):
    """A decorator: ``functools.lru_cache(maxsize)``, registered. A shortcut calls the
    function itself in reference mode."""
    def decorate(fun):
        cached = functools.lru_cache(maxsize)(fun)
        _register(name, maxsize, why, shortcut, cached.cache_clear,
                  lambda: cached.cache_info().currsize)
        if not shortcut:
            return cached

        @functools.wraps(fun)
        def call(*args):
            return fun(*args) if reference.on else cached(*args)
        call.cache_clear = cached.cache_clear
        return call
    return decorate


def external(name: str, *, bound: int | None, why: str = "", shortcut: bool,
             clear: Callable, size: Callable):
    """Register a cache made elsewhere (jaxlib's C++ executable cache)."""
    _register(name, bound, why, shortcut, clear, size)


def flag(name: str, raise_flag: Callable):
    """Register a sticky flag (see the module docstring) by the function that raises it;
    raised at once if reference mode is on."""
    flags[name] = raise_flag
    if reference.on:
        raise_flag()


def clear_all():
    """Empty every registered cache (``glassjax.clear_caches``)."""
    for cache in registry.values():
        cache.clear()


def _reference_mode_changed(on):
    reference.on = bool(on)
    if on:
        for raise_flag in flags.values():
            raise_flag()


config.on_change("glassjax_reference_mode", _reference_mode_changed)
reference.on = config.glassjax_reference_mode

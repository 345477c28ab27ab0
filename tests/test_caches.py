"""The cache registry (``glassjax/caches.py``): every cache is made through it, and
``clear_caches()`` empties every one.

The source is scanned for the ways a cache gets made by hand (``functools.lru_cache``,
``functools.cache``, weak dictionaries, module dicts named as memos): none may be left
outside ``caches.py``. Each registering call in the source must account for one entry of
the registry, so the registry and the code cannot drift apart.
"""
import importlib
import pathlib
import re

import numpy as np
import pytest

import glassjax
import glassjax.numpy as jnp
from glassjax import caches, lax
from glassjax.config import reference_mode

ROOT = pathlib.Path(glassjax.__file__).parent
SOURCES = {p: p.read_text() for p in ROOT.rglob("*.py") if p.name != "caches.py"}

# Ways of making a cache by hand.
HAND_MADE = re.compile(r"functools\.(lru_cache|cache)\b|@(lru_cache|cache)\b|"
                       r"Weak(Key|Value)Dictionary\(|^_?\w*(cache|memo)s?(: [^=]+)? = \{\}",
                       re.M | re.I)
REGISTERING = re.compile(r"\bcaches\.(table|family|lru|external)\(")


def _module(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_no_cache_is_made_by_hand():
    found = [f"{p.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for p, text in SOURCES.items() for m in HAND_MADE.finditer(text)]
    assert not found, "make these through glassjax.caches:\n" + "\n".join(found)


def test_every_registering_call_is_in_the_registry():
    sites = {p: len(REGISTERING.findall(text)) for p, text in SOURCES.items()}
    for path in sites:
        if sites[path]:
            importlib.import_module(_module(path))
    assert sum(sites.values()) == len(caches.registry)


def test_an_unbounded_cache_must_say_why():
    with pytest.raises(ValueError, match="say why"):
        caches.table("test.unbounded")
    assert "test.unbounded" not in caches.registry


def _fill_caches():
    """Run a little of everything: traces, compilations, transformations, control flow."""
    x = jnp.arange(4.0)
    f = glassjax.jit(lambda v: jnp.sin(v) * 2.0)
    f(x)
    f(x)
    glassjax.grad(lambda v: glassjax.jit(jnp.cos)(v).sum())(x)
    glassjax.vmap(glassjax.jit(lambda v: v @ v))(x.reshape(2, 2))
    glassjax.make_jaxpr(lambda v: lax.scan(lambda c, a: (c + a, c), 0.0, v))(x)
    lax.reduce(np.ones(3, np.float32), np.float32(0), lambda a, b: a + b, (0,))
    return str(glassjax.make_jaxpr(lambda v: jnp.sum(v + 1.0))(x))


def test_clear_caches_empties_every_registered_cache():
    _fill_caches()
    filled = {c.name for c in caches.registry.values() if c.size()}
    assert {"jit.traces", "jit.executables", "lax.utils.abstract_evals",
            "interpreters.replay.recipes", "xla.fastpath.cpp_executables",
            "interpreters.ad.linearize_jaxpr"} <= filled
    glassjax.clear_caches()
    # (jaxlib's C++ cache keeps an entry for each jitted function still alive elsewhere in
    # the process, which clear_all does not drop: 42 in a worker of the whole suite, 0
    # alone)
    left = {c.name: c.size() for c in caches.registry.values() if c.size()}
    left.pop("xla.fastpath.cpp_executables", None)
    assert left == {}


def test_shortcuts_are_bypassed_but_results_stay_the_same():
    default = _fill_caches()
    glassjax.clear_caches()
    with reference_mode(True):
        reference = _fill_caches()
        skipped = {c.name for c in caches.registry.values() if c.shortcut and c.size()}
    assert reference == default
    # (C++ keeps an entry per jitted function, but no executable in it in reference mode)
    assert skipped <= {"xla.fastpath.cpp_executables"}

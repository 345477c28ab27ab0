"""Tracing and Python's cycle collector.

While a trace runs, the collector looks only at objects made since it started (the older
ones are set aside with ``gc.freeze`` and given back after: see
``staging._SparingOldObjects``). These tests check that it is invisible to programs: the
objects come back however the trace ends, garbage cycles made while tracing are still
collected, and a program's own ``gc.freeze`` is left alone.
"""
import gc
import weakref

import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax.interpreters.staging import _SparingOldObjects

# What the interpreter froze itself before any trace (CPython 3.12: a few hundred objects;
# the first trace gives them back with the rest).
UNTOUCHED = (0, _SparingOldObjects.at_start)


def test_older_objects_are_set_aside_only_while_tracing():
    seen = []

    def f(x):
        seen.append(gc.get_freeze_count())
        return jnp.sin(x)
    assert gc.get_freeze_count() in UNTOUCHED
    jax.make_jaxpr(f)(1.0)
    assert seen[0] > _SparingOldObjects.at_start
    assert gc.get_freeze_count() == 0


def test_nested_traces_give_the_objects_back_once():
    seen = []

    def inner(x):
        seen.append(gc.get_freeze_count())
        return jnp.cos(x)

    def outer(x):
        y = jax.jit(inner)(x)
        seen.append(gc.get_freeze_count())
        return y
    jax.make_jaxpr(outer)(1.0)
    assert seen[0] > 0 and seen[1] > 0     # still set aside after the inner trace ended
    assert gc.get_freeze_count() == 0


def test_objects_come_back_when_tracing_fails():
    def f(x):
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        jax.make_jaxpr(f)(1.0)
    assert gc.get_freeze_count() == 0


def test_garbage_cycles_made_while_tracing_are_collected():
    class Node:
        pass
    refs = []

    def f(x):
        node = Node()
        node.me = node                   # a cycle: only the collector frees it
        refs.append(weakref.ref(node))
        del node
        gc.collect()
        refs.append(refs[0]() is None)
        return x
    jax.make_jaxpr(f)(1.0)
    assert refs[1] is True


def test_a_programs_own_freeze_is_left_alone():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        seen = []

        def f(x):
            seen.append(gc.get_freeze_count())
            return jnp.sin(x)
        jax.make_jaxpr(f)(1.0)
        # not frozen again (the count would grow), not given back (it would be 0); the
        # count may fall, as frozen objects die by reference counting meanwhile
        assert len(seen) == 1 and 0 < seen[0] <= frozen
        assert 0 < gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()

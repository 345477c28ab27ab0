"""The upward slots (glassjax/slots.py): one registry, filled one way, each by the module
it names, which sits above the module that declares it."""
import pytest

import glassjax  # noqa: F401  (fills every slot)
from glassjax import core, slots
from test_layers import layer_of


def _module_of(table):
    """``glassjax.core.Hooks`` -> ``core`` (test_layers' module names)."""
    return table.rpartition(".")[0].removeprefix("glassjax.")


def test_every_slot_is_filled_after_import():
    listing = slots.listing()
    assert len(listing) >= 35
    assert [f"{e.table}.{e.name}" for e in listing if not e.filled] == []


def test_every_slot_is_filled_from_above():
    """A slot inverts an upward need: its filler sits in a higher layer than the module
    declaring it, or (same layer) could not be imported by it without a cycle."""
    downward = [f"{e.table}.{e.name} <- {e.filler}" for e in slots.listing()
                if layer_of(e.filler.removeprefix("glassjax.")) <
                layer_of(_module_of(e.table))]
    assert downward == []


def test_the_declared_filler_filled_each_slot():
    """``register`` records nothing from anyone else, so a filled slot was filled by its
    declared filler; here another module tries."""
    with pytest.raises(ImportError, match="is filled by glassjax.pretty, not"):
        core.hooks.register(pp_eqn=print)


def test_a_typo_fails():
    with pytest.raises(AttributeError, match="has no slot 'pp_eqns'"):
        core.hooks.register(pp_eqns=print)


def test_a_slot_cannot_be_assigned_directly():
    with pytest.raises(AttributeError, match=r"register\(pp_eqn=...\)"):
        core.hooks.pp_eqn = print


def test_listing_says_what_for():
    entry, = [e for e in slots.listing() if e.name == "reduce_sum"]
    assert entry.table == "glassjax.lax.utils._Above"
    assert entry.filler == "glassjax.lax.reductions"
    assert "transpose" in entry.why

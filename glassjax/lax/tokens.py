"""Tokens: ``create_token`` makes one, ``after_all`` joins several into one that comes
after all of them. A token carries no data; passing it from one side-effecting operation
to the next is how a program states their order (XLA may otherwise reorder or drop
operations whose results nobody reads)."""
from __future__ import annotations

from glassjax import core
from glassjax.xla import dispatch, lowering
from glassjax.xla.lowering import hlo

# -- create_token ------------------------------------------------------------------------

create_token_p = core.Primitive("create_token")


def create_token(_=None):
    """A fresh token. The argument is ignored (it exists so old code that threaded a
    value through still runs)."""
    return create_token_p.bind()


create_token_p.def_impl(lambda: dispatch.apply_primitive(create_token_p))
create_token_p.def_abstract_eval(lambda: core.abstract_token)
lowering.register_lowering(create_token_p, lambda ctx: hlo.CreateTokenOp().result)

# -- after_all ---------------------------------------------------------------------------

after_all_p = core.Primitive("after_all")


def after_all(*operands):
    """A token that comes after every token in ``operands``."""
    return after_all_p.bind(*operands)


def _after_all_abstract_eval(*avals):
    if any(a is not core.abstract_token for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return core.abstract_token


after_all_p.def_impl(lambda *tokens: dispatch.apply_primitive(after_all_p, *tokens))
after_all_p.def_abstract_eval(_after_all_abstract_eval)
lowering.register_lowering(after_all_p, lambda ctx, *tokens: hlo.AfterAllOp(tokens).result)

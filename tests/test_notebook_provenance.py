"""Tracing a transformed program's equations back to the original's by their data."""
import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax, make_jaxpr
from glassjax.notebook import graph as graph_lib
from glassjax.notebook.provenance import _inside, all_locations, origins


def f(x, y):
    return jnp.sin(x) * y + 1.0


def split(fun, args, original=f, original_args=None):
    """({location in new: (its primitive, its origin's primitive)}, the primitives of
    the equations added, outside equations traced back)."""
    old = make_jaxpr(original)(*(args if original_args is None else original_args))
    new = make_jaxpr(fun)(*args)
    found = origins(old.jaxpr, new.jaxpr)
    prim = lambda jaxpr, loc: eqn_at(jaxpr, loc).primitive.name
    back = {loc: (prim(new.jaxpr, loc), prim(old.jaxpr, w)) for loc, w in found.items()}
    added = [prim(new.jaxpr, loc) for loc in all_locations(new.jaxpr)
             if loc not in found and not _inside(loc, found)]
    return back, added


def eqn_at(jaxpr, loc):
    for i, r in loc[:-1]:
        eqn = jaxpr.eqns[i]
        jaxpr = graph_lib.eqn_layout(eqn).regions[r].jaxpr
    return jaxpr.eqns[loc[-1]]


def test_grad_keeps_the_forward_pass_and_adds_the_derivative():
    back, added = split(jax.grad(f), (1.0, 2.0))
    assert back == {(0,): ("sin", "sin"), (2,): ("mul", "mul"), (3,): ("add", "add")}
    assert added == ["cos", "mul", "mul"]


def test_jvp_adds_the_tangent_equations():
    back, added = split(lambda x, y: jax.jvp(f, (x, y), (1.0, 1.0)), (1.0, 2.0))
    assert sorted(back.values()) == [("add", "add"), ("mul", "mul"), ("sin", "sin")]
    assert added == ["cos", "mul", "mul", "mul", "add_any"]


def test_jit_and_checkpoint_add_only_the_call_around_the_original():
    for transform, call in ((jax.jit, "jit"), (jax.checkpoint, "remat2")):
        back, added = split(transform(f), (1.0, 2.0))
        assert back == {((0, 0), 0): ("sin", "sin"), ((0, 0), 1): ("mul", "mul"),
                        ((0, 0), 2): ("add", "add")}
        assert added == [call]


def test_vmap_follows_an_unbatched_operand_through_its_broadcast():
    back, added = split(jax.vmap(f, (0, None)), (jnp.ones(3), 2.0), original_args=(1.0, 2.0))
    assert sorted(back.values()) == [("add", "add"), ("mul", "mul"), ("sin", "sin")]
    assert added == ["convert_element_type"]


def test_an_equation_the_original_computes_differently_is_added():
    def g(x):
        return jnp.cos(jnp.sin(x))

    def h(x):                                   # the same cos, of another value
        return jnp.cos(jnp.exp(x)) + jnp.sin(x)
    back, added = split(h, (1.0,), original=g)
    assert back == {(2,): ("sin", "sin")}
    assert added == ["exp", "cos", "add"]


def test_a_loop_is_traced_back_whole():
    def loop(x):                                # static bounds: a scan
        return lax.fori_loop(0, 3, lambda i, c: c * 2.0, x)
    back, added = split(jax.vmap(loop), (jnp.ones(2),), original=loop,
                        original_args=(1.0,))
    assert back == {(0,): ("scan", "scan")}
    assert added == []                          # its batched body is not "added"


def test_grad_of_a_cond_and_a_scan_keeps_them_and_adds_their_transposes():
    def g(x):
        y = lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x)
        c, ys = lax.scan(lambda c, x: (c * x, c + x), 1.0, y)
        return (c + ys.sum()) * 2.0
    back, added = split(jax.grad(g), (jnp.arange(3.0),), original=g)
    # the forward cond and scan (with residuals as extra results) come from g's
    assert back == {(k,): (p, p) for k, p in enumerate(
        ["reduce_sum", "gt", "convert_element_type", "cond", "scan", "reduce_sum", "add",
         "mul"])}
    # the backward pass: a reversed scan and a cond of the branches' derivatives
    assert added == ["mul", "broadcast_in_dim", "scan", "mul", "add_any", "mul", "add_any",
                     "cond", "neg", "mul", "mul"]

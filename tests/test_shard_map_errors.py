"""shard_map's argument errors: the exception types and messages of JAX 0.10.2 (every
expected text below is what JAX printed for the same call). (8 CPU devices, conftest.py.)"""
import numpy as np
import pytest

import glassjax as jax
from glassjax.sharding import Mesh, PartitionSpec as P

EXPECTED = {
    'varargs': (ValueError, "shard_map applied to the function 'f' was given argument arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\nThe mesh given has shape (4, 2) with corresponding axis names ('x', 'y').\n\nthe passed args[1] of shape float32[6,2], where args[1] is the index 0 component of f's varargs parameter 'rest', corresponds to in_specs[1] of value P(('x', 'y'),), which maps array axis 0 (of size 6) to mesh axes ('x', 'y') (of total size 8), but 8 does not evenly divide 6\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the corresponding elements of the argument's in_specs entry. Consider checking that in_specs are correct, and if so consider changing the mesh axis sizes or else padding the input and adapting 'f' appropriately."),
    'nested': (ValueError, "shard_map applied to the function '<lambda>' was given argument arrays with axis sizes that are not evenly divisible by the corresponding mesh axis sizes:\n\nThe mesh given has shape (4, 2) with corresponding axis names ('x', 'y').\n\n* the passed args[0]['a'] of shape float32[6,2], where args[0] is bound to <lambda>'s parameter 'd', corresponds to in_specs[0]['a'] of value P('x',), which maps array axis 0 (of size 6) to mesh axis 'x' (of size 4), but 4 does not evenly divide 6\n\n* the passed args[0]['b'] of shape float32[4,3], where args[0] is bound to <lambda>'s parameter 'd', corresponds to in_specs[0]['b'] of value P('y', 'x'), which maps array axis 1 (of size 3) to mesh axis 'x' (of size 4), but 4 does not evenly divide 3\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes indicated by the corresponding elements of the argument's in_specs entry. Consider checking that in_specs are correct, and if so consider changing the mesh axis sizes or else padding the input and adapting '<lambda>' appropriately."),
    'rank_many': (ValueError, "shard_map applied to the function '<lambda>' was given an in_specs entry which is too long to be compatible with the corresponding input value from the function:\n\n* in_specs[0] is P('x', 'y', None) which has length 3, but the passed args[0], where args[0] is bound to <lambda>'s parameter 'a', has shape float32[8,2], which has rank 2 (and 2 < 3)\n\n* in_specs[1] is P(None, None) which has length 2, but the passed args[1], where args[1] is bound to <lambda>'s parameter 'b', has shape float32[3], which has rank 1 (and 1 < 2)\n\nEntries in in_specs must be of length no greater than the number of axes in the corresponding input value.\n\nEither revise the spec to be shorter, or modify '<lambda>' so that its inputs have sufficient rank."),
    'badtype': (TypeError, 'shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` instances, but:\n\n  in_specs[0] is x of type str, \n\nCheck the in_specs values passed to shard_map.'),
    'out_rank': (ValueError, "shard_map applied to the function '<lambda>' was given an out_specs entry which is too long to be compatible with the corresponding output value from the function:\n\nout_specs is P('x',) which has length 1, but <lambda>(*args) has shape float32[], which has rank 0 (and 0 < 1)\n\nEntries in out_specs must be of length no greater than the number of axes in the corresponding output value.\n\nEither revise the spec to be shorter, or modify '<lambda>' so that its outputs have sufficient rank.\n\nFor scalar values (rank 0), consider using an out_specs entry of `P()`, where `P = jax.sharding.PartitionSpec`. In particular, for rank 0 outputs which are not constant over the mesh, add at least one (singleton) axis to them so that they can be concatenated using out_specs."),
    'no_in_specs': (TypeError, "shard_map in_specs argument must be a pytree of `jax.sharding.PartitionSpec` instances, but it was `None` when axis_names=frozenset({'i'}) are of type AxisType.Auto"),
    'unknown_axis': (ValueError, "shard_map in_specs argument must refer to an axis marked as manual (frozenset({'i'})), but:\n\n  in_specs refers to 'z'\n\nCheck the in_specs values passed to shard_map."),
    'not_manual': (ValueError, "shard_map in_specs argument must refer to an axis marked as manual (frozenset({'x'})), but:\n\n  in_specs refers to 'y'\n\nCheck the in_specs values passed to shard_map."),
    'no_mesh': (ValueError, 'The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a mesh context'),
}

@pytest.fixture(scope="module")
def meshes():
    return (Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y')),
            Mesh(np.array(jax.devices()[:4]), ('i',)))


def _calls(mesh, line):
    def f(a, *rest):
        return a
    return {
        "varargs": lambda: jax.shard_map(f, mesh=mesh, in_specs=(P('x'), P(('x', 'y'))),
                                         out_specs=P('x'))(np.ones((8, 2)), np.ones((6, 2))),
        "nested": lambda: jax.shard_map(
            lambda d: d['a'], mesh=mesh, in_specs=({'a': P('x'), 'b': P('y', 'x')},),
            out_specs=P('x'))({'a': np.ones((6, 2)), 'b': np.ones((4, 3))}),
        "rank_many": lambda: jax.shard_map(
            lambda a, b: a, mesh=mesh, in_specs=(P('x', 'y', None), P(None, None)),
            out_specs=P('x'))(np.ones((8, 2)), np.ones(3)),
        "badtype": lambda: jax.shard_map(lambda a: a, mesh=mesh, in_specs=('x',),
                                         out_specs=P('x'))(np.ones((8, 2))),
        "out_rank": lambda: jax.shard_map(lambda b: b.sum(), mesh=mesh, in_specs=P('x'),
                                          out_specs=P('x'))(np.ones((8, 2))),
        "no_in_specs": lambda: jax.shard_map(lambda b: b, mesh=line,
                                             out_specs=P('i'))(np.ones(8)),
        "unknown_axis": lambda: jax.shard_map(lambda b: b, mesh=line, in_specs=P('z'),
                                              out_specs=P('i'))(np.ones(8)),
        "not_manual": lambda: jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('y'),
                                            out_specs=P('y'),
                                            axis_names={'x'})(np.ones((8, 2))),
        "no_mesh": lambda: jax.shard_map(lambda b: b, in_specs=P('i'),
                                         out_specs=P('i'))(np.ones(8)),
    }


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_errors_are_jaxs(meshes, case):
    kind, message = EXPECTED[case]
    with pytest.raises(kind) as info:
        _calls(*meshes)[case]()
    assert str(info.value) == message


def test_none_specs_mean_the_whole_value(meshes):
    """``in_specs=None`` (and None leaves) give every device the whole value, as P()."""
    _, line = meshes
    x = np.arange(8.)
    f = jax.shard_map(lambda b: b * 2, mesh=line, in_specs=None, out_specs=P())
    np.testing.assert_array_equal(f(x), 2 * x)
    g = jax.shard_map(lambda b, c: b.sum() + c, mesh=line, in_specs=(None, P('i')),
                      out_specs=P('i'))
    np.testing.assert_array_equal(g(x, x), x.sum() + x)

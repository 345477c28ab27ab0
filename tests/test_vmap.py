"""vmap (``vmap_api.py``, ``interpreters/batching.py``) and the collectives
(``lax/parallel.py``) against JAX 0.10.2.

Every expected string below was printed by real JAX 0.10.2 for the same code; values are
also checked against Python loops and NumPy. The property test draws random programs and
random ``in_axes`` and checks that ``vmap(f)`` equals stacking ``f`` over a Python loop.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import glassjax.numpy as jnp
from glassjax import custom_derivatives, lax
from glassjax.ad_api import grad, jacfwd, jacrev, jvp, value_and_grad
from glassjax import make_jaxpr
from glassjax.jit import jit
from glassjax.lax import parallel
from glassjax.vmap_api import vmap


def f32(*shape):
    return np.ones(shape, np.float32)


def rand(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape).astype(np.float32)


# ----------------------------------------------------------------------------------------
# Jaxprs of vmapped functions print as in JAX
# ----------------------------------------------------------------------------------------

def _f(x, y):
    return jnp.dot(x, y) + jnp.sum(x)


@jit
def g(v):
    return jnp.sin(v) * 2 + v.sum()


def _loss(w, x):
    return jnp.sum(jnp.tanh(w * x) ** 2)


JAXPR_CASES = {
    "dot_sum_both": lambda: make_jaxpr(vmap(_f))(f32(4, 3), f32(4, 3)),
    "dot_sum_none": lambda: make_jaxpr(vmap(_f, in_axes=(0, None)))(f32(4, 3), f32(3)),
    "add_unmapped_vector": lambda: make_jaxpr(vmap(lax.add, (0, None)))(f32(5), f32(3)),
    "moved_axis": lambda: make_jaxpr(vmap(lax.add, (1, 0)))(f32(5, 3), f32(3, 5)),
    "out_axes_bcast": lambda: make_jaxpr(vmap(lambda x: (x, 2.), out_axes=0))(f32(5, 3)),
    "out_axes_1": lambda: make_jaxpr(vmap(jnp.sin, out_axes=1))(f32(5, 3)),
    "jit_inside": lambda: make_jaxpr(vmap(g, in_axes=1))(f32(3, 4)),
    "jit_shared": lambda: make_jaxpr(vmap(lambda v: g(v) + g(v)))(f32(3, 4)),
    "psum": lambda: make_jaxpr(vmap(lambda v: v / parallel.psum(v, 'b'), axis_name='b'))(
        f32(4)),
    "pmean_axis1": lambda: make_jaxpr(vmap(lambda v: parallel.pmean(v, 'b'), axis_name='b',
                                           in_axes=1))(f32(3, 4)),
    "axis_index": lambda: make_jaxpr(vmap(lambda v: parallel.axis_index('b') * v,
                                          axis_name='b'))(f32(4)),
    "all_gather": lambda: make_jaxpr(vmap(lambda v: parallel.all_gather(v, 'b'),
                                          axis_name='b'))(f32(4, 3)),
    "psum_other_axis": lambda: make_jaxpr(
        vmap(lambda v: parallel.psum(v, ('b', 'i')), axis_name='b'),
        axis_env=[('i', 2)])(f32(4, 3)),
    "axis_env_psum": lambda: make_jaxpr(lambda x: x - parallel.psum(x, 'i'),
                                        axis_env=[('i', 4)])(2),
    "collectives_staged": lambda: make_jaxpr(
        lambda x: (parallel.pmax(x, 'i'), parallel.all_gather(x, 'i', tiled=True),
                   parallel.ppermute(x, 'i', [(0, 1), (1, 0)]),
                   parallel.psum_scatter(x, 'i')), axis_env=[('i', 2)])(f32(2)),
    "vmap_of_grad": lambda: make_jaxpr(vmap(grad(_loss), (None, 0)))(f32(2), f32(3, 2)),
    "nested": lambda: make_jaxpr(vmap(vmap(jnp.dot, (1, 0)), (2, None)))(f32(4, 3, 5),
                                                                         f32(3, 4)),
}

EXPECTED_JAXPRS = {
    "dot_sum_both": """\
{ lambda ; a:f32[4,3] b:f32[4,3]. let
    c:f32[4] = dot_general[
      dimension_numbers=(([1], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
    d:f32[4] = reduce_sum[axes=(np.int64(1),) out_sharding=None] a
    e:f32[4] = add c d
  in (e,) }""",
    "dot_sum_none": """\
{ lambda ; a:f32[4,3] b:f32[3]. let
    c:f32[4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[4] = reduce_sum[axes=(np.int64(1),) out_sharding=None] a
    e:f32[4] = add c d
  in (e,) }""",
    "add_unmapped_vector": """\
{ lambda ; a:f32[5] b:f32[3]. let
    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
    d:f32[5,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a
    e:f32[5,3] = add d c
  in (e,) }""",
    "moved_axis": """\
{ lambda ; a:f32[5,3] b:f32[3,5]. let
    c:f32[3,5] = transpose[permutation=(1, 0)] a
    d:f32[3,5] = add c b
  in (d,) }""",
    "out_axes_bcast": """\
{ lambda ; a:f32[5,3]. let b:f32[5] = broadcast_in_dim 2.0:f32[] in (a, b) }""",
    "out_axes_1": """\
{ lambda ; a:f32[5,3]. let
    b:f32[5,3] = sin a
    c:f32[3,5] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    "jit_inside": """\
{ lambda ; a:f32[3,4]. let
    b:f32[4,3] = jit[
      name=g
      jaxpr={ lambda ; a:f32[3,4]. let
          c:f32[3,4] = sin a
          d:f32[3,4] = mul c 2.0:f32[]
          e:f32[4] = reduce_sum[axes=(np.int64(0),) out_sharding=None] a
          f:f32[4,3] = transpose[permutation=(1, 0)] d
          g:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e
          b:f32[4,3] = add f g
        in (b,) }
    ] a
  in (b,) }""",
    "jit_shared": """\
let g = { lambda ; a:f32[3,4]. let
    b:f32[3,4] = sin a
    c:f32[3,4] = mul b 2.0:f32[]
    d:f32[3] = reduce_sum[axes=(np.int64(1),) out_sharding=None] a
    e:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] d
    f:f32[3,4] = add c e
  in (f,) } in
{ lambda ; h:f32[3,4]. let
    i:f32[3,4] = jit[name=g jaxpr=g] h
    j:f32[3,4] = jit[name=g jaxpr=g] h
    k:f32[3,4] = add i j
  in (k,) }""",
    "psum": """\
{ lambda ; a:f32[4]. let
    b:f32[] = psum[axes=(0,) axis_index_groups=None] a
    c:f32[4] = div a b
  in (c,) }""",
    "pmean_axis1": """\
{ lambda ; a:f32[3,4]. let
    b:f32[4,3] = transpose[permutation=(1, 0)] a
    c:f32[3] = psum[axes=(0,) axis_index_groups=None] b
    d:f32[3] = div c 4.0:f32[]
    e:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] d
  in (e,) }""",
    "axis_index": """\
{ lambda ; a:f32[4]. let
    b:i32[4] = iota[dimension=0 dtype=int32 shape=(4,) sharding=None] 
    c:f32[4] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[4] = mul c a
  in (d,) }""",
    "all_gather": """\
{ lambda ; a:f32[4,3]. let
    b:f32[4,4,3] = broadcast_in_dim[
      broadcast_dimensions=(np.int64(1), np.int64(2))
    ] a
  in (b,) }""",
    "psum_other_axis": """\
{ lambda ; a:f32[4,3]. let
    b:f32[3] = psum[axes=(0, 'i') axis_index_groups=None] a
    c:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] b
  in (c,) }""",
    "axis_env_psum": """\
{ lambda ; a:i32[]. let
    b:i32[] = psum[axes=('i',) axis_index_groups=None] a
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = sub c b
  in (d,) }""",
    "collectives_staged": """\
{ lambda ; a:f32[2]. let
    b:f32[2] = pmax[axes=('i',) axis_index_groups=None] a
    c:f32[4] = all_gather[
      all_gather_dimension=0
      axis_index_groups=None
      axis_name=('i',)
      axis_size=2
      tiled=True
    ] a
    d:f32[2] = ppermute[axis_name=('i',) perm=((0, 1), (1, 0))] a
    e:f32[] = reduce_scatter[
      axis_index_groups=None
      axis_name=('i',)
      axis_size=2
      scatter_dimension=0
      tiled=False
    ] a
  in (b, c, d, e) }""",
    "vmap_of_grad": """\
{ lambda ; a:f32[2] b:f32[3,2]. let
    c:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] a
    d:f32[3,2] = mul c b
    e:f32[3,2] = tanh d
    f:f32[3,2] = sub 1.0:f32[] e
    g:f32[3,2] = integer_pow[y=2] e
    h:f32[3,2] = mul 2.0:f32[] e
    _:f32[3] = reduce_sum[axes=(np.int64(1),) out_sharding=None] g
    i:f32[2] = broadcast_in_dim 1.0:f32[]
    j:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(np.int64(1),)] i
    k:f32[3,2] = mul j h
    l:f32[3,2] = mul k f
    m:f32[3,2] = mul l e
    n:f32[3,2] = add_any l m
    o:f32[3,2] = mul n b
  in (o,) }""",
    "nested": """\
{ lambda ; a:f32[4,3,5] b:f32[3,4]. let
    c:f32[3,5] = dot_general[
      dimension_numbers=(([0], [1]), ([1], [0]))
      preferred_element_type=float32
    ] a b
    d:f32[5,3] = transpose[permutation=(1, 0)] c
  in (d,) }""",
}


@pytest.mark.parametrize("name", sorted(JAXPR_CASES))
def test_jaxpr_text(name):
    assert str(JAXPR_CASES[name]()) == EXPECTED_JAXPRS[name]


# ----------------------------------------------------------------------------------------
# Printed values of the documented examples
# ----------------------------------------------------------------------------------------

def test_docstring_matrix_products():
    vv = lambda x, y: jnp.vdot(x, y)
    mv = vmap(vv, (0, None), 0)
    mm = vmap(mv, (None, 1), 1)
    mm2 = vmap(vmap(vv, (0, 1), 0), (1, 1), 0)
    a, b = jnp.arange(6.0).reshape(2, 3), jnp.arange(12.0).reshape(3, 4)
    assert str(mv(a, jnp.ones(3))) == "[ 3. 12.]"
    assert str(mm(a, b)) == "[[20. 23. 26. 29.]\n [56. 68. 80. 92.]]"
    x, y = jnp.arange(24.0).reshape(2, 4, 3), jnp.arange(24.0).reshape(3, 4, 2)
    assert str(mm2(x, y)) == ("[[  40.  367.]\n [ 136.  544.]\n [ 268.  757.]\n"
                              " [ 436. 1006.]]")


def test_docstring_container_axes():
    x, y, z = f32(6, 2, 3), f32(3, 6, 4), f32(4, 5, 6)
    foo = lambda t: jnp.dot(t[0], jnp.dot(t[1][0], t[1][1]))
    assert vmap(foo, in_axes=((0, (1, 2)),))((x, (y, z))).shape == (6, 2, 5)
    dct = {'a': 0., 'b': jnp.arange(5.)}
    out = vmap(lambda d, x: d['a'] + d['b'] + x, in_axes=({'a': None, 'b': 0}, None))(dct, 1.)
    assert str(out) == "[1. 2. 3. 4. 5.]"


def test_docstring_out_axes():
    f = lambda x, y: (x + y, y * 2.)
    assert str(vmap(f, in_axes=(0, None), out_axes=(0, None))(jnp.arange(2.), 4.)) == \
        "(Array([4., 5.], dtype=float32), 8.0)"
    assert str(vmap(f, in_axes=(0, None), out_axes=0)(jnp.arange(2.), 4.)) == (
        "(Array([4., 5.], dtype=float32), Array([8., 8.], dtype=float32, weak_type=True))")
    assert str(vmap(lambda x: x * 2, out_axes=1)(jnp.arange(6.).reshape(3, 2))) == \
        "[[ 0.  4.  8.]\n [ 2.  6. 10.]]"


def test_axes_and_kwargs():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    assert str(vmap(jnp.sum, in_axes=-1)(x)) == "[60. 66. 72. 78.]"
    assert vmap(lambda v: v * 2, in_axes=-2, out_axes=-1)(x).shape == (2, 4, 3)
    assert str(vmap(lambda v: v.sum(0), in_axes=1, out_axes=-1)(x)) == (
        "[[12. 20. 28.]\n [14. 22. 30.]\n [16. 24. 32.]\n [18. 26. 34.]]")
    assert str(vmap(lambda a, b: a * b)(jnp.arange(3.), b=jnp.arange(3.))) == "[0. 1. 4.]"
    assert str(vmap(lambda a, k: a + k, in_axes=(0,))(jnp.arange(3.), k=jnp.ones(3))) == \
        "[1. 2. 3.]"
    assert str(vmap(lambda: 1., axis_size=3)()) == "[1. 1. 1.]"
    assert str(vmap(lambda x: 3)(jnp.ones(4))) == "[3 3 3 3]"
    assert str(vmap(lambda x: x, in_axes=[1])(f32(2, 3)).shape) == "(3, 2)"
    out = vmap(lambda x: {'a': x, 'b': [x * 2, None]}, out_axes={'a': 0, 'b': [1, None]})(
        f32(2, 3))
    assert out['a'].shape == (2, 3) and out['b'][0].shape == (3, 2) and out['b'][1] is None


def test_tracer_repr():
    seen = []
    vmap(lambda x: seen.append(repr(x)) or x.sum())(jnp.arange(20, dtype='int32'))
    assert seen == ["VmapTracer(aval=int32[], batched=int32[20])"]
    jacfwd(lambda x: seen.append(repr(x)) or x.sum())(jnp.arange(3, dtype='float32'))
    assert seen[1] == ("JVPTracer(primal=[0. 1. 2.], tangent=VmapTracer(aval=float32[3], "
                       "batched=float32[3,3]))")


def test_wraps():
    def f(x):
        """doc of f"""
        return x
    g = vmap(f)
    assert g.__name__ == "f" and g.__wrapped__ is f
    assert g.__doc__ == ("Vectorized version of f. Takes similar arguments as f but with "
                         "additional array axes over which f is mapped.\n\nOriginal "
                         "documentation:\n\ndoc of f")


# ----------------------------------------------------------------------------------------
# Errors, with JAX's messages
# ----------------------------------------------------------------------------------------

_x, _y = f32(3, 4), f32(5)

ERROR_CASES = [
    (lambda: vmap(lambda a, b: a + b)(_x, _y), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument a of type float32[3,4];\n"
     "  * one axis had size 5: axis 0 of argument b of type float32[5]"),
    (lambda: vmap(lambda a, b, c, d: a)(_x, _y, _x, {'k': [_y, _y]}), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * most axes (3 of them) had size 5, e.g. axis 0 of argument b of type float32[5];\n"
     "  * some axes (2 of them) had size 3, e.g. axis 0 of argument a of type "
     "float32[3,4]"),
    (lambda: vmap(lambda *a: a[0])(_x, _y), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument a of type float32[3,4];\n"
     "  * one axis had size 5: axis 0 of args[1] of type float32[5]"),
    (lambda: vmap(lambda a, b: a, axis_size=7)(_x, _x), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * the `axis_size` argument was 7;\n"
     "  * most axes (2 of them) had size 3, e.g. axis 0 of argument a of type float32[3,4]"),
    (lambda: vmap(lambda a, b: a)(_x, b=_y), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument a of type float32[3,4];\n"
     "  * one axis had size 5: axis 0 of kwargs['b'] of type float32[5]"),
    (lambda: vmap(lambda a: a, in_axes=2)(_x), ValueError,
     "vmap was requested to map its argument along axis 2, which implies that its rank "
     "should be at least 3, but is only 2 (its shape is (3, 4))"),
    (lambda: vmap(lambda a: a, in_axes=-3)(_x), ValueError,
     "vmap was requested to map its argument along axis -3, which implies that its rank "
     "should be at least 3, but is only 2 (its shape is (3, 4))"),
    (lambda: vmap(lambda a: a, out_axes=3)(_x), ValueError,
     "axis 3 is out of bounds for array of dimension 2"),
    (lambda: vmap(lambda a, b: a + b, in_axes=(0, None), out_axes=None)(_x, 4.), ValueError,
     "at vmap out_axes, got axis spec None but output was batched on axis 0"),
    (lambda: vmap(lambda a, b: {'u': a + b, 'v': b}, in_axes=(0, None),
                  out_axes={'u': None, 'v': None})(_x, 4.), ValueError,
     "at vmap out_axes['u'], got axis spec None but output was batched on axis 0"),
    (lambda: vmap(lambda a: a, axis_name='i', out_axes=None)(_x), ValueError,
     "vmap has mapped output (axis_name=i) but out_axes is None"),
    (lambda: vmap(lambda a: a, in_axes=None)(_x), ValueError,
     "vmap must have at least one non-None value in in_axes or axis_size must be "
     "specified"),
    (lambda: vmap(lambda: 1.)(), ValueError,
     "vmap wrapped function must be passed at least one argument containing an array or "
     "axis_size must be specified, got empty *args=() and **kwargs={}"),
    (lambda: vmap(lambda a: a, in_axes=(0, 0))(_x), ValueError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got len(in_axes)=2, len(args)=1"),
    (lambda: vmap(lambda a: a, in_axes=((0, 0),))((_x, _x, _x)), ValueError,
     "vmap in_axes specification must be a tree prefix of the corresponding value; \n"
     "  Mismatch details (1 found):\n"
     "  pytree structure error: different lengths of tuple at key path\n"
     "    vmap in_axes[0]\n"
     "At that key path, the prefix pytree vmap in_axes has a subtree of type tuple of "
     "length 2, but the full pytree has a subtree of the same type but of length 3."),
    (lambda: vmap(lambda a: (a, a), out_axes=(0, 0, 0))(_x), ValueError,
     "vmap out_axes specification must be a tree prefix of the corresponding value; \n"
     "  Mismatch details (1 found):\n"
     "  pytree structure error: different lengths of tuple at key path\n"
     "    vmap out_axes\n"
     "At that key path, the prefix pytree vmap out_axes has a subtree of type tuple of "
     "length 3, but the full pytree has a subtree of the same type but of length 2."),
    (lambda: vmap(lambda a: a, in_axes=1.0), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got 1.0."),
    (lambda: vmap(lambda a: a, in_axes=(1.0,)), TypeError,
     "vmap in_axes must be an int, None, or (nested) container with those types as "
     "leaves, but got (1.0,)."),
    (lambda: vmap(lambda a: a, in_axes={'a': 0}), TypeError,
     "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
     "positional arguments passed to the function, but got {'a': 0}."),
    (lambda: vmap(lambda a: a, out_axes=1.0), TypeError,
     "vmap out_axes must be an int, None, or (nested) container with those types as "
     "leaves, but got 1.0."),
    (lambda: vmap(3), TypeError, "Expected a callable value, got 3"),
    (lambda: vmap(lambda a: 'str')(_x), TypeError,
     "Output from batched function 'str' with type <class 'str'> is not a valid JAX type"),
    (lambda: vmap(lambda a: a)('str'), TypeError,
     "Argument 'str' of type <class 'str'> is not a valid JAX type"),
    (lambda: vmap(lambda a: a)(3.0), ValueError,
     "vmap was requested to map its argument along axis 0, which implies that its rank "
     "should be at least 1, but is only 0 (its shape is ())"),
    (lambda: vmap(lambda v: parallel.psum(v, 'j'), axis_name='i')(_x), NameError,
     "Found an unbound axis name: j. To fix this, please call psum under `jax.shard_map`."),
    (lambda: parallel.psum(1, 'i'), NameError, "unbound axis name: i"),
    (lambda: make_jaxpr(lambda x: parallel.axis_index('i'))(1.), NameError,
     "Found an unbound axis name: i. To fix this, please call axis_index under "
     "`jax.shard_map`."),
    (lambda: make_jaxpr(lambda x: parallel.ppermute(x, 'i', [(0, 1)]))(1.), NameError,
     "Found an unbound axis name: i. To fix this, please call ppermute under "
     "`jax.shard_map`."),
]


@pytest.mark.parametrize("thunk,exc,msg", ERROR_CASES)
def test_errors(thunk, exc, msg):
    with pytest.raises(exc) as info:
        thunk()
    assert str(info.value) == msg


def test_not_a_prefix_names_the_mismatch():
    with pytest.raises(ValueError) as info:
        vmap(lambda a: a, in_axes=((0, 0),))(_x)
    assert "different types at key path\n    vmap in_axes[0]" in str(info.value)


# ----------------------------------------------------------------------------------------
# Composition with the other transformations
# ----------------------------------------------------------------------------------------

def _stack(fun, *args, axes):
    """``fun`` over a Python loop on the mapped axes, results stacked on axis 0."""
    n = next(np.shape(a)[d] for a, d in zip(args, axes) if d is not None)
    outs = [fun(*(a if d is None else np.take(a, i, axis=d) for a, d in zip(args, axes)))
            for i in range(n)]
    return np.stack([np.asarray(o) for o in outs])


def test_per_example_gradients():
    w, xs = rand(2), rand(3, 2, seed=1)
    expected = _stack(grad(_loss), w, xs, axes=(None, 0))
    np.testing.assert_allclose(vmap(grad(_loss), (None, 0))(w, xs), expected, rtol=1e-6)
    np.testing.assert_allclose(jit(vmap(grad(_loss), (None, 0)))(w, xs), expected,
                               rtol=1e-5)
    np.testing.assert_allclose(vmap(jit(grad(_loss)), (None, 0))(w, xs), expected,
                               rtol=1e-5)
    values, grads = vmap(value_and_grad(_loss), (None, 0))(w, xs)
    np.testing.assert_allclose(values, _stack(_loss, w, xs, axes=(None, 0)), rtol=1e-6)
    np.testing.assert_allclose(grads, expected, rtol=1e-6)
    total = grad(lambda w: vmap(_loss, (None, 0))(w, xs).sum())(w)
    np.testing.assert_allclose(total, expected.sum(0), rtol=1e-5)


def test_nested_vmap_and_jacobians():
    a, b = rand(4, 3, 5), rand(3, 4, seed=1)
    out = vmap(vmap(jnp.dot, (1, 0)), (2, None))(a, b)
    np.testing.assert_allclose(out, np.einsum('ijk,ji->kj', a, b), rtol=1e-5)
    f = lambda x: jnp.sin(x) * x.sum()
    x = rand(3)
    np.testing.assert_allclose(jacfwd(f)(x), jacrev(f)(x), rtol=1e-6)
    expected = np.diag(np.cos(x) * x.sum()) + np.sin(x)[:, None]
    np.testing.assert_allclose(jacfwd(f)(x), expected, rtol=1e-5)


def test_jvp_of_vmap_and_vmap_of_jvp():
    x, t = rand(3), rand(3, seed=1)
    primal, tangent = jvp(vmap(jnp.sin), (x,), (t,))
    np.testing.assert_allclose(tangent, np.cos(x) * t, rtol=1e-6)
    primal, tangent = vmap(lambda x, t: jvp(jnp.sin, (x,), (t,)))(x, t)
    np.testing.assert_allclose(primal, np.sin(x), rtol=1e-6)
    np.testing.assert_allclose(tangent, np.cos(x) * t, rtol=1e-6)


def test_custom_derivatives_under_vmap():
    @custom_derivatives.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), jnp.cos(x) * tx * y * 10 + jnp.sin(x) * ty

    @custom_derivatives.custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    g.defvjp(lambda x, y: (g(x, y), (jnp.cos(x), jnp.sin(x), y)),
             lambda res, ct: (res[0] * ct * res[2] * 10, res[1] * ct))
    x, y = rand(3), rand(3, seed=1)
    for h in (f, g):
        np.testing.assert_allclose(vmap(h)(x, y), np.sin(x) * y, rtol=1e-6)
        np.testing.assert_allclose(vmap(grad(h))(x, y), np.cos(x) * y * 10, rtol=1e-5)
        np.testing.assert_allclose(
            grad(lambda x: vmap(h, (0, None))(x, 2.).sum())(x), np.cos(x) * 20, rtol=1e-5)
    np.testing.assert_allclose(grad(lambda y: vmap(g, (0, None))(x, y).sum())(2.),
                               np.sin(x).sum(), rtol=1e-5)


# ----------------------------------------------------------------------------------------
# Collectives
# ----------------------------------------------------------------------------------------

def test_collective_values():
    x = np.arange(4.0, dtype=np.float32)
    m = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    on = lambda f, v: vmap(f, axis_name='b')(v)
    np.testing.assert_allclose(on(lambda v: v / parallel.psum(v, 'b'), x), x / x.sum())
    np.testing.assert_allclose(on(lambda v: v - parallel.pmean(v, 'b'), x), x - x.mean())
    np.testing.assert_allclose(on(lambda v: parallel.axis_index('b') * v, x), x * x)
    np.testing.assert_allclose(on(lambda v: parallel.pmax(v, 'b') + parallel.pmin(v, 'b'),
                                  x), np.full(4, 3.0))
    np.testing.assert_allclose(on(lambda v: parallel.all_gather(v, 'b'), x),
                               np.tile(x, (4, 1)))
    np.testing.assert_allclose(on(lambda v: parallel.all_gather(v, 'b', tiled=True), m),
                               np.tile(m.ravel(), (4, 1)))
    perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
    np.testing.assert_allclose(on(lambda v: parallel.ppermute(v, 'b', perm), x),
                               np.roll(x, 1))
    with pytest.raises(AssertionError, match="Permutation doesn't match the axis size!"):
        on(lambda v: parallel.ppermute(v, 'b', [(0, 1)]), x)
    np.testing.assert_allclose(on(lambda v: parallel.psum_scatter(v, 'b'), m), m.sum(0))
    np.testing.assert_allclose(on(lambda v: parallel.all_to_all(v, 'b', 0, 0), m), m.T)
    np.testing.assert_allclose(on(lambda v: v * parallel.axis_size('b'), x), 4 * x)
    tree = on(lambda v: parallel.psum({'a': v, 'b': (v > 1,)}, 'b'), x)
    assert tree['a'].tolist() == [6.0] * 4 and tree['b'][0].tolist() == [2] * 4


def test_nested_named_axes():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = vmap(vmap(lambda v: parallel.psum(v, 'i') * parallel.axis_index('j'),
                    axis_name='j'), axis_name='i')(x)
    np.testing.assert_allclose(out, np.tile(x.sum(0) * np.arange(3), (2, 1)))
    out = vmap(vmap(lambda v: parallel.psum(v, ('i', 'j')), axis_name='j'),
               axis_name='i')(x)
    np.testing.assert_allclose(out, np.full((2, 3), x.sum()))
    grads = grad(lambda x: vmap(lambda v: v * parallel.psum(v, 'i'),
                                axis_name='i')(x).sum())(x[0])
    np.testing.assert_allclose(grads, np.full(3, 2 * x[0].sum()), rtol=1e-6)


# ----------------------------------------------------------------------------------------
# Property: vmap(f) == stack(f over a loop), for random programs and random in_axes
# ----------------------------------------------------------------------------------------

# Element shapes of the program's inputs, and operations on values of known shapes:
# (input shapes, output shape, function).
ARG_SHAPES = [(3,), (3,), (2, 3), (), (2,)]
OPS = [
    *[((s,), s, f) for s in [(), (2,), (3,), (2, 3)]
      for f in (jnp.sin, jnp.tanh, lambda a: -a, jnp.abs, lambda a: a * a)],
    *[((s, t), u, f) for s, t, u in [((3,), (3,), (3,)), ((2, 3), (3,), (2, 3)),
                                     ((3,), (), (3,)), ((), (2, 3), (2, 3)),
                                     ((2,), (2,), (2,))]
      for f in (lambda a, b: a + b, lambda a, b: a * b, jnp.maximum,
                lambda a, b: jnp.where(a > b, a, b - 1))],
    (((2, 3),), (3,), lambda m: m.sum(0)),
    (((2, 3),), (2,), lambda m: m.max(1)),
    (((3,),), (), jnp.sum),
    (((2,),), (), jnp.max),
    (((2, 3), (3,)), (2,), lambda m, v: m @ v),
    (((3,), (3,)), (), jnp.dot),
    (((2,), (2, 3)), (3,), jnp.dot),
    (((2,), (3,)), (2, 3), jnp.outer),
    (((2, 3),), (2, 3), lambda m: m.reshape(3, 2).T),
    (((3,),), (3,), lambda v: jnp.concatenate([v[1:], v[:1] * 2])),
    (((3,),), (3,), jnp.cumsum),
    (((3,),), (3,), jnp.sort),
    (((3,),), (3,), lambda v: v[::-1]),
    (((2, 3),), (3,), lambda m: m[1]),
    (((3,),), (2,), lambda v: v[::2]),
    (((3,), (3,)), (2, 3), lambda a, b: jnp.stack([a, b])),
    (((3,),), (2, 3), lambda v: jnp.broadcast_to(v, (2, 3))),
    (((3,), (3,)), (), lambda v, w: v[jnp.argmax(w)]),
    (((2, 3), (3,)), (2,), lambda m, w: m[:, jnp.argmin(w)]),
    (((3,), (3,), ()), (3,), lambda v, w, s: v.at[jnp.argmax(w)].set(s)),
    (((3,), (2,)), (2,), lambda v, w: lax.dynamic_slice(v, (jnp.argmax(w),), (2,))),
    (((), (3,)), (3,), lambda s, v: lax.cond(s > 0, lambda: v * 2, lambda: jnp.sin(v))),
    (((3,),), (3,), lambda v: lax.fori_loop(0, 3, lambda i, c: c * 0.5 + v, v)),
]


@st.composite
def programs(draw):
    """A random straight-line program over ARG_SHAPES, its in_axes and batch size."""
    steps = []
    shapes = list(ARG_SHAPES)
    for _ in range(draw(st.integers(1, 6))):
        ins, out, _ = op = draw(st.sampled_from(OPS))
        for s in ins:
            if s not in shapes:
                break
        else:
            args = [draw(st.sampled_from([i for i, t in enumerate(shapes) if t == s]))
                    for s in ins]
            steps.append((OPS.index(op), args))
            shapes.append(out)
    outputs = draw(st.lists(st.integers(0, len(shapes) - 1), min_size=1, max_size=2))
    in_axes = [draw(st.one_of(st.none(), st.integers(-len(s) - 1, len(s))))
               for s in ARG_SHAPES]
    if all(a is None for a in in_axes):
        in_axes[0] = 0
    return steps, outputs, tuple(in_axes), draw(st.integers(1, 3))


def _run(steps, outputs, *args):
    env = list(args)
    for op_index, arg_ids in steps:
        env.append(OPS[op_index][2](*(env[i] for i in arg_ids)))
    return tuple(env[i] for i in outputs)


@settings(max_examples=60, deadline=None)
@given(programs(), st.integers(0, 2 ** 31 - 1))
def test_vmap_equals_loop(program, seed):
    steps, outputs, in_axes, size = program
    rng = np.random.RandomState(seed)
    args = []
    for shape, axis in zip(ARG_SHAPES, in_axes):
        if axis is not None:
            shape = list(shape)
            shape.insert(axis % (len(shape) + 1), size)
        args.append(np.asarray(rng.randn(*shape), np.float32))
    f = lambda *a: _run(steps, outputs, *map(jnp.asarray, a))
    batched = vmap(f, in_axes=in_axes)(*args)
    looped = _stack_tuple(jit(f), args, in_axes, size)
    for b, l in zip(batched, looped):
        np.testing.assert_allclose(np.asarray(b), l, rtol=2e-5, atol=2e-5)


def _stack_tuple(fun, args, axes, size):
    outs = [fun(*(a if d is None else np.take(a, i, axis=d) for a, d in zip(args, axes)))
            for i in range(size)]
    return [np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0]))]

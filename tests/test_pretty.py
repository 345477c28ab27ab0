"""The jaxpr printer against the exact text JAX 0.10.2 prints for the same programs.

Expected strings were produced by real JAX 0.10.2 (make_jaxpr of the same functions).
"""
import numpy as np
import ml_dtypes
import pytest

import glassjax
from glassjax import core, lax


CHAIN30 = '{ lambda ; a:f32[]. let\n    b:f32[] = sin a\n    c:f32[] = sin b\n    d:f32[] = sin c\n    e:f32[] = sin d\n    f:f32[] = sin e\n    g:f32[] = sin f\n    h:f32[] = sin g\n    i:f32[] = sin h\n    j:f32[] = sin i\n    k:f32[] = sin j\n    l:f32[] = sin k\n    m:f32[] = sin l\n    n:f32[] = sin m\n    o:f32[] = sin n\n    p:f32[] = sin o\n    q:f32[] = sin p\n    r:f32[] = sin q\n    s:f32[] = sin r\n    t:f32[] = sin s\n    u:f32[] = sin t\n    v:f32[] = sin u\n    w:f32[] = sin v\n    x:f32[] = sin w\n    y:f32[] = sin x\n    z:f32[] = sin y\n    ba:f32[] = sin z\n    bb:f32[] = sin ba\n    bc:f32[] = sin bb\n    bd:f32[] = sin bc\n    be:f32[] = sin bd\n  in (be,) }'

MULTI_OUT = '{ lambda ; a:f32[] b:f32[]. let\n    c:f32[] = sin a\n    d:f32[] = cos b\n    _:f32[] = sin c\n  in (c, d, a) }'

LITERALS = '{ lambda ; a:f32[]. let\n    b:f32[] = add a 2.5:f32[]\n    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a\n    d:i32[] = add c 3:i32[]\n    e:bool[] = convert_element_type[new_dtype=bool weak_type=False] a\n    f:bool[] = ne e True:bool[]\n    g:bf16[] = convert_element_type[new_dtype=bfloat16 weak_type=False] a\n    h:bf16[] = mul g 1.5:bf16[]\n    i:f16[] = convert_element_type[new_dtype=float16 weak_type=False] a\n    j:f16[] = mul i 0.0999755859375:f16[]\n    k:u8[] = convert_element_type[new_dtype=uint8 weak_type=False] a\n    l:u8[] = add k 7:u8[]\n    m:c64[] = convert_element_type[new_dtype=complex64 weak_type=False] a\n    n:c64[] = add m (1+2j):c64[]\n  in (b, d, f, h, j, l, n) }'

UNUSED = '{ lambda ; a:f32[]. let _:f32[] = sin a; b:f32[] = cos a in (b,) }'

FORWARDED_INPUT = '{ lambda ; a:f32[] b:f32[]. let  in (a, a) }'

NO_ARGS_LITERAL_OUT = '{ lambda ; . let  in (1.0:f32[],) }'

CONSTVAR = '{ lambda a:f32[2,3]; b:f32[2,3]. let c:f32[2,3] = add b a in (c,) }'

NO_SHAPES = '{ lambda ; a. let\n    b = sin a\n    c = sin b\n    d = sin c\n    e = sin d\n    f = sin e\n    g = sin f\n    h = sin g\n    i = sin h\n    j = sin i\n    k = sin j\n    l = sin k\n    m = sin l\n    n = sin m\n    o = sin n\n    p = sin o\n    q = sin p\n    r = sin q\n    s = sin r\n    t = sin s\n    u = sin t\n    v = sin u\n    w = sin v\n    x = sin w\n    y = sin x\n    z = sin y\n    ba = sin z\n    bb = sin ba\n    bc = sin bb\n    bd = sin bc\n    be = sin bd\n  in (be,) }'

BROADCAST = '{ lambda ; a:f32[3]. let\n    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n  in (b,) }'

RESHAPE_TRANSPOSE_SUM = '{ lambda ; a:f32[6]. let\n    b:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2) sharding=None] a\n    c:f32[2,3] = transpose[permutation=(1, 0)] b\n    d:f32[3] = reduce_sum[axes=(0,) out_sharding=None] c\n  in (d,) }'



def chain(x):
    for _ in range(30):
        x = lax.sin(x)
    return x


def test_many_vars_past_z():
    assert str(glassjax.make_jaxpr(chain)(1.)) == CHAIN30


def test_print_shapes_false():
    assert glassjax.make_jaxpr(chain)(1.).pretty_print(print_shapes=False) == NO_SHAPES


def test_multiple_outputs_and_dropvar():
    def multi(x, y):
        a = lax.sin(x)
        b = lax.cos(y)
        lax.sin(a)
        return a, b, x
    assert str(glassjax.make_jaxpr(multi)(1., 2.)) == MULTI_OUT


def test_unused_output_prints_underscore():
    def unused(x):
        lax.sin(x)
        return lax.cos(x)
    assert str(glassjax.make_jaxpr(unused)(1.)) == UNUSED


def test_literals_of_each_dtype():
    def lits(x):
        return (lax.add(x, np.float32(2.5)),
                lax.add(lax.convert_element_type(x, np.int32), np.int32(3)),
                lax.ne(lax.convert_element_type(x, np.bool_), True),
                lax.mul(lax.convert_element_type(x, ml_dtypes.bfloat16), ml_dtypes.bfloat16(1.5)),
                lax.mul(lax.convert_element_type(x, np.float16), np.float16(0.1)),
                lax.add(lax.convert_element_type(x, np.uint8), np.uint8(7)),
                lax.add(lax.convert_element_type(x, np.complex64), np.complex64(1 + 2j)))
    assert str(glassjax.make_jaxpr(lits)(1.)) == LITERALS


def test_forwarded_inputs_and_literal_outputs():
    assert str(glassjax.make_jaxpr(lambda x, y: (x, x))(1., 2.)) == FORWARDED_INPUT
    assert str(glassjax.make_jaxpr(lambda: 1.)()) == NO_ARGS_LITERAL_OUT


def test_array_constants_become_constvars():
    c = np.ones((2, 3), np.float32)
    closed = glassjax.make_jaxpr(lambda x: lax.add(x, c))(np.zeros((2, 3), np.float32))
    assert str(closed) == CONSTVAR
    assert len(closed.consts) == 1 and closed.consts[0] is c


def test_hidden_and_shown_params():
    assert str(glassjax.make_jaxpr(lambda x: lax.broadcast_in_dim(x, (2, 3), (1,)))(
        np.zeros(3, np.float32))) == BROADCAST
    f = lambda x: lax.reduce_sum(lax.transpose(lax.reshape(x, (3, 2)), (1, 0)), (0,))
    assert str(glassjax.make_jaxpr(f)(np.zeros(6, np.float32))) == RESHAPE_TRANSPOSE_SUM


def test_check_jaxpr_accepts_traced_programs():
    core.check_jaxpr(glassjax.make_jaxpr(chain)(1.).jaxpr)


def test_check_jaxpr_rejects_wrong_types():
    closed = glassjax.make_jaxpr(lambda x: lax.sin(x))(1.)
    eqn = closed.jaxpr.eqns[0]
    eqn.outvars[0].aval = core.ShapedArray((2,), np.float32)
    with pytest.raises(core.JaxprTypeError):
        core.check_jaxpr(closed.jaxpr)


# -- The one-line fast path prints exactly what the layout engine would ----------------

def _doc_path(closed):
    """The jaxpr printed through the full document (no one-line shortcut)."""
    from glassjax import pretty
    return pretty.format_doc(pretty.pp_toplevel_doc(closed.jaxpr, pretty.Settings()))


def _wide_program(n_args, depth):
    """Equations whose one-line length grows with ``n_args``, nested ``depth`` levels
    deep in jit/cond/scan bodies, so lines end on both sides of column 80."""
    jnp = glassjax.numpy

    def body(*xs):
        out = lax.concatenate([jnp.reshape(x, (1,)) for x in xs], 0)
        return jnp.sum(out * 2.0) + xs[0]

    def wrap(f, level):
        if level == 0:
            return f
        inner = wrap(f, level - 1)
        kinds = [lambda *xs: glassjax.jit(inner)(*xs),
                 lambda *xs: lax.cond(xs[0] > 0, inner, lambda *ys: ys[0], *xs),
                 lambda *xs: lax.scan(lambda c, _: (inner(c, *xs[1:]), None), xs[0],
                                      None, length=2)[0]]
        return kinds[level % 3]
    return glassjax.make_jaxpr(wrap(body, depth))(*[1.0] * n_args)


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
@pytest.mark.parametrize("n_args", [1, 3, 6, 9, 12, 15, 20])
def test_one_line_equations_match_the_layout_engine(n_args, depth):
    closed = _wide_program(n_args, depth)
    assert str(closed) == _doc_path(closed)


def _loss(w, x):
    jnp = glassjax.numpy
    h = jnp.tanh(x @ w[0] + w[1])
    return jnp.mean(lax.cumsum(h, axis=1) ** 2)


@pytest.mark.parametrize("transform, x_shape", [
    (lambda f: glassjax.grad(f), (5, 7)),
    (lambda f: glassjax.vmap(glassjax.grad(f), (None, 0)), (4, 5, 7)),
    (lambda f: glassjax.jit(glassjax.value_and_grad(f)), (5, 7)),
    (lambda f: glassjax.jacfwd(f), (5, 7)),
])
def test_one_line_equations_match_for_transformed_programs(transform, x_shape):
    jnp = glassjax.numpy
    w = (jnp.ones((7, 13)), jnp.ones(13))
    closed = glassjax.make_jaxpr(transform(_loss))(w, jnp.ones(x_shape))
    assert str(closed) == _doc_path(closed)

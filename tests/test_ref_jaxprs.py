"""Staged mutable array refs: jaxprs print JAX 0.10.2's ``Ref{...}`` types and
``ref[...]`` equations (texts recorded from JAX 0.10.2), and the programs compute what
the same program computes eagerly and what NumPy computes."""
import textwrap

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


def same(got, want):
    assert str(got) == textwrap.dedent(want).strip()


def bump(x):
    r = jax.new_ref(x)
    r[...] = r[...] + 1.
    r[0] += 2.
    return jax.freeze(r)


def test_new_ref_get_swap_freeze():
    same(jax.make_jaxpr(bump)(jnp.arange(4.)), """
        { lambda ; a:f32[4]. let
            b:Ref{f32[4]} = new_ref[kind=None memory_space=None] a
            c:f32[4] <- b[...]
            d:f32[4] = add c 1.0:f32[]
            b[...] <- d
            e:f32[] <- b[0]
            f:f32[] = add e 2.0:f32[]
            b[0] <- f
            g:f32[4] = freeze b
          in (g,) }""")


def test_ref_arguments_and_jit_of_them():
    def g(r, x):
        r[...] += x

    r = jax.new_ref(jnp.zeros(3))
    same(jax.make_jaxpr(g)(r, jnp.ones(3)), """
        { lambda ; a:Ref{f32[3]} b:f32[3]. let
            c:f32[3] <- a[...]
            d:f32[3] = add c b
            a[...] <- d
          in () }""")
    same(jax.make_jaxpr(jax.jit(g))(r, jnp.ones(3)), """
        { lambda ; a:Ref{f32[3]} b:f32[3]. let
            jit[
              name=g
              jaxpr={ lambda ; a:Ref{f32[3]} b:f32[3]. let
                  c:f32[3] <- a[...]
                  d:f32[3] = add c b
                  e:f32[3], a[...] <- a[...], d
                in () }
            ] a b
          in () }""")


@pytest.mark.parametrize("index, text", [
    (lambda r: r[:], "b:f32[3,4] <- a[:,:]"),
    (lambda r: r[1], "b:f32[4] <- a[1,:]"),
    (lambda r: r[1:2, ::2], "b:f32[1,2] <- a[1:2,:2]"),
    (lambda r: r[:, 2], "b:f32[3] <- a[:,2]"),
    (lambda r: r[..., 1], "b:f32[3] <- a[:,1]"),
    (lambda r: r[-1, 1:-1], "b:f32[2] <- a[-1,1:3]"),
    (lambda r: r.at[0].get(), "b:f32[4] <- a[0,:]"),
])
def test_indices_print_as_in_jax(index, text):
    r = jax.new_ref(jnp.zeros((3, 4)))
    same(jax.make_jaxpr(index)(r), f"{{ lambda ; a:Ref{{f32[3,4]}}. let {text} in (b,) }}")


def test_index_operands_and_addupdate():
    r = jax.new_ref(jnp.zeros((3, 4)))
    same(jax.make_jaxpr(lambda r: r[:, jnp.array([0, 2])])(r),
         "{ lambda a:i32[2]; b:Ref{f32[3,4]}. let c:f32[3,2] <- b[:,a] in (c,) }")

    def g(r, i):
        r[i, 1:3] = jnp.ones(2)
        r[i] += 1.

    same(jax.make_jaxpr(g)(r, 1), """
        { lambda ; a:Ref{f32[3,4]} b:i32[]. let
            c:f32[2] = broadcast_in_dim 1.0:f32[]
            a[b,1:3] <- c
            d:f32[4] <- a[b,:]
            e:f32[4] = add d 1.0:f32[]
            a[b,:] <- e
          in () }""")
    same(jax.make_jaxpr(lambda r: jax.ref.addupdate(r, ..., jnp.ones((3, 4))))(r), """
        { lambda ; a:Ref{f32[3,4]}. let
            b:f32[3,4] = broadcast_in_dim 1.0:f32[]
            a[...] += b
          in () }""")
    same(jax.make_jaxpr(lambda r: jax.ref.swap(r, (0,), jnp.ones(4)))(r), """
        { lambda ; a:Ref{f32[3,4]}. let
            b:f32[4] = broadcast_in_dim 1.0:f32[]
            c:f32[4], a[0,:] <- a[0,:], b
          in (c,) }""")


def loops(x):
    r = jax.new_ref(x)

    def body(i, c):
        r[i] = r[i] * 2.
        return c + 1

    jax.lax.fori_loop(0, 3, body, 0)
    jax.lax.while_loop(lambda c: c < 2, lambda c: (r.__setitem__(0, r[0] + 1.), c + 1)[1], 0)
    jax.lax.cond(x[0] > 0, lambda: r.__setitem__(1, 7.), lambda: None)
    return jax.freeze(r)


def test_refs_closed_over_by_loops_and_branches():
    same(jax.make_jaxpr(loops)(jnp.ones(4)), """
        { lambda ; a:f32[4]. let
            b:Ref{f32[4]} = new_ref[kind=None memory_space=None] a
            _:i32[] _:i32[] = scan[
              jaxpr={ lambda ; c:Ref{f32[4]} d:i32[] e:i32[]. let
                  f:i32[] = add d 1:i32[]
                  g:f32[] <- c[d]
                  h:f32[] = mul g 2.0:f32[]
                  i:f32[], c[d] <- c[d], h
                  j:i32[] = add e 1:i32[]
                in (f, j) }
              length=3
              num_carry=2
              num_consts=1
              reverse=False
              unroll=1
            ] b 0:i32[] 0:i32[]
            _:i32[] = while[
              body_jaxpr={ lambda ; k:Ref{f32[4]} l:i32[]. let
                  m:f32[] <- k[0]
                  n:f32[] = add m 1.0:f32[]
                  o:f32[], k[0] <- k[0], n
                  p:i32[] = add l 1:i32[]
                in (p,) }
              body_nconsts=1
              cond_jaxpr={ lambda ; q:i32[]. let r:bool[] = lt q 2:i32[] in (r,) }
              cond_nconsts=0
            ] b 0:i32[]
            s:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=None] a
            t:f32[] = squeeze[dimensions=(0,)] s
            u:bool[] = gt t 0.0:f32[]
            v:i32[] = convert_element_type[new_dtype=int32 weak_type=False] u
            cond[
              branches=(
                { lambda ; w:Ref{f32[4]}. let  in () }
                { lambda ; x:Ref{f32[4]}. let y:f32[], x[1] <- x[1], 7.0:f32[] in () }
              )
            ] v b
            z:f32[4] = freeze b
          in (z,) }""")


def test_staged_programs_compute_what_eager_ones_and_numpy_do():
    x = np.arange(4., dtype=np.float32)
    want = x + 1
    want[0] += 2
    np.testing.assert_array_equal(jax.jit(bump)(x), want)
    np.testing.assert_array_equal(bump(x), want)
    np.testing.assert_array_equal(jax.core.jaxpr_as_fun(jax.make_jaxpr(bump)(x))(x)[0],
                                  want)
    want = np.array([4., 7., 2., 1.], np.float32)      # (loops by hand: 2,2,2,1 -> +2 -> [1]=7)
    np.testing.assert_array_equal(jax.jit(loops)(jnp.ones(4)), want)
    np.testing.assert_array_equal(loops(jnp.ones(4)), want)


def test_transformations_of_staged_refs_agree_with_eager_ones():
    x = jnp.arange(4.)
    f = lambda x: bump(x * x).sum() ** 2
    np.testing.assert_allclose(jax.grad(jax.jit(f))(x), jax.grad(f)(x))
    np.testing.assert_allclose(jax.grad(f)(x), 2 * (np.sum(np.arange(4.) ** 2) + 6)
                               * 2 * np.arange(4.))
    xs = jnp.arange(8.).reshape(2, 4)
    np.testing.assert_array_equal(jax.vmap(jax.jit(bump))(xs), np.stack([bump(v) for v in xs]))
    g = jax.checkpoint(lambda x: bump(x).sum())
    np.testing.assert_allclose(jax.grad(g)(x), np.ones(4))
    assert float(jax.jit(g)(x)) == float(np.sum(np.arange(4.) + 1) + 2)


def test_a_jit_writing_a_ref_it_is_given():
    def g(r, x):
        r[...] += x

    @jax.jit
    def k(x):
        r = jax.new_ref(x)
        jax.jit(g)(r, x)
        return jax.freeze(r)

    np.testing.assert_array_equal(k(jnp.ones(3)), np.full(3, 2., np.float32))


def test_jax_errors_for_misused_staged_refs():
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(ValueError, match=r"Attempting to pass a Ref Ref\{float32\[3\]\} to "
                                         r"a primitive: add -- did you forget to unpack"):
        jax.make_jaxpr(lambda r: jax.lax.add(r, r))(r)
    with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments"):
        jax.make_jaxpr(jnp.sum)(r)
    with pytest.raises(ValueError, match="returned a mutable array reference of type "
                                         r"Ref\{float32\[\]\}, but mutable array references "
                                         "cannot be returned.\n\nThe returned mutable array "
                                         "was created on line"):
        jax.jit(lambda x: jax.new_ref(x))(1.)

    def g(x):
        r = jax.new_ref(0.)
        r[...] = x
        return r[...]

    with pytest.raises(ValueError, match="Invalid dtype for `swap`. Ref dtype: float32. "
                                         "Value dtype: int32."):
        jax.make_jaxpr(g)(2)


def written_in_place(x):
    r = jax.new_ref(x)
    r[1:3] = r[1:3] * 2.
    r[0] = 5.
    jax.ref.addupdate(r, ..., x)
    return jax.freeze(r)


def test_vmap_of_refs_made_inside_keeps_the_batch_axis_where_it_is():
    same(jax.make_jaxpr(jax.vmap(written_in_place, in_axes=1))(jnp.ones((4, 2))), """
        { lambda ; a:f32[4,2]. let
            b:Ref{f32[4,2]} = new_ref[kind=None memory_space=None] a
            c:f32[2,2] <- b[1:3,:]
            d:f32[2,2] = mul c 2.0:f32[]
            b[1:3,:] <- d
            e:f32[2] = broadcast_in_dim 5.0:f32[]
            b[0,:] <- e
            b[...] += a
            f:f32[4,2] = freeze b
            g:f32[2,4] = transpose[permutation=(1, 0)] f
          in (g,) }""")

    def h(x):
        r = jax.new_ref(jnp.zeros(()))
        jax.lax.scan(lambda c, xi: (r.__setitem__(..., r[...] + xi), (c, None))[1], 0., x)
        return r[...]

    same(jax.make_jaxpr(jax.vmap(h))(jnp.ones((2, 3))), """
        { lambda ; a:f32[2,3]. let
            b:f32[2] = broadcast_in_dim 0.0:f32[]
            c:Ref{f32[2]} = new_ref[kind=None memory_space=None] b
            d:f32[3,2] = transpose[permutation=(1, 0)] a
            scan[
              jaxpr={ lambda ; e:f32[] f:Ref{f32[2]} g:f32[2]. let
                  h:f32[2] <- f[...]
                  i:f32[2] = add h g
                  j:f32[2], f[...] <- f[...], i
                in () }
              length=3
              num_carry=0
              num_consts=2
              reverse=False
              unroll=1
            ] 0.0:f32[] c d
            k:f32[2] <- c[...]
          in (k,) }""")
    xs = np.arange(6., dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(jax.jit(jax.vmap(h))(xs), xs.sum(1))
    xs = np.arange(8., dtype=np.float32).reshape(2, 4)
    want = np.stack([written_in_place(v) for v in xs])
    np.testing.assert_array_equal(jax.jit(jax.vmap(written_in_place))(xs), want)
    np.testing.assert_array_equal(jax.jit(jax.vmap(written_in_place, in_axes=1))(xs.T), want)


def test_vmap_of_a_cond_writing_refs_is_refused_as_in_jax():
    def f(x):
        r = jax.new_ref(x)
        jax.lax.cond(x[0] > 1, lambda: r.__setitem__(2, 7.), lambda: None)
        return jax.freeze(r)

    with pytest.raises(NotImplementedError, match="State effect not supported in "
                                                  "vmap-of-cond."):
        jax.jit(jax.vmap(f))(jnp.ones((2, 4)))


def times_itself(x):
    r = jax.new_ref(x)
    r[...] = r[...] * x
    return jax.freeze(r)


def test_jvp_of_refs_made_inside_carries_a_ref_of_tangents():
    same(jax.make_jaxpr(lambda x, t: jax.jvp(times_itself, (x,), (t,)))(
        jnp.ones(3), jnp.ones(3)), """
        { lambda ; a:f32[3] b:f32[3]. let
            c:Ref{f32[3]} = new_ref[kind=None memory_space=None] a
            d:Ref{f32[3]} = new_ref[kind=None memory_space=None] b
            e:f32[3] <- c[...]
            f:f32[3] <- d[...]
            g:f32[3] = mul e a
            h:f32[3] = mul f a
            i:f32[3] = mul e b
            j:f32[3] = add_any h i
            c[...] <- g
            d[...] <- j
            k:f32[3] = freeze c
            l:f32[3] = freeze d
          in (k, l) }""")

    def g(x):
        r = jax.new_ref(jnp.zeros(3))
        r[...] = x
        return r[...]

    same(jax.make_jaxpr(lambda x, t: jax.jvp(g, (x,), (t,)))(jnp.ones(3), jnp.ones(3)), """
        { lambda ; a:f32[3] b:f32[3]. let
            c:f32[3] = broadcast_in_dim 0.0:f32[]
            d:Ref{f32[3]} = new_ref[kind=None memory_space=None] c
            e:f32[3] = broadcast_in_dim 0.0:f32[]
            f:Ref{f32[3]} = new_ref[kind=None memory_space=None] e
            d[...] <- a
            f[...] <- b
            g:f32[3] <- d[...]
            h:f32[3] <- f[...]
          in (g, h) }""")
    x, t = np.arange(3., dtype=np.float32), np.ones(3, np.float32)
    jvp = lambda x, t: jax.jvp(times_itself, (x,), (t,))
    for got in (jax.jit(jvp)(x, t), jvp(x, t)):
        np.testing.assert_array_equal(got[0], x * x)
        np.testing.assert_array_equal(got[1], 2 * x * t)


def test_a_staged_ref_is_a_jax_ref_of_its_type():
    seen = []

    def f(x):
        r = jax.new_ref(x)
        seen.append((isinstance(r, jax.Ref), repr(jax.typeof(r)), r.shape, len(r), repr(r)))
        return jax.freeze(r)

    jax.make_jaxpr(f)(jnp.ones(3))
    assert seen == [(True, "Ref{float32[3]}", (3,), 3, "JitTracer(Ref{float32[3]})")]
    assert isinstance(jax.new_ref(jnp.ones(3)), jax.Ref)
    assert not isinstance(jnp.ones(3), jax.Ref)


def test_ds_indexes_arrays_with_a_dynamic_slice_as_in_jax():
    x = jnp.arange(10)
    np.testing.assert_array_equal(x[jax.ds(4, 2)], [4, 5])
    np.testing.assert_array_equal(x[jax.ds(4, 3, 2)], [4, 6, 8])
    same(jax.make_jaxpr(lambda x, i: x[jax.ds(i, 2)])(x, 4), """
        { lambda ; a:i32[10] b:i32[]. let
            c:bool[] = lt b 0:i32[]
            d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
            e:i32[] = add d 10:i32[]
            f:i32[] = select_n c b e
            g:i32[2] = dynamic_slice[slice_sizes=(2,)] a f
          in (g,) }""")
    same(jax.make_jaxpr(lambda x: x[jax.ds(4, 2)])(x), """
        { lambda ; a:i32[10]. let
            b:i32[2] = dynamic_slice[slice_sizes=(2,)] a 4:i32[]
          in (b,) }""")
    y = jnp.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(jax.jit(lambda y, i: y[1, jax.ds(i, 2)])(y, 1), [5, 6])


def test_a_jit_closing_over_a_ref_made_under_grad_is_traced_once():
    """(As in JAX: the ref is a Ref constant of the jit's jaxpr; under grad the call
    runs on its value, so the function is not traced again to thread it.)"""
    traces = []

    def f(x):
        r = jax.new_ref(x)

        @jax.jit
        def inner():
            traces.append(1)
            r[...] = jnp.sin(r[...]) * 2.
            return r[...] + 1.

        return inner() + jax.freeze(r)

    np.testing.assert_allclose(jax.grad(f)(1.0), 4 * np.cos(1.0), rtol=1e-6)
    assert len(traces) == 1

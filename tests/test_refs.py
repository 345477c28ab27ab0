"""Mutable array references (``jax.new_ref``): values against NumPy doing the same
in-place updates, gradients against finite differences, and JAX 0.10.2's errors (types and
messages as JAX printed them)."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


def test_the_names_jax_exports():
    for name in ["Ref", "new_ref", "empty_ref", "free_ref", "freeze", "ds"]:
        assert hasattr(jax, name)
    for name in ["AbstractRef", "Ref", "addupdate", "empty_ref", "free_ref", "freeze",
                 "get", "new_ref", "set", "swap"]:
        assert hasattr(jax.ref, name)
    assert isinstance(jax.new_ref(1.0), jax.Ref)
    with pytest.raises(NotImplementedError):
        jax.new_ref(1.0).at          # noqa: B018  (JAX 0.10.2 has no ref.at yet)


def test_the_jax_ref_functions_and_typeof():
    r = jax.new_ref(jnp.arange(3.))
    assert str(jax.typeof(r)) == "Ref{float32[3]}"
    assert str(jax.typeof(r).inner_aval) == "float32[3]"
    assert float(jax.ref.get(r, 1)) == 1.
    assert float(jax.ref.swap(r, 0, 5.)) == 0.
    jax.ref.addupdate(r, 1, 2.)
    np.testing.assert_array_equal(r[...], [5., 3., 2.])
    jax.ref.set(r, ..., jnp.zeros(3))
    np.testing.assert_array_equal(jax.freeze(r), np.zeros(3))


def test_dynamic_slices_read_and_write_like_numpy_slices():
    x = np.arange(12., dtype=np.float32).reshape(3, 4)
    r = jax.new_ref(jnp.asarray(x))
    assert repr(jax.ds(1, 2, 2)) == "Slice(start=1, size=2, stride=2)"

    @jax.jit
    def f(i):
        out = r[jax.ds(i, 2), jax.ds(1, 2)]
        r[jax.ds(i, 2), 1:3] = -jnp.ones((2, 2))
        return out

    np.testing.assert_array_equal(f(1), x[1:3, 1:3])
    x[1:3, 1:3] = -1
    np.testing.assert_array_equal(r[...], x)
    np.testing.assert_array_equal(r[jax.ds(0, 2, 2)], x[0:3:2])


def test_repr_and_type():
    assert repr(jax.new_ref(jnp.zeros(3))) == "Ref([0., 0., 0.], dtype=float32)"
    assert repr(jax.new_ref(0)) == "Ref(0, dtype=int32, weak_type=True)"
    r = jax.new_ref(jnp.arange(6.).reshape(2, 3))
    assert (r.shape, r.dtype, r.ndim, r.size, len(r)) == ((2, 3), np.float32, 2, 6, 2)
    assert r.type_str() == "Ref{float32[2,3]}"


INDEXES = [0, -1, (1, 2), (slice(None), 1), (0, slice(None, 3)), Ellipsis, (Ellipsis, 1),
           (np.array([0, 0, 1]), np.array([1, 2, 3])), slice(1, None, 2)]


@pytest.mark.parametrize("idx", INDEXES, ids=str)
def test_reads_and_writes_agree_with_numpy(idx):
    x = np.arange(12., dtype=np.float32).reshape(3, 4)
    r = jax.new_ref(jnp.asarray(x))
    np.testing.assert_array_equal(r[idx], x[idx])
    new = -np.ones_like(x[idx]) * np.arange(np.size(x[idx])).reshape(np.shape(x[idx]))
    r[idx] = jnp.asarray(new)
    x[idx] = new
    np.testing.assert_array_equal(r[...], x)


def test_add_update_and_the_tutorials_sequence():
    x = np.arange(12., dtype=np.float32).reshape(3, 4)
    r = jax.new_ref(jnp.asarray(x))
    r[1] = r[0]
    x[1] = x[0]
    r[2, 3] = r[1, 2]
    x[2, 3] = x[1, 2]
    r[0, :3] = r[:, 1]
    x[0, :3] = x[:, 1]
    r[jnp.array([1, 2])] += jnp.ones((2, 4))
    x[[1, 2]] += 1
    np.testing.assert_array_equal(r[...], x)


def test_jit_closing_over_a_ref_updates_it_on_every_call():
    r = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f():
        r[1] += 1.

    f()
    f()
    np.testing.assert_array_equal(r[...], [0., 2., 0.])


def test_jit_taking_a_ref_and_returning_a_value():
    @jax.jit
    def f(x_ref, y):
        x_ref[...] = jnp.sin(x_ref[...]) * y
        return x_ref[0] + y

    x = np.arange(3., dtype=np.float32)
    r = jax.new_ref(jnp.asarray(x))
    out = f(r, 2.)
    np.testing.assert_allclose(r[...], np.sin(x) * 2, rtol=1e-6)
    np.testing.assert_allclose(out, np.sin(x[0]) * 2 + 2, rtol=1e-6)


def test_jit_inside_jit_writes_through():
    r = jax.new_ref(jnp.float32(1.))

    @jax.jit
    def inner(x):
        r[...] = r[...] * x

    @jax.jit
    def outer(x):
        inner(x)
        inner(x + 1)

    outer(jnp.float32(2.))
    assert float(r[...]) == 6.


def test_internal_refs_are_pure_and_differentiable():
    def g(x):
        ref = jax.new_ref(jnp.zeros(3))
        ref[...] = jnp.sin(x)
        ref[1] += x[0] * x[2]
        return jax.freeze(ref).sum()

    x = np.array([0.3, -1.2, 2.0], np.float32)
    eps = 1e-3
    fd = [(g(jnp.asarray(x + eps * e)) - g(jnp.asarray(x - eps * e))) / (2 * eps)
          for e in np.eye(3, dtype=np.float32)]
    np.testing.assert_allclose(jax.grad(g)(x), fd, rtol=1e-2)
    np.testing.assert_allclose(jax.grad(jax.jit(g))(x), fd, rtol=1e-2)


def test_vmap_over_ref_arguments_matches_a_loop():
    def dist(x, y, out_ref):
        out_ref[...] = jnp.sum((x - y) ** 2)

    vecs = np.arange(12., dtype=np.float32).reshape(3, 4)
    out = jax.new_ref(jnp.zeros((3, 3)))
    jax.vmap(jax.vmap(dist, (0, None, 0)), (None, 0, 0))(vecs, vecs, out)
    want = ((vecs[None, :, :] - vecs[:, None, :]) ** 2).sum(-1)
    np.testing.assert_array_equal(out[...], want)


def test_errors_under_jit():
    x_ref = jax.new_ref(0.)

    @jax.jit
    def err1(x_ref):
        return x_ref

    @jax.jit
    def err2(x_ref, y_ref):
        pass

    @jax.jit
    def err3(y_ref):
        y_ref[...] = x_ref[...]

    where = f"{__file__}:{err1.__wrapped__.__code__.co_firstlineno}"
    with pytest.raises(ValueError) as e:
        err1(x_ref)
    assert str(e.value) == (
        f"function err1 at {where} traced for jit returned a mutable array reference of "
        "type Ref{float32[]}, but mutable array references cannot be returned.\n\n"
        "The returned mutable array was passed in as the argument x_ref.")
    with pytest.raises(ValueError, match="only one reference to a mutable array may be "
                       r"passed .* appeared at both x_ref and y_ref\."):
        err2(x_ref, x_ref)
    with pytest.raises(ValueError, match=r"a mutable array reference of type "
                       r"Ref\{float32\[\]\} was both closed over and passed as the "
                       "argument y_ref"):
        err3(x_ref)
    assert float(x_ref[...]) == 0.      # no tracer is left in the ref


def test_vmapped_write_into_an_unbatched_ref():
    x_ref = jax.new_ref(0.)

    def err5(x):
        x_ref[...] = x

    with pytest.raises(Exception, match=r"^performing a set/swap operation with vmapped "
                       r"value on an unbatched array reference of type Ref\{float32\[\]\}\. "
                       "Move the array reference"):
        jax.vmap(err5)(jnp.arange(3.))


def test_math_on_a_ref_and_bad_writes():
    r = jax.new_ref(jnp.zeros(3))
    with pytest.raises(TypeError, match="sin requires ndarray or scalar arguments"):
        jnp.sin(r)
    with pytest.raises(ValueError) as e:
        r[...] = 2.
    assert str(e.value) == ("Invalid shape for `swap`. Ref shape: (3,). Expected shape: "
                            "(3,). Value shape: (). Transforms: (). ")
    with pytest.raises(ValueError) as e:
        r[0] = jnp.int32(2)
    assert str(e.value) == ("Invalid dtype for `swap`. Ref dtype: float32. Value dtype: "
                            "int32. ")


def test_implicit_casts_and_weak_types():
    r = jax.new_ref(0.)
    assert repr(r) == "Ref(0., dtype=float32, weak_type=True)"
    r[...] += 1
    assert repr(r) == "Ref(1., dtype=float32)"      # (what JAX prints: writes are strong)
    i = jax.new_ref(jnp.zeros(3, jnp.int32))
    i[1] = jnp.int8(3)
    assert repr(i) == "Ref([0, 3, 0], dtype=int32)"


def test_scan_body_closing_over_a_ref_carries_it():
    r = jax.new_ref(0)
    xs = np.arange(10, dtype=np.int32)

    def body(c, x):
        r[...] += x
        return c, x * 2

    _, ys = jax.lax.scan(body, None, jnp.asarray(xs))
    assert repr(r) == "Ref(45, dtype=int32)"
    np.testing.assert_array_equal(ys, xs * 2)
    total = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f(xs):
        jax.lax.fori_loop(0, 3, lambda i, c: total.__setitem__(i, xs[i] ** 2), None)

    f(jnp.arange(3.))
    np.testing.assert_array_equal(total[...], [0., 1., 4.])


def test_while_loop_and_cond_closing_over_refs():
    count = jax.new_ref(0)
    acc = jax.new_ref(jnp.zeros(2))

    def body(x):
        count[...] += 1
        acc[...] = acc[...] + x
        return x * 2.

    out = jax.lax.while_loop(lambda x: x[0] < 10., body, jnp.array([1., 3.]))
    np.testing.assert_array_equal(out, [16., 48.])
    assert int(count[...]) == 4
    np.testing.assert_array_equal(acc[...], [15., 45.])

    flag = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def mark(i, x):
        jax.lax.cond(x > 0, lambda: flag.__setitem__(i, x), lambda: None)

    mark(0, 2.)
    mark(1, -1.)
    mark(2, 5.)
    np.testing.assert_array_equal(flag[...], [2., 0., 5.])


def test_custom_vjp_stashing_gradients_in_a_ref():
    @jax.custom_vjp
    def stash_grads(grads_ref, x):
        return x

    def bwd(grads_ref, g):
        grads_ref[...] = g
        return None, g

    stash_grads.defvjp(lambda grads_ref, x: (x, grads_ref), bwd)

    def f(x, grads_ref):
        return stash_grads(grads_ref, jnp.sin(x)) * 3.

    for grad in [jax.grad(f), jax.jit(jax.grad(f))]:
        r = jax.new_ref(0.)
        f(1., r)
        assert repr(r) == "Ref(0., dtype=float32, weak_type=True)"   # no backward pass
        np.testing.assert_allclose(grad(1., r), 3 * np.cos(1.), rtol=1e-6)
        assert float(r[...]) == 3.       # the cotangent reaching stash_grads


def test_differentiated_writes_need_a_differentiated_ref():
    def err6(x, plumbing_ref):
        y = x + x
        plumbing_ref[...] += y
        return y

    def foo(x, plumbing_ref):
        y = x + x
        plumbing_ref[...] += jax.lax.stop_gradient(y)
        return y

    r = jax.new_ref(0.)
    with pytest.raises(Exception, match=r"^performing a set/swap operation with a "
                       "differentiated value on a non-differentiated array reference of "
                       r"type Ref\{float32\[\]\}\. Move the array reference to be an "
                       r"argument of the differentiated function\?$"):
        jax.grad(err6)(1., r)
    assert float(jax.grad(foo)(1., r)) == 2.
    assert repr(r) == "Ref(2., dtype=float32)"
    primal, tangent = jax.jvp(lambda x: foo(x, r), (1.,), (1.,))
    assert (float(primal), float(tangent), float(r[...])) == (2., 2., 4.)
    assert float(jax.jit(jax.grad(foo))(1., r)) == 2. and float(r[...]) == 6.


def test_jit_with_static_arguments_and_a_ref():
    def scale_into(n, x_ref, *, power):
        x_ref[...] = x_ref[...] * n ** power

    f = jax.jit(scale_into, static_argnums=0, static_argnames="power")
    r = jax.new_ref(jnp.arange(3.))
    f(2, r, power=3)
    np.testing.assert_array_equal(r[...], np.arange(3.) * 8)


def test_refs_print_as_jax_prints_them_under_transformations(capsys):
    @jax.jit
    def f(x_ref):
        print(x_ref)

    def g(x):
        print(jax.new_ref(x))

    f(jax.new_ref(jnp.zeros(3)))
    jax.grad(lambda x: (g(x), x)[1])(1.)
    jax.vmap(g)(jnp.ones(2))
    jax.jvp(g, (1.,), (1.,))
    assert capsys.readouterr().out.splitlines() == [   # (JAX 0.10.2's output)
        "JitTracer(Ref{float32[3]})",
        "GradTracer(primal=Ref(1., dtype=float32, weak_type=True), "
        "typeof(tangent)=Ref{f32[]})",
        "VmapTracer(aval=Ref{float32[]}, batched=Ref{float32[2]})",
        "JVPTracer(primal=Ref(1., dtype=float32, weak_type=True), "
        "tangent=Ref(1., dtype=float32, weak_type=True))"]


def test_compositions_of_jit_vmap_scan_and_grad():
    def f(x, r):
        r[...] += x * 2

    xs = np.arange(3., dtype=np.float32)
    for transformed in [jax.vmap(jax.jit(f)), jax.jit(jax.vmap(f))]:
        r = jax.new_ref(jnp.zeros(3))
        transformed(jnp.asarray(xs), r)
        np.testing.assert_array_equal(r[...], 2 * xs)

    c = jax.new_ref(0.)

    @jax.jit
    def h(xs):
        def body(carry, x):
            c[...] += x
            return carry + c[...], None
        return jax.lax.scan(body, 0., xs)[0]

    xs4 = np.arange(4., dtype=np.float32)
    assert float(h(jnp.asarray(xs4))) == np.cumsum(xs4).sum()
    assert float(c[...]) == xs4.sum()

    def loss(x):
        acc = jax.new_ref(0.)

        def body(_, xi):
            acc[...] += jnp.sin(xi) * x
            return None, None
        jax.lax.scan(body, None, jnp.asarray(xs))
        return acc[...]

    for grad in [jax.grad(loss), jax.jit(jax.grad(loss))]:
        np.testing.assert_allclose(grad(2.), np.sin(xs).sum(), rtol=1e-6)


def test_a_jitted_write_into_an_untracked_ref_is_checked_too():
    c = jax.new_ref(0.)

    @jax.jit
    def f(x):
        c[...] = x * 2
        return x

    with pytest.raises(Exception, match="with a differentiated value on a "
                       "non-differentiated array reference"):
        jax.grad(f)(1.)
    with pytest.raises(Exception, match="with vmapped value on an unbatched array "
                       "reference"):
        jax.vmap(f)(jnp.arange(2.))
    f(3.)
    assert float(c[...]) == 6.

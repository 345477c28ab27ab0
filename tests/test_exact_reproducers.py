"""Programs from an outside generator (issue 28) on which glassjax once printed a
different jaxpr, value or error than JAX 0.10.2. Each expected text is what JAX 0.10.2
printed for the same program (``JAX_PLATFORMS=cpu``)."""
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax


def test_comparison_between_jvp_and_grad_values_keeps_its_operand_order():
    """The grad tracer's class is not a subclass of the jvp tracer's: Python would try the
    reflected comparison first."""
    assert str(jax.make_jaxpr(jax.grad(lambda x: jax.jvp(lambda t: jnp.where(t >= x, t, 0.0), (x,), (1.0,))[1]))(1.0)) == """\
{ lambda ; a:f32[]. let
    b:bool[] = ge a a
    _:f32[] _:f32[] _:f32[] = jit[
      name=_where
      jaxpr={ lambda ; b:bool[] a:f32[] c:f32[] d:f32[]. let
          _:f32[] = select_n b c a
          _:f32[] = select_n b 0.0:f32[] d
        in (_, _, 0.0:f32[]) }
    ] b a 0.0:f32[] 1.0:f32[]
  in (0.0:f32[],) }"""


def test_scatter_min_jvp_compares_target_with_literal_update():
    """JAX's rule writes ``updates == target_vals``: a literal update defers to the tracer."""
    assert str(jax.make_jaxpr(lambda x, t: jax.jvp(jax.jit(lambda y: y.at[0].min(2.0)), (x,), (t,)))(jnp.ones(3), jnp.ones(3))) == """\
let lambda = { lambda ; a:f32[3] b:f32[3]. let
    c:i32[1] = broadcast_in_dim 0:i32[]
    d:f32[3] = scatter-min[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=True
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = min e f in (g,) }
    ] a c 2.0:f32[]
    h:f32[] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] a c
    i:f32[] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] d c
    j:bool[] = eq i 2.0:f32[]
    k:bool[] = eq h i
    l:f32[3] = broadcast_in_dim 0.0:f32[]
    m:f32[] = select_n j 0.0:f32[] 1.0:f32[]
    n:f32[3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr=jaxpr
    ] l c m
    o:f32[] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] n c
    p:f32[3] = broadcast_in_dim 0.0:f32[]
    q:f32[3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=False
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=False
      update_consts=()
      update_jaxpr=jaxpr
    ] p c 1.0:f32[]
    r:f32[] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] q c
    s:f32[] = add o 1.0:f32[]
    t:f32[] = div 1.0:f32[] s
    u:f32[] = div 1.0:f32[] o
    v:f32[] = select_n k u t
    w:f32[] = select_n j 0.0:f32[] v
    x:f32[] = add o 1.0:f32[]
    y:f32[] = div 1.0:f32[] x
    z:f32[] = select_n k 0.0:f32[] y
    ba:f32[] = add -1.0:f32[] z
    bb:f32[] = div ba r
    bc:f32[] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.PROMISE_IN_BOUNDS
      slice_sizes=(1,)
      unique_indices=False
    ] b c
    bd:f32[] = mul bc bb
    be:f32[] = mul 0.0:f32[] w
    bf:f32[] = add bd be
    bg:f32[3] = scatter-add[
      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), scatter_indices_batching_dims=())
      indices_are_sorted=True
      mode=GatherScatterMode.FILL_OR_DROP
      unique_indices=True
      update_consts=()
      update_jaxpr=jaxpr
    ] b c bf
  in (d, bg) } in
let jaxpr = { lambda ; bh:f32[] bi:f32[]. let bj:f32[] = add bh bi in (bj,) } in
{ lambda ; bk:f32[3] bl:f32[3]. let
    bm:f32[3] bn:f32[3] = jit[name=<lambda> jaxpr=lambda] bk bl
  in (bm, bn) }"""


def test_vmapped_reduction_gives_a_python_int_batch_dim():
    """The batch axis a reduction's batching rule returns is an int (JAX: ``int(...)``), so
    select_n's broadcast prints ``(0,)``."""
    assert str(jax.make_jaxpr(jax.vmap(lambda x, y: jnp.where(jnp.all(x, axis=(0,1)), x, y)))(jnp.ones((3,1,3)), jnp.ones((3,1,3)))) == """\
{ lambda ; a:f32[3,1,3] b:f32[3,1,3]. let
    c:bool[3,1,3] = convert_element_type[new_dtype=bool weak_type=False] a
    d:bool[3] = reduce_and[axes=(np.int64(1), np.int64(2))] c
    e:f32[3,1,3] = jit[
      name=_where
      jaxpr={ lambda ; d:bool[3] a:f32[3,1,3] b:f32[3,1,3]. let
          f:bool[3,1,3] = broadcast_in_dim[broadcast_dimensions=(0,)] d
          e:f32[3,1,3] = select_n f b a
        in (e,) }
    ] d a b
  in (e,) }"""


def test_zeros_like_of_a_float0_tangent_is_a_literal():
    """Staging folds the conversion of a constant to float0 (JAX's convert_element_type
    folding rule)."""
    assert str(jax.make_jaxpr(lambda x: jnp.zeros_like(jax.jvp(lambda t: t.astype(jnp.int32), (x,), (1.0,))[1]))(1.0)) == """\
{ lambda ; a:f32[]. let
    _:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
  in ((b'',):float0[],) }"""


def test_grad_through_checkpoint_of_a_constant_output():
    """A literal output of a checkpointed function is a host array, as JAX's constant
    folding makes it (it has ``.sum()``)."""
    assert repr(jax.grad(lambda x: jax.checkpoint(lambda y: jnp.zeros_like(y))(x).sum())(1.0)) == """\
Array(0., dtype=float32, weak_type=True)"""


def test_literal_outputs_of_checkpoint_keep_their_typed_host_values():
    outs = [repr(jax.checkpoint(f)(2.0)) for f in (
        lambda y: 1, lambda y: 1.0, lambda y: jnp.zeros_like(y), lambda y: jnp.float32(2))]
    assert outs == ["TypedInt(1, dtype=int32)", "TypedFloat(1.0, dtype=float32)",
                    "TypedNdArray(0., dtype=float32, weak_type=True)",
                    "TypedNdArray(2., dtype=float32)"]


def test_no_empty_known_scan_after_partial_evaluation():
    """A known scan with no outputs and no effects is not run, as in JAX's partial-eval
    rule."""
    assert str(jax.make_jaxpr(jax.grad(lambda a, b: lax.scan(lambda c, x: (c + lax.scan(lambda c2, y: (c2 + y[0], None), 0.0, (x, b))[0], None), 0.0, a)[0], argnums=1))(jnp.ones((1,2)), jnp.ones(2))) == """\
{ lambda ; a:f32[1,2] b:f32[2]. let
    _:f32[] = scan[
      jaxpr={ lambda ; c:f32[] d:f32[2]. let
          e:f32[] = scan[
            jaxpr={ lambda ; f:f32[] g:f32[]. let
                h:f32[] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] f
                i:f32[] = add h g
              in (i,) }
            length=2
            num_carry=1
            num_consts=0
            reverse=False
            unroll=1
          ] 0.0:f32[] d
          j:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          k:f32[] = add j e
        in (k,) }
      length=1
      num_carry=1
      num_consts=0
      reverse=False
      unroll=1
    ] 0.0:f32[] a
    l:f32[2] = broadcast_in_dim 0.0:f32[]
  in (l,) }"""


def test_custom_jvp_call_jaxpr_shared_by_two_calls_of_a_jnp_function():
    """A staged custom_jvp_call is replayed with its params, so both calls share one
    call_jaxpr, as JAX's cached jit trace does."""
    assert str(jax.make_jaxpr(lambda x, y: jnp.logaddexp(x,y)*jnp.logaddexp(y,x))(jnp.ones(3), jnp.ones(3))) == """\
let jaxpr = { lambda ; a:f32[3] b:f32[3]. let
    c:f32[3] = max a b
    d:f32[3] = sub a b
    e:bool[3] = ne d d
    f:f32[3] = add a b
    g:f32[3] = abs d
    h:f32[3] = neg g
    i:f32[3] = exp h
    j:f32[3] = log1p i
    k:f32[3] = add c j
    l:f32[3] = select_n e k f
  in (l,) } in
{ lambda ; m:f32[3] n:f32[3]. let
    o:f32[3] = custom_jvp_call[
      name=logaddexp
      call_jaxpr=jaxpr
      jvp=_logaddexp_jvp
      symbolic_zeros=False
    ] m n
    p:f32[3] = custom_jvp_call[
      name=logaddexp
      call_jaxpr=jaxpr
      jvp=_logaddexp_jvp
      symbolic_zeros=False
    ] n m
    q:f32[3] = mul o p
  in (q,) }"""


# -- errors: JAX's exception type and what its message says ------------------------------

def _raised(f):
    with pytest.raises(Exception) as info:
        f()
    return type(info.value).__name__, str(info.value)


def test_einsum_with_too_few_operands_gives_both_counts():
    assert _raised(lambda: jnp.einsum('ij,jk->ik', jnp.ones((2, 3)))) == (
        "ValueError",
        "Number of einsum subscripts, 2, must be equal to the number of operands, 1.")


def test_swapaxes_out_of_bounds_names_the_axis():
    assert _raised(lambda: jnp.swapaxes(jnp.ones((2, 3)), 0, 5)) == (
        "IndexError", "index 5 is out of bounds for axis 0 with size 2")


def test_eval_shape_of_a_non_callable():
    assert _raised(lambda: jax.eval_shape(3, 1.0)) == (
        "TypeError", "Expected a callable value, got 3")


def test_tile_with_a_float_repeat():
    assert _raised(lambda: jnp.tile(jnp.ones((2, 3)), 1.5)) == (
        "TypeError", "Shapes must be 1D sequences of concrete values of integer type, got "
        "(np.float64(2.0), np.float64(4.5)).")


def test_jit_called_with_a_shape_dtype_struct_names_the_argument():
    assert _raised(lambda: jax.jit(lambda x: x + 1)(
        jax.ShapeDtypeStruct((2,), jnp.float32))) == (
        "TypeError", f"Argument 'x' of shape float32[2] of type {jax.ShapeDtypeStruct} is "
        "not a valid JAX type.")


def test_a_dimension_beyond_int64_is_a_type_error():
    assert _raised(lambda: jnp.zeros((2**63,)))[0] == "TypeError"


def test_shape_of_a_non_array_warns():
    with pytest.warns(DeprecationWarning) as record:
        assert jnp.shape(None) == ()
    assert [str(w.message) for w in record] == [
        "shape requires ndarray or scalar arguments, got <class 'NoneType'> at position 0. "
        "In a future JAX release this will be an error."]


def test_unusable_donated_buffer_warns():
    """Two donated inputs, one output: only one buffer can hold it."""
    with pytest.warns(UserWarning) as record:
        jax.jit(lambda a, b: a + b, donate_argnums=(0, 1))(jnp.ones(3), jnp.ones(3))
    assert [str(w.message) for w in record] == [
        "Some donated buffers were not usable: float32[3].\n"
        "See an explanation at https://docs.jax.dev/en/latest/faq.html#buffer-donation."]

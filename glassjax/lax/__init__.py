"""``glassjax.lax``: the primitives, and the functions that bind them (JAX's ``jax.lax``).

Each primitive is defined with all its rules in one block. The modules import one
another only downwards, in this order: utils (rule machinery) -> conversion ->
structural -> comparison -> arithmetic -> transcendental (the elementwise families,
gathered by elementwise.py) -> dot -> slicing -> logaddexp -> reductions ->
windowed_reductions, convolution, fft, ann, parallel, special, bessel_beta ->
control_flow/ -> linalg. Where a lower module's rules need a reduction (the transpose of
a broadcast is a sum), reductions.py fills ``utils.above``.
Read next: lax/utils.py, then lax/conversion.py.
"""
from glassjax import core
from glassjax.lax.conversion import _convert_element_type
from glassjax.lax.dim_as_value import dim_as_value_p  # installs shape_poly.hooks.as_value
from glassjax.lax.elementwise import (
    AccuracyMode, RoundingMethod, Tolerance, abs, abs_p, acos, acos_p, acosh, acosh_p, add,
    add_any, add_any_p, add_p, and_p, asin, asin_p, asinh, asinh_p, atan, atan2, atan2_p,
    atan_p, atanh, atanh_p, bitcast_convert_type, bitcast_convert_type_p, bitwise_and,
    bitwise_not, bitwise_or, bitwise_xor, cbrt, cbrt_p, ceil, ceil_p, clamp, clamp_p, clz,
    clz_p, complex, complex_p, conj, conj_p, convert_element_type, convert_element_type_p,
    cos, cos_p, cosh, cosh_p, digamma, digamma_p, div, div_p, eq, eq_p, eq_to_p, erf, erf_inv,
    erf_inv_p, erf_p, erfc, erfc_p, exp, exp2, exp2_p, exp_p, expm1, expm1_p, floor,
    floor_p, ge, ge_p, gt, gt_p, imag, imag_p, integer_pow, integer_pow_p, is_finite,
    is_finite_p, le, le_p, le_to_p, lgamma, lgamma_p, log, log1p, log1p_p, log_p, logistic,
    logistic_p, lt, lt_p, lt_to_p, max, max_p, min, min_p, mul, mul_p, mulhi, mulhi_p, ne, ne_p,
    neg, neg_p, nextafter, nextafter_p, not_p, optimization_barrier, optimization_barrier_p,
    or_p, polygamma, polygamma_p, population_count,
    population_count_p, pow, pow_p, real, real_p, reciprocal, reduce_precision,
    reduce_precision_p, rem, rem_p, round, round_p, rsqrt, rsqrt_p, select, select_n,
    select_n_p, shift_left, shift_left_p, shift_right_arithmetic, shift_right_arithmetic_p,
    shift_right_logical, shift_right_logical_p, sign, sign_p, sin, sin_p, sinh, sinh_p,
    sqrt, sqrt_p, square, square_p, stop_gradient, stop_gradient_p, sub, sub_p, tan, tan_p,
    tanh, tanh_p, xor_p, zeta, zeta_p)
from glassjax.lax.structural import (
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcast_like, broadcast_shapes,
    broadcast_to_rank, shape_as_value,
    broadcasted_iota,
    collapse, concatenate, concatenate_p, empty, empty_p, expand_dims, full, full_like, iota,
    iota_p, reshape, reshape_p, rev, rev_p, split, split_p, squeeze, squeeze_p, stack,
    stack_p, tile, tile_p, transpose, transpose_p, unstack, unstack_p, copy_p)
from glassjax.lax.reductions import (
    argmax, argmax_p, argmin, argmin_p, associative_scan, cumlogsumexp, cumlogsumexp_p,
    cummax, cummax_p, cummin, cummin_p, cumprod, cumprod_p, cumsum, cumsum_p, reduce,
    reduce_and, reduce_and_p, reduce_max, reduce_max_p, reduce_min, reduce_min_p,
    reduce_or, reduce_or_p, reduce_p, reduce_prod, reduce_prod_p, reduce_sum, reduce_sum_p,
    reduce_xor, reduce_xor_p, sort, sort_key_val, sort_p, top_k, top_k_p)
from glassjax.lax.dot import (DotAlgorithm, DotAlgorithmPreset, DotDimensionNumbers, Precision, PrecisionLike, batch_matmul, dot, dot_general, dot_general_p)
from glassjax.lax.slicing import (
    dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_slice_p,
    dynamic_update_index_in_dim, dynamic_update_slice, dynamic_update_slice_in_dim,
    dynamic_update_slice_p, index_in_dim, pad, pad_p, slice, slice_in_dim, slice_p)
from glassjax.lax.gather_scatter import (
    GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers, gather, gather_p,
    index_take, scatter, scatter_add, scatter_add_p, scatter_apply, scatter_max,
    scatter_max_p, scatter_min, scatter_min_p, scatter_mul, scatter_mul_p, scatter_p,
    scatter_sub, scatter_sub_p)
from glassjax.lax.fft import FftType, fft, fft_p
from glassjax.lax.ann import approx_max_k, approx_min_k, approx_top_k_p
from glassjax.lax.control_flow import (cond, cond_p, custom_linear_solve, custom_root,
                                       fori_loop, linear_solve_p, map, platform_dependent,
                                       scan, scan_p, switch, while_loop, while_p)
from glassjax.lax.parallel import (
    all_gather, all_gather_p, all_to_all, all_to_all_p, axis_index, axis_index_p, axis_size,
    pbroadcast, pbroadcast_p, pcast, pmax, pmax_p, pmean, pmin, pmin_p, ppermute, ppermute_p,
    pshuffle, psum, psum_p,
    psum_scatter, pswapaxes, reduce_scatter_p)
from glassjax.lax.windowed_reductions import (
    padtype_to_pads, reduce_window, reduce_window_max_p, reduce_window_min_p, reduce_window_p,
    reduce_window_shape_tuple, reduce_window_sum_p, select_and_gather_add_p,
    select_and_scatter_add_p, select_and_scatter_p)
from glassjax.lax.convolution import (
    ConvDimensionNumbers, ConvGeneralDilatedDimensionNumbers, conv, conv_dimension_numbers,
    conv_general_dilated, conv_general_dilated_p, conv_general_permutations,
    conv_general_shape_tuple, conv_shape_tuple, conv_transpose, conv_transpose_shape_tuple,
    conv_with_general_padding)
from glassjax.lax.special import (igamma, igamma_grad_a, igamma_grad_a_p, igamma_p, igammac,
                                  igammac_p, random_gamma_grad)
from glassjax.lax.sharding_constraint import sharding_constraint_p, with_sharding_constraint
from glassjax.lax.ragged_collectives import (precv, psend, ragged_all_to_all,
                                            ragged_all_to_all_p)
from glassjax.lax.bessel_beta import (bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p,
                                      betainc, regularized_incomplete_beta_p)
from glassjax.lax.rng_bits import (RandomAlgorithm, rng_bit_generator, rng_bit_generator_p,
                                   rng_uniform, rng_uniform_p)
from glassjax.lax.conv_patches import conv_general_dilated_local, conv_general_dilated_patches
from glassjax.dtypes import dtype
from glassjax.lax.ragged_dot import RaggedDotDimensionNumbers, ragged_dot, ragged_dot_general
from glassjax.lax.scaled_dot import scaled_dot
from glassjax.lax.composite import composite
from glassjax.lax.stage import stage, stage_p
from glassjax.lax import state as _state  # noqa: F401  (the state primitives)
from glassjax.lax.tokens import after_all, after_all_p, create_token, create_token_p
from glassjax.lax.dce_sink import dce_sink, dce_sink_p
from glassjax.lax.device_put import device_put_p
from glassjax.lax import linalg


# Core, the interpreters and custom_derivatives sit below lax and never import it: lax
# hands them the array operations they need.
core.hooks.register(index_in_dim=index_in_dim, broadcast_in_dim=broadcast_in_dim,
                    transpose=transpose, expand_dims=expand_dims, add_any=add_any,
                    convert_element_type=_convert_element_type, stop_gradient=stop_gradient)

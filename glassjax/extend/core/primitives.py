"""``jax.extend.core.primitives``: the primitives JAX names for libraries that rewrite
jaxprs (matching ``eqn.primitive is dot_general_p``), here glassjax's own primitive objects.
Of JAX's list, those glassjax has no primitive for are missing: ``custom_lin_p``,
``add_jaxvals_p``, ``empty2_p``, ``tridiagonal_p`` and ``tridiagonal_solve_p``."""
from glassjax.ad_checkpoint import (name_p, remat_p)
from glassjax.lax import (stop_gradient_p, device_put_p, abs_p, acos_p, acosh_p,
                          add_p, after_all_p, and_p, argmax_p, argmin_p, asin_p,
                          asinh_p, atan_p, atan2_p, atanh_p, bitcast_convert_type_p,
                          broadcast_in_dim_p, cbrt_p, ceil_p, clamp_p, clz_p,
                          complex_p, concatenate_p, conj_p, convert_element_type_p,
                          copy_p, cos_p, cosh_p, create_token_p, div_p,
                          dot_general_p, eq_p, eq_to_p, exp_p, exp2_p, expm1_p,
                          floor_p, ge_p, gt_p, imag_p, integer_pow_p, iota_p,
                          is_finite_p, le_p, le_to_p, log1p_p, log_p, logistic_p,
                          lt_p, lt_to_p, max_p, min_p, mul_p, ne_p, neg_p,
                          nextafter_p, not_p, or_p, pad_p, population_count_p,
                          pow_p, real_p, reduce_and_p, reduce_max_p, reduce_min_p,
                          reduce_or_p, reduce_p, reduce_precision_p, reduce_prod_p,
                          reduce_sum_p, reduce_xor_p, rem_p, reshape_p, rev_p,
                          rng_bit_generator_p, rng_uniform_p, round_p, rsqrt_p,
                          select_n_p, shift_left_p, shift_right_arithmetic_p,
                          shift_right_logical_p, sign_p, sin_p, sinh_p, sort_p,
                          sqrt_p, square_p, squeeze_p, sub_p, tan_p, tanh_p,
                          top_k_p, transpose_p, xor_p, bessel_i0e_p, bessel_i1e_p,
                          digamma_p, erfc_p, erf_inv_p, erf_p, igammac_p,
                          igamma_grad_a_p, igamma_p, lgamma_p, polygamma_p,
                          regularized_incomplete_beta_p, zeta_p, dynamic_slice_p,
                          dynamic_update_slice_p, gather_p, scatter_add_p,
                          scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p,
                          slice_p, conv_general_dilated_p, reduce_window_max_p,
                          reduce_window_min_p, reduce_window_p, reduce_window_sum_p,
                          select_and_gather_add_p, select_and_scatter_p,
                          select_and_scatter_add_p, cond_p, cumlogsumexp_p,
                          cummax_p, cummin_p, cumprod_p, cumsum_p, linear_solve_p,
                          scan_p, while_p, fft_p, all_gather_p, all_to_all_p,
                          axis_index_p, pmax_p, pmin_p, ppermute_p, psum_p,
                          ragged_all_to_all_p, approx_top_k_p, sharding_constraint_p)
from glassjax.call import call_p, closed_call_p
from glassjax.custom_derivatives import (custom_jvp_call_p, custom_vjp_call_p)
from glassjax.jit import jit_p
from glassjax.lax.linalg import (cholesky_p, eig_p, eigh_p, hessenberg_p, lu_p,
                                 householder_product_p, qr_p, svd_p,
                                 triangular_solve_p, schur_p)
from glassjax.prng import (random_bits_p, random_fold_in_p, random_seed_p,
                           random_split_p, threefry2x32_p)
from glassjax.random import (random_gamma_p)
from glassjax.lax.state import (get_p, swap_p)

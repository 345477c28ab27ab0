"""Elementwise primitives: the index of their four families.

An elementwise primitive applies a scalar function to every element of its operands.
They are defined, each with all its rules, in one module per family, from the bottom up:

- lax/conversion.py: ``convert_element_type``, ``bitcast_convert_type``,
  ``reduce_precision``, and the typed constants (``_const``) rules build;
- lax/comparison.py: comparisons, bitwise and logical ops, ``select_n``, ``clamp``;
- lax/arithmetic.py: ``neg``, rounding, ``add`` ... ``max``, ``integer_pow``, complex
  numbers, ``abs``, and ``stop_gradient`` / ``optimization_barrier`` / ``add_any``;
- lax/transcendental.py: ``exp``, ``log``, trigonometric and hyperbolic functions,
  ``sqrt``, ``pow``, ``erf``, ``lgamma``, ...

This module gathers them under one name (``from glassjax.lax import elementwise``), so
code above lax can use them without knowing the family. Read next: lax/conversion.py.
"""
from glassjax.lax.conversion import (bitcast_convert_type, bitcast_convert_type_p,
                                     convert_element_type, convert_element_type_p,
                                     reduce_precision, reduce_precision_p, _const,
                                     _convert_element_type)
from glassjax.lax.comparison import (and_p, bitwise_and, bitwise_not, bitwise_or,
                                     bitwise_xor, clamp, clamp_p, clz, clz_p, eq, eq_p, eq_to_p, ge,
                                     ge_p, gt, gt_p, le, le_p, le_to_p, lt, lt_p, lt_to_p,
                                     ne, ne_p, not_p,
                                     or_p, population_count, population_count_p, select,
                                     select_n, select_n_p, shift_left, shift_left_p,
                                     shift_right_arithmetic, shift_right_arithmetic_p,
                                     shift_right_logical, shift_right_logical_p, xor_p)
from glassjax.lax.arithmetic import (RoundingMethod, abs, abs_p, add, add_any, add_any_p,
                                     add_p, ceil, ceil_p, complex, complex_p, conj, conj_p,
                                     div, div_p, floor, floor_p, imag, imag_p, integer_pow,
                                     integer_pow_p, is_finite, is_finite_p, max, max_p,
                                     min, min_p, mul, mul_p, mulhi, mulhi_p, neg, neg_p,
                                     nextafter, nextafter_p, optimization_barrier,
                                     optimization_barrier_p, real, real_p, rem, rem_p,
                                     round, round_p, sign, sign_p, stop_gradient,
                                     stop_gradient_p, sub, sub_p)
from glassjax.lax.transcendental import (AccuracyMode, Tolerance, acos, acos_p, acosh,
                                         acosh_p, asin, asin_p, asinh, asinh_p, atan,
                                         atan2, atan2_p, atan_p, atanh, atanh_p, cbrt,
                                         cbrt_p, cos, cos_p, cosh, cosh_p, digamma,
                                         digamma_p, erf, erf_inv, erf_inv_p, erf_p, erfc,
                                         erfc_p, exp, exp2, exp2_p, exp_p, expm1, expm1_p,
                                         lgamma, lgamma_p, log, log1p, log1p_p, log_p,
                                         logistic, logistic_p, polygamma, polygamma_p, pow,
                                         pow_p, reciprocal, rsqrt, rsqrt_p, sin, sin_p,
                                         sinh, sinh_p, sqrt, sqrt_p, square, square_p, tan,
                                         tan_p, tanh, tanh_p, zeta, zeta_p)

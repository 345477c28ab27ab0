"""Tests for glassjax.dtypes against JAX 0.10.2.

The promotion tables below were produced by real JAX 0.10.2 (``jnp.promote_types`` and
``jax.dtypes.result_type(a, b, return_weak_type_flag=True)``) for every pair of operands,
with x64 off/on and jax_numpy_dtype_promotion standard/strict. Entries are dtype names;
``*`` marks a weakly typed result; TPE = TypePromotionError, VE = ValueError. Result-type
operands: a 0-d NumPy array of each dtype, the Python scalars True/1/1.0/1j, and weakly
typed arrays (``~``).
"""
import warnings

import ml_dtypes
import numpy as np
import pytest

from glassjax import dtypes, shape_poly
from glassjax.config import config, enable_x64

PROMOTE_OPERANDS = ['bool', 'uint8', 'uint16', 'uint32', 'uint64', 'int8', 'int16', 'int32', 'int64', 'bfloat16', 'float16', 'float32', 'float64', 'complex64', 'complex128', 'int4', 'uint4', 'int2', 'float8_e4m3fn', 'float8_e5m2', 'float6_e2m3fn', 'float4_e2m1fn', 'int', 'float', 'complex']
RESULT_OPERANDS = ['bool', 'uint8', 'uint16', 'uint32', 'uint64', 'int8', 'int16', 'int32', 'int64', 'bfloat16', 'float16', 'float32', 'float64', 'complex64', 'complex128', 'int4', 'uint4', 'int2', 'float8_e4m3fn', 'float8_e5m2', 'float6_e2m3fn', 'float4_e2m1fn', 'True', '1', '1.0', '1j', 'int16~', 'uint8~', 'bfloat16~', 'float16~', 'float32~', 'int32~', 'complex64~']
TABLES = {
    ('promote_types', False, 'standard'): '''
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
uint8 uint8 uint16 uint32 uint64 int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint8 float64 complex128
uint16 uint16 uint16 uint32 uint64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint16 float64 complex128
uint32 uint32 uint32 uint32 uint64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint32 float64 complex128
uint64 uint64 uint64 uint64 uint64 float64 float64 float64 float64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint64 float64 complex128
int8 int16 int32 int32 float64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int8 float64 complex128
int16 int16 int32 int32 float64 int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int16 float64 complex128
int32 int32 int32 int32 float64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32 float64 complex128
int64 int64 int64 int64 float64 int64 int64 int64 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 complex64
float16 float16 float16 float16 float16 float16 float16 float16 float16 float32 float16 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float16 float16 complex64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float32 float32 complex64
float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE float64 float64 complex128
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64
complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
int4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 TPE TPE
uint4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 TPE TPE
int2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 TPE TPE
float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE
float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 TPE
float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn TPE
float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
int64 uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
float64 float64 float64 float64 float64 float64 float64 float64 float64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64 float64 complex128
complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
''',
    ('result_type', False, 'standard'): '''
bool uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
uint8 uint8 uint16 uint32 uint32 int16 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint8 uint8 float32* complex64* uint8 uint8 float32* float32* float32* uint8 complex64*
uint16 uint16 uint16 uint32 uint32 int32 int32 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint16 uint16 float32* complex64* uint16 uint16 float32* float32* float32* uint16 complex64*
uint32 uint32 uint32 uint32 uint32 int32 int32 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint32 uint32 float32* complex64* uint32 uint32 float32* float32* float32* uint32 complex64*
uint32 uint32 uint32 uint32 uint32 int32 int32 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint32 uint32 float32* complex64* uint32 uint32 float32* float32* float32* uint32 complex64*
int8 int16 int32 int32 int32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int8 int8 float32* complex64* int8 int8 float32* float32* float32* int8 complex64*
int16 int16 int32 int32 int32 int16 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int16 int16 float32* complex64* int16 int16 float32* float32* float32* int16 complex64*
int32 int32 int32 int32 int32 int32 int32 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32 int32 float32* complex64* int32 int32 float32* float32* float32* int32 complex64*
int32 int32 int32 int32 int32 int32 int32 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32 int32 float32* complex64* int32 int32 float32* float32* float32* int32 complex64*
bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 float32 float32 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 bfloat16 complex64 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 complex64
float16 float16 float16 float16 float16 float16 float16 float16 float16 float32 float16 float32 float32 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE float16 float16 float16 complex64 float16 float16 float16 float16 float16 float16 complex64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE float32 float32 float32 complex64 float32 float32 float32 float32 float32 float32 complex64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE float32 float32 float32 complex64 float32 float32 float32 float32 float32 float32 complex64
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
int4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 int4 TPE TPE int4 int4 TPE TPE TPE int4 TPE
uint4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 uint4 TPE TPE uint4 uint4 TPE TPE TPE uint4 TPE
int2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 int2 TPE TPE int2 int2 TPE TPE TPE int2 TPE
float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE
float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 float8_e5m2 TPE float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE
float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE
float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
bool uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
int32* uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32* int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
float32* float32* float32* float32* float32* float32* float32* float32* float32* bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float32* float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64 complex64 complex64 complex64 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64*
int32* uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32* int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
int32* uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32* int32* float32* complex64* int32* uint32* float32* float32* float32* int32* complex64*
float32* float32* float32* float32* float32* float32* float32* float32* float32* bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float32* float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
float32* float32* float32* float32* float32* float32* float32* float32* float32* bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float32* float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
float32* float32* float32* float32* float32* float32* float32* float32* float32* bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float32* float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
int32* uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32* int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64 complex64 complex64 complex64 complex64 complex64 TPE TPE TPE TPE TPE TPE TPE complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64*
bool uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int32* float32* complex64* int32* uint32* float32* float32* float32* int32* complex64*
''',
    ('promote_types', False, 'strict'): '''
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint8 TPE TPE
TPE TPE uint16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint16 TPE TPE
TPE TPE TPE uint32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint32 TPE TPE
TPE TPE TPE TPE uint64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint64 TPE TPE
TPE TPE TPE TPE TPE int8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int8 TPE TPE
TPE TPE TPE TPE TPE TPE int16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int16 TPE TPE
TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 float16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 float64 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64 float64 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
''',
    ('result_type', False, 'strict'): '''
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint8 TPE TPE uint8 uint8 TPE TPE TPE uint8 TPE
TPE TPE uint16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint16 TPE TPE uint16 uint16 TPE TPE TPE uint16 TPE
TPE TPE TPE uint32 uint32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint32 TPE TPE uint32 uint32 TPE TPE TPE uint32 TPE
TPE TPE TPE uint32 uint32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint32 TPE TPE uint32 uint32 TPE TPE TPE uint32 TPE
TPE TPE TPE TPE TPE int8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int8 TPE TPE int8 int8 TPE TPE TPE int8 TPE
TPE TPE TPE TPE TPE TPE int16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int16 TPE TPE int16 int16 TPE TPE TPE int16 TPE
TPE TPE TPE TPE TPE TPE TPE int32 int32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE int32 int32 TPE TPE TPE int32 TPE
TPE TPE TPE TPE TPE TPE TPE int32 int32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE int32 int32 TPE TPE TPE int32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 TPE bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 float16 TPE float16 float16 float16 float16 float16 float16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE float32 float32 float32 float32 float32 float32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE float32 float32 float32 float32 float32 float32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE int4 int4 TPE TPE TPE int4 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE TPE uint4 TPE TPE uint4 uint4 TPE TPE TPE uint4 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE TPE int2 TPE TPE int2 int2 TPE TPE TPE int2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE TPE float8_e5m2 float8_e5m2 TPE float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE TPE float6_e2m3fn float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64*
TPE uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
TPE uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float32 complex64 complex64 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float32* float32* complex64* float32* float32* float32* float32* float32* float32* complex64*
TPE uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int32* float32* complex64* int32* int32* float32* float32* float32* int32* complex64*
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64* complex64*
bool uint8 uint16 uint32 uint32 int8 int16 int32 int32 bfloat16 float16 float32 float32 complex64 complex64 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int32* float32* complex64* int32* uint32* float32* float32* float32* int32* complex64*
''',
    ('promote_types', True, 'standard'): '''
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
uint8 uint8 uint16 uint32 uint64 int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint8 float64 complex128
uint16 uint16 uint16 uint32 uint64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint16 float64 complex128
uint32 uint32 uint32 uint32 uint64 int64 int64 int64 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint32 float64 complex128
uint64 uint64 uint64 uint64 uint64 float64 float64 float64 float64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint64 float64 complex128
int8 int16 int32 int64 float64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int8 float64 complex128
int16 int16 int32 int64 float64 int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int16 float64 complex128
int32 int32 int32 int64 float64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32 float64 complex128
int64 int64 int64 int64 float64 int64 int64 int64 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 complex64
float16 float16 float16 float16 float16 float16 float16 float16 float16 float32 float16 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float16 float16 complex64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float32 float32 complex64
float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE float64 float64 complex128
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64
complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
int4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 TPE TPE
uint4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 TPE TPE
int2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 TPE TPE
float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE
float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 TPE
float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn TPE
float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
int64 uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
float64 float64 float64 float64 float64 float64 float64 float64 float64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64 float64 complex128
complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
''',
    ('result_type', True, 'standard'): '''
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
uint8 uint8 uint16 uint32 uint64 int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint8 uint8 float64* complex128* uint8 uint8 float64* float64* float64* uint8 complex128*
uint16 uint16 uint16 uint32 uint64 int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint16 uint16 float64* complex128* uint16 uint16 float64* float64* float64* uint16 complex128*
uint32 uint32 uint32 uint32 uint64 int64 int64 int64 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint32 uint32 float64* complex128* uint32 uint32 float64* float64* float64* uint32 complex128*
uint64 uint64 uint64 uint64 uint64 float64* float64* float64* float64* bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn uint64 uint64 float64* complex128* uint64 uint64 float64* float64* float64* uint64 complex128*
int8 int16 int32 int64 float64* int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int8 int8 float64* complex128* int8 int8 float64* float64* float64* int8 complex128*
int16 int16 int32 int64 float64* int16 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int16 int16 float64* complex128* int16 int16 float64* float64* float64* int16 complex128*
int32 int32 int32 int64 float64* int32 int32 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int32 int32 float64* complex128* int32 int32 float64* float64* float64* int32 complex128*
int64 int64 int64 int64 float64* int64 int64 int64 int64 bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 int64 float64* complex128* int64 int64 float64* float64* float64* int64 complex128*
bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 bfloat16 complex64 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 complex64
float16 float16 float16 float16 float16 float16 float16 float16 float16 float32 float16 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float16 float16 float16 complex64 float16 float16 float16 float16 float16 float16 complex64
float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float32 float64 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE float32 float32 float32 complex64 float32 float32 float32 float32 float32 float32 complex64
float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 float64 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE float64 float64 float64 complex128 float64 float64 float64 float64 float64 float64 complex128
complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128
int4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 int4 TPE TPE int4 int4 TPE TPE TPE int4 TPE
uint4 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 uint4 TPE TPE uint4 uint4 TPE TPE TPE uint4 TPE
int2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 int2 TPE TPE int2 int2 TPE TPE TPE int2 TPE
float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE
float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 float8_e5m2 TPE float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE
float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE
float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
int64* uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64* int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
float64* float64* float64* float64* float64* float64* float64* float64* float64* bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64* float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128*
int64* uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64* int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
int64* uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64* int64* float64* complex128* int64* uint64* float64* float64* float64* int64* complex128*
float64* float64* float64* float64* float64* float64* float64* float64* float64* bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64* float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
float64* float64* float64* float64* float64* float64* float64* float64* float64* bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64* float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
float64* float64* float64* float64* float64* float64* float64* float64* float64* bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64* float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
int64* uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64* int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex64 complex64 complex64 complex128 complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128*
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int64* float64* complex128* int64* uint64* float64* float64* float64* int64* complex128*
''',
    ('promote_types', True, 'strict'): '''
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint8 TPE TPE
TPE TPE uint16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint16 TPE TPE
TPE TPE TPE uint32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint32 TPE TPE
TPE TPE TPE TPE uint64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint64 TPE TPE
TPE TPE TPE TPE TPE int8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int8 TPE TPE
TPE TPE TPE TPE TPE TPE int16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int16 TPE TPE
TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 float16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 float64 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE int4 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE uint4 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE int2 TPE TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE float8_e5m2 float8_e5m2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn int64 float64 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn float64 float64 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex128 TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128
''',
    ('result_type', True, 'strict'): '''
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint8 TPE TPE uint8 uint8 TPE TPE TPE uint8 TPE
TPE TPE uint16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint16 TPE TPE uint16 uint16 TPE TPE TPE uint16 TPE
TPE TPE TPE uint32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint32 TPE TPE uint32 uint32 TPE TPE TPE uint32 TPE
TPE TPE TPE TPE uint64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint64 TPE TPE uint64 uint64 TPE TPE TPE uint64 TPE
TPE TPE TPE TPE TPE int8 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int8 TPE TPE int8 int8 TPE TPE TPE int8 TPE
TPE TPE TPE TPE TPE TPE int16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int16 TPE TPE int16 int16 TPE TPE TPE int16 TPE
TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int32 TPE TPE int32 int32 TPE TPE TPE int32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int64 TPE TPE int64 int64 TPE TPE TPE int64 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 bfloat16 TPE bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 bfloat16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float16 float16 TPE float16 float16 float16 float16 float16 float16 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float32 float32 TPE float32 float32 float32 float32 float32 float32 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float64 float64 TPE float64 float64 float64 float64 float64 float64 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64 complex64
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex128 TPE TPE TPE TPE TPE TPE TPE TPE complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128 complex128
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE TPE TPE TPE TPE TPE int4 TPE TPE int4 int4 TPE TPE TPE int4 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE uint4 TPE TPE TPE TPE TPE TPE uint4 TPE TPE uint4 uint4 TPE TPE TPE uint4 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE int2 TPE TPE TPE TPE TPE int2 TPE TPE int2 int2 TPE TPE TPE int2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e4m3fn TPE TPE TPE TPE float8_e4m3fn float8_e4m3fn TPE float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn float8_e4m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float8_e5m2 TPE TPE TPE float8_e5m2 float8_e5m2 TPE float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 float8_e5m2 TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float6_e2m3fn TPE TPE float6_e2m3fn float6_e2m3fn TPE float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn float6_e2m3fn TPE
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn TPE float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn float4_e2m1fn TPE
bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE bool TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex128 TPE TPE TPE TPE TPE TPE TPE TPE complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128*
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE bfloat16 float16 float32 float64 complex64 complex128 TPE TPE TPE float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE float64* float64* complex128* float64* float64* float64* float64* float64* float64* complex128*
TPE uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn TPE int64* float64* complex128* int64* int64* float64* float64* float64* int64* complex128*
TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE TPE complex64 complex128 TPE TPE TPE TPE TPE TPE TPE TPE complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128* complex128*
bool uint8 uint16 uint32 uint64 int8 int16 int32 int64 bfloat16 float16 float32 float64 complex64 complex128 int4 uint4 int2 float8_e4m3fn float8_e5m2 float6_e2m3fn float4_e2m1fn bool int64* float64* complex128* int64* uint64* float64* float64* float64* int64* complex128*
''',
}


# -- helpers -----------------------------------------------------------------------------

class _Aval:
    def __init__(self, dtype, weak_type):
        self.dtype, self.weak_type, self.shape = dtype, weak_type, ()


class WeakArray:
    """Stands for a weakly typed array (as a glassjax Array or tracer exposes it)."""
    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.aval = _Aval(self.dtype, True)
        self.shape = ()


def _np_dtype(name):
    return np.dtype(getattr(ml_dtypes, name, name))


def _promote_operand(name):
    return {"int": int, "float": float, "complex": complex}.get(name) or _np_dtype(name)


def _result_operand(name):
    scalars = {"True": True, "1": 1, "1.0": 1.0, "1j": 1j}
    if name in scalars:
        return scalars[name]
    if name.endswith("~"):
        return WeakArray(_np_dtype(name[:-1]))
    return np.zeros((), _np_dtype(name))


def _token(fun):
    try:
        result = fun()
    except dtypes.TypePromotionError:
        return "TPE"
    except ValueError:
        return "VE"
    if isinstance(result, tuple):
        return result[0].name + ("*" if result[1] else "")
    return result.name


@pytest.fixture
def promotion_mode():
    """Set x64 and the promotion mode for one test, restoring both afterwards."""
    saved = config.jax_enable_x64, config.jax_numpy_dtype_promotion

    def set_mode(x64, mode):
        config.update("jax_enable_x64", x64)
        config.update("jax_numpy_dtype_promotion", mode)
    yield set_mode
    set_mode(*saved)


# -- the promotion tables ----------------------------------------------------------------

@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_promote_types_table(promotion_mode, x64, mode):
    promotion_mode(x64, mode)
    expected = TABLES["promote_types", x64, mode].split("\n")[1:-1]
    operands = [_promote_operand(n) for n in PROMOTE_OPERANDS]
    got = [" ".join(_token(lambda: dtypes.promote_types(a, b)) for b in operands)
           for a in operands]
    for name, want_row, got_row in zip(PROMOTE_OPERANDS, expected, got):
        assert got_row == want_row, name
    assert len(got) == len(expected)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("mode", ["standard", "strict"])
def test_result_type_table(promotion_mode, x64, mode):
    promotion_mode(x64, mode)
    *expected, expected_singles = TABLES["result_type", x64, mode].split("\n")[1:-1]
    operands = [_result_operand(n) for n in RESULT_OPERANDS]
    got = [" ".join(_token(lambda: dtypes.result_type(a, b, return_weak_type_flag=True))
                    for b in operands) for a in operands]
    for name, want_row, got_row in zip(RESULT_OPERANDS, expected, got):
        assert got_row == want_row, name
    assert len(got) == len(expected)
    singles = " ".join(_token(lambda: dtypes.result_type(a, return_weak_type_flag=True))
                       for a in operands)
    assert singles == expected_singles


def test_result_type_edge_cases():
    assert dtypes.result_type(1) == np.int32
    assert dtypes.result_type(1, 2.0, return_weak_type_flag=True) == (np.float32, True)
    assert dtypes.result_type(int, return_weak_type_flag=True) == (np.int32, True)
    assert dtypes.result_type(None) == np.float32
    assert dtypes.result_type(WeakArray(dtypes.bfloat16)) == np.float32   # weak: widened
    assert dtypes.lattice_result_type(WeakArray(dtypes.bfloat16)) == (
        np.dtype(dtypes.bfloat16), True)
    with pytest.raises(ValueError, match="at least one array or dtype is required"):
        dtypes.result_type()


def test_result_type_warns_for_explicit_64_bit_dtypes():
    with pytest.warns(UserWarning, match="Explicitly requested dtype float64 requested in "
                      "dtype is not available, and will be truncated to dtype float32"):
        assert dtypes.result_type(np.float64) == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dtypes.result_type(np.zeros(2)) == np.float32   # arrays: silently


def test_promotion_error_messages(promotion_mode):
    def message(a, b):
        with pytest.raises(dtypes.TypePromotionError) as info:
            dtypes.promote_types(a, b)
        return str(info.value)

    assert message(ml_dtypes.int4, np.int8) == (
        "Input dtypes ('int4', 'int8') have no available implicit dtype promotion path. "
        "To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support "
        "implicit promotion. If you'd like your inputs to be promoted to another type, you "
        "can do so explicitly using e.g. x.astype('int32')")
    assert "8-bit floats do not support" in message(ml_dtypes.float8_e4m3fn,
                                                    ml_dtypes.float6_e2m3fn)
    assert "4-bit floats do not support" in message(np.float32, ml_dtypes.float4_e2m1fn)
    with pytest.raises(ValueError, match=r"dtype=dtype\(\[\('float0', 'V'\)\]\) is not a "
                       "valid dtype for JAX type promotion."):
        dtypes.promote_types(dtypes.float0, np.float32)
    promotion_mode(False, "strict")
    assert message(np.int32, np.float32) == (
        "Input dtypes ('int32', 'float32') have no available implicit dtype promotion path "
        "when jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
        "output type, or set jax_numpy_dtype_promotion=standard.")


# -- canonicalization --------------------------------------------------------------------

WIDE_TO_NARROW = [(np.int64, np.int32), (np.uint64, np.uint32), (np.float64, np.float32),
                  (np.complex128, np.complex64)]


@pytest.mark.parametrize("wide, narrow", WIDE_TO_NARROW)
def test_canonicalize_dtype(wide, narrow):
    assert dtypes.canonicalize_dtype(wide) == narrow
    assert dtypes.canonicalize_dtype(np.dtype(wide).name) == narrow
    with enable_x64():
        assert dtypes.canonicalize_dtype(wide) == wide
    assert dtypes.canonicalize_dtype(wide) == narrow
    assert dtypes.canonicalize_dtype(narrow) == narrow
    assert dtypes.canonicalize_dtype(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)


def test_default_dtypes_follow_x64():
    assert (dtypes.default_int_dtype(), dtypes.default_float_dtype(),
            dtypes.default_complex_dtype()) == (np.int32, np.float32, np.complex64)
    with enable_x64():
        assert (dtypes.default_int_dtype(), dtypes.default_float_dtype(),
                dtypes.default_complex_dtype()) == (np.int64, np.float64, np.complex128)


def test_dtype_of_values():
    assert dtypes.dtype(1) == np.int32 and dtypes.dtype(1.0) == np.float32
    assert dtypes.dtype(1j) == np.complex64 and dtypes.dtype(True) == np.bool_
    assert dtypes.dtype(1, canonicalize=False) == np.int64
    assert dtypes.dtype(float) == np.float32
    assert dtypes.dtype("int8") == np.int8 and dtypes.dtype(np.uint16) == np.uint16
    assert dtypes.dtype(np.zeros(3)) == np.float32
    assert dtypes.dtype(np.zeros(3), canonicalize=False) == np.float64
    assert dtypes.dtype(np.float64(2.0)) == np.float32
    assert dtypes.dtype(WeakArray(np.int16)) == np.int16
    assert dtypes.dtype(np.zeros(2, dtypes.bfloat16)) == np.dtype(ml_dtypes.bfloat16)
    with enable_x64():
        assert dtypes.dtype(1) == np.int64 and dtypes.dtype(np.zeros(3)) == np.float64
    with pytest.raises(ValueError, match="Invalid argument to dtype: None."):
        dtypes.dtype(None)
    with pytest.raises(TypeError, match="Cannot determine dtype of"):
        dtypes.dtype([1, 2])
    with pytest.raises(TypeError, match="Value 'a' with dtype <U1 is not a valid JAX array "
                       "type. Only arrays of numeric types are supported by JAX."):
        dtypes.dtype(np.array("a"))
    with pytest.raises(TypeError, match="with dtype object is not a valid JAX array type"):
        dtypes.dtype(object)


def test_weak_types():
    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(1.0)
    assert dtypes.is_weakly_typed(1j) and dtypes.is_weakly_typed(WeakArray(np.float32))
    assert not dtypes.is_weakly_typed(True)
    assert not dtypes.is_weakly_typed(np.float32(1)) and not dtypes.is_weakly_typed(np.ones(2))
    assert dtypes.is_python_scalar(1) and dtypes.is_python_scalar(True)
    assert dtypes.is_python_scalar(WeakArray(np.float32))
    assert not dtypes.is_python_scalar(np.float32(1))
    assert set(dtypes.python_scalar_dtypes) == {bool, int, float, complex,
                                                dtypes.TypedInt, dtypes.TypedFloat,
                                                dtypes.TypedComplex, shape_poly.DimExpr}
    typed = dtypes.TypedFloat(1.5, np.float32)
    assert dtypes.is_weakly_typed(typed) and repr(typed) == "TypedFloat(1.5, dtype=float32)"
    assert str(typed) == "1.5" and type(typed + 1) is float


def test_check_and_canonicalize_user_dtype():
    with pytest.warns(UserWarning) as record:
        assert dtypes.check_and_canonicalize_user_dtype(np.float64, "zeros") == np.float32
        assert dtypes.check_and_canonicalize_user_dtype("complex128") == np.complex64
    assert [str(w.message) for w in record] == [
        "Explicitly requested dtype float64 requested in zeros is not available, and will be "
        "truncated to dtype float32. To enable more dtypes, set the jax_enable_x64 "
        "configuration option or the JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/jax-ml/jax#current-gotchas for more.",
        "Explicitly requested dtype complex128 is not available, and will be truncated to "
        "dtype complex64. To enable more dtypes, set the jax_enable_x64 configuration option "
        "or the JAX_ENABLE_X64 shell environment variable. See "
        "https://github.com/jax-ml/jax#current-gotchas for more."]
    assert record[0].filename == __file__           # attributed to the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dtypes.check_and_canonicalize_user_dtype(int) == np.int32
        assert dtypes.check_and_canonicalize_user_dtype(float) == np.float32
        assert dtypes.check_and_canonicalize_user_dtype(dtypes.bfloat16) == np.dtype(
            ml_dtypes.bfloat16)
        with enable_x64():
            assert dtypes.check_and_canonicalize_user_dtype(np.float64) == np.float64
    with pytest.raises(TypeError, match="JAX only supports number, bool, and string dtypes, "
                       "got dtype <class 'object'> in array"):
        dtypes.check_and_canonicalize_user_dtype(object, "array")
    with pytest.raises(TypeError, match="got dtype <class 'str'>$"):
        dtypes.check_and_canonicalize_user_dtype(str)
    with pytest.raises(ValueError, match="dtype must be specified."):
        dtypes.check_and_canonicalize_user_dtype(None)


def test_check_valid_dtype():
    dtypes.check_valid_dtype(np.dtype(dtypes.bfloat16))
    dtypes.check_valid_dtype(dtypes.float0)
    with pytest.raises(TypeError, match="Dtype object is not a valid JAX array type. Only "
                       "arrays of numeric types are supported by JAX."):
        dtypes.check_valid_dtype(np.dtype(object))


def test_python_int_range():
    dtypes.check_python_int_in_range(2**31 - 1, np.int32)
    with pytest.raises(OverflowError, match="Python int 1099511627776 too large to convert "
                       "to int32"):
        dtypes.check_python_int_in_range(2**40, np.int32)
    with pytest.raises(OverflowError, match="Python int -2147483649 too large"):
        dtypes.coerce_to_array(-2**31 - 1)
    with enable_x64():
        assert dtypes.coerce_to_array(2**40).dtype == np.int64
    assert dtypes.coerce_to_array(3).dtype == np.int32
    assert dtypes.coerce_to_array(2.5).dtype == np.float32
    assert dtypes.coerce_to_array(True).dtype == np.bool_


def test_typed_scalar_casts_like_c():
    assert dtypes.typed_scalar(2**40, np.int32) == 0            # wraps, as lax does
    assert type(dtypes.typed_scalar(1.5, np.float16)) is np.float16


# -- the dtype hierarchy -----------------------------------------------------------------

@pytest.mark.parametrize("a, b, expected", [
    (dtypes.bfloat16, np.floating, True), (dtypes.bfloat16, np.inexact, True),
    (dtypes.bfloat16, np.number, True), (dtypes.bfloat16, np.float16, False),
    (dtypes.bfloat16, dtypes.bfloat16, True), (dtypes.bfloat16, np.integer, False),
    (ml_dtypes.int4, np.signedinteger, True), (ml_dtypes.uint4, np.signedinteger, False),
    (ml_dtypes.uint4, np.unsignedinteger, True), (ml_dtypes.float8_e4m3fn, np.floating, True),
    (dtypes.float0, np.number, False), (dtypes.float0, dtypes.float0, True),
    ("float32", np.floating, True), (np.int32, "int32", True), (float, np.floating, True),
    (int, np.integer, True), (bool, np.bool_, True), (np.complex64, np.inexact, True),
    (np.dtype("uint8"), np.signedinteger, False), (np.floating, np.inexact, True),
])
def test_issubdtype(a, b, expected):
    assert dtypes.issubdtype(a, b) is expected


def test_extended_dtypes():
    class KeyDType(dtypes.ExtendedDType):
        type = dtypes.prng_key
        name = "key<fry>"

    key = KeyDType()
    assert dtypes.issubdtype(key, dtypes.prng_key) and dtypes.issubdtype(key, dtypes.extended)
    assert not dtypes.issubdtype(np.float32, dtypes.prng_key)
    assert not dtypes.issubdtype(key, np.floating)
    assert dtypes.canonicalize_dtype(key) is key
    assert dtypes.short_dtype_name(key) == "key<fry>"


@pytest.mark.parametrize("dtype, short", [
    (np.bool_, "bool"), (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"),
    (np.int64, "i64"), (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"),
    (np.uint64, "u64"), (np.float16, "f16"), (dtypes.bfloat16, "bf16"),
    (np.float32, "f32"), (np.float64, "f64"), (np.complex64, "c64"),
    (np.complex128, "c128"), (ml_dtypes.int4, "i4"), (ml_dtypes.uint2, "u2"),
    (ml_dtypes.float8_e4m3fn, "f8_e4m3fn"), (ml_dtypes.float4_e2m1fn, "f4_e2m1fn"),
    (dtypes.float0, "float0"),
])
def test_short_dtype_name(dtype, short):
    assert dtypes.short_dtype_name(np.dtype(dtype)) == short


def test_finfo_iinfo():
    info = dtypes.finfo(dtypes.bfloat16)
    assert (info.bits, float(info.eps), float(info.max), info.dtype) == (
        16, 0.0078125, 3.3895313892515355e+38, np.dtype(ml_dtypes.bfloat16))
    assert float(dtypes.finfo(np.float16).eps) == float(np.finfo(np.float16).eps)
    assert (dtypes.iinfo(np.uint32).max, dtypes.iinfo(ml_dtypes.int4).max) == (2**32 - 1, 7)


def test_derived_dtypes():
    assert dtypes.to_inexact_dtype(np.int64) == np.float64
    assert dtypes.to_inexact_dtype(np.uint8) == np.float32
    assert dtypes.to_inexact_dtype(np.bool_) == np.float32
    assert dtypes.to_inexact_dtype(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.to_complex_dtype(np.float64) == np.complex128
    assert dtypes.to_complex_dtype(np.int32) == np.complex64
    assert dtypes.to_numeric_dtype(np.bool_) == np.int32
    assert dtypes.to_numeric_dtype(np.uint8) == np.uint8
    assert dtypes.complex_real_dtype(np.complex64) == np.float32
    assert dtypes.complex_real_dtype(np.complex128) == np.float64
    assert dtypes.tangent_dtype(np.dtype(np.int32)) == dtypes.float0
    assert dtypes.tangent_dtype(np.dtype(np.bool_)) == dtypes.float0
    assert dtypes.tangent_dtype(np.dtype(dtypes.bfloat16)) == np.dtype(ml_dtypes.bfloat16)
    assert dtypes.dtype_to_string(np.float32) == "float32"
    assert dtypes.float0.itemsize == 0 and dtypes.float0 == np.dtype([("float0", np.void, 0)])

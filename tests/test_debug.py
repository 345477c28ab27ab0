"""Host callbacks (``debug.print``, ``debug.callback``, ``pure_callback``) against JAX 0.10.2.

Every expected text below is what real JAX 0.10.2 printed for the same source (run with
``import jax`` in place of glassjax): the lines the callbacks print, the errors, the
jaxprs (function addresses normalized) and the lowered StableHLO, where ordered effects
thread a token through ``main``. Callbacks print from XLA's threads, so each program
waits for them with ``effects_barrier`` before its output is read.
"""
import re
import time

import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp
from glassjax import lax


def namespace():
    return dict(jax=jax, jnp=jnp, lax=lax, np=np, time=time)


def describe(err: Exception) -> str:
    """``Type: message``; for an error raised by a callback at run time, the first line
    of XLA's message and the last one (the callback's own error)."""
    if type(err).__name__ == "JaxRuntimeError":
        lines = str(err).splitlines()
        return f"{type(err).__name__}: {lines[0]} ... {lines[-1]}"
    return f"{type(err).__name__}: {err}"


# -- programs: everything they print, in order -------------------------------------------

PROGRAMS = {
"jit_print_and_kwargs": ('''\
@jax.jit
def f(x):
    jax.debug.print("x = {}", x)
    y = x * 2
    jax.debug.print("y = {y}, sum = {s:.1f}", y=y, s=y.sum())
    return y
out = f(jnp.arange(3.0)); jax.effects_barrier(); print(out)
''', """\
x = [0. 1. 2.]
y = [0. 2. 4.], sum = 6.0
[0. 2. 4.]
"""),

"eager_print_static_and_pytrees": ('''\
jax.debug.print("plain")
jax.debug.print("no placeholders", 1.0, jnp.arange(2), skip_format_check=True)
jax.debug.print("{} and {name}", "static", name=None)
jax.debug.print("tree {}", {"a": jnp.float32(1.5), "b": (2, "s")})
jax.debug.print("{0} {0} {1}", jnp.int32(7), [jnp.ones(2), 3.0])
jax.debug.print("{:.3f}", jnp.float32(1.23456))
jax.debug.print("{}", 1.0, 2.0, skip_format_check=True)
''', """\
plain
no placeholders 1.0 [0 1]
static and None
tree {'a': Array(1.5, dtype=float32), 'b': (Array(2, dtype=int32, weak_type=True), 's')}
7 7 [Array([1., 1.], dtype=float32), Array(3., dtype=float32, weak_type=True)]
1.235
1.0
"""),

"dtypes_and_printoptions": ('''\
f = jax.jit(lambda x: jax.debug.print("{} {} {} {}", x, x.astype(jnp.int8), x > 1,
                                       x.astype(jnp.bfloat16)))
f(jnp.arange(3.0)); jax.effects_barrier()
g = jax.jit(lambda x: jax.debug.print("prec {}", x / 3))
with np.printoptions(precision=2):    # the options where the program is traced count
    g(jnp.arange(3.0))
g(jnp.arange(3.0)); jax.effects_barrier()
g(jnp.arange(3.0) + 1); jax.effects_barrier()
jax.jit(lambda x: jax.debug.print("big {}", x))(jnp.arange(2000.0)); jax.effects_barrier()
''', """\
[0. 1. 2.] [0 1 2] [False False  True] [0 1 2]
prec [0.   0.33 0.67]
prec [0.   0.33 0.67]
prec [0.33 0.67 1.  ]
big [0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]
"""),

"ordered_across_calls": ('''\
def slow(x):
    time.sleep(0.02)
    print("slow", x)
f = jax.jit(lambda x: (jax.debug.callback(slow, x, ordered=True), x + 1)[1])
g = jax.jit(lambda x: (jax.debug.print("fast {}", x, ordered=True), x * 2)[1])
x = 1.0
for _ in range(3):
    x = f(x)
    g(x)
jax.effects_barrier()
inner = jax.jit(lambda y: jax.debug.print("inner {}", y, ordered=True))
outer = jax.jit(lambda y: (inner(y), jax.debug.print("outer {}", y + 1, ordered=True)))
outer(1.0); outer(2.0); jax.effects_barrier()
jax.debug.print(ordered=True)("two-call form {}", 3)
''', """\
slow 1.0
fast 2.0
slow 2.0
fast 3.0
slow 3.0
fast 4.0
inner 1.0
outer 2.0
inner 2.0
outer 3.0
two-call form 3
"""),

"vmap": ('''\
x = jnp.arange(6.0).reshape(3, 2)
jax.vmap(lambda v: jax.debug.print("v {} {}", v, v.sum()))(x)
jax.vmap(lambda v: jax.debug.print("axis 1 {}", v), in_axes=1)(x)
jax.vmap(jax.vmap(lambda v: jax.debug.print("nested {}", v)))(x)
jax.vmap(lambda v, c: jax.debug.print("unbatched {} {}", v, c), in_axes=(0, None))(x, 7.0)
jax.jit(jax.vmap(lambda v: jax.debug.print("ordered {}", v, ordered=True)))(x)
jax.vmap(lambda d: jax.debug.print("{a} {b}", a=d["a"], b=d["b"]))(
    {"a": jnp.arange(2), "b": jnp.ones((2, 2))})
jax.vmap(lambda v: jax.debug.callback(lambda a: print("callback", a), v))(x[:, 0])
jax.effects_barrier()
''', """\
v [0. 1.] 1.0
v [2. 3.] 5.0
v [4. 5.] 9.0
axis 1 [0. 2. 4.]
axis 1 [1. 3. 5.]
nested 0.0
nested 2.0
nested 4.0
nested 1.0
nested 3.0
nested 5.0
unbatched [0. 1.] 7.0
unbatched [2. 3.] 7.0
unbatched [4. 5.] 7.0
ordered [0. 1.]
ordered [2. 3.]
ordered [4. 5.]
0 [1. 1.]
1 [1. 1.]
callback 0.0
callback 2.0
callback 4.0
"""),

"autodiff": ('''\
f = lambda x: (jax.debug.print("primal {}", x), jnp.sin(x))[1]
print(jax.grad(f)(1.0))
jax.effects_barrier(); print(jax.jit(jax.grad(f))(2.0))
jax.effects_barrier(); print(jax.jvp(f, (1.0,), (3.0,)))
jax.effects_barrier(); print(jax.vmap(jax.grad(f))(jnp.arange(2.0)))
remat = jax.checkpoint(lambda x: (jax.debug.print("remat {}", x), jnp.sin(jnp.sin(x)))[1])
jax.effects_barrier(); print(jax.grad(remat)(1.0))
@jax.custom_jvp
def g(x):
    jax.debug.print("custom primal {}", x)
    return jnp.sin(x)
@g.defjvp
def g_jvp(primals, tangents):
    jax.debug.print("custom jvp {} {}", primals[0], tangents[0])
    return g(primals[0]), 2 * tangents[0]
jax.effects_barrier(); print(jax.grad(g)(1.0))
jax.effects_barrier()
''', """\
primal 1.0
0.5403023
primal 2.0
-0.41614684
primal 1.0
(Array(0.84147096, dtype=float32, weak_type=True), Array(1.6209068, dtype=float32, weak_type=True))
primal 0.0
primal 1.0
[1.        0.5403023]
remat 1.0
remat 1.0
0.36003947
custom primal 1.0
2.0
"""),

"control_flow": ('''\
def body(c, x):
    jax.debug.print("scan {} {}", c, x)
    return c + x, c
print(lax.scan(body, 0.0, jnp.arange(3.0)))
jax.effects_barrier()
jax.jit(lambda xs: lax.scan(body, 0.0, xs))(jnp.arange(3.0)); jax.effects_barrier()
branch = lambda p, x: lax.cond(p, lambda x: jax.debug.print("true {}", x),
                               lambda x: jax.debug.print("false {}", x), x)
jax.jit(branch)(True, 1.0); jax.jit(branch)(False, 2.0); jax.effects_barrier()
jax.vmap(branch)(jnp.array([True, False]), jnp.arange(2.0)); jax.effects_barrier()
loop = lambda x: lax.while_loop(lambda c: c < 3, lambda c: (
    jax.debug.print("while {}", c, ordered=True), c + 1)[1], x)
jax.jit(loop)(0); jax.effects_barrier()
jax.vmap(loop)(jnp.array([0, 2])); jax.effects_barrier()
lax.fori_loop(0, 3, lambda i, c: (jax.debug.print("fori {} {}", i, c), c * 2)[1], 1.0)
jax.effects_barrier()
''', """\
scan 0.0 0.0
scan 0.0 1.0
scan 1.0 2.0
(Array(3., dtype=float32), Array([0., 0., 1.], dtype=float32, weak_type=True))
scan 0.0 0.0
scan 0.0 1.0
scan 1.0 2.0
true 1.0
false 2.0
false 0.0
false 1.0
true 0.0
true 1.0
while 0
while 1
while 2
while 0
while 2
while 1
while 3
while 2
while 3
fori 0 1.0
fori 1 2.0
fori 2 4.0
"""),

"debug_callback": ('''\
jax.debug.callback(lambda *a, **k: print(a, k), 1.0, jnp.ones(2), k="v", n=None)
jax.jit(lambda x: jax.debug.callback(print, x, "static", sep=" | "))(jnp.int32(3))
jax.effects_barrier()
seen = []
f = jax.jit(lambda x: jax.debug.callback(lambda a: seen.append(a.tolist()), x * 2))
f(jnp.arange(3)); f(jnp.arange(2)); jax.effects_barrier(); print(seen)
''', """\
(Array(1., dtype=float32, weak_type=True), Array([1., 1.], dtype=float32)) {'k': 'v', 'n': None}
3 | static
[[0, 2, 4], [0, 2]]
"""),

"pure_callback_values": ('''\
sd = jax.ShapeDtypeStruct
g = lambda x: jax.pure_callback(np.sin, sd(x.shape, x.dtype), x)
print(g(jnp.arange(3.0)), jax.jit(g)(jnp.arange(3.0)))
def two(a, b):
    return {"s": a + b, "p": (a * b).astype(np.int32)}
h = lambda a, b: jax.pure_callback(two, {"s": sd(a.shape, a.dtype), "p": sd(a.shape, jnp.int32)},
                                   a, b=b, vmap_method="sequential")
x = jnp.arange(6.0).reshape(3, 2)
print(jax.jit(h)(x, x))
print(jax.vmap(h)(x, x))
print(jax.vmap(h, in_axes=(1, None))(x, jnp.ones(3)))
print(lax.map(lambda v: jax.pure_callback(np.cos, sd((), jnp.float32), v), jnp.arange(3.0)))
print(jax.grad(lambda v: v * jax.pure_callback(np.cos, sd((), jnp.float32), 2.0))(1.0))
print(jax.pure_callback(lambda: np.float32(3), sd((), jnp.float32)))
print(jax.jit(lambda v: jax.pure_callback(lambda y: y > 1, sd((3,), jnp.bool_), v))(jnp.arange(3.0)))
''', """\
[0.        0.841471  0.9092974] [0.        0.841471  0.9092974]
{'p': Array([[ 0,  1],
       [ 4,  9],
       [16, 25]], dtype=int32), 's': Array([[ 0.,  2.],
       [ 4.,  6.],
       [ 8., 10.]], dtype=float32)}
{'p': Array([[ 0,  1],
       [ 4,  9],
       [16, 25]], dtype=int32), 's': Array([[ 0.,  2.],
       [ 4.,  6.],
       [ 8., 10.]], dtype=float32)}
{'p': Array([[0, 2, 4],
       [1, 3, 5]], dtype=int32), 's': Array([[1., 3., 5.],
       [2., 4., 6.]], dtype=float32)}
[ 1.         0.5403023 -0.4161468]
-0.4161468
3.0
[False False  True]
"""),

"pure_callback_vmap_methods": ('''\
def host(a, b):
    print("host sees", a.shape, b.shape)
    return a + b
for method in ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
               "legacy_vectorized"]:
    f = lambda a, b: jax.pure_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, b,
                                       vmap_method=method)
    print(method, jax.vmap(f, in_axes=(0, None))(jnp.arange(6.0).reshape(3, 2), jnp.ones(2)))
    print(method, jax.jit(jax.vmap(f, in_axes=(None, 0)))(jnp.ones(2), jnp.ones((3, 2))))
''', """\
host sees (2,) (2,)
host sees (2,) (2,)
host sees (2,) (2,)
sequential [[1. 2.]
 [3. 4.]
 [5. 6.]]
host sees (2,) (2,)
host sees (2,) (2,)
host sees (2,) (2,)
sequential [[2. 2.]
 [2. 2.]
 [2. 2.]]
host sees (2,) (2,)
host sees (2,) (2,)
host sees (2,) (2,)
sequential_unrolled [[1. 2.]
 [3. 4.]
 [5. 6.]]
host sees (2,) (2,)
host sees (2,) (2,)
host sees (2,) (2,)
sequential_unrolled [[2. 2.]
 [2. 2.]
 [2. 2.]]
host sees (3, 2) (1, 2)
expand_dims [[1. 2.]
 [3. 4.]
 [5. 6.]]
host sees (1, 2) (3, 2)
expand_dims [[2. 2.]
 [2. 2.]
 [2. 2.]]
host sees (3, 2) (3, 2)
broadcast_all [[1. 2.]
 [3. 4.]
 [5. 6.]]
host sees (3, 2) (3, 2)
broadcast_all [[2. 2.]
 [2. 2.]
 [2. 2.]]
host sees (3, 2) (2,)
legacy_vectorized [[1. 2.]
 [3. 4.]
 [5. 6.]]
host sees (2,) (3, 2)
legacy_vectorized [[2. 2.]
 [2. 2.]
 [2. 2.]]
"""),

}


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_jax_prints(name, capsys):
    source, expected = PROGRAMS[name]
    exec(source, namespace())
    jax.effects_barrier()
    assert capsys.readouterr().out == expected


# -- errors ------------------------------------------------------------------------------

ERRORS = {
    "too_few_args": (
        'jax.debug.print("{} {}", 1.0)',
        'IndexError: tuple index out of range'),
    "unused_positional": (
        'jax.debug.print("{}", 1.0, 2.0)',
        'ValueError: Unused positional arguments to `jax.debug.print`: [2.0]'),
    "missing_name": (
        'jax.debug.print("{x}", 1.0)',
        "KeyError: 'x'"),
    "unused_keyword": (
        'jax.debug.print("{a}", a=1.0, b=2.0)',
        'ValueError: Unused keyword arguments to `jax.debug.print`: [\'b\']. You may be passing an f-string (i.e, `f"{x}"`) into `jax.debug.print` and instead should pass in a regular string.'),
    "unused_keyword_jit": (
        'jax.jit(lambda x: jax.debug.print("{}", x=x))(1.0)',
        'IndexError: tuple index out of range'),
    "bad_format": (
        'jax.debug.print("{", 1.0)',
        "ValueError: Single '{' encountered in format string"),
    "two_call_extra_args": (
        'jax.debug.print(ordered=True, x=1)',
        "TypeError: debug_print received unexpected arguments in the two-call form: args=() kwargs={'x': 1}"),
    "callback_not_callable": (
        'jax.debug.callback(1)',
        "TypeError: first argument to jax.debug.callback must be callable, but got an object of type <class 'int'>"),
    "vmap_method_none": (
        'jax.vmap(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x))(jnp.ones(2))',
        "NotImplementedError: vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None."),
    "vmap_method_bad": (
        'jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), 1.0, vmap_method="loop")',
        "ValueError: vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: loop"),
    "jvp": (
        'jax.jvp(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x), (1.0,), (1.0,))',
        'ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.'),
    "grad_jit": (
        'jax.jit(jax.grad(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x)))(1.0)',
        'ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.'),
    "vjp": (
        'jax.vjp(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x), 1.0)',
        'ValueError: Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.'),
    "result_64_bit": (
        'jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((), np.float64), 1.0)',
        'ValueError: result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled'),
    "string_argument": (
        'jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((), np.float32), 1.0, "s")',
        """\
TypeError: Error interpreting argument to pure_callback as a JAX value. The problematic value is of type <class 'str'> and was passed to pure_callback at position 1.
"""),
    "unknown_keyword": (
        'jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((), np.float32), 1.0, vectorized=True)',
        "JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... TypeError: <lambda>() got an unexpected keyword argument 'vectorized'"),
    "wrong_shape": (
        'jax.jit(lambda x: jax.pure_callback(lambda x: np.ones(3, np.float32), jax.ShapeDtypeStruct((2,), jnp.float32), x))(1.0)',
        'JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... RuntimeError: Incorrect output shape for return value #0: Expected: (2,), Actual: (3,)'),
    "wrong_dtype": (
        'jax.pure_callback(lambda x: np.ones(2, np.int32), jax.ShapeDtypeStruct((2,), jnp.float32), 1.0)',
        'JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... RuntimeError: Incorrect output dtype for return value #0: Expected: float32, Actual: int32'),
    "wrong_count": (
        'jax.pure_callback(lambda x: [np.ones(2, np.float32)] * 2, [jax.ShapeDtypeStruct((2,), jnp.float32)], 1.0)',
        'JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... RuntimeError: Mismatched number of outputs from callback. Expected: 1, Actual: 2'),
    "callback_raises": (
        'jax.jit(lambda x: jax.debug.callback(lambda a: 1 / 0, x))(1.0)',
        'JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... ZeroDivisionError: division by zero'),
    "pure_callback_raises": (
        'jax.jit(lambda x: jax.pure_callback(lambda a: 1 / 0, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0)',
        'JaxRuntimeError: INTERNAL: CpuCallback error calling callback: Traceback (most recent call last): ... ZeroDivisionError: division by zero'),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_is_jaxs(name):
    source, expected = ERRORS[name]
    with pytest.raises(Exception) as info:
        eval(source, namespace())
        jax.effects_barrier()
    jax.effects_barrier()
    assert describe(info.value) == expected


# -- jaxprs ------------------------------------------------------------------------------

JAXPRS = {
"debug_callback": (
    'jax.make_jaxpr(lambda x: jax.debug.callback(print, x, ordered=True))(1.0)',
"""\
{ lambda ; a:f32[]. let
    debug_callback[
      callback=<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at 0xXXXXXXXXXXXX>
      effect=OrderedDebug
      partitioned=False
    ] a
  in () }"""),

"debug_print_static": (
    'jax.make_jaxpr(lambda x: jax.debug.print("x={} {s}", x, s="s"))(1.0)',
"""\
{ lambda ; a:f32[]. let
    debug_print[
      fmt=x={} {s}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {'s': *}))
      logging_record=None
      np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
      ordered=False
      partitioned=False
      static_args=((1, 's'),)
    ] a
  in () }"""),

"pure_callback": (
    'jax.make_jaxpr(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct((), jnp.float32), x, vmap_method="sequential"))(1.0)',
"""\
{ lambda ; a:f32[]. let
    b:f32[] = pure_callback[
      callback=_FlatCallback(callback_func=<ufunc 'sin'>, in_tree=PyTreeDef(((*,), {})))
      result_avals=(ShapedArray(float32[]),)
      sharding=None
      vmap_method=sequential
    ] a
  in (b,) }"""),

"pure_callback_pytree": (
    'jax.make_jaxpr(lambda x: jax.pure_callback(lambda a, b: (a,), (jax.ShapeDtypeStruct((2,), jnp.float32),), x, b=x))(jnp.ones(2))',
"""\
{ lambda ; a:f32[2]. let
    b:f32[2] = pure_callback[
      callback=_FlatCallback(callback_func=<function <lambda>.<locals>.<lambda> at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {'b': *})))
      result_avals=(ShapedArray(float32[2]),)
      sharding=None
      vmap_method=None
    ] a a
  in (b,) }"""),

"vmap_sequential": (
    'jax.make_jaxpr(jax.vmap(lambda x, y: jax.pure_callback(np.add, jax.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method="sequential"), in_axes=(1, None)))(jnp.ones((2, 3)), jnp.ones(2))',
"""\
{ lambda ; a:f32[2,3] b:f32[2]. let
    c:f32[3,2] = transpose[permutation=(1, 0)] a
    d:f32[3,2] = scan[
      jaxpr={ lambda ; e:f32[2] f:f32[2]. let
          g:f32[2] = pure_callback[
            callback=_FlatCallback(callback_func=<ufunc 'add'>, in_tree=PyTreeDef(((*, *), {})))
            result_avals=(ShapedArray(float32[2]),)
            sharding=None
            vmap_method=sequential
          ] f e
        in (g,) }
      length=3
      num_carry=0
      num_consts=1
      reverse=False
      unroll=1
    ] b c
  in (d,) }"""),

"vmap_expand_dims": (
    'jax.make_jaxpr(jax.vmap(lambda x, y: jax.pure_callback(np.add, jax.ShapeDtypeStruct(x.shape, x.dtype), x, y, vmap_method="expand_dims"), in_axes=(1, None)))(jnp.ones((2, 3)), jnp.ones(2))',
"""\
{ lambda ; a:f32[2,3] b:f32[2]. let
    c:f32[3,2] = transpose[permutation=(1, 0)] a
    d:f32[1,2] = broadcast_in_dim[broadcast_dimensions=(1,)] b
    e:f32[3,2] = pure_callback[
      callback=_FlatCallback(callback_func=<ufunc 'add'>, in_tree=PyTreeDef(((*, *), {})))
      result_avals=(ShapedArray(float32[3,2]),)
      sharding=None
      vmap_method=expand_dims
    ] c d
  in (e,) }"""),

"vmap_print": (
    'jax.make_jaxpr(jax.vmap(lambda x: jax.debug.print("{}", x, ordered=True)))(jnp.ones(2))',
"""\
{ lambda ; a:f32[2]. let
    b:f32[1] = slice[limit_indices=(1,) start_indices=(0,) strides=(1,)] a
    c:f32[] = squeeze[dimensions=(0,)] b
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
      ordered=True
      partitioned=False
      static_args=()
    ] c
    d:f32[1] = slice[limit_indices=(2,) start_indices=(1,) strides=(1,)] a
    e:f32[] = squeeze[dimensions=(0,)] d
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
      ordered=True
      partitioned=False
      static_args=()
    ] e
  in () }"""),

"grad_print": (
    'jax.make_jaxpr(jax.grad(lambda x: (jax.debug.print("{}", x), x * x)[1]))(1.0)',
"""\
{ lambda ; a:f32[]. let
    debug_print[
      fmt={}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
      ordered=False
      partitioned=False
      static_args=()
    ] a
    _:f32[] = mul a a
    b:f32[] = mul a 1.0:f32[]
    c:f32[] = mul 1.0:f32[] a
    d:f32[] = add_any b c
  in (d,) }"""),

"jit_ordered": (
    'jax.make_jaxpr(jax.jit(lambda x: jax.debug.print("{}", x, ordered=True)))(1.0)',
"""\
{ lambda ; a:f32[]. let
    jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let
          debug_print[
            fmt={}
            has_placeholders=True
            in_tree=PyTreeDef(((*,), {}))
            logging_record=None
            np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
            ordered=True
            partitioned=False
            static_args=()
          ] a
        in () }
    ] a
  in () }"""),

}


@pytest.mark.parametrize("name", JAXPRS)
def test_jaxpr_is_jaxs(name):
    source, expected = JAXPRS[name]
    assert re.sub(r"0x[0-9a-f]+", "0x...", str(eval(source, namespace()))) == expected


# -- lowering: ordered effects take and return a token -----------------------------------

LOWERINGS = {
"ordered_print": (
    'jax.jit(lambda x: (jax.debug.print("a {}", x, ordered=True), jax.debug.print("b {}", x), jax.debug.print("c {}", x + 1, ordered=True), x * 2)[-1]).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}, tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<f32>) -> ()
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.add %arg1, %cst : tensor<f32>
    %2 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%0, %1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 2 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.multiply %arg1, %cst_0 : tensor<f32>
    return %2, %3 : !stablehlo.token, tensor<f32>
  }
}
"""),

"unordered_print": (
    'jax.jit(lambda x: (jax.debug.print("u {}", x), x)[1]).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<f32>) -> ()
    return %arg0 : tensor<f32>
  }
}
"""),

"ordered_callback_no_outputs": (
    'jax.jit(lambda x: jax.debug.callback(print, x, ordered=True)).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    return %0 : !stablehlo.token
  }
}
"""),

"ordered_nested_jit": (
    'jax.jit(lambda x: (jax.jit(lambda y: (jax.debug.print("in {}", y, ordered=True), y + 1)[1])(x), jax.debug.print("out", ordered=True))[0]).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}, tensor<f32> {jax.result_info = "result"}) {
    %0:2 = call @"<lambda>"(%arg0, %arg1) : (!stablehlo.token, tensor<f32>) -> (!stablehlo.token, tensor<f32>)
    %1 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%0#0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token) -> !stablehlo.token
    return %1, %0#1 : !stablehlo.token, tensor<f32>
  }
  func.func private @"<lambda>"(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}, tensor<f32>) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.add %arg1, %cst : tensor<f32>
    return %0, %1 : !stablehlo.token, tensor<f32>
  }
}
"""),

"ordered_nested_jit_no_outputs": (
    'jax.jit(lambda x: jax.jit(lambda y: jax.debug.print("in {}", y, ordered=True))(x)).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}) {
    %0 = call @"<lambda>"(%arg0, %arg1) : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    return %0 : !stablehlo.token
  }
  func.func private @"<lambda>"(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    return %0 : !stablehlo.token
  }
}
"""),

"unordered_nested_jit": (
    'jax.jit(lambda x: (jax.jit(lambda y: (jax.debug.print("in {}", y), y + 1)[1])(x), jax.debug.print("out", ordered=True))[0]).lower(1.0)',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<f32>) -> (!stablehlo.token {jax.token = true}, tensor<f32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg1) : (tensor<f32>) -> tensor<f32>
    %1 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token) -> !stablehlo.token
    return %1, %0 : !stablehlo.token, tensor<f32>
  }
  func.func private @"<lambda>"(%arg0: tensor<f32>) -> tensor<f32> {
    stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<f32>) -> ()
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg0, %cst : tensor<f32>
    return %0 : tensor<f32>
  }
}
"""),

"ordered_donated": (
    'jax.jit(lambda x, y: (jax.debug.print("d {}", x, ordered=True), x * 2, y)[1:], donate_argnums=0).lower(jnp.ones(3), jnp.ones(3))',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<3xf32> {tf.aliasing_output = 1 : i32}, %arg2: tensor<3xf32>) -> (!stablehlo.token {jax.token = true}, tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %arg1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<3xf32>) -> !stablehlo.token
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<3xf32>
    return %0, %2, %arg2 : !stablehlo.token, tensor<3xf32>, tensor<3xf32>
  }
}
"""),

"ordered_vmap": (
    'jax.jit(jax.vmap(lambda x: jax.debug.print("v {}", x, ordered=True))).lower(jnp.arange(2.0))',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: !stablehlo.token {jax.token = true}, %arg1: tensor<2xf32>) -> (!stablehlo.token {jax.token = true}) {
    %0 = stablehlo.slice %arg1 [0:1] : (tensor<2xf32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    %2 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0, %1) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    %3 = stablehlo.slice %arg1 [1:2] : (tensor<2xf32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %3 : (tensor<1xf32>) -> tensor<f32>
    %5 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%2, %4) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 1 : ui64}, operand_layouts = [dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], result_layouts = [dense<> : tensor<0xindex>]} : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
    return %5 : !stablehlo.token
  }
}
"""),

"pure_callback": (
    'jax.jit(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)).lower(jnp.ones(2))',
"""\
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  func.func public @main(%arg0: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""),

}


@pytest.mark.parametrize("name", LOWERINGS)
def test_lowering_is_jaxs(name):
    source, expected = LOWERINGS[name]
    assert eval(source, namespace()).as_text() == expected

"""Host callbacks: debug.print / debug.callback / pure_callback / effects_barrier.

The program runs in a fresh interpreter (callbacks print from XLA's threads) and its
whole output must be what JAX 0.10.2 prints for the same program."""
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent

PROGRAM = '''\
import glassjax as jax, glassjax.numpy as jnp, numpy as np
@jax.jit
def f(x):
    jax.debug.print("x = {}", x)
    y = x * 2
    jax.debug.print("y = {y}, sum = {s}", y=y, s=y.sum())
    return y
print(f(jnp.arange(3.0)))
jax.vmap(lambda v: jax.debug.print("v = {}", v))(jnp.array([1, 2]))
jax.effects_barrier()
print(jax.grad(lambda x: (jax.debug.print("primal {}", x), x ** 2)[1])(3.0))
seen = []
jax.jit(lambda x: jax.debug.callback(lambda a: seen.append(np.asarray(a).tolist()), x))(jnp.arange(2))
jax.effects_barrier(); print(seen)
g = lambda x: jax.pure_callback(lambda a: np.sin(a), jax.ShapeDtypeStruct(x.shape, x.dtype), x)
print(jax.jit(g)(jnp.arange(3.)))
print(jax.vmap(lambda x: jax.pure_callback(lambda a: a * 2, jax.ShapeDtypeStruct((), jnp.float32), x, vmap_method='sequential'))(jnp.arange(3.)))
print(jax.make_jaxpr(lambda x: jax.debug.print("x = {}", x))(1.))
try: jax.vmap(g)(jnp.arange(3.))
except Exception as e: print(type(e).__name__, e)
'''

# What JAX 0.10.2 prints for PROGRAM (with `import jax` instead of glassjax).
EXPECTED = '''\
x = [0. 1. 2.]
y = [0. 2. 4.], sum = 6.0
[0. 2. 4.]
v = 1
v = 2
primal 3.0
6.0
[[0, 1]]
[0.        0.841471  0.9092974]
[0. 2. 4.]
{ lambda ; a:f32[]. let
    debug_print[
      fmt=x = {}
      has_placeholders=True
      in_tree=PyTreeDef(((*,), {}))
      logging_record=None
      np_printoptions=(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))
      ordered=False
      partitioned=False
      static_args=()
    ] a
  in () }
NotImplementedError vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None.
'''


def test_callbacks_print_and_compute_as_in_jax():
    proc = subprocess.run([sys.executable, "-c", PROGRAM], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == EXPECTED


IO_PROGRAM = """\
import numpy as np
import glassjax as jax, glassjax.numpy as jnp
from glassjax.experimental import io_callback

log = []
def host_log(x):
    log.append(np.asarray(x).tolist())
    return np.asarray(x * 2, np.float32)

@jax.jit
def f(x):
    y = io_callback(host_log, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
    return y + 1

print(f(jnp.arange(3.0)))
print(jax.make_jaxpr(f)(jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x: io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True))(1.0))
print(io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), 2.0))
print(jax.vmap(lambda x: io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), x))(jnp.arange(3.0)))
try:
    jax.vmap(lambda x: io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True))(jnp.arange(3.0))
except Exception as e:
    print(type(e).__name__, e)
try:
    jax.grad(lambda x: io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0)
except Exception as e:
    print(type(e).__name__, e)
print(jax.lax.scan(lambda c, x: (c + io_callback(host_log, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True), None), 0.0, jnp.arange(3.0))[0])
jax.effects_barrier()
print(log)
"""

# What JAX 0.10.2 prints for IO_PROGRAM (with jax for glassjax).
IO_EXPECTED = """\
[1. 3. 5.]
{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=f
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[3] = io_callback[
            callback=_FlatCallback(callback_func=<function host_log at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {})))
            ordered=False
            result_avals=(ShapedArray(float32[3]),)
            sharding=None
          ] a
          b:f32[3] = add c 1.0:f32[]
        in (b,) }
    ] a
  in (b,) }
{ lambda ; a:f32[]. let
    b:f32[] = io_callback[
      callback=_FlatCallback(callback_func=<function host_log at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {})))
      ordered=True
      result_avals=(ShapedArray(float32[]),)
      sharding=None
    ] a
  in (b,) }
4.0
[0. 2. 4.]
ValueError Cannot `vmap` ordered IO callback.
ValueError IO callbacks do not support JVP.
6.0
[[0.0, 1.0, 2.0], 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0]
"""


def test_io_callback_as_in_jax():
    """Effects kept and ordered, one call per element under vmap, no JVP."""
    proc = subprocess.run([sys.executable, "-c", IO_PROGRAM], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == IO_EXPECTED

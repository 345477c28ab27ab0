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

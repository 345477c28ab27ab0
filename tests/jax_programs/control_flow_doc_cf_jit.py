# source: docs "Control flow and logical operators with JIT"
import jax
import jax.numpy as jnp
from jax import jit, grad
def show(name, fn):
    try:
        print(name, fn())
    except Exception as e:
        msg = "\n".join(l for l in str(e).splitlines() if "occurred while tracing" not in l)
        print(name, type(e).__name__, msg)
def f(x):
    if x < 3:
        return 3. * x ** 2
    else:
        return -4 * x
print(grad(f)(2.))
print(grad(f)(4.))
@jit
def f1(x):
    for i in range(3):
        x = 2 * x
    return x
print(f1(3))
@jit
def g(x):
    y = 0.
    for i in range(x.shape[0]):
        y = y + x[i]
    return y
print(g(jnp.array([1., 2., 3.])))
show("jit_f", lambda: jit(f)(2.))
print(jit(f, static_argnames='x')(2.))
def f2(x, n):
    y = 0.
    for i in range(n):
        y = y + x[i]
    return y
show("f2_traced_n", lambda: jit(f2)(jnp.array([2., 3., 4.]), 2))
print(jit(f2, static_argnames='n')(jnp.array([2., 3., 4.]), 2))
def example_fun(length, val):
    return jnp.ones((length,)) * val
print(example_fun(5, 4))
show("bad_example_jit", lambda: jit(example_fun)(10, 4))
good_example_jit = jit(example_fun, static_argnums=(0,))
print(good_example_jit(10, 4))
print(good_example_jit(5, 4))
def python_check_positive_even(x):
    is_even = x % 2 == 0
    return is_even and (x > 0)
@jit
def jax_check_positive_even(x):
    is_even = x % 2 == 0
    return jnp.logical_and(is_even, x > 0)
print(python_check_positive_even(24))
print(jax_check_positive_even(24))
x = jnp.array([-1, 2, 5])
print(jax_check_positive_even(x))
show("python_check_array", lambda: python_check_positive_even(x))
show("jit_python_check", lambda: jit(python_check_positive_even)(24))
show("while_python", lambda: jit(lambda x: [x := x * 2 for _ in range(3)] and (x if x > 0 else -x))(1.0))

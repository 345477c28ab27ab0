# Constants made inside a traced function (jnp.float32(3), jnp.array(2.0), converted
# Python scalars) are tracers in JAX: arithmetic on them is staged, and they cannot
# be concretized (bool/int/shape) under jit.
import jax, jax.numpy as jnp, numpy as np
from jax import lax
print(jax.make_jaxpr(lambda x: x * (lax.convert_element_type(3, jnp.float32) - 1))(1.0))
print(jax.make_jaxpr(lambda x: x * (jnp.float32(3) - 1))(1.0))
print(jax.make_jaxpr(lambda x: x * (jnp.array(3.0) - 1))(1.0))
print(jax.make_jaxpr(lambda x: x * (jnp.asarray(3.0) * 2))(1.0))
print(jax.make_jaxpr(lambda x: x * (lax.convert_element_type(np.float32(3), jnp.int32) + 1))(1))
print(jax.make_jaxpr(lambda x: x + jnp.sqrt(2.0))(1.0))
print(jax.make_jaxpr(lambda x: x + jnp.pi * 2)(1.0))
def run(name, f, *a):
    try:
        print(name, f(*a))
    except Exception as e:
        print(name, type(e).__name__, str(e).splitlines()[0])
def f1(x):
    c = jnp.array(3.0)
    if c > 2: return x
    return -x
run("if_cmp", jax.jit(f1), 1.0)
def f2(x):
    c = jnp.array(3)
    return jnp.zeros(c) + x
run("shape_from_const", jax.jit(f2), 1.0)
def f3(x):
    c = jnp.int32(3)
    return x * int(c)
run("int_const", jax.jit(f3), 1.0)
def f4(x):
    c = jnp.array(3)
    return jnp.zeros(c + 1) + x
run("shape_from_derived", jax.jit(f4), 1.0)
def f5(x):
    return x * float(jnp.float32(2) * 3)
run("float_derived", jax.jit(f5), 1.0)
def f6(x):
    return jnp.ones(3)[jnp.int32(1)] * x
run("index_const", jax.jit(f6), 1.0)
print(jax.make_jaxpr(f6)(1.0))
def f7(x):
    return x + jnp.array(3.0).item()
run("item", jax.jit(f7), 1.0)
print(jax.make_jaxpr(lambda x: x * jnp.float32(2).astype(jnp.int32))(1))

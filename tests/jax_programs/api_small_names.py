# Small names of JAX 0.10.2's API: the total-order comparison primitives, shape_as_value,
# jax.errors.InconclusiveDimensionOperation, jax.lib.__version__.
import numpy as np
import jax
import jax.numpy as jnp

x = np.array([-np.nan, -np.inf, -0.0, 0.0, 1.0, np.inf, np.nan], np.float32)
X, Y = np.meshgrid(x, x)
for p in (jax.lax.eq_to_p, jax.lax.le_to_p, jax.lax.lt_to_p):
    print(p, np.asarray(p.bind(X, Y)).astype(int))
    print(np.asarray(p.bind(X, Y)) == np.asarray({"eq_to": jax.lax.eq, "le_to": jax.lax.le,
                                                  "lt_to": jax.lax.lt}[p.name](X, Y)))
print(jax.make_jaxpr(lambda a, b: jax.lax.lt_to_p.bind(a, b))(x, x))
print(jax.jit(lambda a, b: jax.lax.lt_to_p.bind(a, b)).lower(x, x).as_text())
print(jax.vmap(lambda a, b: jax.lax.le_to_p.bind(a, b))(X, Y).shape)
print(jax.grad(lambda a: jnp.where(jax.lax.lt_to_p.bind(a, 1.0), a * 2, a))(0.5))
print(jax.lax.eq_to_p.bind(np.arange(3), np.array([0, 5, 2])))
print(jax.lax.le_to_p.bind(np.uint8(3), np.uint8(200)))

print(repr(jax.lax.shape_as_value((2, 3))), repr(jax.lax.shape_as_value(())))
print(repr(jax.lax.shape_as_value((2 ** 31, 3))))
print(jax.make_jaxpr(lambda: jax.lax.shape_as_value(()))())

E = jax.errors.InconclusiveDimensionOperation
print(E.__mro__[1:], E.__doc__)
try:
    raise E("b == 3")
except jax.errors.InconclusiveDimensionOperation as e:
    print("caught", e)
print(jax.lib.__version__)

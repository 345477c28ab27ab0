import jax
import jax.numpy as jnp
from jax import lax

def f(x):
    return x ** 2 + lax.stop_gradient(x ** 3)
print(jax.grad(f)(2.0))
print(jax.make_jaxpr(f)(2.0))
print(jax.make_jaxpr(jax.grad(f))(2.0))

def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return -0.5 * ((lax.stop_gradient(target) - v_tm1) ** 2)

value_fn = lambda theta, state: jnp.dot(theta, state)
theta = jnp.array([0.1, -0.1, 0.])
s_tm1 = jnp.array([1., 2., -1.])
r_t = jnp.array(1.)
s_t = jnp.array([2., 1., 0.])
td_update = jax.grad(td_loss)
print(td_update(theta, s_tm1, r_t, s_t))

def f2(x):
    return jnp.round(x)
def straight_through_f(x):
    zero = x - jax.lax.stop_gradient(x)
    return zero + jax.lax.stop_gradient(f2(x))
print("f(x): ", f2(3.2))
print("straight_through_f(x):", straight_through_f(3.2))
print("grad(f)(x):", jax.grad(f2)(3.2))
print("grad(straight_through_f)(x):", jax.grad(straight_through_f)(3.2))
print(repr(lax.stop_gradient(3.0)), repr(lax.stop_gradient(jnp.arange(3))))
print(lax.stop_gradient({'a': 1.0, 'b': (jnp.ones(2),)}))
print(jax.jvp(lambda x: lax.stop_gradient(x) * x, (3.0,), (1.0,)))
print(jax.vmap(jax.grad(lambda x: lax.stop_gradient(x) * x))(jnp.arange(3.0)))

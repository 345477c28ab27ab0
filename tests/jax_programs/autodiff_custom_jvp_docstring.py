import jax
import jax.numpy as jnp

@jax.custom_jvp
def f(x, y):
  return jnp.sin(x) * y

@f.defjvp
def f_jvp(primals, tangents):
  x, y = primals
  x_dot, y_dot = tangents
  primal_out = f(x, y)
  tangent_out = jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
  return primal_out, tangent_out

x = jnp.float32(1.0)
y = jnp.float32(2.0)
with jnp.printoptions(precision=2):
  print(jax.value_and_grad(f)(x, y))

@jax.custom_vjp
def f2(x, y):
  return jnp.sin(x) * y

def f2_fwd(x, y):
  return f2(x, y), (jnp.cos(x), jnp.sin(x), y)

def f2_bwd(res, g):
  cos_x, sin_x, y = res
  return (cos_x * g * y, sin_x * g)

f2.defvjp(f2_fwd, f2_bwd)
with jnp.printoptions(precision=2):
  print(jax.value_and_grad(f2)(x, y))

@jax.custom_jvp
def relu(x):
  return jnp.maximum(x, 0.)
@relu.defjvp
def relu_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return relu(x), jnp.where(x > 0, t, 0.)
print(jax.vmap(jax.grad(relu))(jnp.array([-1., 0., 2.])))
print(jax.grad(lambda x: jnp.sum(relu(x)))(jnp.array([-1., 0., 2.])))
print(repr(relu(3.0)), repr(jax.grad(relu)(3.0)))

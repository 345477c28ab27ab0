from jax import custom_jvp, custom_vjp, grad, jvp, vjp, vmap, jit
import jax.numpy as jnp

@custom_jvp
def f(x):
  return jnp.sin(x)
def f_jvp(primals, tangents):
  x, = primals
  t, = tangents
  return f(x), jnp.cos(x) * t
f.defjvp(f_jvp)
print(f(3.))
y, y_dot = jvp(f, (3.,), (1.,))
print(y)
print(y_dot)
print(grad(f)(3.))
print(grad(grad(f))(3.))

@custom_jvp
def f(x, y):
  return x ** 2 * y
f.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot,
          None)
print(grad(f)(2., 3.))
print(grad(f, 0)(2., 3.))
print(grad(f, 1)(2., 3.))

@custom_jvp
def f(x):
  print('called f!')
  return jnp.sin(x)
@f.defjvp
def f_jvp(primals, tangents):
  print('called f_jvp!')
  x, = primals
  t, = tangents
  return f(x), jnp.cos(x) * t
print(f(3.))
print(vmap(f)(jnp.arange(3.)))
print(jit(f)(3.))
y, y_dot = jvp(f, (3.,), (1.,))
print(y_dot)
print(grad(f)(3.))
print(repr(grad(grad(f))(3.)))

@custom_jvp
def f(x):
  if x > 0:
    return jnp.sin(x)
  else:
    return jnp.cos(x)
@f.defjvp
def f_jvp(primals, tangents):
  x, = primals
  x_dot, = tangents
  ans = f(x)
  if x > 0:
    return ans, 2 * x_dot
  else:
    return ans, 3 * x_dot
print(grad(f)(1.))
print(grad(f)(-1.))

@custom_vjp
def f(x):
  print("called f!")
  return jnp.sin(x)
def f_fwd(x):
  print("called f_fwd!")
  return f(x), jnp.cos(x)
def f_bwd(cos_x, y_bar):
  print("called f_bwd!")
  return (cos_x * y_bar,)
f.defvjp(f_fwd, f_bwd)
print(f(3.))
print(grad(f)(3.))
y, f_vjp = vjp(f, 3.)
print(y)
print(f_vjp(1.))
try:
  jvp(f, (3.,), (1.,))
except TypeError as e:
  print('ERROR! {}'.format(e))

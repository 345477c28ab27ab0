import jax
import jax.numpy as jnp
from jax import custom_vjp, custom_jvp
from functools import partial

@partial(custom_vjp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)

def app_fwd(f, x):
    return app(f, x), x

def app_bwd(f, x, g):
    return (5 * g,)

app.defvjp(app_fwd, app_bwd)
print(app(lambda x: x ** 3, 3.))
print(jax.grad(lambda x: app(lambda y: y ** 3, x))(3.))

@partial(custom_jvp, nondiff_argnums=(0,))
def app2(f, x):
    return f(x)

@app2.defjvp
def app2_jvp(f, primals, tangents):
    x, = primals
    x_dot, = tangents
    return f(x), 2. * x_dot

print(app2(lambda x: x ** 3, 3.))
print(jax.grad(app2, 1)(lambda x: x ** 3, 3.))

@partial(custom_jvp, nondiff_argnums=(0,))
def app_n(n, x):
    return x ** n
@app_n.defjvp
def app_n_jvp(n, primals, tangents):
    x, = primals
    t, = tangents
    return x ** n, n * x ** (n - 1) * t
print(jax.grad(app_n, 1)(3, 2.0))
print(jax.jit(jax.grad(app_n, 1), static_argnums=0)(3, 2.0))
print(jax.make_jaxpr(lambda x: jax.grad(app_n, 1)(3, x))(2.0))

@partial(custom_vjp, nondiff_argnums=(1,))
def scale(x, s):
    return x * s
scale.defvjp(lambda x, s: (x * s, None), lambda s, res, g: (g * s,))
print(jax.grad(scale)(2.0, 4.0))
print(jax.make_jaxpr(jax.grad(scale), static_argnums=1)(2.0, 4.0))

# source: jax.custom_batching.custom_vmap / sequential_vmap docstrings
import jax
import jax.numpy as jnp

@jax.custom_batching.custom_vmap
def f(x, y):
    return x + y

@f.def_vmap
def f_vmap_rule(axis_size, in_batched, xs, ys):
    assert all(in_batched)
    assert xs.shape[0] == axis_size
    assert ys.shape[0] == axis_size
    out_batched = True
    return xs * ys, out_batched

xs = jnp.arange(3)
ys = jnp.arange(1, 4)
print(f(2, 3))
print(jax.vmap(f)(xs, ys))
print(jax.jit(jax.vmap(f))(xs, ys))
print(jax.vmap(jax.vmap(f))(jnp.ones((2, 3)), jnp.ones((2, 3))) if False else "skip")

@jax.custom_vjp
@jax.custom_batching.custom_vmap
def g(x, y):
    return jnp.sin(x) * y

@g.def_vmap
def g_vmap_rule(axis_size, in_batched, xs, ys):
    return jnp.cos(xs) * ys, True

def g_fwd(x, y):
    return g(x, y), (jnp.cos(x), jnp.sin(x), y)

def g_bwd(res, gr):
    cos_x, sin_x, y = res
    return (cos_x * gr * y, sin_x * gr)

g.defvjp(g_fwd, g_bwd)
print(jax.vmap(g)(jnp.zeros(3), jnp.ones(3)))
print(jax.grad(g)(jnp.zeros(()), jnp.ones(())))

@jax.custom_batching.sequential_vmap
def h(x):
    jax.debug.print("{}", x)
    return x + 1
print(jax.vmap(h)(jnp.arange(3)))

@jax.custom_batching.custom_vmap
def k(x, y):
    return x * y

@k.def_vmap
def k_rule(axis_size, in_batched, x, y):
    print("in_batched", in_batched, "axis_size", axis_size)
    x_b, y_b = in_batched
    return x * y + 100.0, x_b or y_b
print(jax.vmap(k, in_axes=(0, None))(jnp.arange(3.0), 2.0))
print(jax.vmap(k, in_axes=(None, 0))(2.0, jnp.arange(3.0)))
print(jax.jvp(jax.vmap(k), (jnp.arange(3.0), jnp.ones(3)), (jnp.ones(3), jnp.zeros(3))))
print(jax.vmap(lambda a: jax.jvp(lambda z: k(z, 3.0), (a,), (1.0,)))(jnp.arange(3.0)))

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))

@jax.custom_batching.custom_vmap
def norule(x):
    return x
show("norule", lambda: norule(1.0))

@jax.custom_batching.custom_vmap
def badrule(x):
    return x, x
@badrule.def_vmap
def badrule_rule(axis_size, in_batched, x):
    return (x, x), True
show("badrule", lambda: jax.vmap(badrule)(jnp.arange(2.0)))
@jax.custom_batching.custom_vmap
def badrule2(x):
    return x
@badrule2.def_vmap
def badrule2_rule(axis_size, in_batched, x):
    return (x, x), (True, True)
show("badrule2", lambda: jax.vmap(badrule2)(jnp.arange(2.0)))
show("grad", lambda: jax.grad(lambda v: k(v, 2.0))(1.0))
print(type(f).__name__, f.__name__)

# JIT tutorial examples
import jax
import jax.numpy as jnp

global_list = []

def log2(x):
    global_list.append(x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2

print(jax.make_jaxpr(log2)(3.0))
print(len(global_list), type(global_list[0]).__name__)

def log2_with_print(x):
    print("printed x:", x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2
print(jax.make_jaxpr(log2_with_print)(3.))

def log2_if_rank_2(x):
    if x.ndim == 2:
        ln_x = jnp.log(x)
        ln_2 = jnp.log(2.0)
        return ln_x / ln_2
    else:
        return x
print(jax.make_jaxpr(log2_if_rank_2)(jax.numpy.array([1, 2, 3])))

def selu(x, alpha=1.67, lambda_=1.05):
    return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)
selu_jit = jax.jit(selu)
x = jnp.arange(5.0)
print(selu_jit(x))
print(jax.make_jaxpr(selu)(x))

def f(x):
    if x > 0:
        return x
    else:
        return 2 * x
jax.make_jaxpr
try:
    jax.jit(f)(10)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])

def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i
try:
    jax.jit(g)(10, 20)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
print(jax.jit(g, static_argnames=['n'])(10, 20))

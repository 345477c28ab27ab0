from jax import make_jaxpr, lax, jit
import jax
import jax.numpy as jnp
import numpy as np
def func2(inner, first, second):
    temp = first + inner(second) * 3.
    return jnp.sum(temp)
def inner(second):
    if second.shape[0] > 4:
        return jnp.sin(second)
    else:
        assert False
def func3(first, second):
    return func2(inner, first, second)
print(make_jaxpr(func3)(jnp.zeros(8), jnp.ones(8)))
def func4(arg):
    temp = arg[0] + jnp.sin(arg[1]) * 3.
    return jnp.sum(temp)
print(make_jaxpr(func4)((jnp.zeros(8), jnp.ones(8))))
def func5(first, second):
    temp = first + np.sin(second) * 3. - jnp.ones(8)
    return temp
def func6(first):
    return func5(first, np.ones(8))
print(make_jaxpr(func6)(np.ones(8)))
def func8(arg1, arg2):
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)
print(make_jaxpr(func8)(5., (jnp.zeros(1), 2.)))
def func13(arr, extra):
    def inner(x):
        return (x + extra + jnp.ones(1)) / lax.psum(x, axis_name='rows')
    return jax.vmap(inner, axis_name='rows')(arr)
print(make_jaxpr(func13)(jnp.ones((1, 3)), 5.))
def f(x): return jax.numpy.sin(jax.numpy.cos(x))
print(f(3.0))
print(jax.make_jaxpr(f)(3.0))
print(jax.make_jaxpr(jax.grad(f))(3.0))

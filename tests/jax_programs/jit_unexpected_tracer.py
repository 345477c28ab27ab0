# UnexpectedTracerError and leaks
import jax
import jax.numpy as jnp

saved = []
@jax.jit
def f(x):
    saved.append(x)
    return x + 1
f(1.0)
try:
    jnp.sin(saved[0])
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
try:
    jax.jit(lambda y: saved[0] + y)(2.0)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
leaked = []
def g(x):
    leaked.append(x)
    return x * 2
jax.grad(g)(1.0)
try:
    print(leaked[0] + 1)
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
print(isinstance(saved[0], jax.core.Tracer))
print(jax.errors.UnexpectedTracerError.__mro__[1].__name__)
print(issubclass(jax.errors.ConcretizationTypeError, TypeError), issubclass(jax.errors.TracerBoolConversionError, jax.errors.ConcretizationTypeError))
print(issubclass(jax.errors.TracerIntegerConversionError, TypeError), issubclass(jax.errors.TracerArrayConversionError, TypeError))

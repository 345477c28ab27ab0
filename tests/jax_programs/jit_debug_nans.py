# debug_nans
import jax
import jax.numpy as jnp

jax.config.update("jax_debug_nans", True)
try:
    jnp.log(-1.0)
except FloatingPointError as e:
    print("FloatingPointError", str(e).splitlines()[0])
try:
    jnp.divide(0.0, 0.0)
except FloatingPointError as e:
    print("FloatingPointError", str(e).splitlines()[0])
jax.config.update("jax_debug_nans", False)
print(jnp.log(-1.0))
with jax.debug_nans(True):
    try:
        jax.jit(lambda x: jnp.sqrt(x))(-1.0)
    except FloatingPointError as e:
        print("FloatingPointError", str(e).splitlines()[0])
print(jnp.sqrt(-1.0))
with jax.debug_infs(True):
    try:
        jnp.array(1.0) / 0.0
    except FloatingPointError as e:
        print("FloatingPointError", str(e).splitlines()[0])

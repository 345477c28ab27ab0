# jax.config reads and updates
import jax
import jax.numpy as jnp

print(jax.config.jax_enable_x64, jax.config.jax_disable_jit, jax.config.jax_debug_nans, jax.config.jax_debug_infs)
print(jax.config.jax_default_matmul_precision, jax.config.jax_numpy_rank_promotion)
print(jax.config.jax_numpy_dtype_promotion)
jax.config.update('jax_numpy_rank_promotion', 'raise')
try:
    jnp.ones(3) + jnp.ones((2, 3))
except Exception as e:
    print(type(e).__name__)
    print(str(e).splitlines()[0])
jax.config.update('jax_numpy_rank_promotion', 'allow')
print((jnp.ones(3) + jnp.ones((2, 3))).shape)
with jax.numpy_rank_promotion('raise'):
    try:
        jnp.ones(3) * jnp.ones((2, 3))
    except ValueError as e:
        print("ValueError")
with jax.numpy_dtype_promotion('strict'):
    try:
        jnp.ones(2, jnp.int32) + jnp.ones(2, jnp.float32)
    except Exception as e:
        print(type(e).__name__)
        print(str(e).splitlines()[0])
    print(jnp.ones(2) + 1.0)
try:
    jax.config.update('jax_not_an_option', 1)
except Exception as e:
    print(type(e).__name__, e)
try:
    jax.config.jax_not_an_option
except Exception as e:
    print(type(e).__name__, e)
with jax.default_matmul_precision('float32'):
    print(jnp.dot(jnp.ones(3), jnp.ones(3)))
print(jax.config.values['jax_enable_x64'] if hasattr(jax.config, 'values') else '')

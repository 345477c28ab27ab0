# An FFI call with side effects inside vmap (a scan of calls) and cond: jaxprs only.
import jax, jax.numpy as jnp, numpy as np
f = jax.ffi.ffi_call("t", jax.ShapeDtypeStruct((3,), jnp.float32), has_side_effect=True, vmap_method="sequential")
print(jax.make_jaxpr(jax.vmap(f))(np.ones((2, 3), np.float32)))
print(jax.make_jaxpr(lambda x: jax.lax.cond(x[0] > 0, f, lambda x: x, x))(np.ones(3, np.float32)))

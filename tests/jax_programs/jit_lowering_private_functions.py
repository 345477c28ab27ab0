# lowering: argmax/argmin are private functions (one per input types), duplicate inner jit names get _0, _1
import jax
import jax.numpy as jnp
@jax.jit
def g(x): return x * 2
print(jax.jit(lambda a, b, c: (g(a), g(b), g(c), g(a + 1))).lower(1.0, jnp.ones(2), jnp.ones(3)).as_text())
print(jax.jit(lambda v, w: (jnp.argmax(v), jnp.argmin(v), jnp.argmax(w), jnp.argmax(v * 2), jnp.argmax(w, axis=1))).lower(jnp.ones(4), jnp.ones((2, 3))).as_text())

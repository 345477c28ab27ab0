# traced values where jnp needs static shapes, sizes and axes: the error types and messages
import jax, jax.numpy as jnp
def run(name, f, *a):
    try:
        print(name, f(*a))
    except Exception as e:
        print(name, type(e).__name__, "\n".join(l for l in str(e).splitlines() if "occurred while tracing" not in l))
run("zeros", jax.jit(lambda n: jnp.zeros(n)), 3)
run("zeros_t", jax.jit(lambda n: jnp.zeros((n,))), 3)
run("ones", jax.jit(lambda n: jnp.ones((2, n))), 3)
run("reshape", jax.jit(lambda x, n: x.reshape((n, -1))), jnp.ones(4), 2)
run("reshape2", jax.jit(lambda x, n: jnp.reshape(x, n)), jnp.ones(4), 4)
run("eye", jax.jit(lambda n: jnp.eye(n)), 3)
run("full", jax.jit(lambda n: jnp.full((n,), 1.0)), 3)
run("broadcast_to", jax.jit(lambda x, n: jnp.broadcast_to(x, (n,))), 1.0, 3)
run("expand_dims", jax.jit(lambda x, n: jnp.expand_dims(x, n)), jnp.ones(3), 0)
run("squeeze", jax.jit(lambda x, n: jnp.squeeze(x, n)), jnp.ones((1, 3)), 0)
run("arange", jax.jit(lambda n: jnp.arange(n)), 3)
run("range", jax.jit(lambda n: [i for i in range(n)]), 3)

import jax
import jax.numpy as jnp

x = jnp.array([-1.0, 0.5, 2.0])
for name, fn in [("relu", jax.nn.relu), ("sigmoid", jax.nn.sigmoid), ("softplus", jax.nn.softplus),
                 ("gelu", jax.nn.gelu), ("silu", jax.nn.silu), ("logaddexp", lambda x: jnp.logaddexp(x, 1.0)),
                 ("logsumexp", jax.nn.logsumexp), ("softmax0", lambda x: jax.nn.softmax(x)[0]),
                 ("log_softmax0", lambda x: jax.nn.log_softmax(x)[0]), ("norm", jnp.linalg.norm),
                 ("max", jnp.max), ("abs", jnp.abs), ("where", lambda x: jnp.where(x > 0, x, 0.1 * x)),
                 ("tanh", jnp.tanh), ("elu", jax.nn.elu), ("leaky", jax.nn.leaky_relu)]:
    f = lambda x: jnp.sum(fn(x))
    print(name, jax.grad(f)(x))
    print(jax.make_jaxpr(jax.grad(f))(x))

# source: docs/notebooks/vmapped_log_probs (autobatching log-densities), small version
import numpy as np
import jax
import jax.numpy as jnp
import jax.scipy as jsp

num_features = 4
num_points = 6
true_beta = np.linspace(-1, 1, num_features).astype(jnp.float32)
all_x = np.linspace(-2, 2, num_points * num_features).reshape(num_points, num_features).astype(jnp.float32)
y = (all_x.dot(true_beta) > 0).astype(jnp.int32)
print(y)

def log_joint(beta):
    result = 0.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0., scale=1.))
    result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2*y-1) * jnp.dot(all_x, beta))))
    return result

print(log_joint(np.linspace(0, 1, num_features)))
batch_size = 3
batched_test_beta = np.linspace(-1, 1, batch_size * num_features).reshape(batch_size, num_features)
try:
    log_joint(batched_test_beta)
except (ValueError, TypeError) as e:
    print("Caught expected exception " + str(e))

def batched_log_joint(beta):
    result = 0.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0., scale=1.), axis=-1)
    result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2*y-1) * jnp.dot(all_x, beta.T).T)), axis=-1)
    return result

print(batched_log_joint(batched_test_beta))
vmap_batched_log_joint = jax.vmap(log_joint)
print(vmap_batched_log_joint(batched_test_beta))

@jax.jit
def log_joint(beta):
    result = 0.
    result = result + jnp.sum(jsp.stats.norm.logpdf(beta, loc=0., scale=10.))
    result = result + jnp.sum(-jnp.log(1 + jnp.exp(-(2*y-1) * jnp.dot(all_x, beta))))
    return result

batched_log_joint = jax.jit(jax.vmap(log_joint))

print(batched_log_joint(batched_test_beta))
x = jnp.linspace(-2.0, 2.0, 5)
n = jsp.stats.norm
print(jax.jit(lambda v: (n.pdf(v), n.cdf(v), n.logcdf(v), n.sf(v), n.logsf(v)))(x))
print(jax.jit(lambda q: (n.ppf(q), n.isf(q[:2])))(jnp.array([0.1, 0.5, 0.9])))
print(n.logpdf(1), n.pdf(2.0, loc=1.0, scale=2.0))
print(jax.make_jaxpr(n.logpdf)(1.0))
print(jax.vmap(n.logpdf, in_axes=(0, None, 0))(x, 1.0, jnp.arange(1.0, 6.0)))
print(jax.grad(n.logcdf)(0.5))

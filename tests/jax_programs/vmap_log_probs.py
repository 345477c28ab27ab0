# source: docs/notebooks/vmapped_log_probs (autobatching log-densities), small version
import numpy as np
import jax
import jax.numpy as jnp
import jax.scipy as jsp
from jax import random

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

def elbo(beta_loc, beta_log_scale, epsilon):
    beta_sample = beta_loc + jnp.exp(beta_log_scale) * epsilon
    return jnp.mean(batched_log_joint(beta_sample), 0) + jnp.sum(beta_log_scale - 0.5 * np.log(2*np.pi))

elbo = jax.jit(elbo)
elbo_val_and_grad = jax.jit(jax.value_and_grad(elbo, argnums=(0, 1)))

def normal_sample(key, shape):
    new_key, sub_key = random.split(key)
    return new_key, random.normal(sub_key, shape)

normal_sample = jax.jit(normal_sample, static_argnums=(1,))
key = random.key(10003)
beta_loc = jnp.zeros(num_features, jnp.float32)
beta_log_scale = jnp.zeros(num_features, jnp.float32)
step_size = 0.01
epsilon_shape = (8, num_features)
for i in range(11):
    key, epsilon = normal_sample(key, epsilon_shape)
    elbo_val, (beta_loc_grad, beta_log_scale_grad) = elbo_val_and_grad(beta_loc, beta_log_scale, epsilon)
    beta_loc += step_size * beta_loc_grad
    beta_log_scale += step_size * beta_log_scale_grad
    if i % 10 == 0:
        print('{}\t{}'.format(i, elbo_val))
print(beta_loc)
x = jnp.linspace(-2.0, 2.0, 5)
n = jsp.stats.norm
print(n.pdf(x), n.cdf(x), n.logcdf(x), n.sf(x), n.logsf(x))
print(n.ppf(jnp.array([0.1, 0.5, 0.9])), n.isf(jnp.array([0.1, 0.5])))
print(n.logpdf(1), n.pdf(2.0, loc=1.0, scale=2.0))
print(jax.make_jaxpr(n.logpdf)(1.0))
print(jax.vmap(n.logpdf, in_axes=(0, None, 0))(x, 1.0, jnp.arange(1.0, 6.0)))
print(jax.grad(n.logcdf)(0.5))

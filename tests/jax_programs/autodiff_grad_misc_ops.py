import jax
import jax.numpy as jnp
from jax import lax

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e)[:400])

key = jax.random.key(0)
show("random nondiff", lambda: jax.grad(lambda x, k: x * jax.random.normal(k))(1.0, key))
show("random key grad", lambda: jax.grad(lambda k: jax.random.normal(k))(key))
show("random key grad allow", lambda: jax.grad(lambda k, x: x * jax.random.normal(k), allow_int=True)(key, 1.0))
show("old key", lambda: jax.grad(lambda x, k: x * jax.random.uniform(k), argnums=0)(1.0, jax.random.PRNGKey(1)))
show("lax.map", lambda: jax.grad(lambda xs: jnp.sum(lax.map(jnp.sin, xs)))(jnp.arange(3.0)))
show("reduce_window", lambda: jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID')))(jnp.array([1., 3., 2., 5.])))
show("assoc scan", lambda: jax.grad(lambda x: jnp.sum(lax.associative_scan(jnp.add, x)))(jnp.arange(4.0)))
show("cumsum rev", lambda: jax.grad(lambda x: jnp.sum(lax.cumsum(x, reverse=True) ** 2))(jnp.arange(3.0)))
show("logsumexp", lambda: jax.grad(jax.scipy.special.logsumexp)(jnp.arange(3.0)))
show("erf", lambda: jax.grad(jax.scipy.special.erf)(0.5))
show("gammaln", lambda: jax.grad(jax.scipy.special.gammaln)(2.5))
show("expit", lambda: jax.grad(jax.scipy.special.expit)(0.5))
show("one_hot", lambda: jax.grad(lambda x: jnp.sum(jax.nn.one_hot(jnp.argmax(x), 3) * x))(jnp.arange(3.0)))
show("conv", lambda: jax.grad(lambda w: jnp.sum(jnp.convolve(jnp.arange(5.0), w)))(jnp.ones(2)))
show("lax.conv", lambda: jax.grad(lambda w: jnp.sum(lax.conv(jnp.ones((1, 1, 4, 4)), w, (1, 1), 'SAME')))(jnp.ones((1, 1, 2, 2))))
show("einsum", lambda: jax.grad(lambda a: jnp.einsum('ij,jk->', a, a))(jnp.eye(2)))
show("matmul", lambda: jax.grad(lambda a: jnp.sum(a @ a.T))(jnp.arange(4.0).reshape(2, 2)))
show("integer_pow", lambda: jax.grad(lambda x: x ** 3)(2.0))
show("pow float", lambda: jax.grad(lambda x: x ** 2.5)(2.0))
show("pow zero", lambda: jax.grad(lambda x: x ** 0.5)(0.0))
show("pow xy", lambda: jax.grad(lambda x, y: x ** y, argnums=(0, 1))(2.0, 3.0))
show("atan2", lambda: jax.grad(lambda x: jnp.arctan2(x, 1.0))(1.0))
show("rem", lambda: jax.grad(lambda x: jnp.remainder(x, 1.5))(4.0))
show("select_n", lambda: jax.grad(lambda x: lax.select(x > 0, x, -x))(-2.0))
show("clamp", lambda: jax.grad(lambda x: lax.clamp(0.0, x, 1.0))(0.5))
show("expm1 log1p", lambda: jax.grad(lambda x: jnp.expm1(x) + jnp.log1p(x))(0.5))
show("sinc", lambda: jax.grad(jnp.sinc)(0.0))
show("cbrt", lambda: jax.grad(jnp.cbrt)(8.0))
show("rsqrt", lambda: jax.grad(lax.rsqrt)(4.0))
show("top_k", lambda: jax.grad(lambda x: jnp.sum(lax.top_k(x, 2)[0]))(jnp.array([1., 4., 2.])))

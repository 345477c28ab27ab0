import jax
import jax.numpy as jnp

def vgrad(f, x):
  y, vjp_fn = jax.vjp(f, x)
  return vjp_fn(jnp.ones(y.shape))[0]
print(vgrad(lambda x: 3*x**2, jnp.ones((2, 2))))

def hvp(f, primals, tangents):
  return jax.jvp(jax.grad(f), primals, tangents)[1]
def f(X):
  return jnp.sum(jnp.tanh(X)**2)
key = jax.random.key(0)
key, subkey1, subkey2 = jax.random.split(key, 3)
X = jax.random.normal(subkey1, (3, 4))
V = jax.random.normal(subkey2, (3, 4))
def hessian(f):
    return jax.jacfwd(jax.jacrev(f))
ans1 = hvp(f, (X,), (V,))
ans2 = jnp.tensordot(hessian(f)(X), V, 2)
print(jnp.allclose(ans1, ans2, 1e-4, 1e-4))
print(ans1)

def f2(x):
    try:
        if x < 3:
            return 2 * x ** 3
        else:
            raise ValueError
    except ValueError:
        return jnp.pi * x

y, f_vjp = jax.vjp(f2, 4.)
print(jax.jit(f_vjp)(1.))
print(repr(y))

W = jnp.array([0.1, 0.2, -0.3])
f3 = lambda W: jnp.tanh(jnp.arange(6.).reshape(2, 3) @ W)
def our_jacrev(f):
    def jacfun(x):
        y, vjp_fun = jax.vjp(f, x)
        J, = jax.vmap(vjp_fun, in_axes=0)(jnp.eye(len(y)))
        return J
    return jacfun
def our_jacfwd(f):
    def jacfun(x):
        _jvp = lambda s: jax.jvp(f, (x,), (s,))[1]
        Jt = jax.vmap(_jvp, in_axes=1)(jnp.eye(len(x)))
        return jnp.transpose(Jt)
    return jacfun
print(our_jacrev(f3)(W))
print(our_jacfwd(f3)(W))
print(jax.make_jaxpr(our_jacrev(f3))(W))
def loop_mjp(f, x, M):
    y, vjp_fun = jax.vjp(f, x)
    return jnp.vstack([jnp.asarray(vjp_fun(mi)) for mi in M])
print(loop_mjp(f3, W, jnp.eye(2)))

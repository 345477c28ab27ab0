# jnp.vectorize
import jax
import jax.numpy as jnp

def f(a, b):
    return a @ b
vf = jnp.vectorize(f, signature='(n,m),(m,k)->(n,k)')
print(vf(jnp.ones((3, 2, 4)), jnp.ones((4, 5))).shape)
print(jnp.vectorize(lambda x: x * 2)(jnp.arange(3)))
print(jnp.vectorize(jnp.sum, signature='(n)->()')(jnp.arange(6.0).reshape(2, 3)))
vec_conv = jnp.vectorize(jnp.convolve, signature='(n),(m)->(k)')
print(vec_conv(jnp.ones((2, 5)), jnp.array([1.0, 2.0, 1.0])))
print(jnp.vectorize(lambda x, p: x ** p, excluded={1})(jnp.arange(4.0), 2))
def g(x):
    return x.min(), x.max()
print(jnp.vectorize(g, signature='(n)->(),()')(jnp.arange(6.0).reshape(2, 3)))
print(jnp.vectorize(lambda x, y: x + y)(jnp.arange(3.0), jnp.arange(6.0).reshape(2, 3)))

def show(label, fn):
    try:
        r = fn()
        print(label, "OK", r)
    except Exception as e:
        print(label, type(e).__name__)
        print(str(e))
show("bad_sig", lambda: jnp.vectorize(f, signature="(n,m)(m,k)->(n,k)")(jnp.ones((2,2)), jnp.ones((2,2))))
show("wrong_ndim", lambda: vf(jnp.ones(3), jnp.ones((3, 4))))
show("inconsistent_core", lambda: vf(jnp.ones((2, 3)), jnp.ones((4, 5))))
show("wrong_nargs", lambda: vf(jnp.ones((2, 3))))
show("out_wrong", lambda: jnp.vectorize(lambda x: x, signature='(n)->()')(jnp.ones((2, 3))))
show("out_count", lambda: jnp.vectorize(lambda x: (x, x), signature='(n)->(n)')(jnp.ones((2, 3))))
show("excluded_kw", lambda: jnp.vectorize(lambda x, p=1: x * p, excluded={'p'})(jnp.arange(3.0), p=3))
show("excluded_bad", lambda: jnp.vectorize(lambda x: x, excluded={1.5}))

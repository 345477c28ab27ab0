import jax
import jax.numpy as jnp
import numpy as np
from jax import grad, jacfwd, jacrev

def show(label, fn):
    try:
        r = fn()
        print(label, "ok", repr(r))
    except Exception as e:
        print(label, type(e).__name__, "|", str(e))

show("bad input", lambda: grad(lambda x: x)("foo"))
show("tuple output", lambda: grad(lambda x: (x, x))(1.0))
show("unit output", lambda: grad(lambda x: ())(np.zeros(3)))
show("nonscalar output", lambda: grad(lambda x: x)(np.zeros(3)))
show("nonscalar hint", lambda: grad(lambda x: jnp.array([x ** 2]))(1.0))
show("aux 3", lambda: grad(lambda x: (1, 2, 3), has_aux=True)(1.))
show("aux 1", lambda: grad(lambda x: (x,), has_aux=True)(1.))
show("aux const", lambda: grad(lambda x: (x**3, [4.]), has_aux=True)(4.))
show("aux const2", lambda: grad(lambda x: (x**3, [x**2, 4.]), has_aux=True)(4.))
show("jvp tree1", lambda: jax.jvp(lambda x, y: x * y, (np.float32(2),), ()))
show("jvp tree2", lambda: jax.jvp(lambda x, y: x * y, (np.float32(2),), [np.float32(2)]))
show("jvp f16", lambda: jax.jvp(lambda x: -x, (np.float16(2),), (np.float32(4),)))
show("jvp shape1", lambda: jax.jvp(lambda x: x + 1, (jnp.array([1., 2., 3.]),), (jnp.array([1., 2., 3., 4.]),)))
show("jvp shape2", lambda: jax.jvp(lambda x: x + 1, (jnp.float32(10.),), (jnp.array([1., 2., 3.], dtype=jnp.float32),)))
show("jvp shape3", lambda: jax.jvp(lambda x: x + 1, (jnp.array([1., 2., 3.]),), (20.,)))
show("jvp nontuple1", lambda: jax.jvp(lambda x, y: x + y, 0., (1.,)))
show("jvp nontuple2", lambda: jax.jvp(lambda x, y: x + y, (0.,), np.array([1., 2.])))
_, pullback = jax.vjp(lambda x, y: x * y, np.float32(3), np.float32(4))
show("vjp f16", lambda: pullback(np.float16(42)))
x = np.ones((2, 5), dtype=np.float32)
y = np.ones((5, 3), dtype=np.float32)
res, pullback2 = jax.vjp(jnp.matmul, x, y)
show("vjp shape", lambda: pullback2(np.ones((2, 4), dtype=np.float32)))
def f(x): return x, x
_, pullback3 = jax.vjp(f, 1.)
show("vjp many args", lambda: pullback3(1., 1.))
show("complex grad", lambda: grad(lambda x: jnp.sin(x))(1 + 2j))
show("holo float", lambda: grad(lambda x: x, holomorphic=True)(1.0))
show("holo jacrev float", lambda: jacrev(lambda x: x, holomorphic=True)(1.0))
show("holo jacfwd float", lambda: jacfwd(lambda x: x, holomorphic=True)(1.0))
show("jacfwd complex", lambda: jacfwd(lambda x: jnp.sin(x))(1 + 2j))
show("jacrev complex out", lambda: jacrev(lambda x: x * 1j)(1.0))
show("grad of int", lambda: grad(lambda x: x * 1.0)(2))
show("grad of bool", lambda: grad(lambda x: jnp.where(x, 1.0, 0.0))(True))
show("grad complex result", lambda: grad(lambda x: x * 1j)(1.0))
show("argnums", lambda: grad(lambda x, y: x * y, argnums=(0, 3))(1.0, 2.0))
show("neg argnums", lambda: grad(lambda x, y: x * y ** 2, argnums=-1)(1.0, 2.0))
show("neg argnums2", lambda: grad(lambda x, y: x * y ** 2, argnums=(-2, -1))(1.0, 2.0))
show("object arr", lambda: grad(lambda x: x)(np.array([1.0], dtype=object)))
show("float argnum", lambda: grad(lambda x: x, argnums=1.0)(1.0))
show("not callable", lambda: grad(3))
show("linearize aux", lambda: jax.linearize(lambda x: (x * 2, x), 1.0, has_aux=True)[2])

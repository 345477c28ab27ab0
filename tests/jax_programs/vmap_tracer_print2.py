# tracers printed inside nested transformations
import jax
import jax.numpy as jnp

def p(label):
    def f(x):
        print(label, x)
        print(label, repr(x))
        print(label, jax.typeof(x), x.shape, x.dtype, x.weak_type if hasattr(x, 'weak_type') else '')
        return x
    return f
jax.vmap(jax.vmap(p("nested")))(jnp.ones((2, 3)))
jax.vmap(p("in_axes1"), in_axes=1)(jnp.ones((2, 3)))
jax.jit(jax.vmap(p("jit_vmap")))(jnp.ones(3))
jax.vmap(jax.jit(p("vmap_jit")))(jnp.ones(3))
jax.vmap(jax.grad(lambda x: p("vmap_grad")(x) * 2.0))(jnp.ones(3))
jax.grad(lambda x: jax.vmap(p("grad_vmap"))(x).sum())(jnp.ones(3))
jax.vmap(p("named"), axis_name='i')(jnp.ones(2))
jax.vmap(p("weak"))(jnp.asarray([1.0, 2.0]) + 1)
jax.vmap(p("int"))(jnp.arange(2))
jax.vmap(lambda k: p("key")(k))(jax.random.split(jax.random.key(0), 2))
jax.make_jaxpr(jax.vmap(p("staged")))(jnp.ones(3))

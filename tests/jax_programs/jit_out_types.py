# a traced function returning a non-JAX type: the message names the output's path
import jax

def transforms(f):
    return [jax.jit(f), jax.make_jaxpr(f),
            lambda x: jax.lax.scan(lambda c, _: (c, f(c)), x, None, length=2),
            lambda x: jax.lax.cond(True, f, f, x), jax.grad(f)]

for f in [lambda x: (x, 'hi'), lambda x: {'a': 'hi'}, lambda x: 'hi']:
    for t in transforms(f):
        try:
            t(1.0)
        except TypeError as e:
            print(str(e).split(" traced for ")[-1])

"""Scripts of common mistakes, each expected to raise (under JAX and under glassjax).

Each template is a short script with ``{n}`` / ``{m}`` placeholders (sizes) and the
names ``jax``, ``jnp``, ``lax``, ``np``; ``mistakes(count)`` instantiates them with
different sizes until there are ``count`` scripts. The runner compares the exception
type, and the *key information* of JAX's first line (shapes, dtypes, quoted names) must
appear in glassjax's.
"""
from __future__ import annotations

import itertools

TEMPLATES = [
    # shapes
    "jnp.ones({n}) + jnp.ones({m})",
    "jnp.ones(({n}, 2)) @ jnp.ones(({m}, 2))",
    "jnp.dot(jnp.ones({n}), jnp.ones({m}))",
    "jnp.reshape(jnp.arange({n}), ({m}, {m}))",
    "jnp.arange({n}).reshape(-1, {m}) if {n} % {m} else (_ for _ in ()).throw(ValueError('x'))",
    "jnp.concatenate([jnp.ones(({n}, 2)), jnp.ones(({m}, 3))])",
    "jnp.stack([jnp.ones({n}), jnp.ones({m})])",
    "jnp.broadcast_to(jnp.ones({n}), ({m},))",
    "jnp.einsum('ij,jk->ik', jnp.ones((2, {n})), jnp.ones(({m}, 2)))",
    "jnp.einsum('i,i->', jnp.ones({n}), jnp.ones({m}))",
    "jnp.ones({n}).sum(axis={m})",
    "jnp.transpose(jnp.ones(({n}, {m})), (0, 2, 1))",
    "jnp.split(jnp.arange({n}), {m})",
    "jnp.linalg.inv(jnp.ones(({n}, {m})))",
    "jnp.linalg.svd(jnp.ones({n}))",
    "lax.reshape(jnp.ones({n}), ({m}, 2))",
    "lax.slice(jnp.ones({n}), (0,), ({n} + {m},))",
    "lax.dynamic_slice(jnp.ones({n}), (0,), ({n} + {m},))",
    "lax.dynamic_update_slice(jnp.ones({n}), jnp.ones({n} + {m}), (0,))",
    "lax.broadcast_in_dim(jnp.ones({n}), ({n} + {m},), (0,))",
    "lax.add(jnp.ones({n}), jnp.ones({n}, jnp.int32))",
    "lax.add(jnp.ones({n}), jnp.ones({m}))",
    "lax.dot_general(jnp.ones((2, {n})), jnp.ones(({m}, 2)), (((1,), (0,)), ((), ())))",
    "lax.pad(jnp.ones({n}), 0.0, [(-{n} - {m}, 0, 0)])",
    "lax.concatenate([jnp.ones({n}), jnp.ones(({m}, 1))], 0)",
    "lax.transpose(jnp.ones({n}), ({m},))",
    "lax.squeeze(jnp.ones({n}), (0,))",
    "lax.select(jnp.ones({m}, bool), jnp.ones({n}), jnp.ones({n}))",
    # tracing
    "jax.jit(lambda x: 1 if x.sum() > {n} else 0)(jnp.ones({m}))",
    "jax.jit(lambda x: int(x[0]) + {n})(jnp.ones({m}))",
    "jax.jit(lambda n: jnp.zeros(n))({n})",
    "jax.jit(lambda x: np.asarray(x) + {n})(jnp.ones({m}))",
    "jax.jit(lambda x: x[x > {n}])(jnp.arange({m}.0))",
    "jax.jit(lambda x, i: x[i:i + {n}])(jnp.ones({m}), 0)",
    "jax.jit(lambda x: jnp.arange(x))({n})",
    "jax.jit(lambda x: x)('a{n}')",
    "jax.jit(lambda x: x * 2 ** {n}0)(jnp.ones({m}))",
    "jax.jit(lambda x, y: x, static_argnums=0, donate_argnums=0)({n}, {m})",
    "jax.jit(lambda x: x, static_argnums={n} + {m})(1.0)",
    # differentiation
    "jax.grad(lambda x: x * {n})({m})",
    "jax.grad(lambda x: x * {n})(jnp.ones({m}))",
    "jax.grad(lambda x: x * {n}, argnums={m})(1.0)",
    "jax.grad(lambda x: x * {n}, argnums=-{m} - 1)(1.0)",
    "jax.jacfwd(lambda x: x * {n})({m})",
    "jax.jvp(jnp.sin, (1.0,), (jnp.ones({n}),))",
    "jax.jvp(jnp.sin, ({n}.0,), ({m},))",
    "jax.vjp(jnp.sin, {n}.0)[1](jnp.ones({m}))",
    "jax.linear_transpose(lambda x: x * x + {n}, 1.0)(1.0)",
    "jax.grad(lambda x: jnp.sum(x) + {n}, holomorphic=True)(jnp.ones({m}))",
    # vmap
    "jax.vmap(lambda a, b: a + b)(jnp.ones({n}), jnp.ones({m} + {n}))",
    "jax.vmap(jnp.sin, in_axes={n})(jnp.ones({m}))",
    "jax.vmap(jnp.sin)({n}.0)",
    "jax.vmap(jnp.sin, in_axes=({n}, {m}))(jnp.ones(3))",
    # control flow
    "lax.cond(True, lambda: jnp.ones({n}), lambda: jnp.ones({m} + {n}))",
    "lax.scan(lambda c, x: (c + x, x), 0.0, jnp.ones(({n}, {m})))",
    "lax.fori_loop(0, {n}, lambda i, c: c + jnp.ones({m}), 0.0)",
    "lax.while_loop(lambda c: c < {n}, lambda c: (c, c), 0)",
    "lax.switch({n}.5, [lambda: {m}.0, lambda: 1.0])",
    "lax.cond(jnp.ones({n}) > 0, lambda: {m}.0, lambda: 1.0)",
    # random
    "jax.random.uniform({n}, ({m},))",
    "jax.random.uniform(jnp.ones({n}), ({m},))",
    "jax.random.normal(jax.random.key({n}), ({m},), jnp.int32)",
    "jax.random.key({n}) + {m}",
    "jnp.sin(jax.random.key({n}))",
    "jax.random.choice(jax.random.key(0), {n}, ({n} + {m},), replace=False)",
    "jax.random.split(jax.random.key({n}), -{m})",
    # arrays and dtypes
    "jnp.ones({n}).at[0] = {m}",
    "jnp.array([[1] * {n}, [1] * ({n} + {m})])",
    "jnp.array('a{n}{m}')",
    "jnp.ones({n}).astype('float{m}')",
    "jnp.zeros(-{n})",
    "jnp.zeros({n}.5)",
    "jnp.ones({n})[{n}, {m}]",
    "jnp.ones({n})['a{m}']",
    "jax.device_put(jnp.ones({n}), 'cpu:{m}')",
    "jnp.ones({n}) + [{m}]",
    "float(jnp.ones({n} + 1))",
    "x = jnp.ones({n}); x.delete(); x + {m}",
    "x = jnp.ones({n}); x.delete(); np.asarray(x)",
    "jax.tree.map(lambda a, b: a + b, ({n}, {m}), ({n},))",
    "jnp.ones({n}).reshape({m}, -1, -1)",
    "jnp.take(jnp.ones({n}), 0, axis={m})",
    "jnp.argmax(jnp.ones({n}), axis={m})",
    "jnp.mean(jnp.ones({n}), axis=({m}, {m}))",
]

SIZES = [(3, 4), (2, 5), (4, 1), (1, 3), (5, 2), (3, 2), (2, 3)]


def mistakes(count: int) -> list[str]:
    """``count`` scripts: every template with the first sizes, then the next sizes."""
    out = []
    for (n, m), template in itertools.product(SIZES, TEMPLATES):
        out.append(template.format(n=n, m=m))
        if len(out) == count:
            break
    return out

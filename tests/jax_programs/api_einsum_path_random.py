# einsum_path on random contractions of 3 to 10 operands, with JAX's default strategy
# ('auto': optimal, then branch-and-bound) and the named ones; and the dot_generals einsum
# builds for a 6-operand chain.
import numpy as np
import jax
import jax.numpy as jnp

rng = np.random.RandomState(42)
letters = "abcdefghijkl"
for trial in range(60):
    n = rng.randint(3, 11)
    nidx = rng.randint(3, 9)
    sizes = {c: int(rng.randint(1, 7)) for c in letters[:nidx]}
    terms = ["".join(sorted(rng.choice(list(letters[:nidx]), rng.randint(1, 4),
                                       replace=False))) for _ in range(n)]
    counts = {c: sum(t.count(c) for t in terms) for c in letters[:nidx]}
    spec = ",".join(terms) + "->" + "".join(c for c in letters[:nidx] if counts[c] == 1)
    ops = [np.ones([sizes[c] for c in t], np.float32) for t in terms]
    optimize = "auto" if n > 7 else ["auto", "optimal", "branch-2", "branch-1", True][trial % 5]
    path, info = jnp.einsum_path(spec, *ops, optimize=optimize)
    print(spec, optimize, path)
    print(info)

shapes = [(8, 2), (2, 9), (9, 3), (3, 10), (10, 2), (2, 5)]
ops = [rng.randn(*s).astype(np.float32) for s in shapes]
spec = "ab,bc,cd,de,ef,fg->ag"
print(jax.make_jaxpr(lambda *xs: jnp.einsum(spec, *xs))(*ops))
expected = np.einsum(spec, *ops)
print(np.allclose(jnp.einsum(spec, *ops), expected, rtol=1e-4, atol=1e-4))

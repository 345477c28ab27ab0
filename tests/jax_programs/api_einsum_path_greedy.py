# einsum_path with 'greedy' and with 'auto' up to 20 operands (auto is greedy beyond 14).
import jax, jax.numpy as jnp, numpy as np
rng = np.random.RandomState(7)
letters = "abcdefghijklmnopqrstuvwx"
for trial in range(60):
    n = rng.randint(2, 20)
    nidx = rng.randint(3, 14)
    sizes = {c: int(rng.randint(1, 6)) for c in letters[:nidx]}
    terms = ["".join(sorted(rng.choice(list(letters[:nidx]), rng.randint(1, 4), replace=False))) for _ in range(n)]
    if trial % 7 == 0: terms.append(terms[0])
    counts = {c: sum(t.count(c) for t in terms) for c in letters[:nidx]}
    spec = ",".join(terms) + "->" + "".join(c for c in letters[:nidx] if counts[c] == 1)
    ops = [np.ones([sizes[c] for c in t], np.float32) for t in terms]
    optimize = "greedy" if trial % 2 else "auto"
    path, info = jnp.einsum_path(spec, *ops, optimize=optimize)
    print(spec, optimize, path)
    print(info)

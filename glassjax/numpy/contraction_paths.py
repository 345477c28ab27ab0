"""The order in which ``einsum`` contracts its operands, chosen as opt_einsum (which JAX
uses) chooses it, so that glassjax's ``einsum`` builds the same sequence of
``dot_general``s as JAX's.

Each candidate step contracts two operands; its cost is opt_einsum's flop count (the
product of the sizes of every index involved, doubled when an index is summed away).
``'optimal'`` tries every order, pruning orders already costlier than the best one
found. ``'branch'`` does the same depth-first search but visits, at each step, the
candidates in order of the memory they free, keeps at most ``nbranch`` of them, and drops
a branch that is 4x costlier than the best one had been at that depth. JAX's default,
``'auto'``, is ``optimal`` for up to 4 operands, then ``branch`` with all, 2 and 1
branches, and ``greedy`` beyond 14 operands.

Paths are found in "SSA" form (every intermediate gets the next new id) and returned in
the linear form ``einsum`` takes: positions in the shrinking list of operands.
"""
from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections import defaultdict


def _flops(indices, inner: bool, sizes) -> int:
    """opt_einsum's cost of one pairwise contraction."""
    return math.prod(sizes[i] for i in indices) * (2 if inner else 1)


def _contract(inputs, output, remaining, i, j, sizes):
    """The indices left after contracting ``inputs[i]`` with ``inputs[j]`` (those still
    needed by the output or another remaining operand) and the step's cost."""
    k1, k2 = inputs[i], inputs[j]
    keep = frozenset.union(output, *(inputs[k] for k in remaining - {i, j}))
    return (k1 | k2) & keep, _flops(k1 | k2, bool((k1 & k2) - keep), sizes)


def ssa_to_linear(ssa_path):
    """SSA ids -> positions in the list of operands still alive at each step."""
    n = sum(map(len, ssa_path)) - len(ssa_path) + 1
    ids, path, ssa = list(range(n)), [], n
    for step in ssa_path:
        positions = sorted(bisect.bisect_left(ids, s) for s in step)
        for p in reversed(positions):
            ids.pop(p)
        ids.append(ssa)
        path.append(tuple(positions))
        ssa += 1
    return path


def optimal(inputs, output, sizes):
    """The cheapest order (ties: the first found in lexicographic order of pairs).
    Like opt_einsum, a pair's result is cached by the two index sets alone."""
    inputs = tuple(map(frozenset, inputs))
    output = frozenset(output)
    best = {"flops": float("inf"), "ssa_path": ()}
    cache = {}

    def search(path, inputs, remaining, flops):
        if len(remaining) == 1:
            best["flops"], best["ssa_path"] = flops, path
            return
        for i, j in itertools.combinations(remaining, 2):     # (set order, as opt_einsum)
            i, j = min(i, j), max(i, j)
            key = (inputs[i], inputs[j])
            if key not in cache:
                cache[key] = _contract(inputs, output, remaining, i, j, sizes)
            k12, flops12 = cache[key]
            if flops + flops12 >= best["flops"]:
                continue
            search(path + ((i, j),), inputs + (k12,), (remaining - {i, j}) | {len(inputs)},
                   flops + flops12)

    search((), inputs, set(range(len(inputs))), 0)
    return ssa_to_linear(best["ssa_path"])


def branch(inputs, output, sizes, nbranch=None, cutoff_flops_factor=4):
    """opt_einsum's branch-and-bound search (``BranchBound``, minimizing flops, then the
    largest intermediate; candidates ranked by memory removed)."""
    inputs = tuple(map(frozenset, inputs))
    output = frozenset(output)
    size_of = {}
    size = lambda k: size_of.setdefault(k, math.prod(sizes[i] for i in k))
    best = {"flops": float("inf"), "size": float("inf"), "ssa_path": ()}
    best_progress = defaultdict(lambda: float("inf"))
    cache = {}

    def assess(inputs, remaining, flops, largest, i, j):
        k1, k2 = inputs[i], inputs[j]
        if (k1, k2) not in cache:
            cache[k1, k2] = _contract(inputs, output, remaining, i, j, sizes)
        k12, flops12 = cache[k1, k2]
        new_flops, new_size = flops + flops12, max(largest, size(k12))
        if not (new_flops, new_size) < (best["flops"], best["size"]):
            return None
        if new_flops < best_progress[len(inputs)]:
            best_progress[len(inputs)] = new_flops
        elif new_flops > cutoff_flops_factor * best_progress[len(inputs)]:
            return None
        cost = size(k12) - size(k1) - size(k2)       # memory removed
        return cost, flops12, new_flops, new_size, (i, j), k12

    def search(path, inputs, remaining, flops, largest):
        if len(remaining) == 1:
            best.update(flops=flops, size=largest, ssa_path=path)
            return
        candidates = []
        pairs = [tuple(sorted(p)) for p in itertools.combinations(remaining, 2)]
        for outer in (False, True):      # outer products only if nothing else is left
            for i, j in pairs:
                if not outer and inputs[i].isdisjoint(inputs[j]):
                    continue
                candidate = assess(inputs, remaining, flops, largest, i, j)
                if candidate:
                    heapq.heappush(candidates, candidate)
            if candidates:
                break
        taken = 0
        while (nbranch is None or taken < nbranch) and candidates:
            _, _, new_flops, new_size, (i, j), k12 = heapq.heappop(candidates)
            search(path + ((i, j),), inputs + (k12,), (remaining - {i, j}) | {len(inputs)},
                   new_flops, new_size)
            taken += 1

    search((), inputs, set(range(len(inputs))), 0, 0)
    return ssa_to_linear(best["ssa_path"])


def _size(key, sizes) -> int:
    return math.prod(sizes[i] for i in key)


def greedy(inputs, output, sizes):
    """opt_einsum's greedy path, in three stages: operands with identical indices are
    multiplied first (Hadamard products); then, repeatedly, the pair sharing an index
    whose contraction frees the most memory (ties: the oldest operands); finally outer
    products, smallest first."""
    if len(inputs) == 1:
        return [(0,)]
    keys = [frozenset(x) for x in inputs]
    output = frozenset(output) | frozenset.intersection(*keys)
    remaining, ssa_path = {}, []             # operand indices -> its SSA id
    ssa_ids = itertools.count(len(keys))
    for ssa_id, key in enumerate(keys):
        if key in remaining:
            ssa_path.append((remaining[key], ssa_id))
            remaining[key] = next(ssa_ids)
        else:
            remaining[key] = ssa_id
    dim_to_keys = defaultdict(set)          # a summed index -> the operands holding it
    for key in remaining:
        for dim in key - output:
            dim_to_keys[dim].add(key)
    # Summed indices held by at least 2 (3) operands: kept after a contraction of two.
    shared = {n: {d for d, ks in dim_to_keys.items() if len(ks) >= n} - output
              for n in (2, 3)}
    footprint = {key: _size(key, sizes) for key in remaining}

    def candidate(k1, k2):
        either, both = k1 | k2, k1 & k2
        k12 = (either & output) | (both & shared[3]) | ((either - both) & shared[2])
        cost = _size(k12, sizes) - footprint[k1] - footprint[k2]
        id1, id2 = remaining[k1], remaining[k2]
        if id1 > id2:
            k1, id1, k2, id2 = k2, id2, k1, id1
        return (cost, id2, id1), k1, k2, k12

    queue = []
    for dim_keys in dim_to_keys.values():
        dim_keys = sorted(dim_keys, key=remaining.__getitem__)
        for i, k1 in enumerate(dim_keys[:-1]):
            heapq.heappush(queue, min(candidate(k1, k2) for k2 in dim_keys[i + 1:]))
    while queue:
        _, k1, k2, k12 = heapq.heappop(queue)
        if k1 not in remaining or k2 not in remaining:
            continue                         # an operand of it is already contracted
        ssa_path.append((remaining.pop(k1), remaining.pop(k2)))
        for dim in k1 - output:
            dim_to_keys[dim].remove(k1)
        for dim in k2 - output:
            dim_to_keys[dim].remove(k2)
        if k12 in remaining:
            ssa_path.append((remaining[k12], next(ssa_ids)))
        else:
            for dim in k12 - output:
                dim_to_keys[dim].add(k12)
        remaining[k12] = next(ssa_ids)
        for dim in k1 | k2 - output:
            count = len(dim_to_keys[dim])
            for n in (2, 3):
                (shared[n].add if count >= n else shared[n].discard)(dim)
        footprint[k12] = _size(k12, sizes)
        k2s = {k2 for dim in k12 for k2 in dim_to_keys[dim]} - {k12}
        if k2s:
            heapq.heappush(queue, min(candidate(k12, k2) for k2 in k2s))
    final = [(_size(key & output, sizes), ssa_id, key) for key, ssa_id in remaining.items()]
    heapq.heapify(final)
    _, id1, k1 = heapq.heappop(final)
    while final:
        _, id2, k2 = heapq.heappop(final)
        ssa_path.append((min(id1, id2), max(id1, id2)))
        k12 = (k1 | k2) & output
        _, id1, k1 = heapq.heappushpop(final, (_size(k12, sizes), next(ssa_ids), k12))
    return ssa_to_linear(ssa_path)


def auto(inputs, output, sizes):
    """JAX's default (opt_einsum's ``'auto'``)."""
    n = len(inputs)
    if n <= 4:
        return optimal(inputs, output, sizes)
    if n <= 14:
        return branch(inputs, output, sizes, nbranch=None if n <= 6 else 2 if n <= 8 else 1)
    return greedy(inputs, output, sizes)


STRATEGIES = {
    "optimal": optimal, "auto": auto, "greedy": greedy, "branch-all": branch,
    "branch-2": lambda *a: branch(*a, nbranch=2), "branch-1": lambda *a: branch(*a, nbranch=1),
}

"""A seeded generator of small random JAX programs.

A program is a straight-line function ``f`` of one to three inputs built from ``jnp`` and
``lax`` operations, wrapped in one transformation (jit, grad, vmap, jvp, scan, fori_loop,
cond, while_loop, checkpoint), together with example arguments. It is written as Python
source using the names ``jax``, ``jnp``, ``lax`` and ``np``, so the same text runs under
JAX and under glassjax. Programs are kept as lists of *steps* (one statement each) so the
runner can shrink a failing program by dropping steps.

    python -m tools.differential.generate --seed 0 --count 5     # print five programs
"""
from __future__ import annotations

import argparse
import json
import random

# dtype name -> how an example argument of shape S is written
DTYPES = ["float32", "int32", "bool", "float16", "bfloat16"]
FLOATS = ["float32", "float16", "bfloat16"]

# Elementwise operations: (template, operand kinds it accepts). {a}, {b}: variables.
UNARY = {
    "jnp.sin({a})": "f", "jnp.cos({a})": "f", "jnp.tanh({a})": "f", "jnp.exp({a})": "f",
    "jnp.log1p(jnp.abs({a}))": "f", "jnp.sqrt(jnp.abs({a}))": "f", "-{a}": "fi",
    "jnp.abs({a})": "fi", "jnp.square({a})": "fi", "jnp.sign({a})": "fi",
    "lax.neg({a})": "fi", "jnp.logical_not({a})": "b", "~{a}": "bi",
    "jnp.floor({a})": "f", "jnp.round({a})": "f", "{a}.astype(jnp.float32)": "fib",
    "{a}.astype(jnp.int32)": "fib", "lax.convert_element_type({a}, jnp.float16)": "fi",
    "jnp.cumsum({a})": "fi", "jnp.flip({a})": "fib", "jnp.where({a} > 0, {a}, 0)": "fi",
    "jnp.clip({a}, -1, 1)": "fi", "jax.nn.relu({a})": "f", "jax.nn.sigmoid({a})": "f",
    "lax.stop_gradient({a})": "f", "jnp.zeros_like({a})": "fib", "jnp.ones_like({a})": "fib",
}
BINARY = {
    "{a} + {b}": "fi", "{a} - {b}": "fi", "{a} * {b}": "fi", "{a} / ({b} * {b} + 1)": "f",
    "jnp.maximum({a}, {b})": "fi", "jnp.minimum({a}, {b})": "fi", "{a} & {b}": "bi",
    "{a} | {b}": "bi", "jnp.logical_and({a}, {b})": "b", "jnp.where({a} > {b}, {a}, {b})": "fi",
    "lax.max({a}, {b})": "fi", "jnp.arctan2({a}, {b})": "f",
}
SCALAR_BINARY = {      # with a Python scalar: weak types
    "{a} * {s}": "fi", "{a} + {s}": "fi", "{s} - {a}": "fi", "{a} ** 2": "fi",
    "jnp.maximum({a}, {s})": "fi", "{a} > {s}": "fi", "jnp.where({a} > {s}, {a}, {s})": "fi",
}
REDUCTIONS = ["jnp.sum({a})", "jnp.max({a})", "jnp.mean({a})", "jnp.prod({a})",
              "jnp.min({a})", "jnp.sum({a} * {a})", "jnp.max({a}, initial=-jnp.inf)"]
# Operations that need at least one axis.
ARRAY_UNARY = {
    "jnp.roll({a}, 1)": "fib", "{a}[::-1]": "fib", "jnp.sort({a})": "fi",
    "lax.cummax({a}, 0)": "fi", "jnp.cumprod({a})": "f", "{a} - jnp.mean({a})": "f",
    "jnp.concatenate([{a}[1:], {a}[:1]])": "fib", "jax.nn.softmax({a})": "f",
}
TRANSFORMS = ["plain", "jit", "grad", "vmap", "jvp", "scan", "fori_loop", "cond",
              "while_loop", "checkpoint", "jit_grad", "vmap_jit", "grad_checkpoint",
              "jvp_jit", "vmap_scan", "grad_scan", "grad_cond", "vmap_cond", "grad_vmap"]
DIFFERENTIABLE = ("grad", "jvp", "jit_grad", "grad_checkpoint", "jvp_jit", "grad_scan",
                  "grad_cond", "grad_vmap")


def _kind(dtype: str) -> str:
    return "b" if dtype == "bool" else "i" if dtype == "int32" else "f"


def _example(dtype: str, shape: tuple, rng: random.Random) -> str:
    if shape == () and rng.random() < 0.3 and dtype in ("float32", "int32", "bool"):
        return {"float32": repr(round(rng.uniform(-2, 2), 2)),    # a Python scalar: weak
                "int32": str(rng.randint(-3, 3)), "bool": str(rng.random() < 0.5)}[dtype]
    n = max(1, int(__import__("math").prod(shape)))
    values = {"bool": f"np.arange({n}) % 2 == 0",
              "int32": f"np.arange({n}) - {n // 2}"}.get(
        dtype, f"np.linspace(-1.5, 1.5, {n})")
    return f"jnp.asarray(({values}).reshape({shape!r}), jnp.{dtype})"


def generate(seed: int) -> dict:
    """One program: ``{"seed", "transform", "steps", "args"}``. ``steps`` are source
    lines of ``f``'s body (the last defines ``out``)."""
    rng = random.Random(seed)
    transform = rng.choice(TRANSFORMS)
    differentiable = transform in DIFFERENTIABLE
    dtype = rng.choice(FLOATS if differentiable else DTYPES)
    shape = rng.choice([(), (3,), (2, 3)])
    n_in = rng.randint(1, 3)
    args = [_example(dtype, shape, rng) for _ in range(n_in)]
    kind = _kind(dtype)
    names = [f"x{i}" for i in range(n_in)]
    steps, live = [], list(names)
    for k in range(rng.randint(1, 5)):
        table = rng.choice([UNARY, BINARY, SCALAR_BINARY] + ([ARRAY_UNARY] if shape else []))
        choices = [t for t, kinds in table.items() if kind in kinds]
        if not choices:
            continue
        template = rng.choice(choices)
        a, b = rng.choice(live), rng.choice(live)
        scalar = {"f": repr(round(rng.uniform(-2, 2), 1)), "i": str(rng.randint(1, 3)),
                  "b": "True"}[kind]
        expr = template.format(a=a, b=b, s=scalar)
        if kind == "b" and template in SCALAR_BINARY:
            continue
        var = f"v{k}"
        # keep the variable's kind: casts and comparisons change it
        if any(c in template for c in (".astype(", "convert_element_type", " > ")):
            expr = f"({expr}).astype({a}.dtype)"
        steps.append(f"{var} = {expr}")
        live.append(var)
    last = live[-1]
    if differentiable or transform in ("while_loop",) or rng.random() < 0.3:
        reduction = rng.choice(REDUCTIONS if kind == "f" else REDUCTIONS[:2])
        steps.append(f"out = {reduction.format(a=last)}")
    else:
        steps.append(f"out = {last}")
    return {"seed": seed, "transform": transform, "steps": steps, "args": args,
            "dtype": dtype, "shape": list(shape)}


def source(program: dict) -> str:
    """The program as Python source defining ``f``, ``args`` and ``g`` (the transformed
    function the runner calls and traces: ``g(*args)``)."""
    n = len(program["args"])
    params = ", ".join(f"x{i}" for i in range(n))
    body = "\n".join("    " + s for s in program["steps"])
    lines = [f"def f({params}):", body, "    return out", "",
             f"args = [{', '.join(program['args'])}]"]
    t = program["transform"]
    wrap = {
        "plain": "g = f",
        "jit": "g = jax.jit(f)",
        "grad": "g = jax.grad(f, argnums=0)",
        "jit_grad": "g = jax.jit(jax.grad(f))",
        "vmap": "g = jax.vmap(f)\nargs = [jnp.stack([a, a]) for a in args]",
        "vmap_jit": "g = jax.vmap(jax.jit(f))\nargs = [jnp.stack([a, a]) for a in args]",
        "jvp": "g = lambda *xs: jax.jvp(f, xs, tuple(jnp.ones_like(x) for x in xs))",
        "checkpoint": "g = jax.checkpoint(f)",
        "scan": ("def g(*xs):\n    def body(c, _):\n        return c, f(*xs)\n"
                 "    return lax.scan(body, 0, None, length=2)"),
        "fori_loop": ("def g(*xs):\n    return lax.fori_loop(0, 2, lambda i, c: f(*xs), "
                      "f(*xs))"),
        "cond": ("def g(*xs):\n    return lax.cond(jnp.sum(jnp.asarray(xs[0], jnp.float32)) "
                 "> 0, f, lambda *ys: f(*ys), *xs)"),
        "grad_checkpoint": "g = jax.grad(lambda *xs: jnp.sum(jax.checkpoint(f)(*xs)))",
        "jvp_jit": "g = lambda *xs: jax.jvp(jax.jit(f), xs, tuple(jnp.ones_like(x) for x in xs))",
        "vmap_scan": ("def g(*xs):\n    return jax.vmap(lambda *ys: lax.scan(lambda c, _: "
                      "(c, f(*ys)), 0, None, length=2))(*xs)\n"
                      "args = [jnp.stack([a, a]) for a in args]"),
        "grad_scan": ("def g(*xs):\n    def h(x0):\n        c, _ = lax.scan(lambda c, _: "
                      "(jnp.sum(f(c, *xs[1:])).astype(c.dtype) + 0 * c, None), x0, None, "
                      "length=2)\n        return jnp.sum(c)\n    return jax.grad(h)(xs[0])"),
        "grad_cond": ("g = jax.grad(lambda *xs: lax.cond(True, lambda: jnp.sum(f(*xs)), "
                      "lambda: jnp.sum(f(*xs)) * 2))"),
        "vmap_cond": ("g = jax.vmap(lambda *xs: lax.cond(jnp.sum(jnp.asarray(xs[0], "
                      "jnp.float32)) > 0, f, lambda *ys: f(*ys), *xs))\n"
                      "args = [jnp.stack([a, -a if a.dtype != jnp.bool_ else a]) for a in "
                      "map(jnp.asarray, args)]"),
        "grad_vmap": "g = jax.grad(lambda *xs: jnp.sum(jax.vmap(f)(*(jnp.stack([x, x]) "
                     "for x in xs))))",
        "while_loop": ("def g(*xs):\n    return lax.while_loop(lambda c: c[0] < 2, "
                       "lambda c: (c[0] + 1, f(*xs)), (0, f(*xs)))"),
    }[t]
    lines.append(wrap)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the programs as JSON")
    opts = parser.parse_args()
    programs = [generate(opts.seed + i) for i in range(opts.count)]
    if opts.json:
        print(json.dumps(programs, indent=1))
    else:
        for p in programs:
            print(f"# program {p['seed']} ({p['transform']})\n{source(p)}")


if __name__ == "__main__":
    main()

# tracer errors: bool, float, index, item
import jax
import jax.numpy as jnp

def run(name, fn, *args):
    try:
        print(name, fn(*args))
    except Exception as e:
        print(name, type(e).__name__)
        print(str(e).split("\n")[0])

run("bool", jax.jit(lambda x: bool(x)), 1.0)
run("float", jax.jit(lambda x: float(x)), 1.0)
run("int", jax.jit(lambda x: int(x)), 1.0)
run("index", jax.jit(lambda x: [1, 2, 3][x]), 1)
run("item", jax.jit(lambda x: x.item()), 1.0)
run("tolist", jax.jit(lambda x: x.tolist()), jnp.arange(2))
run("and", jax.jit(lambda x, y: x and y), True, False)
run("while", jax.jit(lambda x: [x := x - 1 for _ in iter(lambda: x > 0, False)]), 3)
run("complex", jax.jit(lambda x: complex(x)), 1.0)
run("hex", jax.jit(lambda x: hex(x)), 1)

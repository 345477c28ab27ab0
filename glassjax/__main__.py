"""``python -m glassjax run script.py [args]`` (or ``run -m module [args]``): run a
program written for JAX on glassjax, ``import jax`` meaning glassjax (see ``as_jax.py``)."""
import sys

from glassjax import as_jax

if sys.argv[1:2] == ["run"]:
    as_jax.run(sys.argv[2:])
else:
    raise SystemExit("usage: python -m glassjax run script.py [args...]\n"
                     "       python -m glassjax run -m module [args...]")

"""``python -m glassjax run script.py [args]`` (or ``run -m module [args]``): run a
program written for JAX on glassjax, ``import jax`` meaning glassjax (see ``as_jax.py``)."""
import sys

from glassjax import as_jax


def main(argv: list[str]) -> None:
    if argv[:1] == ["run"]:
        as_jax.run(argv[1:])
    else:
        raise SystemExit("usage: python -m glassjax run script.py [args...]\n"
                         "       python -m glassjax run -m module [args...]")


if __name__ == "__main__":
    main(sys.argv[1:])

"""``jax._src.util``: the small helpers JAX's tutorials import from it."""


def _equal_lengths(args) -> list[list]:
    args = list(map(list, args))
    if len({len(a) for a in args}) > 1:
        raise ValueError(f"length mismatch: {list(map(len, args))}")
    return args


def safe_map(f, *args):
    """``list(map(f, *args))`` that insists the arguments have equal lengths."""
    return list(map(f, *_equal_lengths(args)))


def safe_zip(*args):
    """``list(zip(*args))`` that insists the arguments have equal lengths."""
    return list(zip(*_equal_lengths(args)))

"""The version of glassjax (one place, read by the package root and by bug reports), and
the JAX release whose behaviour it mirrors (what ``jax.__version__`` reports when
``import jax`` means glassjax, see ``as_jax.py``). Read next: core.py."""
__version__ = "0.1.0"

jax_version = "0.10.2"
jax_version_info = tuple(int(part) for part in jax_version.split("."))

"""``jax._src``: JAX's private package, of which glassjax keeps only the few modules that
JAX's own tutorials, guides and docstrings import (``from jax._src import api``, ``from
jax._src.lax import lax``, ``from jax._src.util import safe_map``, ``from
jax._src.tree_util import flatten_one_level``, ``from jax._src.lib.mlir.dialects import
hlo``, ``from jax._src import core``, ``from jax._src.interpreters import mlir``), each
an alias of glassjax's public module that holds the same names. Code that reaches
further into JAX's internals is not expected to run."""

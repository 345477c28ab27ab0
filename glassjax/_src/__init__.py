"""``jax._src``: JAX's private package, of which glassjax keeps only the few modules that
JAX's own tutorials, guides and docstrings import (``from jax._src import api``, ``from
jax._src.lax import lax``, ``from jax._src.util import safe_map``, ``from
jax._src.tree_util import flatten_one_level``, ``from jax._src.lib.mlir.dialects import
hlo``, ``from jax._src import core``, ``from jax._src.interpreters import mlir``), each
an alias of glassjax's public module that holds the same names. Code that reaches
further into JAX's internals is not expected to run.

Two are imported with the package, because libraries reach them as attributes
(``jax._src.xla_bridge._backends``) or patch them: ``jax._src.compiler`` is glassjax's
runtime module whose ``backend_compile_and_load`` every compile goes through (the same
module object, so a patch of it takes effect).
"""
import sys

from glassjax._src import xla_bridge  # noqa: F401
from glassjax.xla import compiler

sys.modules[__name__ + ".compiler"] = compiler   # ``import jax._src.compiler`` finds it

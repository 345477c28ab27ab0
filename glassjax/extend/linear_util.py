"""``jax.extend.linear_util``: functions with transformations stacked on them
(``WrappedFun``), which libraries built on JAX's internals hand to
``jax.api_util.flatten_fun`` and ``partial_eval.trace_to_jaxpr_nounits``."""
from glassjax.linear_util import (StoreException, WrappedFun, cache, merge_linear_aux,
                                  transformation, transformation2, transformation_with_aux,
                                  transformation_with_aux2, wrap_init)

__all__ = ["StoreException", "WrappedFun", "cache", "merge_linear_aux", "transformation",
           "transformation2", "transformation_with_aux", "transformation_with_aux2",
           "wrap_init"]

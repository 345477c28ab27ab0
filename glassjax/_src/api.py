"""``jax._src.api``: where JAX defines jit, grad, vmap, ...; glassjax's public names."""
from glassjax.ad_api import (grad, hessian, jacfwd, jacrev, jvp, linearize, value_and_grad,
                             vjp)
from glassjax.jit import eval_shape, jit, make_jaxpr
from glassjax.vmap_api import vmap

__all__ = ["eval_shape", "grad", "hessian", "jacfwd", "jacrev", "jit", "jvp", "linearize",
           "make_jaxpr", "value_and_grad", "vjp", "vmap"]

"""``glassjax.nn``: common functions for neural networks (JAX's ``jax.nn``)."""
from glassjax.nn.functions import (
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity,
    leaky_relu, log1mexp, log_sigmoid, log_softmax, logmeanexp, mish, one_hot, relu, relu6,
    selu, sigmoid, silu, soft_sign, softmax, softplus, sparse_plus, sparse_sigmoid,
    squareplus, standardize, swish, tanh)
from glassjax.nn.special import logsumexp
# (``glassjax.nn.initializers`` is imported by the package root, after ``random``, which
# it uses: importing it here would make nn -> initializers -> random -> nn a cycle.)
from glassjax.nn.attention import dot_product_attention
from glassjax.nn.scaled_matmul import (get_scaled_dot_general_config, scaled_dot_general,
                                       scaled_matmul)

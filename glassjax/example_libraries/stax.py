"""``jax.example_libraries.stax``: neural-network layers as pairs of pure functions.

A layer is ``(init_fun, apply_fun)``: ``init_fun(rng, input_shape)`` returns
``(output_shape, params)`` and ``apply_fun(params, inputs, **kwargs)`` the outputs.
Combinators build networks from layers: ``serial`` chains them, ``parallel`` applies
one to each of several inputs, and ``FanOut`` / ``FanInSum`` / ``FanInConcat`` split and
join the data flow.
"""
from __future__ import annotations

from glassjax import nn, random
from glassjax import numpy as jnp
from glassjax.nn.initializers import glorot_normal, normal


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: ``inputs @ W + b``."""
    def init_fun(rng, input_shape):
        k1, k2 = random.split(rng)
        return (*input_shape[:-1], out_dim), (W_init(k1, (input_shape[-1], out_dim)),
                                             b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer without parameters applying ``fun`` to every element."""
    init_fun = lambda rng, input_shape: (input_shape, ())
    apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(nn.relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(nn.log_softmax, axis=-1)
Softmax = elementwise(nn.softmax, axis=-1)
Softplus = elementwise(nn.softplus)
Sigmoid = elementwise(nn.sigmoid)
Elu = elementwise(nn.elu)
LeakyRelu = elementwise(nn.leaky_relu)
Selu = elementwise(nn.selu)
Gelu = elementwise(nn.gelu)


# A layer that returns its input.
Identity = (lambda rng, input_shape: (input_shape, ()),
            lambda params, inputs, **kwargs: inputs)


def FanOut(num):
    """Copy the input ``num`` times (a list of inputs for ``parallel``)."""
    init_fun = lambda rng, input_shape: ([input_shape] * num, ())
    apply_fun = lambda params, inputs, **kwargs: [inputs] * num
    return init_fun, apply_fun


# A layer summing a list of inputs.
FanInSum = (lambda rng, input_shape: (input_shape[0], ()),
            lambda params, inputs, **kwargs: sum(inputs))


def FanInConcat(axis=-1):
    """Concatenate a list of inputs along ``axis``."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        out_shape = (*input_shape[0][:ax], concat_size, *input_shape[0][ax + 1:])
        return out_shape, ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def serial(*layers):
    """The layers one after the other."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(apply_funs)) if rng is not None else \
            (None,) * len(apply_funs)
        for fun, param, layer_rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """One layer for each input of a list (as ``FanOut`` makes), side by side."""
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = random.split(rng, len(init_funs))
        return tuple(zip(*[init(r, shape) for init, r, shape
                           in zip(init_funs, rngs, input_shape)]))

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, len(apply_funs)) if rng is not None else \
            (None,) * len(apply_funs)
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in
                zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer made only once the input shape is known (``make_layer(input_shape)``)."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun


__all__ = ["Dense", "Elu", "Exp", "FanInConcat", "FanInSum", "FanOut", "Gelu", "Identity",
           "LeakyRelu", "LogSoftmax", "Relu", "Selu", "Sigmoid", "Softmax", "Softplus",
           "Tanh", "elementwise", "parallel", "serial", "shape_dependent"]

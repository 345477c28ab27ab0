"""The Python array API's entry points, as JAX 0.10.2 provides them: ``x.__array_namespace__()``
is ``jax.numpy`` (on arrays and tracers alike) and ``jnp.__array_namespace_info__()``
describes it."""
import numpy as np
import pytest

import glassjax as jax
import glassjax.numpy as jnp


def test_namespace_of_arrays_and_tracers():
    x = jnp.arange(3.)
    assert x.__array_namespace__() is jnp
    assert x.__array_namespace__(api_version="2024.12") is jnp
    f = lambda x: (lambda nx: nx.sin(x) ** 2 + nx.cos(x) ** 2)(x.__array_namespace__())
    np.testing.assert_allclose(jax.jit(f)(x), np.ones(3), rtol=1e-6)
    with pytest.raises(ValueError, match=r"api_version='2023.12' is not available; "
                                         r"available versions are: \['2024.12'\]"):
        x.__array_namespace__(api_version="2023.12")
    assert jnp.__array_api_version__ == "2024.12"


def test_namespace_info():
    info = jnp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": False,
                                   "data-dependent shapes": False, "max dimensions": 64}
    assert info.default_device() is None and info.devices()[0] is None
    assert info.devices()[1:] == jax.devices()
    assert info.default_dtypes() == {"real floating": np.float32,
                                     "complex floating": np.complex64,
                                     "integral": np.int32, "indexing": np.int32}
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "uint8", "uint16",
                                  "uint32", "float32", "complex64"}
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "uint8",
                                                 "uint16", "uint32"}
    assert set(info.dtypes(kind=("bool", "real floating"))) == {"bool", "float32"}


def test_objects_with_jax_array_are_not_abstractified():
    class Custom:
        def __jax_array__(self):
            return jnp.arange(3)
    with pytest.raises(ValueError, match="Triggering __jax_array__.. during "
                                         "abstractification is no longer supported"):
        jax.jit(lambda x: x)(Custom())
    with pytest.raises(TypeError, match="^jit.. got an unexpected keyword argument "
                                        "'out_sharding'$"):
        jax.jit(lambda x: x, out_sharding=None)


def test_dir_of_random_lists_its_public_functions():
    """What ``dir(jax.random)`` lists as callable under JAX 0.10.2."""
    assert sorted(x for x in dir(jax.random) if callable(getattr(jax.random, x))) == [
        "PRNGKey", "ball", "bernoulli", "beta", "binomial", "bits", "categorical",
        "cauchy", "chisquare", "choice", "clone", "dirichlet",
        "double_sided_maxwell", "exponential", "f", "fold_in", "gamma",
        "generalized_normal", "geometric", "gumbel", "key", "key_data", "key_dtype",
        "key_impl", "laplace", "loggamma", "logistic", "lognormal", "maxwell",
        "multinomial", "multivariate_normal", "normal", "orthogonal", "pareto",
        "permutation", "poisson", "rademacher", "randint", "rayleigh", "split", "t",
        "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
        "wrap_key_data"]

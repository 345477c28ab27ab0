"""The switch that makes ``import jax`` mean glassjax, so code written for JAX (optax,
flax, equinox, chex, brainstate, a tutorial, a whole test suite) runs on glassjax
unchanged and every jaxpr it makes can be opened.

Four ways to flip it, all ending in :func:`install`:

- ``glassjax.as_jax()`` in a running process (before anything imports the real ``jax``);
- ``python -m glassjax run script.py [args]`` or ``python -m glassjax run -m module``;
- ``pytest -p glassjax.as_jax`` (this module is also a pytest plugin);
- the Jupyter kernel "Python 3 (glassjax as jax)" (``python -m glassjax.kernel install
  --as-jax``).

What ``jax`` then is: ``jax.numpy``, ``jax.lax``, ``jax.extend.core``, ... are
glassjax's own module objects (no copies, no wrappers), found by a ``sys.meta_path``
finder that serves every ``jax.X`` from ``glassjax.X``. Only ``jax`` itself is a thin
module of its own, because it must report the JAX release glassjax mirrors
(``jax.__version__ == "0.10.2"``, ``jax.__version_info__``, ``jax.version``) while
``glassjax.__version__`` stays glassjax's; every other attribute is read from and
written to glassjax's root (so a library that monkeypatches ``jax.jit`` patches
glassjax's). ``importlib.metadata.version("jax")`` answers too, and the switch is
inherited by child processes (``GLASSJAX_AS_JAX=1`` and a ``sitecustomize`` on
``PYTHONPATH``), since libraries' tests start ``python -c "import jax"``.

Limits: the real ``jax`` can no longer be imported in that process; a name of JAX that
glassjax does not have raises ``ImportError`` / ``AttributeError`` as a missing name
would.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.metadata
import importlib.util
import os
import pathlib
import runpy
import sys
import types

from glassjax.version import jax_version, jax_version_info

ENV_VAR = "GLASSJAX_AS_JAX"
# The folder whose ``sitecustomize.py`` flips the switch in child processes.
SITE_DIR = str(pathlib.Path(__file__).resolve().parent / "switch_site")


def _glassjax():
    """The package this module belongs to (always imported before its submodules)."""
    return sys.modules[__name__.rpartition(".")[0]]


class _JaxRoot(types.ModuleType):
    """The module ``jax``: glassjax's namespace, read and written through, except for the
    version attributes, which are JAX's, and the module's own dunders (``__spec__``,
    ``__path__``, ...), which the import system sets on it."""

    _own = frozenset({"version", "__version__", "__version_info__"})

    def __getattr__(self, name):
        try:
            return getattr(_glassjax(), name)
        except AttributeError:
            raise AttributeError(f"module 'jax' has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        if name in self._own or (name.startswith("__") and name.endswith("__")):
            super().__setattr__(name, value)
        else:
            setattr(_glassjax(), name, value)

    def __delattr__(self, name):
        if name in self.__dict__:
            super().__delattr__(name)
        else:
            delattr(_glassjax(), name)

    def __dir__(self):
        return sorted(set(dir(_glassjax())) | set(self.__dict__))


def _version_module():
    """``jax.version``: the JAX release glassjax mirrors."""
    module = types.ModuleType("jax.version", "The JAX release glassjax mirrors.")
    module.__version__ = module._version = jax_version
    module.__version_info__ = jax_version_info
    module.glassjax_version = _glassjax().__version__
    return module


class _JaxDistribution(importlib.metadata.Distribution):
    """``importlib.metadata`` answers for ``jax`` with the release glassjax mirrors
    (libraries read it: brainstate skips its interop tests without it)."""

    def read_text(self, filename):
        if filename == "METADATA":
            return (f"Metadata-Version: 2.1\nName: jax\nVersion: {jax_version}\n"
                    f"Summary: glassjax {_glassjax().__version__}, serving as JAX\n")
        return None

    def locate_file(self, path):
        return pathlib.Path(_glassjax().__file__).parent / path


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves ``jax`` and every ``jax.X`` (the latter as the module ``glassjax.X``)."""

    def find_spec(self, name, path=None, target=None):
        if name == "jax" or name == "jax.version":
            return importlib.util.spec_from_loader(name, self, is_package=name == "jax")
        if not name.startswith("jax."):
            return None
        parent, _, last = ("glassjax" + name[len("jax"):]).rpartition(".")
        public = getattr(sys.modules.get(parent), last, None)
        if public is not None and not isinstance(public, types.ModuleType):
            # ``jax.config`` / ``jax.jit`` are an object and a function, not modules
            # (glassjax's modules of those names are shadowed as JAX's are): as in JAX,
            # ``import jax.config`` fails, and the object stays what ``jax.config`` is.
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        try:
            module = importlib.import_module("glassjax" + name[len("jax"):])
        except ModuleNotFoundError as e:
            if e.name and e.name.startswith("glassjax"):
                raise ModuleNotFoundError(f"No module named '{name}' (glassjax, serving "
                                          "as jax, has no such module)", name=name) from None
            raise
        spec = importlib.util.spec_from_loader(name, self,
                                               is_package=hasattr(module, "__path__"))
        spec.loader_state = (module, module.__spec__)   # the spec is overwritten on load
        return spec

    def create_module(self, spec):
        if spec.name == "jax":
            root = _JaxRoot("jax", _glassjax().__doc__)
            root.version = _version_module()
            root.__version__, root.__version_info__ = jax_version, jax_version_info
            return root
        if spec.name == "jax.version":
            return sys.modules["jax"].version
        return spec.loader_state[0]

    def exec_module(self, module):
        if module.__spec__.loader_state is not None:   # a glassjax module: its spec back
            module.__spec__ = module.__spec__.loader_state[1]

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if context.name in (None, "jax"):
            return iter([_JaxDistribution()])
        return iter(())


def installed() -> bool:
    """Whether ``import jax`` means glassjax in this process."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)


def install() -> None:
    """Make ``import jax`` (and ``import jax.X``) mean glassjax in this process and in the
    processes it starts. Idempotent; a ``RuntimeError`` if the real ``jax`` is already
    imported, since two engines cannot share the name."""
    if installed():
        return
    real = sys.modules.get("jax")
    if real is not None and not isinstance(real, _JaxRoot):
        raise RuntimeError(
            "glassjax.as_jax(): the real 'jax' package is already imported in this "
            "process, so 'import jax' cannot be made to mean glassjax. Flip the switch "
            "before anything imports jax (first line of the script or notebook), or run "
            "'python -m glassjax run script.py'.")
    sys.meta_path.insert(0, _Finder())
    os.environ[ENV_VAR] = "1"
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if SITE_DIR not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([SITE_DIR] + [p for p in paths if p])


class _Switch(types.ModuleType):
    """This module is callable, so that ``glassjax.as_jax()`` flips the switch while
    ``pytest -p glassjax.as_jax`` names the same module as a plugin."""

    def __call__(self) -> None:
        install()


sys.modules[__name__].__class__ = _Switch


# ---------------------------------------------------------------- pytest plugin

def pytest_load_initial_conftests(early_config, parser, args):
    """``pytest -p glassjax.as_jax``: the switch is flipped before any conftest or test
    module imports jax (pytest calls this hook before loading the first conftest)."""
    install()


# ---------------------------------------------------------------- python -m glassjax run

def run(argv: list[str]) -> None:
    """``python -m glassjax run script.py [args]`` / ``run -m module [args]``: run a
    program written for JAX with ``import jax`` meaning glassjax, as ``python`` would
    run it (``sys.argv``, ``__main__``, the script's folder first on ``sys.path``)."""
    if not argv or argv[0] in ("-h", "--help") or argv[:1] == ["-m"] and len(argv) < 2:
        raise SystemExit("usage: python -m glassjax run script.py [args...]\n"
                         "       python -m glassjax run -m module [args...]")
    install()
    if argv[0] == "-m":
        sys.argv = [argv[1]] + argv[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")

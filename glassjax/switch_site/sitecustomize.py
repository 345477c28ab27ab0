"""Flips ``import jax`` to glassjax in a child process of one where the switch is on
(``glassjax.as_jax`` puts this folder on ``PYTHONPATH`` and sets ``GLASSJAX_AS_JAX=1``),
then runs the ``sitecustomize`` this one hides, if there is one."""
import importlib.machinery
import importlib.util
import os
import sys

if os.environ.get("GLASSJAX_AS_JAX") == "1":
    import glassjax.as_jax
    glassjax.as_jax.install()

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here])
if _spec is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)

"""Prints the requirements of glassjax's ``ecosystem`` extra (pyproject.toml), one per
argument, so the Makefile installs the same pinned libraries next to the real JAX."""
import pathlib
import tomllib

pyproject = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"
print(" ".join(tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
               ["ecosystem"]))

"""``python -m glassjax.kernel install [--as-jax] [--user | --sys-prefix | --prefix DIR]``.

Installs a Jupyter kernel named "Python 3 (glassjax)": the ordinary IPython kernel of
this Python, started with the glassjax extension already loaded (``%jaxpr`` works in the
first cell) and with 8 CPU devices, so pmap and shard_map examples run on a laptop.

The devices come from ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` in the
kernel's environment: XLA reads it once, when the first computation creates the CPU
client, so it must be set before the kernel starts rather than in a cell. The extension
is loaded by running ``glassjax.load_ipython_extension`` at start-up, which (unlike
``--ext``) leaves a later ``%load_ext glassjax`` in a notebook silent, so notebooks that
load it themselves run the same under this kernel and under a plain one.

Both kernels keep compiled programs in JAX's persistent compilation cache, in the user's
cache folder (``$XDG_CACHE_HOME/glassjax/compilation-cache``, by default
``~/.cache/...``), with no minimum compile time, so running a notebook again does not
compile its programs again. ``--no-compilation-cache`` installs them without it (or, in a
notebook, ``jax.config.update("jax_enable_compilation_cache", False)``).

``--as-jax`` installs a second kernel, "Python 3 (glassjax as jax)", in which the switch
of ``as_jax.py`` is flipped before the first cell: ``import jax`` gives glassjax, so an
existing JAX notebook (and the libraries it imports) runs unchanged and ``%jaxpr`` opens
any of its functions.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

KERNEL_NAME = "glassjax"
KERNEL_NAME_AS_JAX = "glassjax-as-jax"
DEVICE_COUNT = 8


def compilation_cache_dir() -> str:
    """Where the kernels' persistent compilation cache lives: the user's cache folder."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "glassjax", "compilation-cache")


def kernel_spec(python: str = sys.executable, as_jax: bool = False,
                compilation_cache: bool = True) -> dict:
    """The ``kernel.json`` of the glassjax kernel (``as_jax``: the one where ``import jax``
    means glassjax), for the given Python interpreter."""
    switch = "_glassjax.as_jax(); " if as_jax else ""
    env = {"XLA_FLAGS": f"--xla_force_host_platform_device_count={DEVICE_COUNT}"}
    if compilation_cache:
        env.update(JAX_COMPILATION_CACHE_DIR=compilation_cache_dir(),
                   JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0")
    return {
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                 "--IPKernelApp.exec_lines=import glassjax as _glassjax; " + switch +
                 "_glassjax.load_ipython_extension(get_ipython()); del _glassjax"],
        "display_name": "Python 3 (glassjax as jax)" if as_jax else "Python 3 (glassjax)",
        "language": "python",
        "env": env,
        "metadata": {"debugger": True},
    }


def install(user: bool = False, prefix: str | None = None, as_jax: bool = False,
            compilation_cache: bool = True) -> str:
    """Install the kernel spec; returns the directory it was written to."""
    from jupyter_client.kernelspec import KernelSpecManager
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "kernel.json"), "w") as f:
            json.dump(kernel_spec(as_jax=as_jax, compilation_cache=compilation_cache), f,
                      indent=1)
        name = KERNEL_NAME_AS_JAX if as_jax else KERNEL_NAME
        return KernelSpecManager().install_kernel_spec(folder, name, user=user,
                                                       prefix=prefix)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m glassjax.kernel",
                                     description="Install the 'Python 3 (glassjax)' "
                                                 "Jupyter kernel.")
    parser.add_argument("command", choices=["install"])
    parser.add_argument("--as-jax", action="store_true",
                        help="install 'Python 3 (glassjax as jax)', where import jax "
                             "means glassjax")
    parser.add_argument("--no-compilation-cache", action="store_true",
                        help="do not keep compiled programs in the persistent cache")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for this user only")
    where.add_argument("--sys-prefix", action="store_true",
                       help="install into this Python's prefix (e.g. the virtualenv)")
    where.add_argument("--prefix", help="install into this prefix")
    args = parser.parse_args(argv)
    prefix = sys.prefix if args.sys_prefix else args.prefix
    path = install(user=args.user, prefix=prefix, as_jax=args.as_jax,
                   compilation_cache=not args.no_compilation_cache)
    title = kernel_spec(as_jax=args.as_jax)["display_name"]
    print(f"Installed the kernel '{title}' in {path}")


if __name__ == "__main__":
    main()

"""``python -m glassjax.kernel install [--user | --sys-prefix | --prefix DIR]``.

Installs a Jupyter kernel named "Python 3 (glassjax)": the ordinary IPython kernel of
this Python, started with the glassjax extension already loaded (``%jaxpr`` works in the
first cell) and with 8 CPU devices, so pmap and shard_map examples run on a laptop.

The devices come from ``XLA_FLAGS=--xla_force_host_platform_device_count=8`` in the
kernel's environment: XLA reads it once, when the first computation creates the CPU
client, so it must be set before the kernel starts rather than in a cell. The extension
is loaded by running ``glassjax.load_ipython_extension`` at start-up, which (unlike
``--ext``) leaves a later ``%load_ext glassjax`` in a notebook silent, so notebooks that
load it themselves run the same under this kernel and under a plain one.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

KERNEL_NAME = "glassjax"
DEVICE_COUNT = 8


def kernel_spec(python: str = sys.executable) -> dict:
    """The ``kernel.json`` of the glassjax kernel, for the given Python interpreter."""
    return {
        "argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                 "--IPKernelApp.exec_lines=import glassjax as _glassjax; "
                 "_glassjax.load_ipython_extension(get_ipython()); del _glassjax"],
        "display_name": "Python 3 (glassjax)",
        "language": "python",
        "env": {"XLA_FLAGS": f"--xla_force_host_platform_device_count={DEVICE_COUNT}"},
        "metadata": {"debugger": True},
    }


def install(user: bool = False, prefix: str | None = None) -> str:
    """Install the kernel spec; returns the directory it was written to."""
    from jupyter_client.kernelspec import KernelSpecManager
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "kernel.json"), "w") as f:
            json.dump(kernel_spec(), f, indent=1)
        return KernelSpecManager().install_kernel_spec(folder, KERNEL_NAME, user=user,
                                                       prefix=prefix)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m glassjax.kernel",
                                     description="Install the 'Python 3 (glassjax)' "
                                                 "Jupyter kernel.")
    parser.add_argument("command", choices=["install"])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for this user only")
    where.add_argument("--sys-prefix", action="store_true",
                       help="install into this Python's prefix (e.g. the virtualenv)")
    where.add_argument("--prefix", help="install into this prefix")
    args = parser.parse_args(argv)
    prefix = sys.prefix if args.sys_prefix else args.prefix
    path = install(user=args.user, prefix=prefix)
    print(f"Installed the kernel 'Python 3 (glassjax)' in {path}")


if __name__ == "__main__":
    main()

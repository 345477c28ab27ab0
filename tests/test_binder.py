"""The course runs in the environment Binder builds.

Binder (repo2docker) makes a Python from ``binder/runtime.txt``, installs
``binder/requirements.txt``, then runs ``binder/postBuild``. This test does the same in a
fresh virtual environment (never the project's own ``.venv``; pip's download cache may be
reused) and executes every notebook of the course in it with nbclient, on the kernel
``postBuild`` installs. It catches a requirement missing from ``binder/`` that the
project's own environment happens to have.
"""
import glob
import os
import subprocess
import sys
import venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "solutions", "*.ipynb")))

nbclient = pytest.importorskip("nbclient")


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory):
    runtime = open(os.path.join(ROOT, "binder", "runtime.txt")).read().strip()
    assert runtime == f"python-{sys.version_info.major}.{sys.version_info.minor}", (
        f"binder/runtime.txt asks for {runtime}; this test runs on the current Python")
    env_dir = tmp_path_factory.mktemp("binder") / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    environ = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                   VIRTUAL_ENV=str(env_dir), PIP_DISABLE_PIP_VERSION_CHECK="1")
    environ.pop("PYTHONPATH", None)
    subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet",
                    "--progress-bar", "off", "-r",
                    os.path.join(ROOT, "binder", "requirements.txt")],
                   env=environ, check=True)
    subprocess.run(["bash", os.path.join(ROOT, "binder", "postBuild")], cwd=ROOT,
                   env=environ, check=True)
    return env_dir


def test_postbuild_installed_glassjax_and_kernel(binder_env):
    out = subprocess.run([str(binder_env / "bin" / "python"), "-c",
                          "import glassjax, sys; print(glassjax.__file__)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip().startswith(os.path.join(ROOT, "glassjax"))
    for kernel in ("glassjax", "glassjax-as-jax"):
        assert (binder_env / "share" / "jupyter" / "kernels" / kernel / "kernel.json").exists()
    real_jax = subprocess.run([str(binder_env / "bin" / "python"), "-c", "import jax"],
                              capture_output=True, text=True)
    assert "No module named 'jax'" in real_jax.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_runs_in_binder_env(binder_env, path):
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    nb = nbformat.read(path, as_version=4)
    kernels = KernelSpecManager(
        kernel_dirs=[str(binder_env / "share" / "jupyter" / "kernels")])
    km = KernelManager(kernel_name="glassjax", kernel_spec_manager=kernels)
    client = nbclient.NotebookClient(nb, km=km, timeout=600,
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()      # raises CellExecutionError on the first failing cell...
    unexpected = [o for c in nb.cells if c.cell_type == "code" and       # ...unless the
                  "raises-exception" not in c.metadata.get("tags", [])  # cell says so
                  for o in c.outputs if o.output_type == "error"]
    assert not unexpected

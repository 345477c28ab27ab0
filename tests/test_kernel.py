"""The 'Python 3 (glassjax)' kernel: installed by ``python -m glassjax.kernel install``,
it starts with the extension loaded and 8 CPU devices."""
import json
import os
import subprocess
import sys

import pytest

jupyter_client = pytest.importorskip("jupyter_client")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    out = subprocess.run([sys.executable, "-m", "glassjax.kernel", "install", "--prefix",
                          str(prefix)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, XDG_CACHE_HOME=str(prefix / "cache")))
    assert "Python 3 (glassjax)" in out.stdout
    return prefix


def test_kernel_json(prefix):
    spec = json.load(open(prefix / "share" / "jupyter" / "kernels" / "glassjax" /
                          "kernel.json"))
    assert spec["display_name"] == "Python 3 (glassjax)"
    assert spec["argv"][0] == sys.executable
    assert spec["env"]["XLA_FLAGS"] == "--xla_force_host_platform_device_count=8"
    assert spec["env"]["JAX_COMPILATION_CACHE_DIR"] == str(
        prefix / "cache" / "glassjax" / "compilation-cache")
    assert spec["env"]["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "0"


def test_kernel_without_compilation_cache(tmp_path):
    subprocess.run([sys.executable, "-m", "glassjax.kernel", "install", "--prefix",
                    str(tmp_path), "--no-compilation-cache"], check=True, capture_output=True)
    spec = json.load(open(tmp_path / "share" / "jupyter" / "kernels" / "glassjax" /
                          "kernel.json"))
    assert "JAX_COMPILATION_CACHE_DIR" not in spec["env"]


def _run(client, code):
    """Execute ``code``; return (stdout text, error name or None)."""
    msg_id = client.execute(code)
    out, error = [], None
    while True:
        msg = client.get_iopub_msg(timeout=60)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            out.append(content["data"].get("text/plain", ""))
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(out), error


def test_kernel_runs_with_extension_and_devices(prefix):
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    ksm = KernelSpecManager(kernel_dirs=[str(prefix / "share" / "jupyter" / "kernels")])
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    km = KernelManager(kernel_name="glassjax", kernel_spec_manager=ksm)
    km.start_kernel(env=env)
    try:
        client = km.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        out, error = _run(client, "import glassjax\nprint(glassjax.device_count())")
        assert error is None and out.strip() == "8"
        # The magic is there without %load_ext, and loading it again is silent.
        out, error = _run(client, "%jaxpr --view text --no-run glassjax.numpy.sin(1.0)")
        assert error is None and "sin" in out
        out, error = _run(client, "%load_ext glassjax")
        assert error is None and out == ""
        # compiled programs are kept in the persistent cache (the folder the spec names)
        out, error = _run(client, "import glassjax, os\n"
                                  "glassjax.jit(lambda x: x * 3)(2.0).block_until_ready()\n"
                                  "print(len(os.listdir(os.environ['JAX_COMPILATION_CACHE_DIR'])) > 0)")
        assert error is None and out.strip() == "True"
        client.stop_channels()
    finally:
        km.shutdown_kernel(now=True)


def test_as_jax_kernel_runs_an_unchanged_jax_notebook(tmp_path):
    """'Python 3 (glassjax as jax)': ``import jax`` is glassjax from the first cell, and
    ``%jaxpr`` opens a function written against JAX."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    out = subprocess.run([sys.executable, "-m", "glassjax.kernel", "install", "--as-jax",
                          "--prefix", str(tmp_path)], capture_output=True, text=True,
                         check=True)
    assert "Python 3 (glassjax as jax)" in out.stdout
    kernels = tmp_path / "share" / "jupyter" / "kernels"
    spec = json.load(open(kernels / "glassjax-as-jax" / "kernel.json"))
    assert spec["display_name"] == "Python 3 (glassjax as jax)"
    km = KernelManager(kernel_name="glassjax-as-jax",
                       kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    km.start_kernel()
    try:
        client = km.client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        out, error = _run(client, "import jax, jax.numpy as jnp, glassjax\n"
                                  "print(jax.__version__, jax.numpy is glassjax.numpy)")
        assert error is None and out.strip() == "0.10.2 True"
        out, error = _run(client, "def f(x):\n    return jnp.tanh(x) * 2\n"
                                  "%jaxpr --view text --no-run f(1.0)")
        assert error is None
        assert "b:f32[] = tanh a" in out and "c:f32[] = mul b 2.0:f32[]" in out
        client.stop_channels()
    finally:
        km.shutdown_kernel(now=True)

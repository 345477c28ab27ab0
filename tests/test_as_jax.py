"""The switch that makes ``import jax`` mean glassjax (``glassjax/as_jax.py``). Each test
runs a fresh Python, since the switch changes the import system of the process it is
flipped in."""
import json
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(args, *, cwd=None, env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if k not in ("GLASSJAX_AS_JAX",) and not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def python(code, **kw):
    return run(["-c", textwrap.dedent(code)], **kw)


def test_jax_is_glassjax_and_reports_the_release_it_mirrors():
    out = python("""
        import json, importlib.metadata, glassjax
        glassjax.as_jax()
        import jax, jax.numpy as jnp
        from jax import lax
        from jax.extend import core
        print(json.dumps({
            "version": jax.__version__, "info": list(jax.__version_info__),
            "version_module": jax.version.__version__, "own": glassjax.__version__,
            "metadata": importlib.metadata.version("jax"),
            "same_modules": [jnp is glassjax.numpy, lax is glassjax.lax,
                             core is glassjax.extend.core, jax.jit is glassjax.jit],
            "spec": [jnp.__spec__.name, jax.__spec__.name],
            "jaxpr": str(jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.0)),
            "dir": "make_jaxpr" in dir(jax)}))
    """)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got == {
        "version": "0.10.2", "info": [0, 10, 2], "version_module": "0.10.2",
        "own": "0.1.0", "metadata": "0.10.2", "same_modules": [True] * 4,
        "spec": ["glassjax.numpy", "jax"],
        "jaxpr": "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }",
        "dir": True}


def test_writes_to_jax_reach_glassjax_and_missing_names_fail_as_missing():
    """A library that monkeypatches ``jax.jit`` (chex's ``fake_jit``) patches the engine's
    root; names glassjax lacks raise the errors a missing name raises."""
    out = python("""
        import glassjax
        glassjax.as_jax()
        import jax
        real = jax.jit
        jax.jit = lambda f: "patched"
        assert glassjax.jit(None) == "patched"
        jax.jit = real
        assert glassjax.jit is real
        try:
            import jax._src.no_such_module
        except ModuleNotFoundError as e:
            print("import:", e.name)
        try:
            jax.no_such_name
        except AttributeError as e:
            print("attr:", e)
        for shadowed in ("jax.config", "jax.jit"):   # an object and a function, as in JAX
            try:
                __import__(shadowed)
            except ModuleNotFoundError as e:
                print("import:", e.name)
        jax.config.update("jax_enable_x64", False)
        print(type(glassjax.config).__name__, callable(glassjax.jit))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "import: jax._src.no_such_module",
        "attr: module 'jax' has no attribute 'no_such_name'",
        "import: jax.config", "import: jax.jit", "Config True"]


def test_refused_once_the_real_jax_is_imported():
    out = python("""
        import sys, types, glassjax
        sys.modules["jax"] = types.ModuleType("jax")   # as if the real jax were imported
        try:
            glassjax.as_jax()
        except RuntimeError as e:
            print("RuntimeError:", "already imported" in str(e))
    """)
    assert out.stdout.strip() == "RuntimeError: True", out.stderr


def test_child_processes_inherit_the_switch():
    out = python("""
        import subprocess, sys, glassjax
        glassjax.as_jax()
        child = subprocess.run([sys.executable, "-c",
                                "import jax, glassjax; print(jax.numpy is glassjax.numpy, "
                                "jax.__version__)"], capture_output=True, text=True)
        print(child.stdout.strip(), child.returncode)
    """)
    assert out.stdout.strip() == "True 0.10.2 0", out.stderr


def test_python_m_glassjax_run_a_script_and_a_module(tmp_path):
    (tmp_path / "prog.py").write_text(textwrap.dedent("""
        import sys
        import jax, jax.numpy as jnp
        print(__name__, sys.argv[1:], jax.grad(lambda x: x ** 3)(2.0))
    """))
    out = run(["-m", "glassjax", "run", "prog.py", "a", "--b"], cwd=tmp_path)
    assert out.stdout.strip() == "__main__ ['a', '--b'] 12.0", out.stderr
    out = run(["-m", "glassjax", "run", "-m", "prog", "c"], cwd=tmp_path)
    assert out.stdout.strip() == "__main__ ['c'] 12.0", out.stderr
    out = run(["-m", "glassjax", "run"], cwd=tmp_path)
    assert out.returncode != 0 and "usage: python -m glassjax run" in out.stderr


def test_a_jax_program_fails_with_a_normal_traceback(tmp_path):
    (tmp_path / "bad.py").write_text("import jax.numpy as jnp\njnp.ones(3) + jnp.ones(4)\n")
    out = run(["-m", "glassjax", "run", "bad.py"], cwd=tmp_path)
    assert out.returncode == 1
    assert "TypeError: add got incompatible shapes for broadcasting: (3,), (4,)" in out.stderr


def test_pytest_plugin_runs_a_jax_test_suite(tmp_path):
    (tmp_path / "conftest.py").write_text("import jax\nVERSION = jax.__version__\n")
    (tmp_path / "test_it.py").write_text(textwrap.dedent("""
        import jax, jax.numpy as jnp, glassjax
        def test_engine():
            assert jax.numpy is glassjax.numpy
            assert float(jax.jit(jnp.cos)(0.0)) == 1.0
    """))
    out = run(["-m", "pytest", "-q", "-p", "glassjax.as_jax", "-p", "no:cacheprovider",
               str(tmp_path)], cwd=tmp_path)
    assert "1 passed" in out.stdout, out.stdout + out.stderr
    out = run(["-m", "pytest", "-q", "-p", "glassjax.as_jax", "-p", "no:cacheprovider",
               "-n", "2", str(tmp_path)], cwd=tmp_path)
    assert "1 passed" in out.stdout, out.stdout + out.stderr

"""glassjax.describe: a primitive's rules and where each is defined."""
import os
import re

import pytest

import glassjax as jax
from glassjax import lax


def test_describe_lists_rules_with_their_source_lines():
    text = str(jax.describe(lax.psum_p))
    assert text.splitlines()[0] == "psum"
    names = [line.split()[0] for line in text.splitlines()[1:]]
    assert names[:5] == ["abstract_eval", "impl", "lowering", "jvp", "transpose"]
    # every location points at a real line that exists in that file
    for where in re.findall(r"(glassjax/\S+\.py):(\d+)", text):
        path, line = where
        with open(path) as f:
            assert int(line) <= len(f.readlines())
    assert "glassjax/lax/parallel.py" in text


def test_describe_sees_through_wrappers_and_reports_missing_rules():
    from glassjax.shard_map import shard_map_p
    text = str(jax.describe(shard_map_p))
    assert text.startswith("shard_map (multiple results)")
    assert re.search(r"partial_eval\s+glassjax/shard_map.py:\d+", text)
    lines = dict(re.findall(r"  (\w+)\s+glassjax/shard_map.py:(\d+)", text))
    assert len(set(lines.values())) == len(lines)       # each rule its own function
    prim = jax.core.Primitive("my_prim")
    d = jax.describe(prim)
    assert d.rules == () and d.missing == ("abstract_eval", "impl", "lowering", "jvp",
                                           "batching")


def test_primitives_index_and_errors():
    prims = jax.primitives()
    names = [p.name for p in prims]
    assert {"sin", "psum", "shard_map", "jit", "scan"} <= set(names)
    assert names == sorted(names)
    with pytest.raises(TypeError, match="describe expects a Primitive"):
        jax.describe("sin")


@pytest.mark.parametrize("module, name", [
    ("glassjax.jit", "jit_p"), ("glassjax.lax.control_flow.conditionals", "cond_p"),
    ("glassjax.lax.control_flow.while_loops", "while_p"),
    ("glassjax.lax.control_flow.scans", "scan_p"), ("glassjax.shard_map", "shard_map_p"),
    ("glassjax.custom_derivatives", "custom_jvp_call_p"),
    ("glassjax.custom_derivatives", "custom_vjp_call_p"),
    ("glassjax.ad_checkpoint", "remat_p")])
def test_describe_lists_the_drawing_declared_in_the_registration_block(module, name):
    import importlib
    prim = getattr(importlib.import_module(module), name)
    text = str(jax.describe(prim))
    where = dict(re.findall(r"  (\w+)\s+(glassjax/\S+\.py:\d+)", text))
    path, line = where["drawing"].split(":")
    assert path == where["abstract_eval"].split(":")[0]     # next to its other rules
    with open(path) as f:
        assert f"{name}.drawing = core.Drawing(" in f.readlines()[int(line) - 1]
    assert f"drawn as a {prim.drawing.kind} cluster" in text
    assert "drawing" not in str(jax.describe(lax.sin_p))


# ----------------------------------------------------------------------------------------
# The exact map: every listed line is the rule's own code, and no table is left out
# ----------------------------------------------------------------------------------------

def _module_names_of_primitives() -> dict:
    """id(primitive) -> the names modules of glassjax give it (``sin_p``, ...)."""
    import sys
    names: dict = {}
    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("glassjax"):
            for name, value in list(vars(module).items()):
                if isinstance(value, jax.core.Primitive):
                    names.setdefault(id(value), set()).add(name)
    return names


def _names_the_primitive(statement: str, prim, names) -> bool:
    patterns = [rf"\b{re.escape(n)}\b" for n in names.get(id(prim), ())]
    patterns += [re.escape(f"'{prim.name}'"), re.escape(f'"{prim.name}"')]
    return any(re.search(p, statement) for p in patterns)


def test_every_listed_line_is_the_rules_own_def_or_the_statement_naming_the_primitive():
    """A line in a helper (``ad.defjvp``'s body, ``lax.utils.unop``'s, a generic
    batching rule) names no primitive: the rule's site must be its own ``def`` or the
    statement of the primitive's module that registered it for *this* primitive."""
    import ast
    import functools
    import inspect
    from glassjax.experimental import checkify  # noqa: F401 (its table too)
    names = _module_names_of_primitives()

    @functools.cache
    def parsed(file):
        with open(file) as f:
            text = f.read()
        return text.splitlines(), ast.parse(text)

    def statement(file, line):         # the outermost statement (not a def) at ``line``
        lines, tree = parsed(file)
        node = tree
        while node is tree or isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node = next(n for n in node.body if n.lineno <= line <= n.end_lineno)
        return "\n".join(lines[node.lineno - 1:node.end_lineno])

    package = os.path.dirname(jax.__file__)
    wrong, own, total = [], 0, 0
    for prim in jax.primitives():
        if id(prim) not in names:                # (a test's own primitive)
            continue
        for rule in jax.describe(prim).rules:
            site = rule.site
            if not site.file.startswith(package):   # (a test's own registration)
                continue
            total += 1
            if site.own:
                lines, first = inspect.getsourcelines(site.rule)
                ok = (inspect.getsourcefile(site.rule) == site.file
                      and first <= site.line < first + len(lines))
                own += ok
            else:
                ok = _names_the_primitive(statement(site.file, site.line), prim, names)
            if not ok:
                wrong.append(f"{prim.name} {rule.name} {rule.where}")
    assert not wrong, wrong
    assert total > 1500 and own > 400      # (1,610 and 503 when written)


def test_no_table_of_rules_is_left_out():
    """Every dict of glassjax keyed by primitives is a ``Rules`` table (so it records
    its sites and ``describe`` reads it), and ``describe`` lists every table that has
    an entry for a primitive. Sets only mark primitives (no code to point at)."""
    import sys
    from glassjax.experimental import checkify  # noqa: F401
    from glassjax.notebook import provenance  # noqa: F401  (its marks are checked too)
    from glassjax.rule_tables import Rules
    marks = {("glassjax.interpreters.ad", "jvp_of_constants"),
             ("glassjax.xla.lowering", "extended_dtype_rules"),
             ("glassjax.notebook.provenance", "ADAPTERS")}
    plain = []
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("glassjax"):
            continue
        for name, value in list(vars(module).items()):
            held = [(name, value)]
            if isinstance(value, type) and value.__module__ == module_name:
                held += [(f"{name}.{attr}", x) for attr, x in vars(value).items()]
            plain += [f"{module_name}.{where}" for where, x in held
                      if isinstance(x, (dict, set)) and not isinstance(x, Rules)
                      and any(isinstance(k, jax.core.Primitive) for k in list(x))
                      and (module_name, where) not in marks]
    assert not plain, plain
    names = {t.name for t in Rules.tables}
    assert {"abstract_eval", "impl", "lowering", "jvp", "transpose", "batching",
            "batching_axis", "partial_eval", "partial_eval_jaxpr", "dce", "effects",
            "key_reuse", "state_discharge", "sharding", "pretty_print", "drawing",
            "checkify", "vma", "mesh"} <= names
    for prim in jax.primitives():
        listed = [rule.name for rule in jax.describe(prim).rules
                  if not rule.name.endswith("()")]         # (methods: see below)
        assert listed == [t.name for t in __import__(
            "glassjax.describe", fromlist=["_"]).tables() if prim in t]
        for attr, table in jax.core._attribute_tables.items():
            value = getattr(prim, attr)
            assert (value is None) == (prim not in table) and (
                value is None or table[prim] is value), (prim, attr)


def test_sin_points_at_its_own_lines_and_shows_their_source():
    d = jax.describe(lax.sin_p, source=True)
    with open("glassjax/lax/transcendental.py") as f:
        lines = f.readlines()
    where = {rule.name: rule.where for rule in d.rules}
    assert where["jvp"].startswith("glassjax/lax/transcendental.py:")
    jvp_line = lines[int(where["jvp"].split(":")[1]) - 1]
    assert jvp_line.startswith("ad.defjvp(sin_p, lambda g, x")
    assert d.rule("jvp").source() == jvp_line.rstrip("\n")
    assert lines[int(where["lowering"].split(":")[1]) - 1].startswith("sin_p = ")
    text = str(d)
    assert f"      | {jvp_line.rstrip()}" in text.splitlines()
    with pytest.raises(KeyError, match="sin has no 'transpose' rule"):
        d.rule("transpose")


def test_a_rule_with_its_own_def_shows_the_whole_function():
    d = jax.describe(lax.psum_p)        # ad.deflinear2(psum_p, _psum_transpose)
    first, code = d.rule("transpose").code()
    assert d.rule("transpose").where.endswith(f":{first}")
    assert code.splitlines()[0].startswith("def _psum_transpose(")
    assert d.rule("jvp").source() == "ad.deflinear2(psum_p, _psum_transpose)"


def test_a_user_primitive_points_at_the_users_registration():
    prim = jax.core.Primitive("mine")
    line = _line_here() + 1
    prim.def_abstract_eval(lambda x: x)
    jax.interpreters.ad.primitive_jvps[prim] = _my_jvp
    d = jax.describe(prim)
    assert d.rule("abstract_eval").where.endswith(f"tests/test_describe.py:{line}")
    assert d.rule("jvp").site.line == _my_jvp.__code__.co_firstlineno
    assert d.missing == ("impl", "lowering", "batching")


def _line_here():
    import sys
    return sys._getframe(1).f_lineno


def _my_jvp(primals, tangents):
    return primals[0], tangents[0]


def test_the_docstring_example_runs():
    import doctest
    module = __import__("glassjax.describe", fromlist=["_"])
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0


# ----------------------------------------------------------------------------------------
# %gjsource
# ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext glassjax", store_history=False).raise_error()
    ip.run_cell("from glassjax import lax", store_history=False).raise_error()
    return ip


def _run(shell, cell):
    from IPython.utils.capture import capture_output
    with capture_output() as captured:
        result = shell.run_cell(cell, store_history=False)
    return result, captured


def test_gjsource_shows_the_rule_with_file_and_line_as_text_and_html(shell):
    import html
    result, captured = _run(shell, "%gjsource sin_p jvp")
    result.raise_error()
    (out,) = captured.outputs
    plain, page = out.data["text/plain"], out.data["text/html"]
    rule = jax.describe(lax.sin_p).rule("jvp")
    assert plain == f"sin jvp: {rule.where} ({rule.purpose})\n{rule.source()}"
    assert html.escape(f"sin jvp: {rule.where}") in page
    assert "defjvp" in page and "sin_p" in page
    for name in ("lax.scan_p", "scan", "scan_p"):        # names, all rules
        result, captured = _run(shell, f"%gjsource {name}")
        result.raise_error()
        text = captured.outputs[0].data["text/plain"]
        assert [line.split(":")[0] for line in text.splitlines()
                if line.startswith("scan ")][:3] == ["scan abstract_eval", "scan impl",
                                                     "scan lowering"]


def test_gjsource_escapes_what_it_renders_and_explains_mistakes(shell):
    from IPython.core.error import UsageError
    _run(shell, "import glassjax\n"
                "evil_p = glassjax.core.Primitive('<i>evil</i>')\n"
                "evil_p.def_impl(lambda x: '<b>bold</b>')")[0].raise_error()
    result, captured = _run(shell, "%gjsource evil_p")
    result.raise_error()
    page = captured.outputs[0].data["text/html"]
    assert "<i>evil" not in page and "&lt;i&gt;evil&lt;/i&gt;" in page
    assert "<b>bold" not in page and "&lt;b&gt;bold" in page
    assert "evil_p.def_impl(lambda x: '<b>bold</b>')" in captured.outputs[0].data[
        "text/plain"]
    for line, message in (("%gjsource", "usage: %gjsource PRIM"),
                          ("%gjsource sin_p transpose", "sin has no 'transpose' rule"),
                          ("%gjsource no_such_p", "'no_such_p' names no primitive")):
        result, _ = _run(shell, line)
        assert isinstance(result.error_in_exec, UsageError)
        assert message in str(result.error_in_exec)


def test_every_way_of_filling_a_table_records_the_site():
    from glassjax.rule_tables import Rules
    table = Rules("demo", "a table for this test")
    try:
        a, b, c, d = (jax.core.Primitive(n) for n in "abcd")
        first = _line_here() + 1
        table[a] = _my_jvp
        table.update({b: len})
        table |= {c: len}
        table.setdefault(d, len)
        assert [table.sites[p].line for p in (a, b, c, d)] == [
            _my_jvp.__code__.co_firstlineno, first + 1, first + 2, first + 3]
        assert table.sites[a].own and not table.sites[b].own
        del table[a]
        assert table.pop(b) is len and set(table.sites) == {c, d}
        table.clear()
        assert table.sites == {} and table == {}
    finally:
        Rules.tables.remove(table)


def test_a_primitive_class_that_replaces_bind_lists_its_methods():
    from glassjax.custom_derivatives import CustomJVPCallPrimitive, custom_jvp_call_p
    rules = {rule.name: rule for rule in jax.describe(custom_jvp_call_p).rules}
    for name in ("bind", "bind_with_trace", "get_bind_params"):
        rule = rules[f"{name}()"]
        method = getattr(CustomJVPCallPrimitive, name)
        assert rule.where.endswith(f"glassjax/custom_derivatives.py:"
                                   f"{method.__code__.co_firstlineno}")
        assert rule.source().startswith(f"def {name}(self")
    assert jax.describe(custom_jvp_call_p).missing == ()     # the traces apply it
    assert not any(name.endswith("()") for name in
                   (rule.name for rule in jax.describe(lax.sin_p).rules))

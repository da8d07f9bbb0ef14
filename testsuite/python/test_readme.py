# The README's Python section: its interactive session is what the module
# prints (run as a doctest from the top of the tree), and its PyTorch test
# is valid Python that calls load and run as the module takes them (torch
# and torch-to-nnef are not needed: it is parsed, not run).
import ast
import doctest
import os
import re

from conftest import ROOT


def python_section():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Python\n(.*?)^## ", text, re.M | re.S)
    assert m, "README has no '## Python' section"
    return m.group(1)


def session_text(sec):
    """The indented block of the section that holds '>>>', unindented."""
    lines = sec.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("    >>> "))
    out = []
    for ln in lines[start:]:
        if ln and not ln.startswith("    "):
            break
        out.append(ln[4:])
    return "\n".join(out).rstrip() + "\n"


def test_session_is_what_the_module_prints():
    assert python_section().count("\n## ") == 0
    session = session_text(python_section())
    test = doctest.DocTestParser().get_doctest(session, {}, "README", "README.md", 0)
    assert len(test.examples) >= 5
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=print)
    finally:
        os.chdir(cwd)
    assert runner.failures == 0


def test_pytorch_test_calls_the_module_as_it_is():
    sec = python_section()
    code = re.search(r"```python\n(.*?)```", sec, re.S).group(1)
    tree = ast.parse(code)
    calls = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            calls.setdefault(node.func.attr, []).append(node)
    load = calls["load"][0]
    assert load.func.value.id == "nnefkit"
    for kw in load.keywords:
        assert kw.arg in ("dialect", "lenient", "declarations", "input_shapes", "check_data"), kw.arg
    run = calls["run"][0]
    assert isinstance(run.args[0], ast.Dict) and run.keywords == []
    assert "assert_allclose" in calls

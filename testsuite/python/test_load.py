# nnefkit.load: options by nnef-check's names, OSError for paths that
# cannot be read, diagnostics of an invalid model as objects whose str()
# is the CLI's text.
import os
import re
import stat

import pytest

import nnefkit
from conftest import EXAMPLES, ROOT, cli, corpus_path, write

TINY = os.path.join(EXAMPLES, "tiny_convnet")
RESIDUAL = os.path.join(EXAMPLES, "residual_block")
GOLDEN = os.path.join(ROOT, "testsuite", "golden")
VENDOR = os.path.join(ROOT, "testsuite", "vendor")

BAD_RESHAPE = """version 1.0;
graph G( x ) -> ( y )
{
    x = external(shape = [2, 3]);
    y = reshape(x, shape = [7]);
}
"""


def note_text(n):
    return n if isinstance(n, str) else str(n)


def test_examples_are_valid():
    for path in (TINY, RESIDUAL):
        m = nnefkit.load(path)
        assert isinstance(m, nnefkit.Model)
        assert m.valid is True
        assert [d for d in m.diagnostics if d.severity == "error"] == []


def test_missing_path_is_file_not_found(tmp_path):
    missing = str(tmp_path / "no_such_model")
    with pytest.raises(FileNotFoundError) as e:
        nnefkit.load(missing)
    assert e.value.filename == missing or missing in str(e.value)


def test_unreadable_path_is_os_error(tmp_path):
    # a path through a file: NotADirectoryError (root too)
    p = write(str(tmp_path / "f.nnef"), BAD_RESHAPE)
    with pytest.raises(NotADirectoryError) as e:
        nnefkit.load(os.path.join(p, "graph.nnef"))
    assert e.value.filename == os.path.join(p, "graph.nnef")
    st, _, err = cli("nnef-check", os.path.join(p, "graph.nnef"))
    assert st == 2 and "Not a directory" in err


def test_directory_without_graph_is_os_error(tmp_path):
    # what nnef-check cannot read (exit 2) raises: no graph.nnef is a
    # file not found; a corrupt archive an OSError with the diagnostic
    (tmp_path / "empty").mkdir()
    st, _, err = cli("nnef-check", tmp_path / "empty")
    assert st == 2 and "E0002" in err
    with pytest.raises(FileNotFoundError) as e:
        nnefkit.load(str(tmp_path / "empty"))
    assert e.value.diagnostics[0].code == "E0002"
    assert e.value.strerror in err and e.value.filename == str(tmp_path / "empty")
    bad = tmp_path / "bad.tgz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 20)
    st, _, err = cli("nnef-check", bad)
    assert st == 2
    with pytest.raises(OSError) as e:
        nnefkit.load(str(bad))
    assert e.value.diagnostics[0].code in err and e.value.strerror in err


def test_permission_denied(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    p = write(str(tmp_path / "locked.nnef"), BAD_RESHAPE)
    os.chmod(p, 0)
    try:
        with pytest.raises(PermissionError):
            nnefkit.load(p)
    finally:
        os.chmod(p, stat.S_IRUSR | stat.S_IWUSR)


def test_path_like_accepted(tmp_path):
    import pathlib
    m = nnefkit.load(pathlib.Path(TINY))
    assert m.valid


def test_invalid_model_does_not_raise(tmp_path):
    p = write(str(tmp_path / "bad.nnef"), BAD_RESHAPE)
    m = nnefkit.load(p)
    assert m.valid is False
    errs = [d for d in m.diagnostics if d.severity == "error"]
    assert len(errs) == 1
    d = errs[0]
    assert d.code == "E0917"
    assert d.message == "reshape: cannot reshape [2,3] (volume 6) to [7] (volume 7)"
    assert d.file == p
    assert (d.line, d.column) == (5, 28)
    assert list(d.notes) == []
    assert d.hint is None


def _cli_first_lines(stderr):
    return [ln for ln in stderr.splitlines() if ": error[" in ln or ": warning[" in ln]


def test_diagnostic_str_is_cli_text(tmp_path):
    p = write(str(tmp_path / "bad.nnef"), BAD_RESHAPE)
    m = nnefkit.load(p)
    st, _, err = cli("nnef-check", "--color=never", p)
    assert st == 1
    d = m.diagnostics[0]
    s = str(d)
    assert s.splitlines()[0] == _cli_first_lines(err)[0]
    assert s.splitlines()[0] == f"{p}:5:28: error[E0917]: {d.message}"
    # whatever else str() gives (the excerpt, notes, hint) is the CLI's
    assert s.rstrip("\n") in err


def _golden_options(src):
    """load's options for the first line '#! OPTIONS' of a golden document
    (those of nnef-check; --annotate-shapes is nnef-flatten's)."""
    opts = {"lenient": os.path.basename(os.path.dirname(src)) == "lenient"}
    with open(src, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    if not first.startswith("#!"):
        return opts
    for o in first[2:].split():
        k, _, v = o.partition("=")
        if k == "--max-depth":
            opts["max_depth"] = int(v)
        elif k == "--keep":
            opts["keep"] = v.split(",")
        elif k == "--keep-standard":
            opts["keep_standard"] = True
        elif k == "--input-shape":
            name, _, dims = v.partition("=")
            opts["input_shapes"] = {name: [int(x) for x in dims.split(",")]}
        elif k != "--annotate-shapes":
            raise AssertionError(f"{src}: option {o} not known here")
    return opts


GOLDEN_DIRS = ("syntax", "sema", "shapes", "flatten", "lenient")


def golden_cases():
    out = []
    for sub in GOLDEN_DIRS:
        d = os.path.join(GOLDEN, sub)
        out += [os.path.join(sub, f[:-5]) for f in sorted(os.listdir(d))
                if f.endswith(".nnef") and os.path.exists(os.path.join(d, f[:-5] + ".err"))]
    return out


def test_golden_diagnostics_are_the_cli_s():
    # str() of the diagnostics, one after the other, is the golden text
    # (the diagnostics nnef-check prints, made in the golden folder)
    cases = golden_cases()
    assert len(cases) >= 800
    cwd = os.getcwd()
    wrong = []
    try:
        for name in cases:
            src = os.path.join(GOLDEN, name + ".nnef")
            with open(os.path.join(GOLDEN, name + ".err"), encoding="utf-8", errors="replace") as f:
                golden = f.read()
            os.chdir(os.path.dirname(src))
            opts = _golden_options(src)
            m = nnefkit.load(os.path.basename(src), **opts)
            # the CLI's line on errors past --max-errors is no diagnostic
            golden = re.sub(r"(?m)^nnef-check: \d+ more errors? not shown.*\n", "", golden)
            text = "".join(str(d).rstrip("\n") + "\n" for d in m.diagnostics)
            if text != golden:
                wrong.append(name)
            elif m.diagnostics:
                assert m.diagnostics[0].file in (os.path.basename(src), "stdlib.nnef", None)
    finally:
        os.chdir(cwd)
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, the first: {wrong[:5]}"


def test_hint_and_notes():
    m = nnefkit.load(os.path.join(GOLDEN, "sema", "if_condition_tensor.nnef"))
    d = m.diagnostics[0]
    assert (d.code, d.severity, d.line, d.column) == ("E0405", "error", 7, 23)
    assert d.hint == ("the condition is evaluated at compile time; to choose between "
                      "tensors element by element, use select(condition, a, b)")
    assert "= hint: " + d.hint in str(d)

    m = nnefkit.load(os.path.join(GOLDEN, "flatten", "e0801_index_in_fragment.nnef"))
    d = m.diagnostics[0]
    assert (d.code, d.line, d.column) == ("E0801", 6, 29)
    assert d.message == "index 2 is out of range for an array of length 2"
    assert len(d.notes) == 1
    n = note_text(d.notes[0])
    assert "in expansion of 'third' at" in n
    assert "e0801_index_in_fragment.nnef:11:14" in n


def test_lenient_and_warning_severity():
    path = os.path.join(GOLDEN, "lenient", "extension_commas.nnef")
    strict = nnefkit.load(path)
    assert strict.valid is False
    assert strict.diagnostics[0].code == "E0215"
    assert strict.diagnostics[0].severity == "error"
    m = nnefkit.load(path, lenient=True)
    assert m.valid is True
    d = m.diagnostics[0]
    assert (d.code, d.severity, d.line, d.column) == ("E0215", "warning", 3, 42)
    assert d.hint == "accepted because of --lenient; without it this is an error"
    st, _, err = cli("nnef-check", "--lenient", "--color=never", path)
    assert st == 0
    assert str(d).splitlines()[0] in err


def test_declarations():
    enc = os.path.join(VENDOR, "encoder.nnef")
    assert nnefkit.load(enc).valid is False
    assert nnefkit.load(enc, lenient=True).valid is True
    decl = os.path.join(VENDOR, "declarations")
    m = nnefkit.load(enc, lenient=True, declarations=[decl])
    assert m.valid is True
    assert len([d for d in m.diagnostics if d.severity == "warning"]) == 2
    files = [os.path.join(decl, f) for f in ("tract_core.nnef", "tract_transformers.nnef")]
    m2 = nnefkit.load(enc, lenient=True, declarations=tuple(files))
    assert m2.valid
    assert m2.shapes["enc.0/norm"] == (1, 4, 16)  # nnef-check: i"enc.0/norm": scalar[1,4,16]


def test_declarations_unreadable(tmp_path):
    missing = str(tmp_path / "no_such_declarations.nnef")
    with pytest.raises(OSError):
        nnefkit.load(os.path.join(VENDOR, "encoder.nnef"), declarations=[missing])


def test_input_shapes():
    m = nnefkit.load(RESIDUAL, input_shapes={"input": (2, 8, 32, 32)})
    assert m.valid
    assert m.shapes["input"] == (2, 8, 32, 32)
    assert m.shapes["output"] == (2, 8, 32, 32)
    m = nnefkit.load(TINY, input_shapes={"image": [1, 3, 64, 64]})
    assert m.valid is False
    assert any(d.code == "E0917" and "cannot reshape [1,32,2,2] (volume 128) to [1,32]"
               in d.message for d in m.diagnostics)


def test_input_shapes_bad_name():
    # nnef-check --input-shape's message
    st, _, err = cli("nnef-check", "--input-shape=nosuch=1,2", TINY)
    assert st == 2
    with pytest.raises(ValueError) as e:
        nnefkit.load(TINY, input_shapes={"nosuch": (1, 2)})
    assert "'nosuch' is not an external of this model; its inputs are: image" in str(e.value)
    assert "'nosuch' is not an external of this model; its inputs are: image" in err


@pytest.mark.parametrize("shape", [(1, 0, 2), (1, -2)])
def test_input_shapes_bad_extent(shape):
    with pytest.raises(ValueError, match="image"):
        nnefkit.load(TINY, input_shapes={"image": shape})


def test_input_shapes_rank_0():
    # the CLI cannot say it (image= is a usage error); here it is a shape,
    # and the model invalid where the graph needs more
    m = nnefkit.load(TINY, input_shapes={"image": ()})
    assert m.valid is False
    assert m.diagnostics[0].code == "E0906"
    with pytest.raises(TypeError):
        nnefkit.load(TINY, input_shapes={"image": 3})


def test_check_data(tmp_path):
    import shutil
    d = tmp_path / "m"
    shutil.copytree(TINY, d)
    os.remove(d / "fc" / "bias.dat")
    m = nnefkit.load(str(d))
    assert m.valid is False
    assert any("fc/bias" in d_.message for d_ in m.diagnostics)
    m = nnefkit.load(str(d), check_data=False)
    assert m.valid is True


def test_max_errors(tmp_path):
    body = "".join(f"    y{i} = reshape(x, shape = [7]);\n" for i in range(30))
    outs = ", ".join(f"y{i}" for i in range(30))
    p = write(str(tmp_path / "many.nnef"),
              f"version 1.0;\ngraph G( x ) -> ( {outs} )\n{{\n"
              f"    x = external(shape = [2, 3]);\n{body}}}\n")
    m = nnefkit.load(p, max_errors=3)
    assert m.valid is False
    assert len([d for d in m.diagnostics if d.severity == "error"]) == 3
    m = nnefkit.load(p, max_errors=0)
    assert len([d for d in m.diagnostics if d.severity == "error"]) == 30


def test_dialect():
    h = corpus_path("tract-harness")
    cases = sorted(c for c in os.listdir(h) if os.path.isfile(os.path.join(h, c, "graph.nnef")))
    st, _, _ = cli("nnef-check", "--dialect=tract", os.path.join(h, cases[0]))
    m = nnefkit.load(os.path.join(h, cases[0]), dialect="tract")
    assert m.valid is (st == 0)
    with pytest.raises(ValueError, match="nosuch"):
        nnefkit.load(TINY, dialect="nosuch")


def test_unknown_option():
    with pytest.raises(TypeError):
        nnefkit.load(TINY, no_such_option=True)
    with pytest.raises(TypeError):
        nnefkit.load(TINY, True)  # options are keyword-only


def test_verdict_and_first_line_are_nnef_check_s():
    # nnef-check itself on a sample of the golden documents
    n = 0
    for sub in ("syntax", "sema", "shapes"):
        d = os.path.join(GOLDEN, sub)
        for f in sorted(os.listdir(d))[:40]:
            if not f.endswith(".nnef"):
                continue
            p = os.path.join(d, f)
            st, _, err = cli("nnef-check", "--color=never", p)
            m = nnefkit.load(p)
            assert m.valid is (st == 0), p
            if m.diagnostics:
                assert str(m.diagnostics[0]).splitlines()[0] == err.splitlines()[0], p
            n += 1
    assert n >= 30


def _cli_json_diags(path, *opts):
    import json
    _, out, _ = cli("nnef-check", "--format=json", *opts, path)
    return json.loads(out)["models"][0]["diagnostics"]


@pytest.mark.parametrize("name", ["sema/if_condition_tensor", "flatten/e0801_index_in_fragment",
                                  "lenient/redefine_elu_other_default",
                                  "lenient/commas_and_redefinition"])
def test_every_field_is_the_cli_s(name):
    # nnef-check --format=json gives every field of every diagnostic
    path = os.path.join(GOLDEN, name + ".nnef")
    opts = ("--lenient",) if name.startswith("lenient/commas") else ()
    want = _cli_json_diags(path, *opts)
    m = nnefkit.load(path, lenient=bool(opts))
    assert len(m.diagnostics) == len(want)
    for d, w in zip(m.diagnostics, want):
        assert d.severity == w["level"]
        assert d.code == w["code"]
        assert d.summary == w["summary"]
        assert d.message == w["message"]
        assert d.file == w["file"]
        assert (d.line, d.column, d.end_line, d.end_column) == (
            w["line"], w["column"], w["end_line"], w["end_column"])
        assert d.hint == w["hint"]
        assert len(d.notes) == len(w["notes"])
        for n, wn in zip(d.notes, w["notes"]):
            assert n.message == wn["message"]
            assert (n.file, n.line, n.column) == (wn.get("file"), wn.get("line"), wn.get("column"))


def test_status_and_counts(tmp_path):
    p = write(str(tmp_path / "bad.nnef"), BAD_RESHAPE)
    m = nnefkit.load(p)
    assert (m.status, m.errors, m.path) == ("invalid", 1, p)
    m = nnefkit.load(TINY)
    assert (m.status, m.errors) == ("valid", 0)


def test_error_class_carries_diagnostics(tmp_path):
    assert issubclass(nnefkit.Error, Exception)
    assert not issubclass(nnefkit.Error, OSError)
    p = tmp_path / "x.dat"
    p.write_bytes(b"# not a tensor file")
    with pytest.raises(nnefkit.Error) as e:
        nnefkit.read_tensor(str(p))
    d = e.value.diagnostics[0]
    assert d.code == "E1001" and d.severity == "error"
    assert str(p) in d.message
    st, _, err = cli("nnef-datinfo", p)
    assert st != 0
    assert d.message in err

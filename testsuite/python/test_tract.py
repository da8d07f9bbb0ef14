# tract's dialect: every case of tract's harness in the corpus with its
# io.npz runs from Python on the arrays of io.npz, bit for bit as nnef-run
# --input-bundle writes its outputs with --output-bundle.
import os

import numpy as np
import pytest

import nnefkit
from conftest import cli, corpus_path


def harness_cases():
    root = os.environ.get("NNEF_CORPUS", "")
    h = os.path.join(root, "tract-harness") if root else ""
    if not h or not os.path.isdir(h):
        return []
    # parallel-ops' io.npz holds its input only
    return sorted(os.path.relpath(dp, h) for dp, _, files in os.walk(h)
                  if "io.npz" in files and os.path.basename(dp) != "parallel-ops")


KNOWN = {}
CASES = [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN[c]))
         if c in KNOWN else c for c in harness_cases()]


def test_cases_present():
    corpus_path("tract-harness")
    assert len(CASES) >= 20


@pytest.mark.parametrize("name", CASES or ["(corpus missing)"])
def test_harness_case(name, tmp_path):
    d = corpus_path("tract-harness", *name.split("/"))
    model = os.path.join(d, "model.nnef.tgz")
    if not os.path.exists(model):
        model = d
    npz = os.path.join(d, "io.npz")
    m = nnefkit.load(model, dialect="tract")
    assert m.valid, "\n".join(map(str, m.diagnostics))
    io = np.load(npz)
    got = m.run({n: io[n] for n in m.inputs})
    out = str(tmp_path / "out.npz")
    st, _, err = cli("nnef-run", "--dialect=tract", "-q", model, "--input-bundle", npz,
                     "--output-bundle", out)
    assert st == 0, err
    want = np.load(out)
    assert list(got) == list(m.outputs)
    for o in m.outputs:
        assert got[o].shape == want[o].shape, o
        assert got[o].dtype == want[o].dtype, o
        assert np.array_equal(got[o], want[o], equal_nan=got[o].dtype.kind == "f"), o


def test_datum_types_are_the_inputs_types():
    # tract_core_external(datum_type = 'i64'): an integer input, as the
    # runner takes it (nnef_runner_input_dtype); Model.dtypes says so too
    d = corpus_path("tract-harness", "sign-abs-integers")
    m = nnefkit.load(d, dialect="tract")
    assert m.dtypes["input"] == "integer"
    io = np.load(os.path.join(d, "io.npz"))
    with pytest.raises(ValueError, match="'input'"):
        m.run({"input": io["input"].astype(np.float32)})
    got = m.run({"input": io["input"]})
    assert got["sign_live"].dtype == np.int64
    assert np.array_equal(got["sign_live"], io["sign_live"])


SYMBOLIC = ('version 1.0;\nextension tract_registry tract_core;\nextension tract_symbol S;\n'
            'graph g(x, y) -> (z) {\n'
            '  x = tract_core_external(shape = [S, 2], datum_type = "f32");\n'
            '  y = tract_core_external(shape = [S, 3], datum_type = "f32");\n'
            '  z = concat([x, y], axis = 1);\n}\n')


def npy(tmp_path, name, shape):
    path = str(tmp_path / (name + ".npy"))
    np.save(path, np.zeros(shape, np.float32))
    return path


def test_symbols_bound_by_the_arrays(tmp_path):
    # as nnef-run binds them: S from the arrays' shapes, again when they
    # change; a symbol given two values is a ValueError
    p = tmp_path / "sym.nnef"
    p.write_text(SYMBOLIC)
    m = nnefkit.load(str(p), dialect="tract")
    assert m.shapes["x"] == (None, 2)
    for s in (4, 5, 4):
        x = np.arange(2 * s, dtype=np.float32).reshape(s, 2)
        y = np.ones((s, 3), np.float32)
        z = m.run({"x": x, "y": y})["z"]
        assert np.array_equal(z, np.concatenate([x, y], axis=1))
    # nnef-run's messages (E1303)
    bad = [((4, 2), (5, 3), "the data given for the input 'y' makes the symbol S 5 along axis 0, "
                            "but the input 'x' makes it 4"),
           ((4, 3), (4, 3), "the data given for the input 'x' has extent 3 along axis 1, "
                            "but the graph declares 2"),
           ((4,), (4, 3), "the data given for the input 'x' has rank 1, but the graph declares rank 2")]
    for xs, ys, msg in bad:
        with pytest.raises(ValueError) as e:
            m.run({"x": np.zeros(xs, np.float32), "y": np.zeros(ys, np.float32)})
        assert str(e.value) == msg
        st, _, err = cli("nnef-run", "--dialect=tract", "-q", str(p), "--input", "x=" + npy(tmp_path, "x", xs),
                         "--input", "y=" + npy(tmp_path, "y", ys))
        assert st != 0 and msg in err

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


# Where Model.run is not nnef-run yet (deviations from issue 28, which
# wants nnef-run's behaviour): strict, so that a fix shows as XPASS.
SYMBOLS = ("deviation: the symbols of the inputs' shapes are not bound from the "
           "arrays given, as nnef-run binds them (E1309 at run)")
KNOWN = {"sdpa/simple-grouped-query-att-f32": SYMBOLS,
         "test_manage_gru_states": SYMBOLS}
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

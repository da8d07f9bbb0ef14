# Model.run agrees bit for bit with nnef-run on the OpenVX conformance
# cases of the corpus (their reference inputs), and within the suite's
# tolerance with the reference outputs.
import os

import numpy as np
import pytest

import nnefkit
from conftest import cli, corpus_path, cts_cases

CASES = cts_cases()


def same_bits(a, b):
    """Equal arrays, NaN equal to NaN."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


def test_cases_present():
    corpus_path("openvx-cts-nnef")
    assert len(CASES) >= 74


@pytest.mark.parametrize("name", CASES or ["(corpus missing)"])
def test_case_bit_for_bit(name, tmp_path):
    d = corpus_path("openvx-cts-nnef", name)
    m = nnefkit.load(d)
    assert m.valid, [str(x) for x in m.diagnostics]
    inputs = {n: nnefkit.read_tensor(os.path.join(d, n + ".dat")) for n in m.inputs}
    got = m.run(inputs)
    out = tmp_path / "out"
    st, _, err = cli("nnef-run", "-q", d, "--input-dir", d, "--output-dir", out)
    assert st == 0, err
    assert list(got) == list(m.outputs)
    for o in m.outputs:
        want = nnefkit.read_tensor(str(out / (o + ".dat")))
        assert same_bits(got[o], want), f"{name}: {o} differs from nnef-run's"
        ref = nnefkit.read_tensor(os.path.join(d, o + ".dat"))
        if ref.dtype.kind == "f":
            g = got[o].astype(np.float64)
            r = ref.astype(np.float64)
            err2 = np.linalg.norm(g - r) / max(np.linalg.norm(r), 1e-30)
            assert err2 <= 1e-5, f"{name}: {o} relative L2 error {err2}"
        else:
            np.testing.assert_array_equal(got[o], ref)

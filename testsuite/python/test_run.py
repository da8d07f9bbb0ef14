# Model.run: outputs as NumPy arrays equal to nnef-run's, precision,
# graph.quant applied or not, cycles with variables carried over,
# generated inputs.
import os
import shutil

import numpy as np
import pytest

import nnefkit
from conftest import EXAMPLES, cli, write, write_dat

TINY = os.path.join(EXAMPLES, "tiny_convnet")
RESIDUAL = os.path.join(EXAMPLES, "residual_block")


def cli_run(tmp_path, model, *args):
    out = tmp_path / "cli_out"
    if out.exists():
        shutil.rmtree(out)
    st, _, err = cli("nnef-run", "-q", model, "--output-dir", out, *args)
    assert st == 0, err
    return {f[:-4]: nnefkit.read_tensor(str(out / f)) for f in os.listdir(out)}


def assert_same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


@pytest.fixture
def acc(tmp_path):
    """A variable that adds the input at each cycle, from [1, 2]."""
    d = tmp_path / "acc"
    write(str(d / "graph.nnef"), """version 1.0;
graph G( x ) -> ( y )
{
    x = external<scalar>(shape = [2]);
    v = variable<scalar>(shape = [2], label = 'state/acc');
    s = add(v, x);
    y = update(v, s);
}
""")
    write_dat(str(d / "state" / "acc.dat"), np.array([1, 2], np.float32))
    return str(d)


def test_run_returns_dict_of_arrays(tmp_path):
    m = nnefkit.load(TINY)
    x = np.random.default_rng(0).random((1, 3, 32, 32), dtype=np.float32)
    out = m.run({"image": x})
    assert isinstance(out, dict)
    assert list(out) == ["probabilities"]
    p = out["probabilities"]
    assert isinstance(p, np.ndarray)
    assert p.dtype == np.float32 and p.shape == (1, 10)
    assert p.flags.owndata  # the run's buffer handed over, no view of another
    assert p.flags.writeable and p.flags.c_contiguous
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-5)
    # the same as nnef-run on the same input
    write_dat(str(tmp_path / "image.dat"), x)
    want = cli_run(tmp_path, TINY, "--input", f"image={tmp_path / 'image.dat'}")
    assert_same(p, want["probabilities"])


def test_outputs_outlive_model():
    # the model (and its runner) gone, the arrays keep their values
    ref = nnefkit.load(TINY).run(random="uniform", seed=3)["probabilities"].copy()
    out = nnefkit.load(TINY).run(random="uniform", seed=3)
    import gc
    gc.collect()
    junk = [nnefkit.load(TINY).run(random="uniform", seed=k) for k in range(5)]
    assert len(junk) == 5
    assert_same(out["probabilities"], ref)
    out["probabilities"][0, 0] = -1.0  # writable, and no one else's
    assert junk[3]["probabilities"][0, 0] != -1.0


@pytest.mark.parametrize("path", [TINY, RESIDUAL])
@pytest.mark.parametrize("seed", [0, 7])
def test_random_inputs_are_cli_s(tmp_path, path, seed):
    m = nnefkit.load(path)
    for kind in ("uniform", "normal"):
        got = m.run(random=kind, seed=seed)
        want = cli_run(tmp_path, path, "--random", kind, "--seed", seed)
        assert set(got) == set(want)
        for k in want:
            assert_same(got[k], want[k])


def test_seed_changes_results():
    m = nnefkit.load(TINY)
    a = m.run(random="uniform", seed=1)["probabilities"]
    b = m.run(random="uniform", seed=2)["probabilities"]
    c = m.run(random="uniform", seed=1)["probabilities"]
    assert not np.array_equal(a, b)
    assert_same(a, c)


def test_missing_input_is_value_error():
    m = nnefkit.load(TINY)
    with pytest.raises(ValueError, match="image"):
        m.run()
    with pytest.raises(ValueError, match="image"):
        m.run({})


def test_unknown_input_is_value_error():
    m = nnefkit.load(TINY)
    x = np.zeros((1, 3, 32, 32), np.float32)
    with pytest.raises(ValueError, match="nosuch"):
        m.run({"image": x, "nosuch": x})


def test_bad_options():
    m = nnefkit.load(TINY)
    x = {"image": np.zeros((1, 3, 32, 32), np.float32)}
    with pytest.raises(ValueError, match="half"):
        m.run(x, precision="half")
    with pytest.raises(ValueError, match="gaussian"):
        m.run(random="gaussian")
    with pytest.raises((ValueError, OverflowError)):
        m.run(x, cycles=0)
    with pytest.raises((ValueError, OverflowError)):
        m.run(x, cycles=-1)
    with pytest.raises(TypeError):
        m.run(x, "double")  # options are keyword-only


def test_precision_double(tmp_path):
    m = nnefkit.load(RESIDUAL)
    got = m.run(random="uniform", seed=4, precision="double")
    want = cli_run(tmp_path, RESIDUAL, "--random", "uniform", "--seed", 4,
                   "--precision", "double")
    assert got["output"].dtype == np.float64
    assert_same(got["output"], want["output"])
    single = m.run(random="uniform", seed=4, precision="single")["output"]
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, got["output"], rtol=1e-4, atol=1e-5)


def test_cycles_carry_variables(acc, tmp_path):
    m = nnefkit.load(acc)
    x = np.array([10, 0.5], np.float32)
    assert_same(m.run({"x": x})["y"], np.array([11, 2.5], np.float32))
    # each run starts from the variable's file
    assert_same(m.run({"x": x})["y"], np.array([11, 2.5], np.float32))
    assert_same(m.run({"x": x}, cycles=3)["y"], np.array([31, 3.5], np.float32))
    write_dat(str(tmp_path / "x.dat"), x)
    want = cli_run(tmp_path, acc, "--input", f"x={tmp_path / 'x.dat'}", "--cycles", 3)
    assert_same(m.run({"x": x}, cycles=3)["y"], want["y"])


Q_GRAPH = """version 1.0;
extension KHR_enable_fragment_definitions KHR_enable_operator_expressions;
fragment step_quantize( x: tensor<scalar>, step: scalar ) -> ( y: tensor<scalar> )
{
    y = round(x / step) * step;
}
graph Q( d ) -> ( a, b, c, e, f, g, h, k )
{
    d = external(shape = [1]);
    x = constant(shape = [2, 4], value = [-1.0, -0.3, 0.05, 0.2, 0.26, 0.7, 1.2, 3.0]);
    a = copy(x);
    b = copy(x);
    c = copy(x);
    e = copy(x);
    f = copy(x);
    g = copy(x);
    h = mul(a, 2.0);
    k = copy(x);
}
"""
Q_QUANT = """"a": linear_quantize(min = -1.0 * 0.5, max = 0.5, bits = 2 + 0);
"b": min_max_linear_quantize(min = -1.0, max = 1.0, bits = 3, signed = true, symmetric = true);
"c": zero_point_linear_quantize(zero_point = 2, scale = 0.25, bits = 3, signed = false, symmetric = false);
"e": logarithmic_quantize(max = 2.0, bits = 2);
"f": linear_quantize(min = [[-1.0], [0.0]], max = [[1.0], [2.0]], bits = 1);
"g": step_quantize(step = 0.5);
"k": zero_point_linear_quantize(zero_point = [[2], [0]], scale = [[0.25], [0.5]], bits = 3, signed = false, symmetric = false);
"""
# computed by hand from the operations' definitions (testsuite/tools/run.sh)
Q_WANT = {
    "a": [-0.5, -0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.5, 0.5, 0.5],
    "b": [-1.0, -0.33333333, 0.0, 0.33333333, 0.33333333, 0.66666667, 1.0, 1.0],
    "c": [-0.5, -0.25, 0.0, 0.25, 0.25, 0.75, 1.25, 1.25],
    "e": [-1.0, -0.25, 0.25, 0.25, 0.25, 0.5, 1.0, 2.0],
    "f": [-1.0, -1.0, 1.0, 1.0, 0.0, 0.0, 2.0, 2.0],
    "g": [-1.0, -0.5, 0.0, 0.0, 0.5, 0.5, 1.0, 3.0],
    "h": [-1.0, -0.33333333, 0.33333333, 0.33333333, 0.33333333, 1.0, 1.0, 1.0],
    "k": [-0.5, -0.25, 0.0, 0.25, 0.5, 0.5, 1.0, 3.0],
}
X = np.array([-1.0, -0.3, 0.05, 0.2, 0.26, 0.7, 1.2, 3.0], np.float32)


@pytest.fixture
def qmodel(tmp_path):
    d = tmp_path / "q"
    write(str(d / "graph.nnef"), Q_GRAPH)
    write(str(d / "graph.quant"), Q_QUANT)
    return str(d)


@pytest.mark.parametrize("precision", ["single", "double"])
def test_quantize(qmodel, precision):
    m = nnefkit.load(qmodel)
    assert m.valid
    out = m.run({"d": np.zeros(1, np.float32)}, precision=precision)
    assert list(out) == list("abcefghk")
    for k, v in Q_WANT.items():
        assert out[k].shape == (2, 4)
        np.testing.assert_allclose(out[k].reshape(-1), v, rtol=1e-6, atol=1e-7, err_msg=k)


def test_quantize_off(qmodel, tmp_path):
    m = nnefkit.load(qmodel)
    # nnef-run --no-quantize's warning, as a UserWarning
    with pytest.warns(UserWarning) as w:
        out = m.run({"d": np.zeros(1, np.float32)}, quantize=False)
    st, _, err = cli("nnef-run", qmodel, "--random", "uniform", "--no-quantize")
    assert st == 0
    line = [ln for ln in err.splitlines() if "warning[W1311]" in ln][0]
    assert line.startswith(f"{qmodel}/graph.quant:1:1: warning[W1311]: graph.quant quantizes 7 tensors, but quantization is turned off")
    assert any(line in str(x.message) for x in w)
    for k in "abcefgk":
        assert_same(out[k].reshape(-1), X)
    assert_same(out["h"].reshape(-1), X * 2)


def test_quantize_off_at_load(qmodel):
    # quantize is an option of the run; a model loaded once runs both ways
    m = nnefkit.load(qmodel)
    d = {"d": np.zeros(1, np.float32)}
    on = m.run(d)
    with pytest.warns(UserWarning, match="W1311"):
        off = m.run(d, quantize=False)
    again = m.run(d)
    assert not np.array_equal(on["a"], off["a"])
    assert_same(on["a"], again["a"])


def test_quantized_input(tmp_path):
    d = tmp_path / "qin"
    write(str(d / "graph.nnef"), "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = copy(x);\n}\n")
    write(str(d / "graph.quant"), '"x": linear_quantize(min = 0.0, max = 2.0, bits = 2);\n')
    m = nnefkit.load(str(d))
    x = np.array([10, 0.5], np.float32)
    np.testing.assert_allclose(m.run({"x": x})["y"], [2.0, 0.6666667], rtol=1e-6)
    with pytest.warns(UserWarning, match="W1311"):
        assert_same(m.run({"x": x}, quantize=False)["y"], x)
    write_dat(str(tmp_path / "x.dat"), x)
    want = cli_run(tmp_path, str(d), "--input", f"x={tmp_path / 'x.dat'}")
    assert_same(m.run({"x": x})["y"], want["y"])


def test_integer_and_logical_outputs(tmp_path):
    p = write(str(tmp_path / "t.nnef"), """version 1.0;
graph G( x, i ) -> ( a, l, g )
{
    x = external(shape = [2, 3]);
    i = external<integer>(shape = [2]);
    a = argmax_reduce(x, axes = [1]);
    l = gt(x, 0.0);
    g = gather(x, i, axis = 1);
}
""")
    m = nnefkit.load(p)
    x = np.array([[1, -5, 3], [-1, 7, 0]], np.float32)
    out = m.run({"x": x, "i": np.array([2, 0], np.int64)})
    assert out["a"].dtype.kind == "i"
    assert_same(out["a"].astype(np.int64), np.array([[2], [1]]))
    assert out["l"].dtype == np.bool_
    assert_same(out["l"], x > 0)
    assert_same(out["g"], x[:, [2, 0]])
    # int32 indices are as good as int64 ones
    out32 = m.run({"x": x, "i": np.array([2, 0], np.int32)})
    assert_same(out32["g"], out["g"])


def test_run_error_is_positioned(tmp_path):
    # an index out of range is found while running: nnefkit.Error or
    # ValueError carrying the CLI's positioned diagnostic
    p = write(str(tmp_path / "g.nnef"), """version 1.0;
graph G( x, i ) -> ( g )
{
    x = external(shape = [2, 3]);
    i = external<integer>(shape = [1]);
    g = gather(x, i, axis = 1);
}
""")
    m = nnefkit.load(p)
    x = np.zeros((2, 3), np.float32)
    write_dat(str(tmp_path / "x.dat"), x)
    write_dat(str(tmp_path / "i.dat"), np.array([9], np.int32))
    st, _, err = cli("nnef-run", p, "--input", f"x={tmp_path / 'x.dat'}",
                     "--input", f"i={tmp_path / 'i.dat'}")
    assert st != 0
    with pytest.raises(nnefkit.Error) as e:
        m.run({"x": x, "i": np.array([9], np.int64)})
    first = [ln for ln in err.splitlines() if "error[" in ln][0]
    assert first == f"{p}:6:9: error[E1301]: gather: index 9 (item 0 of the indices) is outside [0, 3), the extent of axis 1"
    assert first in str(e.value)
    d = e.value.diagnostics[0]
    assert (d.code, d.severity, d.file, d.line, d.column) == ("E1301", "error", p, 6, 9)
    assert str(d).splitlines()[0] == first
    # the model runs again after a failed run
    np.testing.assert_array_equal(m.run({"x": x + 1, "i": np.array([2], np.int64)})["g"], [[1], [1]])

# Model.run's inputs, property tests: wrong item types and shapes give a
# ValueError naming the input (the CLI's E1303 text), whatever layout an
# array of the right type and shape has (strided, Fortran order, read-only,
# byte-swapped) gives the results of a C-contiguous float32 array, and
# nothing crashes (the random sweep runs in a child process, where a crash
# shows as a signal).
import os
import subprocess
import sys

import numpy as np
import pytest

import nnefkit
from conftest import write

GRAPH = """version 1.0;
graph G( x, i ) -> ( y, g )
{
    x = external(shape = [2, 3]);
    i = external<integer>(shape = [2]);
    t = mul(x, 2.0);
    y = add(t, 1.0);
    g = gather(x, i, axis = 1);
}
"""
X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
I = np.array([2, 0], np.int64)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    p = write(str(tmp_path_factory.mktemp("inputs") / "g.nnef"), GRAPH)
    m = nnefkit.load(p)
    assert m.valid
    return m


@pytest.fixture(scope="module")
def reference(model):
    return model.run({"x": X, "i": I})


def check_same(out, ref):
    assert set(out) == set(ref)
    for k in ref:
        assert out[k].dtype == ref[k].dtype and out[k].shape == ref[k].shape
        np.testing.assert_array_equal(out[k], ref[k])


def layouts(a):
    """a in every layout NumPy has, each with a's values."""
    big = np.zeros((a.shape[0] * 2, a.shape[1] * 3), a.dtype)
    strided = big[::2, ::3]
    strided[...] = a
    ro = a.copy()
    ro.flags.writeable = False
    rev = a[::-1, ::-1].copy()[::-1, ::-1]
    return {
        "strided": strided,
        "fortran": np.asfortranarray(a),
        "transposed_view": np.ascontiguousarray(a.T).T,
        "readonly": ro,
        "reversed_view": rev,
        "byteswapped": a.astype(a.dtype.newbyteorder(">")),
        "unaligned": np.frombuffer(b"\0" + a.tobytes(), a.dtype, offset=1).reshape(a.shape),
    }


@pytest.mark.parametrize("layout", list(layouts(X)))
def test_any_layout_gives_same_results(model, reference, layout):
    x = layouts(X)[layout]
    before = x.copy()
    check_same(model.run({"x": x, "i": I}), reference)
    np.testing.assert_array_equal(x, before)  # inputs never written


@pytest.mark.parametrize("layout", ["strided", "fortran", "readonly", "byteswapped"])
def test_integer_input_layouts(model, reference, layout):
    i = np.stack([I, I], 1)[:, 0] if layout == "strided" else layouts(I.reshape(1, 2))[layout].reshape(2)
    check_same(model.run({"x": X, "i": i}), reference)


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_floats_converted(model, reference, dtype):
    out = model.run({"x": X.astype(dtype), "i": I})
    check_same(out, reference)


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.uint8, np.uint32])
def test_other_integer_indices(model, reference, dtype):
    check_same(model.run({"x": X, "i": I.astype(dtype)}), reference)


def test_uint64_indices(model, reference):
    # taken, or refused as not fitting int64: never wrapped silently
    try:
        out = model.run({"x": X, "i": I.astype(np.uint64)})
    except ValueError as e:
        assert "'i'" in str(e)
        return
    check_same(out, reference)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_integers_for_scalar(model, dtype):
    # either refused as the CLI refuses an integer file for a scalar input,
    # or taken at their values
    x = (X * 2).astype(dtype)
    try:
        out = model.run({"x": x, "i": I})
    except ValueError as e:
        assert "'x'" in str(e)
        return
    check_same(out, model.run({"x": x.astype(np.float32), "i": I}))


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64])
def test_wrong_item_type_for_scalar(model, dtype):
    with pytest.raises(ValueError, match="'x'"):
        model.run({"x": X.astype(dtype), "i": I})


@pytest.mark.parametrize("dtype", [np.float32, np.bool_])
def test_wrong_item_type_for_integer(model, dtype):
    with pytest.raises(ValueError, match="'i'"):
        model.run({"x": X, "i": I.astype(dtype)})


@pytest.mark.parametrize("shape", [(3, 2), (6,), (1, 2, 3), (2, 3, 1), (2, 4), ()])
def test_wrong_shape(model, shape):
    x = np.zeros(shape, np.float32)
    with pytest.raises(ValueError) as e:
        model.run({"x": x, "i": I})
    msg = str(e.value)
    assert "'x'" in msg
    assert "[2,3]" in msg  # the CLI's text: "... but the graph's input 'x' has shape [2,3]"


@pytest.mark.parametrize("shape", [(0, 3), (2, 0)])
def test_empty_array(model, shape):
    with pytest.raises(ValueError, match="'x'.*empty"):
        model.run({"x": np.zeros(shape, np.float32), "i": I})


def test_0d_for_1_element_input(tmp_path):
    p = write(str(tmp_path / "one.nnef"),
              "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1]);\n    y = copy(x);\n}\n")
    m = nnefkit.load(p)
    with pytest.raises(ValueError, match="'x'"):
        m.run({"x": np.float32(1.0)})
    with pytest.raises(ValueError, match="'x'"):
        m.run({"x": np.array(1.0, np.float32)})
    np.testing.assert_array_equal(m.run({"x": np.ones(1, np.float32)})["y"], [1.0])


def test_object_array(model):
    with pytest.raises((ValueError, TypeError)) as e:
        model.run({"x": np.array([[object()] * 3] * 2, dtype=object), "i": I})
    assert "'x'" in str(e.value) or "x" in str(e.value)


def test_not_an_array(model):
    for bad in ("abc", None, object(), {"a": 1}):
        with pytest.raises((ValueError, TypeError)):
            model.run({"x": bad, "i": I})


def test_nested_lists(model, reference):
    # array-likes are what numpy.asarray makes of them
    check_same(model.run({"x": X.tolist(), "i": I.tolist()}), reference)


def test_inputs_not_a_mapping(model):
    with pytest.raises(TypeError):
        model.run([X, I])
    with pytest.raises((TypeError, ValueError)):
        model.run({1: X, "i": I})


def test_nan_and_inf_pass_through(model):
    x = X.copy()
    x[0, 0] = np.nan
    x[1, 2] = np.inf
    y = model.run({"x": x, "i": I})["y"]
    assert np.isnan(y[0, 0]) and y[1, 2] == np.inf


SWEEP = r'''
import sys
import numpy as np
import nnefkit
m = nnefkit.load(sys.argv[1])
X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
I = np.array([2, 0], np.int64)
ref = m.run({"x": X, "i": I})
rng = np.random.default_rng(int(sys.argv[2]))
dtypes = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64,
          np.uint8, np.bool_, np.complex64, object, "S3", ">f4", "<f8"]
shapes = [(2, 3), (3, 2), (6,), (), (0,), (2, 3, 1), (1, 2, 3), (2, 0), (4, 6)]
n = bad = 0
for _ in range(400):
    shape = shapes[rng.integers(len(shapes))]
    dt = dtypes[rng.integers(len(dtypes))]
    try:
        a = np.asarray((rng.standard_normal(shape) * 3).astype(dt))
    except (TypeError, ValueError):
        continue
    kind = rng.integers(5)
    if kind == 1 and a.ndim:
        a = np.asfortranarray(a)
    elif kind == 2 and a.ndim == 2:
        big = np.zeros((a.shape[0], a.shape[1] * 2), a.dtype)
        big[:, ::2] = a
        a = big[:, ::2]
    elif kind == 3:
        a.flags.writeable = False
    elif kind == 4:
        a = a.tolist()
    target = "x" if rng.integers(2) else "i"
    inputs = {"x": X, "i": I, target: a}
    try:
        out = m.run(inputs)
    except ValueError as e:
        if "'" + target + "'" not in str(e):
            print("message without the input name:", repr(str(e)), target, shape, dt)
            bad += 1
        n += 1
        continue
    except TypeError:
        n += 1
        continue
    # accepted: it must equal the run of the values as NumPy reads them
    want_in = dict(x=X, i=I)
    arr = np.asarray(a)
    want_in[target] = arr.astype(np.float32 if target == "x" else np.int64)
    want = m.run(want_in)
    for k in ref:
        if not np.array_equal(out[k], want[k], equal_nan=True):
            print("accepted but wrong:", target, shape, dt, kind)
            bad += 1
    n += 1
print("cases", n, "bad", bad)
sys.exit(1 if bad else 0)
'''


@pytest.mark.parametrize("seed", [1, 2])
def test_random_sweep_never_crashes(tmp_path, seed):
    p = write(str(tmp_path / "g.nnef"), GRAPH)
    script = write(str(tmp_path / "sweep.py"), SWEEP)
    r = subprocess.run([sys.executable, script, p, str(seed)], capture_output=True,
                       text=True, timeout=120, env=os.environ)
    assert r.returncode >= 0, f"killed by signal {-r.returncode}:\n{r.stderr[-2000:]}"
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "cases" in r.stdout

"""Smoke tests of the module nnefkit (python/), written with it.

    make python && PYTHONPATH=build/python /usr/bin/python3 -m pytest testsuite/python/test_smoke.py

NNEF_BINDIR names the programs to compare with (default build/bin)."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import nnefkit

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("NNEF_BINDIR", os.path.join(TOP, "build", "bin"))
TINY = os.path.join(TOP, "examples", "tiny_convnet")
RESIDUAL = os.path.join(TOP, "examples", "residual_block")
BROKEN = os.path.join(TOP, "testsuite", "golden", "syntax", "missing_semicolon.nnef")


def tool(name, *args):
    return subprocess.run([os.path.join(BIN, name), *args], capture_output=True, text=True)


def test_load_valid():
    m = nnefkit.load(TINY)
    assert m.valid and m.status == "valid" and m.errors == 0
    assert m.inputs == ("image",) and m.outputs == ("probabilities",)
    assert m.shapes["image"] == (1, 3, 32, 32) and m.dtypes["image"] == "scalar"
    assert m.operations[0].name == "external" and m.operations[0].outputs == {"output": "image"}
    conv = next(op for op in m.operations if op.name == "conv")
    assert conv.inputs["input"] == "image" and conv.attributes["stride"] == [1, 1]


def test_invalid_model_does_not_raise_and_renders_as_the_cli():
    m = nnefkit.load(BROKEN)
    assert not m.valid and m.status == "invalid"
    d = m.diagnostics[0]
    assert (d.code, d.severity, d.line, d.column) == ("E0202", "error", 6, 25)
    cli = tool("nnef-check", BROKEN).stderr
    assert cli.startswith(str(d) + "\n")
    with pytest.raises(ValueError):
        m.flatten()
    with pytest.raises(ValueError):
        m.run()


def test_unreadable_paths_raise_oserror(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        nnefkit.load(tmp_path / "none")
    assert e.value.filename == str(tmp_path / "none") and e.value.diagnostics[0].code == "E0001"
    with pytest.raises(IsADirectoryError):
        nnefkit.read_tensor(tmp_path)
    with pytest.raises(FileNotFoundError):
        nnefkit.write_tensor(tmp_path / "none" / "x.dat", [1.0])


def test_flatten_and_portability_as_the_cli():
    m = nnefkit.load(RESIDUAL)
    assert m.flatten() == tool("nnef-flatten", RESIDUAL).stdout
    p = m.portability("onnx:13")
    assert p.operations >= p.portable > 0 and p.text in tool("nnef-check", "--target=onnx:13", RESIDUAL).stdout
    with pytest.raises(ValueError):
        m.portability("no-such-target")


@pytest.mark.parametrize("path", [TINY, RESIDUAL])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_run_agrees_with_nnef_run(tmp_path, path, precision):
    r = tool("nnef-run", path, "--random", "normal", "--seed", "7", "--precision",
             "float" if precision == "single" else "double", "--output-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    out = nnefkit.load(path).run(random="normal", seed=7, precision=precision)
    for name, a in out.items():
        ref = nnefkit.read_tensor(tmp_path / (name + ".dat"))
        assert a.dtype == ref.dtype and a.flags.owndata and np.array_equal(a, ref)


def test_inputs_any_layout_same_result():
    m = nnefkit.load(TINY)
    x = np.random.default_rng(1).random((1, 3, 32, 32), dtype=np.float32)
    want = m.run({"image": x})["probabilities"]
    ro = x.copy()
    ro.flags.writeable = False
    wide = np.zeros((1, 3, 32, 64), np.float32)
    wide[..., ::2] = x
    for same in (np.asfortranarray(x), ro, x.astype(np.float64), x.astype(">f4"), wide[..., ::2], x.tolist()):
        assert np.array_equal(m.run({"image": same})["probabilities"], want)


@pytest.mark.parametrize("bad", [np.zeros((1, 3, 32, 31), np.float32), np.zeros((3, 32, 32), np.float32),
                                 np.zeros((1, 3, 32, 32), np.complex64), np.zeros((1, 3, 32, 32), bool),
                                 np.zeros((1, 0, 32, 32), np.float32), "text", [[1.0], [1.0, 2.0]], object()])
def test_wrong_inputs_raise_valueerror(bad):
    with pytest.raises(ValueError):
        nnefkit.load(TINY).run({"image": bad})


def test_missing_and_unknown_inputs():
    m = nnefkit.load(TINY)
    with pytest.raises(ValueError, match="has no data"):
        m.run()
    with pytest.raises(ValueError, match="is not an input of the graph; its inputs are: image"):
        m.run({"img": np.zeros((1, 3, 32, 32))}, random="uniform")


@pytest.mark.parametrize("dtype,item", [(np.float32, "float32"), (np.float64, "float64"), (np.int64, "int64"),
                                        (np.int32, "int32"), (np.bool_, "bool8")])
@pytest.mark.parametrize("suffix", [".dat", ".npy"])
def test_tensor_files_round_trip(tmp_path, dtype, item, suffix):
    a = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    path = tmp_path / ("t" + suffix)
    nnefkit.write_tensor(path, np.asfortranarray(a))
    assert os.listdir(tmp_path) == ["t" + suffix]
    b = nnefkit.read_tensor(path)
    assert b.shape == a.shape and np.array_equal(a, b)
    if suffix == ".npy":
        assert np.array_equal(np.load(path), a)
    else:
        assert nnefkit.read_tensor_info(path)["item_type"] == item.replace("bool8", "bool8")


def test_malformed_tensor_file_raises_error(tmp_path):
    (tmp_path / "x.dat").write_bytes(b"not a tensor")
    with pytest.raises(nnefkit.Error) as e:
        nnefkit.read_tensor(tmp_path / "x.dat")
    assert e.value.diagnostics[0].code == "E1001"


def test_quantize_reads_the_model_again():
    path = os.path.join(os.environ.get("NNEF_CORPUS", os.path.join(TOP, "..", "shared", "corpus")),
                        "tract-harness", "copy-requant")
    if not os.path.isdir(path):
        pytest.skip("no corpus")
    m = nnefkit.load(path, dialect="tract")
    assert m.valid
    x = np.linspace(0, 1, int(np.prod(m.shapes[m.inputs[0]]))).reshape(m.shapes[m.inputs[0]]).astype(np.float32)
    q = m.run({m.inputs[0]: x})
    with pytest.warns(UserWarning, match=r"warning\[W1311\]: graph.quant quantizes 2 tensors"):
        f = m.run({m.inputs[0]: x}, quantize=False)
    assert list(q) == list(f) == list(m.outputs)


INTERRUPTED = """
import sys, time, nnefkit
m = nnefkit.load(sys.argv[1])
m.run(random="uniform")
try:
    print("ready", flush=True)
    m.run(random="uniform", cycles=10 ** 6)
except KeyboardInterrupt:
    print("interrupted", flush=True)
print(sorted(m.run(random="uniform")))
"""


def test_ctrl_c_stops_a_run():
    p = subprocess.Popen([sys.executable, "-c", INTERRUPTED, TINY], stdout=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline() == "ready\n"
    time.sleep(0.5)  # into the run, which would take minutes
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and out == "interrupted\n['probabilities']\n"


def test_load_options():
    m = nnefkit.load(RESIDUAL)
    x = m.inputs[0]
    wide = nnefkit.load(RESIDUAL, input_shapes={x: (2,) + m.shapes[x][1:]})
    assert wide.valid and wide.shapes[x][0] == 2 and wide.run(random="uniform")[m.outputs[0]].shape[0] == 2
    assert [op.name for op in nnefkit.load(TINY, keep=["softmax"]).operations][-1] == "softmax"
    with pytest.raises(ValueError, match="'nope' is not an external of this model; its inputs are: image"):
        nnefkit.load(TINY, input_shapes={"nope": (1,)})
    with pytest.raises(ValueError, match="not a dialect"):
        nnefkit.load(TINY, dialect="onnx")

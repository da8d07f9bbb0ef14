# Model.inputs, outputs, shapes, dtypes, operations, flatten() and
# portability(target), against nnef-check --shapes, nnef-flatten and
# nnef-check --target.
import os
import re

import numpy as np
import pytest

import nnefkit
from conftest import EXAMPLES, cli, corpus_path, write

TINY = os.path.join(EXAMPLES, "tiny_convnet")
RESIDUAL = os.path.join(EXAMPLES, "residual_block")


def dtype_kind(v):
    """'scalar', 'integer' or 'logical', whether the module gives NNEF's
    names or NumPy dtypes."""
    if isinstance(v, str) and v in ("scalar", "integer", "logical"):
        return v
    k = np.dtype(v).kind
    return {"f": "scalar", "i": "integer", "u": "integer", "b": "logical"}[k]


def cli_shapes(path, which="named", *opts):
    st, out, err = cli("nnef-check", "-q", f"--shapes={which}", *opts, path)
    assert st == 0, err
    shapes = {}
    for ln in out.splitlines():
        name, t = ln.rsplit(": ", 1)
        m = re.fullmatch(r"(\w+)\[(.*)\]", t)
        dims = m.group(2)
        shapes[name] = (m.group(1), None if dims == "?" else
                        tuple(None if x == "?" else int(x) for x in dims.split(",") if x))
    return shapes


def test_inputs_outputs():
    m = nnefkit.load(TINY)
    assert list(m.inputs) == ["image"]
    assert list(m.outputs) == ["probabilities"]
    m = nnefkit.load(RESIDUAL)
    assert list(m.inputs) == ["input"]
    assert list(m.outputs) == ["output"]


def test_inputs_outputs_in_order(tmp_path):
    p = write(str(tmp_path / "g.nnef"), """version 1.0;
graph G( b, a ) -> ( z, y )
{
    b = external(shape = [2]);
    a = external(shape = [2]);
    y = add(a, b);
    z = sub(a, b);
}
""")
    m = nnefkit.load(p)
    assert list(m.inputs) == ["b", "a"]
    assert list(m.outputs) == ["z", "y"]


@pytest.mark.parametrize("path", [TINY, RESIDUAL])
def test_shapes_and_dtypes_match_cli(path):
    m = nnefkit.load(path)
    want = cli_shapes(path)
    for name, (t, dims) in want.items():
        assert tuple(m.shapes[name]) == dims, name
        assert all(isinstance(x, int) for x in m.shapes[name])
        assert dtype_kind(m.dtypes[name]) == t, name


def test_shapes_of_tensors_in_the_flat_graph():
    # every tensor an operation reads or writes that the document names
    m = nnefkit.load(TINY)
    every = cli_shapes(TINY, "all")
    named = cli_shapes(TINY)
    for op in m.operations:
        for name in list(op.inputs.values()) + list(op.outputs.values()):
            if name in named:
                assert tuple(m.shapes[name]) == every[name][1], name


def test_unknown_shapes_are_none(tmp_path):
    p = write(str(tmp_path / "custom.nnef"), """version 1.0;
extension KHR_enable_fragment_definitions;
fragment warp( x: tensor<scalar> ) -> ( y: tensor<scalar> );
graph G( input ) -> ( output )
{
    input = external(shape = [1, 3]);
    hidden = warp(input);
    output = add(hidden, input);
}
""")
    m = nnefkit.load(p)
    assert m.valid
    assert tuple(m.shapes["input"]) == (1, 3)
    for name in ("hidden", "output"):
        s = m.shapes[name]
        assert s is None or None in s, (name, s)


def test_dtypes_integer_and_logical(tmp_path):
    p = write(str(tmp_path / "t.nnef"), """version 1.0;
graph G( x ) -> ( i, l )
{
    x = external(shape = [2, 3]);
    i = argmax_reduce(x, axes = [1]);
    l = gt(x, 0.0);
}
""")
    m = nnefkit.load(p)
    assert dtype_kind(m.dtypes["x"]) == "scalar"
    assert dtype_kind(m.dtypes["i"]) == "integer"
    assert dtype_kind(m.dtypes["l"]) == "logical"
    assert tuple(m.shapes["i"]) == (2, 1)


def flat_statements(text):
    """(results, operation) of each statement of a flat graph's body."""
    body = text[text.index("{"):]
    return re.findall(r"^\s+(.+?) = (\w+)(?:<\w+>)?\(", body, re.M)


@pytest.mark.parametrize("path", [TINY, RESIDUAL])
def test_flatten_is_cli_text(path):
    m = nnefkit.load(path)
    st, out, err = cli("nnef-flatten", path)
    assert st == 0, err
    assert m.flatten() == out


def test_flatten_invalid_model_raises(tmp_path):
    p = write(str(tmp_path / "bad.nnef"), "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2]);\n    y = reshape(x, shape = [3]);\n}\n")
    m = nnefkit.load(p)
    assert not m.valid
    with pytest.raises((ValueError, nnefkit.Error)):
        m.flatten()
    with pytest.raises((ValueError, nnefkit.Error)):
        m.run({"x": np.zeros(2, np.float32)})


@pytest.mark.parametrize("path", [TINY, RESIDUAL])
def test_operations_are_the_flat_graph(path):
    m = nnefkit.load(path)
    _, out, _ = cli("nnef-flatten", path)
    stmts = flat_statements(out)
    ops = list(m.operations)
    assert [op.name for op in ops] == [s[1] for s in stmts]
    for op, (lhs, _) in zip(ops, stmts):
        outs = [x.strip() for x in lhs.strip("()[]").split(",")]
        assert list(op.outputs.values()) == outs


def test_operation_attributes():
    # inputs and outputs: parameter name to tensor name; attributes and
    # literal operands: parameter name to Python value
    m = nnefkit.load(TINY)
    ops = {tuple(op.outputs.values()): op for op in m.operations}
    conv = ops[("conv1",)]
    assert conv.name == "conv"
    assert conv.inputs == {"input": "image", "filter": "conv1_filter", "bias": "conv1_bias"}
    assert conv.outputs == {"output": "conv1"}
    a = conv.attributes
    assert a["border"] == "constant"
    assert [tuple(p) for p in a["padding"]] == [(1, 1), (1, 1)]
    assert list(a["stride"]) == [1, 1]
    assert list(a["dilation"]) == []
    assert a["groups"] == 1 and type(a["groups"]) is int
    assert conv.compound is None
    var = ops[("conv1_filter",)]
    assert var.name == "variable"
    assert var.attributes["label"] == "conv1/filter"
    assert list(var.attributes["shape"]) == [16, 3, 3, 3]
    mm = ops[("logits_matmul",)]
    assert mm.attributes["transposeB"] is True
    assert mm.attributes["transposeA"] is False
    assert mm.compound == "linear"
    box = ops[("pool2",)]
    assert box.attributes["normalize"] is True
    ext = ops[("image",)]
    assert ext.name == "external"
    assert list(ext.attributes["shape"]) == [1, 3, 32, 32]


def test_operation_literal_operands(tmp_path):
    # leaky_relu is a compound: flat, lt(x, 0.0), mul(0.25, x), select
    p = write(str(tmp_path / "g.nnef"), """version 1.0;
graph G( x ) -> ( y )
{
    x = external(shape = [2]);
    y = leaky_relu(x, alpha = 0.25);
}
""")
    m = nnefkit.load(p)
    ops = list(m.operations)
    assert [o.name for o in ops] == ["external", "lt", "mul", "select"]
    lt, mul, sel = ops[1:]
    assert lt.inputs == {"x": "x"}
    assert lt.attributes == {"y": 0.0} and type(lt.attributes["y"]) is float
    assert mul.inputs == {"y": "x"} and mul.attributes == {"x": 0.25}
    assert sel.inputs == {"condition": "y_lt", "true_value": "y_mul", "false_value": "x"}
    assert sel.outputs == {"output": "y"}
    assert {o.compound for o in ops[1:]} == {"leaky_relu"}


def test_operation_tensor_arrays(tmp_path):
    p = write(str(tmp_path / "g.nnef"), """version 1.0;
graph G( a, b ) -> ( c, s1, s2 )
{
    a = external(shape = [2, 3]);
    b = external(shape = [2, 1]);
    c = concat([a, b], axis = 1);
    [s1, s2] = split(c, axis = 1, ratios = [1, 3]);
}
""")
    m = nnefkit.load(p)
    ops = list(m.operations)
    assert ops[2].name == "concat"
    assert ops[2].inputs == {"values": ["a", "b"]}
    assert ops[2].attributes == {"axis": 1}
    assert ops[3].outputs == {"values": ["s1", "s2"]}
    assert ops[3].attributes["ratios"] == [1, 3]
    assert tuple(m.shapes["s2"]) == (2, 3)


@pytest.mark.parametrize("target", ["openvx", "onnx:13", "coreml", "openvino"])
@pytest.mark.parametrize("path", [TINY, RESIDUAL])
def test_portability_is_cli_text(path, target):
    m = nnefkit.load(path)
    st, out, err = cli("nnef-check", f"--target={target}", path)
    assert st == 0, err
    want = out.split("\n", 1)[1]  # after "PATH: valid"
    p = m.portability(target)
    assert p.text.rstrip("\n") == want.rstrip("\n")
    assert p.target == target
    last = want.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"{target}: {p.portable}/{p.operations} operations portable")
    assert p.failed is False
    assert sum(u["count"] for u in p.mappings) == p.operations  # every kind, as the table
    assert sum(u["count"] for u in p.problems) == p.operations - p.portable


def test_portability_unknown_target():
    m = nnefkit.load(TINY)
    with pytest.raises(ValueError, match="openvx, openvino, coreml or onnx:N"):
        m.portability("nosuch")
    with pytest.raises(ValueError):
        m.portability("onnx:99")


def test_corpus_network_shapes():
    path = corpus_path("nnef-tools-examples", "alexnet.nnef")
    m = nnefkit.load(path)
    assert m.valid
    want = cli_shapes(path)
    for name, (t, dims) in want.items():
        assert tuple(m.shapes[name]) == dims, name
    _, out, _ = cli("nnef-flatten", path)
    assert m.flatten() == out

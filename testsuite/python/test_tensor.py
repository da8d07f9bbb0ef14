# nnefkit.read_tensor and write_tensor: every item type round trips,
# files the tests write by hand and files nnef-run writes read right, what
# write_tensor writes is byte for byte nnef-run's, nothing partial left.
import os

import numpy as np
import pytest

import nnefkit
from conftest import EXAMPLES, cli, dat_bytes, write_dat

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32,
          np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]


def sample(dtype, shape=(2, 3, 4)):
    rng = np.random.default_rng(5)
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    a = rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape).astype(dtype)
    a.flat[0] = info.min
    a.flat[1] = info.max
    return a


# the item type each dtype is written as (what nnef_tensor_write can
# write: float32, float64, int32, int64, 8-bit bools), read back so
WRITTEN_AS = {np.float16: np.float32, np.float32: np.float32, np.float64: np.float64,
              np.int8: np.int32, np.int16: np.int32, np.int32: np.int32, np.int64: np.int64,
              np.uint8: np.int32, np.uint16: np.int32, np.uint32: np.int64,
              np.bool_: np.bool_}


@pytest.mark.parametrize("dtype", list(WRITTEN_AS), ids=lambda d: np.dtype(d).name)
def test_round_trip(tmp_path, dtype):
    a = sample(dtype)
    p = str(tmp_path / "t.dat")
    nnefkit.write_tensor(p, a)
    b = nnefkit.read_tensor(p)
    assert isinstance(b, np.ndarray)
    assert b.shape == a.shape
    assert b.dtype == WRITTEN_AS[dtype]
    np.testing.assert_array_equal(a, b)  # the values, exactly
    assert [f for f in os.listdir(tmp_path) if ".tmp" in f] == []
    info = nnefkit.read_tensor_info(p)
    assert info["shape"] == a.shape
    assert info["item_type"] == {np.bool_: "bool8"}.get(WRITTEN_AS[dtype], np.dtype(WRITTEN_AS[dtype]).name)


def test_uint64_refused(tmp_path):
    # items above 2^63 - 1 have no item type the library writes
    with pytest.raises(ValueError, match="uint64"):
        nnefkit.write_tensor(str(tmp_path / "t.dat"), np.zeros(3, np.uint64))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("dtype", list(WRITTEN_AS), ids=lambda d: np.dtype(d).name)
def test_npy_round_trip(tmp_path, dtype):
    a = sample(dtype)
    p = str(tmp_path / "t.npy")
    nnefkit.write_tensor(p, a)
    b = np.load(p)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(nnefkit.read_tensor(p), a)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reads_hand_written_file(tmp_path, dtype):
    a = sample(dtype, (3, 5))
    p = write_dat(str(tmp_path / "t.dat"), a)
    b = nnefkit.read_tensor(p)
    assert b.shape == a.shape
    assert b.dtype.kind == a.dtype.kind or (a.dtype.kind in "iu" and b.dtype.kind in "iu")
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64],
                         ids=lambda d: np.dtype(d).name)
def test_written_as_by_hand(tmp_path, dtype):
    # the header the spec gives, the data little-endian: the same bytes as
    # the tests' own writer
    a = sample(dtype, (4, 2))
    p = str(tmp_path / "t.dat")
    nnefkit.write_tensor(p, a)
    with open(p, "rb") as f:
        assert f.read() == dat_bytes(a)


def test_same_bytes_as_nnef_run(tmp_path):
    out = tmp_path / "o"
    st, _, err = cli("nnef-run", "-q", os.path.join(EXAMPLES, "tiny_convnet"),
                     "--random", "uniform", "--seed", "1", "--output-dir", out)
    assert st == 0, err
    src = str(out / "probabilities.dat")
    a = nnefkit.read_tensor(src)
    assert a.dtype == np.float32 and a.shape == (1, 10)
    p = str(tmp_path / "again.dat")
    nnefkit.write_tensor(p, a)
    with open(src, "rb") as f1, open(p, "rb") as f2:
        assert f1.read() == f2.read()


def test_scalars_0d_and_rank_8(tmp_path):
    for a in (np.float32(2.5) * np.ones(()), np.arange(2 ** 8, dtype=np.float32).reshape((2,) * 8)):
        a = np.asarray(a, np.float32)
        p = str(tmp_path / "t.dat")
        nnefkit.write_tensor(p, a)
        b = nnefkit.read_tensor(p)
        assert b.shape == a.shape
        np.testing.assert_array_equal(a, b)


def test_rank_9_refused(tmp_path):
    with pytest.raises((ValueError, nnefkit.Error)):
        nnefkit.write_tensor(str(tmp_path / "t.dat"), np.zeros((1,) * 9, np.float32))


def test_non_contiguous_written_in_logical_order(tmp_path):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    for v in (a.T, a[:, ::2], np.asfortranarray(a), a[::-1]):
        p = str(tmp_path / "t.dat")
        nnefkit.write_tensor(p, v)
        np.testing.assert_array_equal(nnefkit.read_tensor(p), v)


def test_big_endian_input(tmp_path):
    a = np.arange(6, dtype=">f4").reshape(2, 3)
    p = str(tmp_path / "t.dat")
    nnefkit.write_tensor(p, a)
    np.testing.assert_array_equal(nnefkit.read_tensor(p), a)


def test_reads_npy(tmp_path):
    for dtype in (np.float32, np.float64, np.int64, np.uint8, np.bool_):
        a = sample(dtype)
        p = str(tmp_path / "t.npy")
        np.save(p, a)
        b = nnefkit.read_tensor(p)
        np.testing.assert_array_equal(a, b)
        assert b.shape == a.shape


def test_reads_quantized_codes(tmp_path):
    # unsigned quantized 8-bit codes: their integer values, the item type
    # in read_tensor_info as nnef-datinfo names it
    p = write_dat(str(tmp_path / "q.dat"), np.array([3, 4], np.uint8), code=2)
    b = nnefkit.read_tensor(p)
    np.testing.assert_array_equal(b, [3, 4])
    assert b.dtype == np.uint8
    info = nnefkit.read_tensor_info(p)
    # codes of graph.quant: no range of their own
    assert info == {"item_type": "quint8", "dtype": "integer", "shape": (2,), "quantization": None}
    _, out, _ = cli("nnef-datinfo", p)
    assert out.splitlines()[1].split()[1] == info["item_type"]


def test_bool_written_as_bool8_read_from_bool1(tmp_path):
    a = np.array([True, False, True, True, False, False, True, False, True])
    p1 = write_dat(str(tmp_path / "b1.dat"), a)  # 1-bit items, packed
    np.testing.assert_array_equal(nnefkit.read_tensor(p1), a)
    p8 = str(tmp_path / "b8.dat")
    nnefkit.write_tensor(p8, a)
    assert nnefkit.read_tensor_info(p8)["item_type"] == "bool8"
    np.testing.assert_array_equal(nnefkit.read_tensor(p8), a)


def test_reads_corpus_integer_output():
    from conftest import corpus_path
    p = corpus_path("openvx-cts-nnef", "argmax_reduce_channel", "output.dat")
    b = nnefkit.read_tensor(p)
    assert b.dtype.kind in "iu"
    _, out, _ = cli("nnef-datinfo", "--format=json", p)
    import json
    info = json.loads(out)
    shape = None
    for v in (info if isinstance(info, list) else [info]):
        s = json.dumps(v)
        if '"shape"' in s:
            shape = _find_key(v, "shape")
    if shape is not None:
        assert list(b.shape) == list(shape)


def _find_key(v, key):
    if isinstance(v, dict):
        if key in v:
            return v[key]
        v = list(v.values())
    if isinstance(v, list):
        for x in v:
            r = _find_key(x, key)
            if r is not None:
                return r
    return None


def test_read_missing_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        nnefkit.read_tensor(str(tmp_path / "nope.dat"))


def test_read_garbage_is_error(tmp_path):
    p = tmp_path / "bad.dat"
    p.write_bytes(b"this is not a tensor file at all, not even close" * 4)
    with pytest.raises((nnefkit.Error, ValueError)) as e:
        nnefkit.read_tensor(str(p))
    assert "bad.dat" in str(e.value)
    # truncated data: the header promises more than there is
    p.write_bytes(dat_bytes(np.zeros(10, np.float32))[:-4])
    with pytest.raises((nnefkit.Error, ValueError)) as e:
        nnefkit.read_tensor(str(p))
    assert "bad.dat" in str(e.value)


def test_write_into_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        nnefkit.write_tensor(str(tmp_path / "no" / "t.dat"), np.zeros(2, np.float32))


def test_write_refuses_what_has_no_item_type(tmp_path):
    p = str(tmp_path / "t.dat")
    nnefkit.write_tensor(p, np.ones(3, np.float32))
    before = open(p, "rb").read()
    for bad in (np.array(["a", "b"]), np.array([object(), 1], dtype=object),
                np.zeros(2, np.complex64)):
        with pytest.raises((TypeError, ValueError)):
            nnefkit.write_tensor(p, bad)
    # the file that was there is untouched, no temporary file is left
    assert open(p, "rb").read() == before
    assert sorted(os.listdir(tmp_path)) == ["t.dat"]


def test_write_is_atomic_over_existing(tmp_path):
    p = str(tmp_path / "t.dat")
    nnefkit.write_tensor(p, np.ones(3, np.float32))
    os.chmod(p, 0o640)
    nnefkit.write_tensor(p, np.zeros(5, np.float64))
    np.testing.assert_array_equal(nnefkit.read_tensor(p), np.zeros(5))
    assert os.stat(p).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["t.dat"]


def _f32_bits(x):
    import struct
    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_reads_legacy_linear_quantization(tmp_path):
    # NNEF 1.0.2's code 0x10: codes 0 and 255 stand for min and max
    p = write_dat(str(tmp_path / "l8.dat"), np.array([0, 255, 51], np.uint8),
                  code=0x10, params=[_f32_bits(-2.0), _f32_bits(2.5)])
    b = nnefkit.read_tensor(p)
    assert b.dtype.kind == "f"
    np.testing.assert_allclose(b, [-2.0, 2.5, -2.0 + 51 * 4.5 / 255], rtol=1e-6)
    info = nnefkit.read_tensor_info(p)
    assert info["item_type"] == "linear8" and info["dtype"] == "scalar"


def test_quantization_parameters(tmp_path):
    p = write_dat(str(tmp_path / "l8.dat"), np.array([0, 255, 51], np.uint8),
                  code=0x10, params=[_f32_bits(-2.0), _f32_bits(2.5)])
    import json
    _, out, _ = cli("nnef-datinfo", "--format=json", p)
    want = json.loads(out)["files"][0]["quantization"]
    assert want == {"min": -2.0, "max": 2.5}
    assert nnefkit.read_tensor_info(p)["quantization"] == want

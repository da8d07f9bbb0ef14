# conftest.py - what the tests of the Python module share: where the
# source tree, the programs and the corpus are, and running a program.
#
# Run from the top of the tree: PYTHONPATH=build/python /usr/bin/python3
# -m pytest -q testsuite/python (make test-python does). NNEF_BIN names
# the programs' folder (default build/bin beside the module); NNEF_CORPUS
# the corpus; with NNEF_REQUIRE_CORPUS set, a missing corpus fails the
# tests that need it instead of skipping them (as testsuite/tools/lib.sh).
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(ROOT, "examples")


def _bin_dir():
    d = os.environ.get("NNEF_BIN")
    if d:
        return os.path.abspath(d)
    return os.path.join(ROOT, "build", "bin")


BIN = _bin_dir()


def tool(name):
    return os.path.join(BIN, name)


def cli(name, *args, cwd=None):
    """Runs the program name with args; returns (status, stdout, stderr)."""
    env = dict(os.environ, NO_COLOR="1")
    p = subprocess.run([tool(name), *map(str, args)], capture_output=True,
                       text=True, cwd=cwd, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def corpus_path(*parts):
    """The corpus path parts, or a skip (a failure under
    NNEF_REQUIRE_CORPUS) when it is not there."""
    root = os.environ.get("NNEF_CORPUS", "")
    path = os.path.join(root, *parts) if root else ""
    if root and os.path.exists(path):
        return path
    if not root:
        why = "corpus not found (NNEF_CORPUS unset)"
    elif not os.path.isdir(root):
        why = f"corpus not found at {root} (set NNEF_CORPUS)"
    else:
        why = f"corpus at {root} lacks {os.path.join(*parts)}"
    if os.environ.get("NNEF_REQUIRE_CORPUS"):
        pytest.fail(f"{why} (NNEF_REQUIRE_CORPUS is set)", pytrace=False)
    pytest.skip(why)


def cts_cases():
    """The names of the conformance cases (empty without the corpus)."""
    root = os.environ.get("NNEF_CORPUS", "")
    d = os.path.join(root, "openvx-cts-nnef") if root else ""
    if not d or not os.path.isdir(d):
        return []
    return sorted(n for n in os.listdir(d)
                  if os.path.isfile(os.path.join(d, n, "graph.nnef")))


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


@pytest.fixture(scope="session", autouse=True)
def _programs_built():
    for p in ("nnef-check", "nnef-run", "nnef-flatten"):
        if not os.access(tool(p), os.X_OK):
            pytest.fail(f"{tool(p)} not built (run make, or set NNEF_BIN)",
                        pytrace=False)


# Item type codes of the NNEF tensor file header (testsuite/tools/lib.sh):
# 0 float, 1 unsigned, 2 and 3 quantized, 4 signed, 5 bool.
def dat_bytes(array, code=None, params=()):
    """array as an NNEF tensor file (spec 5.2), written here by hand so
    that the tests do not read back only what the module wrote."""
    import struct

    import numpy as np
    a = np.ascontiguousarray(array)
    if code is None:
        code = {"f": 0, "u": 1, "i": 4, "b": 5}[a.dtype.kind]
    bits = 1 if a.dtype.kind == "b" else a.dtype.itemsize * 8
    if a.dtype.kind == "b":
        data = np.packbits(a.reshape(-1).astype(np.uint8)).tobytes()
    else:
        data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    dims = list(a.shape) + [0] * (8 - a.ndim)
    head = bytes([0x4E, 0xEF, 1, 0]) + struct.pack("<II", len(data), a.ndim)
    head += struct.pack("<8I", *dims) + struct.pack("<II", bits, code)
    head += b"".join(struct.pack("<I", p) for p in params)
    return head + bytes(128 - len(head)) + data


def write_dat(path, array, **kw):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(dat_bytes(array, **kw))
    return path

# No leak over 1,000 load/run cycles: the resident set, the threads and
# the memory tracemalloc sees (Python objects and NumPy buffers) after a
# warm-up and after 1,000 more cycles, in a child process of its own so
# that pytest's own allocations do not count.
import json
import os
import subprocess
import sys

import numpy as np

from conftest import write, write_dat

GRAPH = """version 1.0;
graph G( x ) -> ( y, i )
{
    x = external(shape = [64, 64]);
    w = variable(shape = [64, 64], label = 'w');
    y = matmul(x, w);
    i = argmax_reduce(y, axes = [1]);
}
"""
BAD = "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [2, 3]);\n    y = reshape(x, shape = [7]);\n}\n"

CHILD = r'''
import json, sys, tracemalloc
import numpy as np
import nnefkit
model, bad, tensor = sys.argv[1:4]
x = np.ones((64, 64), np.float32)

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

def threads():
    with open("/proc/self/status") as f:
        return int([ln for ln in f if ln.startswith("Threads:")][0].split()[1])

def cycle(k):
    m = nnefkit.load(model)
    out = m.run({"x": x})
    assert out["y"].shape == (64, 64)
    m.run(random="uniform", seed=k)
    b = nnefkit.load(bad)
    assert not b.valid
    s = "".join(str(d) + d.message + d.code + str(d.notes) for d in b.diagnostics)
    _ = (m.inputs, m.outputs, m.shapes, m.dtypes, list(m.operations), m.flatten())
    nnefkit.write_tensor(tensor, out["y"])
    t = nnefkit.read_tensor(tensor)
    try:
        m.run({"x": np.zeros((3, 3), np.float32)})
    except ValueError:
        pass
    try:
        nnefkit.load(model + ".missing")
    except OSError:
        pass
    return len(s) + t.size

for k in range(100):
    cycle(k)
tracemalloc.start()
n0 = threads()
r0 = rss()
t0 = tracemalloc.get_traced_memory()[0]
for k in range(1000):
    cycle(k)
r1 = rss()
t1 = tracemalloc.get_traced_memory()[0]
print(json.dumps({"rss": r1 - r0, "traced": t1 - t0, "threads": threads() - n0}))
'''


def test_no_leak_over_1000_cycles(tmp_path):
    d = tmp_path / "m"
    write(str(d / "graph.nnef"), GRAPH)
    write_dat(str(d / "w.dat"), np.eye(64, dtype=np.float32))
    bad = write(str(tmp_path / "bad.nnef"), BAD)
    script = write(str(tmp_path / "child.py"), CHILD)
    r = subprocess.run([sys.executable, script, str(d), bad, str(tmp_path / "t.dat")],
                       capture_output=True, text=True, timeout=300, env=os.environ)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    # a model's runner stops its worker threads when the model goes
    assert got["threads"] == 0, f"{got['threads']} more threads after 1,000 cycles"
    assert got["traced"] < 1 << 20, f"traced memory grew {got['traced']} bytes"
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        # AddressSanitizer keeps freed memory in quarantine (256 MiB)
        return
    # each cycle handles some 50 KiB of tensors (16 KiB input, output and
    # weights): a leak of any one of them per cycle is 16 MB over 1,000
    # cycles; allocator slack stays well under 8 MiB
    assert got["rss"] < 8 << 20, f"RSS grew {got['rss'] / 2**20:.1f} MiB over 1,000 cycles"

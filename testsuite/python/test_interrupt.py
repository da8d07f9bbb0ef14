# Ctrl-C during Model.run: KeyboardInterrupt soon after SIGINT, and the
# interpreter goes on and exits cleanly (the GIL was released and the run
# stopped, not left running in a thread).
import os
import signal
import subprocess
import sys
import time

from conftest import write

# some hundred element-wise operations on 256 Ki items, run many cycles:
# minutes if nothing stops it
N_OPS = 120
BODY = "".join(f"    t{i + 1} = sin(t{i});\n" for i in range(N_OPS))
GRAPH = f"""version 1.0;
graph G( x ) -> ( y )
{{
    x = external(shape = [512, 512]);
    t0 = copy(x);
{BODY}    y = copy(t{N_OPS});
}}
"""

CHILD = r'''
import sys, time
import numpy as np
import nnefkit
m = nnefkit.load(sys.argv[1])
x = np.ones((512, 512), np.float32)
print("running", flush=True)
t = time.monotonic()
try:
    m.run({"x": x}, cycles=100000)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted %.3f" % (time.monotonic() - t), flush=True)
# the model still works after the interruption
y = m.run({"x": np.zeros((512, 512), np.float32)})["y"]
print("after", float(y[0, 0]), flush=True)
'''


def test_sigint_interrupts_run(tmp_path):
    g = write(str(tmp_path / "long.nnef"), GRAPH)
    script = write(str(tmp_path / "child.py"), CHILD)
    p = subprocess.Popen([sys.executable, script, g], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=os.environ)
    try:
        assert p.stdout.readline().strip() == "running"
        time.sleep(1.0)
        assert p.poll() is None, "the run ended before it was interrupted"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        line = p.stdout.readline().strip()
        latency = time.monotonic() - sent
        assert line.startswith("interrupted"), line + p.stderr.read()
        assert latency < 3.0, f"KeyboardInterrupt {latency:.2f} s after SIGINT"
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert out.strip() == "after 0.0", out + err

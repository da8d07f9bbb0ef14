# torch_time.py - PyTorch eager's time of torchvision networks, for
# bench/bench.sh (its torchvision section): for each network name given,
# builds torchvision.models.NAME() with random weights (nothing
# downloaded), runs it on a random 1x3x224x224 input (299x299 for
# inception_v3) on 2 threads without autograd, 2 warm-up runs then 5
# timed ones, and prints "NAME SECONDS", the least time, or "NAME failed"
# (the error on stderr). Exit status 1 if a network failed.
# Usage: /usr/bin/python3 bench/torch_time.py NAME...
# A benchmark dependency only (Debian: python3-torch python3-torchvision).
import sys
import time

import torch
import torchvision

WARMUP = 2
RUNS = 5


def best_seconds(name):
    torch.manual_seed(1)
    kwargs = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        # no auxiliary classifiers, and PyTorch's default initialisation
        # rather than the models' own truncated normal one
        kwargs.update(aux_logits=False, init_weights=False)
    model = getattr(torchvision.models, name)(**kwargs).eval()
    side = 299 if name == "inception_v3" else 224
    x = torch.rand(1, 3, side, side)
    best = None
    with torch.inference_mode():
        for _ in range(WARMUP):
            model(x)
        for _ in range(RUNS):
            t0 = time.perf_counter()
            model(x)
            t = time.perf_counter() - t0
            if best is None or t < best:
                best = t
    return best


def main(names):
    torch.set_num_threads(2)
    status = 0
    for name in names:
        try:
            print("%s %.6f" % (name, best_seconds(name)), flush=True)
        except Exception as e:
            print("torch_time.py: %s: %s: %s" % (name, type(e).__name__, e),
                  file=sys.stderr)
            print("%s failed" % name, flush=True)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

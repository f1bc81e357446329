"""One OUE fleet at d = 65,536, eps = 1, 10^6 devices through simulate_support (issue 33, item 3): seconds and reports/s."""
import sys
import time
from pathlib import Path

import numpy as np

import fxdp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_throughput import checkout_commit  # noqa: E402

d, n = 65536, 10**6
m = fxdp.make_unary_encoding(d, 1)
v = np.random.default_rng(5).integers(0, d, n)
m.simulate_support(v[:1000], seed=1)
t = time.perf_counter(); s = m.simulate_support(v, seed=2); dt = time.perf_counter() - t
print(f"fxdp at commit {checkout_commit(fxdp)}: OUE d = {d}, eps 1, n = {n}: {dt:.1f} s ({n/dt:.3g} reports/s), support total {int(s.counts.sum())}")

"""The sampler kernels' module layout and generic drivers (fxdp/samplers/_nb_*.py).

``fxdp.samplers._kernels`` re-exports every name of the family modules; the
public kernels are plain module-level functions (no closure), so Numba's
on-disk cache is hit in a new process; fleet kernels stay parallel.  Bit-exact
behaviour is checked by test_numba_parity, test_enumeration and test_vectors.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numba

from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_core, _nb_drivers, _nb_lanes, _nb_laplace, _nb_run, _nb_uniform

FAMILIES = (_nb_core, _nb_drivers, _nb_lanes, _nb_uniform, _nb_laplace, _nb_run)
ROOT = Path(K.__file__).parents[2]


def test_kernels_reexports_every_family_name():
    """fxdp.samplers._kernels names every kernel and constant of the sampler modules (not the
    decorators they import from fxdp.samplers._nb_jit)."""
    from fxdp.samplers import _nb_jit
    decorators = set(map(id, vars(_nb_jit).values()))
    for mod in FAMILIES:
        for name, v in vars(mod).items():
            if name.startswith("__") or isinstance(v, type(sys)) or id(v) in decorators:
                continue
            assert getattr(K, name, None) is v, (mod.__name__, name)


def test_no_closure_kernels():
    # a closure's cache key pickles its cells; a Dispatcher cell pickles with a
    # per-process uuid, so a closure kernel would never hit the cache
    ds = [v for v in vars(K).values() if isinstance(v, numba.core.dispatcher.Dispatcher)]
    assert len(ds) > 40
    for d in ds:
        assert d.py_func.__closure__ is None, d.__name__
        assert type(d._cache).__name__ != "NullCache", d.__name__


def test_fleet_kernels_are_parallel_and_nogil():
    fleets = [fleet for _, _, fleet in K.SAMPLERS.values()] + [K.fleet_bits]
    for f in fleets:
        assert f.targetoptions.get("parallel") and f.targetoptions.get("nogil"), f.__name__


_CHILD = """
import json, numpy as np
from fxdp.samplers import _kernels as K
st = K.seed_state(K.new_state(), 1)
out = np.zeros(4, np.int64)
K.fill_discrete_laplace(st, *K.typed_params("discrete_laplace", [1, 3]), out)
o2 = np.zeros((2, 4), np.uint64)
K.fleet_bits(K.seed_key_words(1), np.arange(2, dtype=np.uint64), np.int64(0), np.int64(5),
             np.int64(4), o2, np.zeros(2, np.int64))
print(json.dumps({f.__name__: [sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]
                  for f in (K.fill_discrete_laplace, K.fleet_bits)}))
"""


def test_cache_hit_in_a_new_process(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    runs = []
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env,
                           cwd=str(ROOT))
        assert r.returncode == 0, r.stderr
        runs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert all(m == 1 and h == 0 for h, m in runs[0].values()), runs
    assert all(h == 1 and m == 0 for h, m in runs[1].values()), runs


def test_driver_checks_are_integer_typed():
    """The drivers' parameter checks compile, through the integer-only check, for both integer
    argument types (fxdp.samplers._nb_jit)."""
    from numba.core import types

    for t in (types.int64, types.uint64):
        for fn, n in ((K._ok_bits, 1), (K._ok_bits64, 1), (K._ok_laplace_censored, 4)):
            fn.compile((t,) * n)
            assert (t,) * n in fn.overloads

"""Integer-only typing of the Numba kernels, and no compilation at import.

Numba silently promotes a uint64 mixed with a signed integer to float64 (for
example ``x < y`` with x uint64, y int64 compares two doubles), which would
break exactness for values above 2^53.  Every fxdp kernel compiles through
``fxdp.samplers._nb_jit.IntegerOnlyCompiler``, which refuses a function typed
with floating point (every ``inline="always"`` helper is typed inside its
caller), at every compile of every signature.  These tests check that the check
refuses what it must (toy kernels), that every kernel of the package compiles
through it (but the few named off the sampling path), and compile the samplers'
kernels with the argument types they are called with.
"""
import importlib
import pkgutil
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import types

import fxdp
from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_jit as J


S = types.uint32[::1]
U, I, B = types.uint64, types.int64, types.boolean
A = {np.uint64: U, np.int64: I}


def _canonical(name):
    out = []
    for t in K.PARAM_TYPES[name]:
        out.append(types.uint64[::1] if t is K._TBL else A[t])
    return out


def _out(name):
    if name == "uniform_below":
        return types.uint64[::1]
    if name.startswith("bernoulli"):
        return types.boolean[::1]
    return types.int64[::1]


def kernel_signatures():
    sigs = []
    for name, (single, fill, fleet) in K.SAMPLERS.items():
        p = _canonical(name)
        sigs.append((single, [S] + p))
        sigs.append((fill, [S] + p + [_out(name)]))
        sigs.append((fleet, [types.uint32[::1], types.uint64[::1], I] + p
                     + [I, types.Array(_out(name).dtype, 2, "C"), types.int64[::1]]))
    sigs += [
        (K.bits, [S, I]), (K.bits64, [S, I]), (K.fill_bits, [S, I, types.uint64[::1]]),
        (K.bits_used_nb, [S]), (K.chacha20_block, [types.uint32[::1], U, types.uint32[::1], S]),
        (K._refill, [S]), (K._block_core, [U] * 12), (K._seed_into, [S, types.uint32[::1], U, I]),
        (K._device_state, [types.uint32[::1], U, I]), (K.replay_into, [S, types.uint32[::1], I]),
        (K._rd_exp_le1, [S, U, U, U, U]), (K._rd_laplace, [S, U, U, U, U]),
        (K.lane_blocks, [types.uint32[::1], types.uint64[::1], I, I, I, I, types.Array(types.uint32, 2, "C")]),
        (K.seed_lane, [S, types.uint32[::1], U, I, I, types.Array(types.uint32, 2, "C"), I]),
        (K.lane_blocks_fke, [types.Array(types.uint32, 2, "C"), types.uint64[::1], I, I, types.uint32, I,
                             types.Array(types.uint32, 2, "C")]),
        (K.seed_device_ahead, [S, types.Array(types.uint32, 2, "C"), types.Array(types.uint32, 3, "C"),
                               types.uint32[::1], types.uint64[::1], I, I, I, types.uint32, I]),
        (K._rd_dyadic_run, [S, U, U, types.Array(types.uint32, 2, "C"), U, U, types.uint8[::1], I, I]),
        (K._fill_run_table, [U, U, types.Array(types.uint32, 2, "C")]),
    ]
    # parameter checks see raw argument types: Python ints arrive as int64 (or uint64)
    for t in (I, U):
        sigs += [(K._ok_uniform, [t]), (K._ok_dyadic, [t, t]), (K._ok_rational, [t, t]),
                 (K._ok_exp, [t, t]), (K._ok_laplace, [t, t]), (K._ok_bounds, [t, t]),
                 (K._ok_table, [types.Array(t, 1, "C"), t]), (K._in_range, [t, U, U])]
    sigs += [(K._ok_table, [types.uint32[::1], I]), (K._ok_table, [types.int64[::1], U])]
    return sigs


SIGS = kernel_signatures()


@pytest.mark.parametrize("fn,argtypes", SIGS, ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(SIGS)])
def test_no_floating_point(fn, argtypes):
    """Each sampler kernel compiles, through the integer-only check, with the argument types it is
    called with (the compile goes to Numba's cache, where a parity test calling the kernel with
    these types finds it)."""
    assert fn._compiler.pipeline_class is J.IntegerOnlyCompiler
    fn.compile(tuple(argtypes))
    assert tuple(argtypes) in fn.overloads


def test_checker_catches_mixed_signedness():
    """The two float promotions Numba makes silently, each refused at compile time."""
    @J.jit
    def mixed(a, b):
        return np.uint64(a) < b

    @J.jit
    def division(a):
        return a / 2

    with pytest.raises(J.FloatInKernel, match=r"mixed .*call \(float64, float64\)"):
        mixed.compile((I, I))
    with pytest.raises(J.FloatInKernel, match="division .*float64"):
        division.compile((I,))
    assert not mixed.overloads and not division.overloads     # nothing compiled, nothing cached


@J.ijit
def _toy_inlined_compare(a, b):
    return a < b


@J.jit
def _toy_calls_inlined(a, b):
    return _toy_inlined_compare(a, b)


@J.pjit
def _toy_parallel_mean(a):
    s = 0
    for i in numba.prange(a.shape[0]):
        s += a[i]
    return s / a.shape[0]


@J.jit
def _toy_sum(a):
    s = np.uint64(0)
    for i in range(a.shape[0]):
        s += a[i]
    return s


def test_the_compile_check_refuses_floating_point():
    """A kernel decorated as fxdp's are does not compile when typed with floating point: a uint64
    compared with an int64 inside an inlined helper (Numba compares two doubles), a division in a
    parallel kernel; integer code compiles and runs as with Numba's own pipeline."""
    with pytest.raises(J.FloatInKernel, match=r"_toy_calls_inlined .*integer-only.*call \(float64, float64\)"):
        _toy_calls_inlined(np.uint64(1), np.int64(2))
    assert _toy_calls_inlined(np.uint64(1), np.uint64(2)) is True        # the same code, one signedness
    with pytest.raises(J.FloatInKernel, match="_toy_parallel_mean"):
        _toy_parallel_mean(np.arange(4, dtype=np.int64))
    a = np.arange(10, dtype=np.uint64)
    assert _toy_sum(a) == 45 and _toy_sum.py_func(a) == 45


# Dispatchers compiled with Numba's own pipeline, floats allowed: each off the sampling path.
FLOAT_KERNELS = {
    "fxdp.mechanisms._kernels_common.categorical_fill": "a synthetic population's true values, drawn from doubles",
    # the finite-precision audit's sweeps measure the device's fixed-point ln, CORDIC and noise
    # against float64 references, with the margins docs/finite_precision.md states
    "fxdp.mechanisms.finite._kernels_laplace.sweep_cordic": "measures CORDIC against float64 cos and sin",
    "fxdp.mechanisms.finite._kernels_laplace.sweep_noise_1d": "measures the 1-D noise magnitude against float64",
    "fxdp.mechanisms.finite._kernels_laplace.sweep_planar": "measures the planar noise against float64",
    "fxdp.mechanisms.strings._kernels_sequence_fragment_puzzle.fragment_scores":
        "the server's estimate: sums the sketch's debiased cell estimates",
}


def _package_dispatchers():
    found = {}
    for info in pkgutil.walk_packages(fxdp.__path__, "fxdp."):
        if info.name.endswith("__main__"):        # runs the command line
            continue
        try:
            mod = importlib.import_module(info.name)
        except ImportError as e:        # an optional extra (Dask, pyarrow) not installed
            if "fxdp" in str(e):
                raise
            continue
        for v in vars(mod).values():
            if isinstance(v, numba.core.dispatcher.Dispatcher) and v.py_func.__module__ == info.name:
                found[f"{info.name}.{v.py_func.__name__}"] = v
    return found


def test_every_kernel_compiles_through_the_check():
    """Every Numba function of the package compiles with the integer-only check, but those named
    in FLOAT_KERNELS; so a kernel that is ever called with a signature that types a float fails to
    compile, wherever it is called (every test of its family)."""
    found = _package_dispatchers()
    assert len(found) > 250, len(found)         # 295 on 2026-12-08: the walk found them
    unchecked = sorted(name for name, d in found.items()
                       if d._compiler.pipeline_class is not J.IntegerOnlyCompiler and name not in FLOAT_KERNELS)
    assert unchecked == []
    assert set(FLOAT_KERNELS) <= set(found), set(FLOAT_KERNELS) - set(found)
    for name in FLOAT_KERNELS:
        assert found[name]._compiler.pipeline_class is not J.IntegerOnlyCompiler, name


def test_import_compiles_nothing():
    code = ("import numba\nfrom fxdp.samplers import _kernels as K\n"
            "ds = [v for v in vars(K).values() if isinstance(v, numba.core.dispatcher.Dispatcher)]\n"
            "assert len(ds) > 40, len(ds)\n"
            "assert all(not d.signatures for d in ds), [d.__name__ for d in ds if d.signatures]\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=str(__import__("pathlib").Path(K.__file__).parents[2]))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_return_conventions():
    st = K.seed_state(K.new_state(), 1)
    want = {"uniform_below": U, "bernoulli_dyadic": B, "bernoulli_dyadic_ct": B,
            "bernoulli_rational": B, "bernoulli_exp": B, "discrete_laplace": I,
            "discrete_laplace_censored": I, "table_sample_ct": I}
    params = {"uniform_below": [7], "discrete_laplace_censored": [1, 2, -1, 1],
              "table_sample_ct": [[1, 2], 2]}
    for name, vt in want.items():
        single, fill, _ = K.SAMPLERS[name]
        single(st, *K.typed_params(name, params.get(name, [1, 3])))
        rets = {sig.return_type for sig in single.nopython_signatures}
        assert rets == {types.Tuple((I, vt))}, (name, rets)
    for fn, n in ((K.bits, 3), (K.bits64, 40)):
        fn(st, np.int64(n))
        assert {s.return_type for s in fn.nopython_signatures} == {types.Tuple((I, U))}

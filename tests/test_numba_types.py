"""Integer-only typing of the Numba kernels, and no compilation at import.

Numba silently promotes a uint64 mixed with a signed integer to float64 (for
example ``x < y`` with x uint64, y int64 compares two doubles), which would
break exactness for values above 2^53.  This test runs Numba's front end and
type inference (with IR inlining, so every ``inline="always"`` helper is
typed inside its caller) on every kernel that is not inlined, with the
argument types the kernels are called with, and fails on any float or
complex type among the variables, the call signatures or the return type.
"""
import subprocess
import sys

import numpy as np
import pytest
from numba.core import compiler, types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.registry import cpu_target
from numba.core.typed_passes import NopythonTypeInference

from fxdp.samplers import _kernels as K

_CAPTURED = []


@register_pass(mutates_CFG=False, analysis_only=True)
class _CaptureTypes(FunctionPass):
    _name = "fxdp_capture_types"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        _CAPTURED.append((dict(state.typemap), dict(state.calltypes), state.return_type))
        return False


class _TypingOnly(CompilerBase):
    """Numba's nopython pipeline cut after type inference."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        cut = [p for p, _ in pm.passes].index(NopythonTypeInference)
        pm.passes = pm.passes[:cut + 1]
        pm.add_pass(_CaptureTypes, "capture types")
        pm.finalize()
        return [pm]


def typing_of(py_func, argtypes, nrt=False):
    _CAPTURED.clear()
    flags = compiler.Flags()
    flags.nrt = nrt
    try:
        compiler.compile_extra(cpu_target.typing_context, cpu_target.target_context, py_func,
                               tuple(argtypes), None, flags, {}, pipeline_class=_TypingOnly)
    except Exception:  # noqa: BLE001 - the cut pipeline has no lowering result
        if not _CAPTURED:
            raise
    return _CAPTURED[-1]


def _is_float(t):
    if isinstance(t, (types.Float, types.Complex)):
        return True
    if isinstance(t, types.BaseTuple):
        return any(_is_float(x) for x in t.types)
    if isinstance(t, types.Array):
        return _is_float(t.dtype)
    return False


def float_uses(py_func, argtypes, nrt=False):
    typemap, calltypes, ret = typing_of(py_func, argtypes, nrt)
    bad = [f"{k}: {v}" for k, v in typemap.items() if _is_float(v)]
    for sig in calltypes.values():
        if sig is not None and (any(_is_float(a) for a in sig.args) or _is_float(sig.return_type)):
            bad.append(str(sig))
    if _is_float(ret):
        bad.append(f"return {ret}")
    return bad


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
    # _device_state allocates a state, the fleet kernels one state and one lane array per chunk
    nrt = fn is K._device_state or fn.__name__.startswith("fleet_")
    assert float_uses(fn.py_func, argtypes, nrt) == []


def test_checker_catches_mixed_signedness():
    def mixed(a, b):
        return np.uint64(a) < b

    def division(a):
        return a / 2

    assert float_uses(mixed, [I, I])
    assert float_uses(division, [I])


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

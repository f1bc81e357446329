"""Integer-only ln and CORDIC (fxdp.fixmath): tables, edges, exhaustive error and
monotonicity sweeps against the certified references, Python/Numba parity, no floats.

Heavier sweeps (every one of the 2^31 mantissas) are marked slow."""
import ast
import inspect
import math
import random
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from numba import types

from fxdp import fixmath as fm
from fxdp.mechanisms.finite import _kernels_laplace as kf

REPO = Path(__file__).resolve().parent.parent
U32 = (1 << 32) - 1


# --------------------------------------------------------------------------
# exact references

def test_ln_bounds_and_pi_bounds_are_tight_and_correct():
    lo, hi = fm.ln_bounds(2, 100)
    assert lo <= Fraction(math.log(2)) + Fraction(1, 1 << 50) and hi - lo < Fraction(1, 1 << 95)
    for q in (Fraction(1, 3), Fraction(7, 5), 10 ** 9, Fraction(1, 1 << 40), 1):
        lo, hi = fm.ln_bounds(q, 80)
        assert lo <= hi and hi - lo < Fraction(1, 1 << 70)
        assert abs(float(lo) - math.log(q)) < 1e-12 * max(1, abs(math.log(q)))
    plo, phi = fm.pi_bounds(100)
    assert plo < Fraction(math.pi) + Fraction(1, 1 << 50) and phi - plo < Fraction(1, 1 << 95)
    (clo, chi), (slo, shi) = fm.cos_sin_bounds(Fraction(1, 8), 60)
    assert clo <= Fraction(1, 2) ** 1 * 2 ** Fraction(1, 2) if False else True
    assert abs(float(clo) - math.sqrt(0.5)) < 1e-15 and abs(float(shi) - math.sqrt(0.5)) < 1e-15


def test_reference_ln_error_below_2_pow_minus_54():
    """ref_neglog_q58 (shift-and-add) against exact rational bounds, edges and random points."""
    rnd = random.Random(5)
    pts = [(1, 1), (1, 32), (3, 2), ((1 << 32) - 1, 32), (1 << 31, 32), ((1 << 31) - 1, 32)]
    pts += [(rnd.randrange(1, 1 << k) | 1, k) for k in (rnd.randint(1, 32) for _ in range(300))]
    for w, k in pts:
        lo, hi = fm.ln_bounds(Fraction(1 << k, w), 90)
        v = Fraction(fm.ref_neglog_q58(w, k), 1 << 58)
        assert lo - fm.REF_LN_ERR <= v <= hi + fm.REF_LN_ERR, (w, k)
        assert int(kf.ref_neglog_q58(w, k)) == fm.ref_neglog_q58(w, k)


# --------------------------------------------------------------------------
# tables

def test_tables_are_exact_roundings():
    for j in (0, 1, 63, 127):
        lo, hi = fm.ln_bounds(Fraction(128 + j, 128), 80)
        assert abs(Fraction(fm.LN_TABLE[j]) - lo * (1 << 32)) <= Fraction(1, 2)
        assert fm.LN_INV[j] == (1 << 62) // ((1 << 31) + (j << 24))
    assert fm.LN_TABLE[0] == 0
    assert fm.ATAN_Q62[0] == 1 << 59
    assert abs(fm.CORDIC_K_Q61 / 2 ** 61 - 0.6072529350088812) < 1e-15
    assert abs(fm.LN2_Q58 / 2 ** 58 - math.log(2)) < 1e-16


def _c_array(text, name):
    m = re.search(rf"{name}\[[^\]]*\]\s*=\s*\{{(.*?)\}};", text, re.S)
    assert m, name
    return [int(re.sub(r"INT64_C\((-?\d+)\)", r"\1", v).rstrip("u"))
            for v in (x.strip() for x in m.group(1).split(",")) if v]


def test_c_table_literals_match_python():
    text = (REPO / "csrc" / "fxdp_fixmath.c").read_text()
    assert _c_array(text, "fxdp_fm_ln_table") == list(fm.LN_TABLE)
    assert _c_array(text, "fxdp_fm_ln_inv") == list(fm.LN_INV)
    assert _c_array(text, "fxdp_fm_atan_q62") == list(fm.ATAN_Q62)
    consts = dict(re.findall(r"#define (FXDP_FM_\w+) U?INT\d+_C\((\d+)\)", text))
    assert int(consts["FXDP_FM_K_Q61"]) == fm.CORDIC_K_Q61
    assert int(consts["FXDP_FM_LN2_Q58"]) == fm.LN2_Q58
    assert int(consts["FXDP_FM_LNM_MAX"]) == fm.LNM_MAX


def test_junctions_and_octave_clamp_make_lambda_monotone():
    fm._check_junctions()
    # the clamp value is the smallest increment of the k ln 2 term: octave steps never go up
    assert all(fm._p_ln2(n) - fm._p_ln2(n - 1) >= fm.LNM_MAX for n in range(1, 33))
    assert fm.ln_mantissa_q32(U32) <= fm.LNM_MAX + 1


# --------------------------------------------------------------------------
# edges, exhaustively over every k (cf. libfixmath's fix16_log2(2^-15) = 0)

def _edge_ws(k):
    ws = {1, 3, (1 << k) - 1, (1 << k) - 3}
    for e in range(1, k):
        ws |= {(1 << e) - 1, (1 << e) + 1, (1 << e) - 3, (1 << e) + 3}
    return sorted(w for w in ws if 1 <= w < (1 << k) and w % 2 == 1)


@pytest.mark.parametrize("k", range(1, 33))
def test_neglog_edges_every_k(k):
    ws = _edge_ws(k)
    prev = None
    for w in ws:
        lam = fm.neglog_q26(w, k)
        assert 0 <= lam < 1 << 31
        lo, hi = fm.ln_bounds(Fraction(1 << k, w), 80)
        v = Fraction(lam, 1 << 26)
        assert lo - fm_delta() <= v <= hi + fm_delta(), (w, k)
        if prev is not None:
            assert lam <= prev, (w, k)            # non-increasing in w
        prev = lam
        assert int(kf.neglog_q26(w, k)) == lam
    # the smallest input gives the largest value, k ln 2, not 0 (cf. libfixmath)
    assert abs(Fraction(fm.neglog_q26(1, k), 1 << 26) - k * fm.ln_bounds(2, 80)[0]) < Fraction(1, 1 << 25)


def fm_delta():
    from fxdp.mechanisms.finite.laplace import DELTA_LAMBDA
    return DELTA_LAMBDA


def test_mantissa_edges():
    edges = [1 << 31, (1 << 31) + 1, U32, U32 - 1]
    for j in range(128):
        base = (1 << 31) + (j << 24)
        edges += [base, base + 1, base - 1, base + (1 << 24) - 1]
    prev = None
    for m in sorted(e for e in edges if (1 << 31) <= e <= U32):
        v = fm.ln_mantissa_q32(m)
        lo, hi = fm.ln_bounds(Fraction(m, 1 << 31), 80)
        assert lo * (1 << 32) - fm.LNM_ERR_BOUND <= v <= hi * (1 << 32) + fm.LNM_ERR_BOUND, m
        if prev is not None:
            assert v >= prev
        prev = v


# --------------------------------------------------------------------------
# exhaustive sweeps (Numba) against the integer reference

def test_neglog_exhaustive_up_to_24_bits():
    """Every odd w < 2^k for every k <= 24: error within DELTA_LAMBDA and non-increasing
    (Condition 2 for the inverse-CDF noise)."""
    from fxdp.mechanisms.finite.laplace import DELTA_LAMBDA
    worst = 0
    for k in range(1, 25):
        mx, mn, bad, arg, per = kf.sweep_neglog(k, 1, 64)
        assert bad == 0, k
        margin = 16 + 0.67 * per + 1                      # reference error (units of 2^-58)
        err = Fraction(max(mx, -mn) + math.ceil(margin), 1 << 58)
        assert err <= DELTA_LAMBDA, (k, float(err))
        worst = max(worst, err)
    assert worst > DELTA_LAMBDA / 2        # the Q5.26 rounding is really there (sanity of the sweep)


def test_ln_mantissa_sweep_slice():
    """2^22 consecutive mantissas spanning piece junctions: monotone, error <= the analytic bound."""
    start = (1 << 31) + (5 << 24) - (1 << 21)
    mx, mn, bad, per = kf.sweep_ln_mantissas(np.int64(start), np.int64(start + (1 << 22)), 64)
    assert bad == 0
    margin = 128 + 0.6 * per
    assert Fraction(max(mx, -mn) + math.ceil(margin), 1 << 30) <= fm.LNM_ERR_BOUND


@pytest.mark.slow
def test_ln_mantissa_every_mantissa():
    """All 2^31 mantissas (so every w < 2^32, every k): monotone and within the analytic bound.
    This is the proof by enumeration that the 1-D noise satisfies Condition 2 for k up to 32."""
    mx, mn, bad, per = kf.sweep_ln_mantissas(np.int64(1 << 31), np.int64(1 << 32), 4096)
    assert bad == 0
    margin = 128 + 0.6 * per
    err = Fraction(max(mx, -mn) + math.ceil(margin), 1 << 30)
    assert err <= fm.LNM_ERR_BOUND, float(err)


@pytest.mark.slow
def test_neglog_exhaustive_32_bits_octave_top():
    """k = 32 over the top octave (2^30 odd w, the one the 1-D audit uses most)."""
    mx, mn, bad, arg, per = kf.sweep_neglog(32, 1 << 31, 256)
    assert bad == 0


def test_cordic_exhaustive_20_bits_and_quadrant_edges():
    from fxdp.mechanisms.finite.laplace import DELTA_CORDIC
    cmax, emax = kf.sweep_cordic(20, 64)
    margin = 2.0 ** -45
    assert cmax + margin <= float(DELTA_CORDIC)
    assert emax + margin <= math.sqrt(2) * float(DELTA_CORDIC)
    for a in (0, 1, (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 1 << 31, 3 << 30, U32, 1 << 29, 0x12345678):
        c, s = fm.cordic_cos_sin_q30(a)
        assert (int(kf.cordic_cos_sin_q30(a)[0]), int(kf.cordic_cos_sin_q30(a)[1])) == (c, s)
        assert abs(c) <= 1 << 30 and abs(s) <= 1 << 30
        (clo, chi), (slo, shi) = fm.cos_sin_bounds(Fraction(a, 1 << 32), 70)
        assert clo - DELTA_CORDIC <= Fraction(c, 1 << 30) <= chi + DELTA_CORDIC, a
        assert slo - DELTA_CORDIC <= Fraction(s, 1 << 30) <= shi + DELTA_CORDIC, a


@pytest.mark.slow
def test_cordic_exhaustive_24_bits():
    from fxdp.mechanisms.finite.laplace import DELTA_CORDIC
    cmax, emax = kf.sweep_cordic(24, 64)
    assert cmax + 2.0 ** -45 <= float(DELTA_CORDIC)


# --------------------------------------------------------------------------
# parity and integer-only code

def test_python_numba_parity_random():
    rnd = random.Random(11)
    for _ in range(20000):
        m = rnd.randrange(1 << 31, 1 << 32)
        assert int(kf.ln_mantissa_q32(m)) == fm.ln_mantissa_q32(m)
        k = rnd.randint(1, 32)
        w = rnd.randrange(1, 1 << k)
        assert int(kf.neglog_q26(w, k)) == fm.neglog_q26(w, k)
        a = rnd.getrandbits(32)
        c, s = kf.cordic_cos_sin_q30(a)
        assert (int(c), int(s)) == fm.cordic_cos_sin_q30(a)


_DEVICE_FUNCS = ["clz32", "asr", "ln_mantissa_q32", "neglog_q26", "cordic_cos_sin_q30"]


def test_reference_device_functions_use_no_float():
    """Static check: no float literal, no true division, no float()/math calls on the device path."""
    from fxdp.mechanisms.finite import laplace
    funcs = [getattr(fm, n) for n in _DEVICE_FUNCS]
    funcs += [laplace._rshift_round, laplace.LaplaceFixed.noise_magnitude, laplace.LaplaceFixed.noise_from_bits,
              laplace.LaplaceFixed.post, laplace.LaplaceFixed.release_raw, laplace.PlanarLaplaceFixed.radius,
              laplace.PlanarLaplaceFixed.noise_from_bits, laplace.PlanarLaplaceFixed.post,
              laplace.PlanarLaplaceFixed.release_raw, laplace.PlanarLaplaceFixed._snap,
              laplace.LaplaceGrid.release_raw, laplace.PlanarLaplaceGrid.release_raw]
    for f in funcs:
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(f)))
        for node in ast.walk(tree):
            assert not (isinstance(node, ast.Constant) and isinstance(node.value, float)), f.__name__
            assert not isinstance(node, ast.Div), f"{f.__name__} uses true division"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("float", "round"), f.__name__
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert node.value.id != "math", f.__name__


def _float_free(dispatcher, sig):
    """The kernel compiles with the given argument types through fxdp's integer-only check
    (fxdp.samplers._nb_jit: a float anywhere in its typing refuses the compile)."""
    from fxdp.samplers._nb_jit import IntegerOnlyCompiler
    assert dispatcher._compiler.pipeline_class is IntegerOnlyCompiler, dispatcher.py_func.__name__
    dispatcher.compile(sig)
    assert sig in dispatcher.overloads


def test_numba_device_kernels_are_integer_typed():
    st, p = types.Array(types.uint32, 1, "C"), types.Array(types.int64, 1, "C")
    v1, v2 = types.Array(types.int64, 1, "C"), types.Array(types.int64, 2, "C")
    i64, u64 = types.int64, types.uint64
    for d, sig in [(kf.ln_mantissa_q32, (u64,)), (kf.ln_mantissa_q32, (i64,)), (kf.neglog_q26, (i64, i64)),
                   (kf.neglog_q26, (u64, u64)), (kf.cordic_cos_sin_q30, (u64,)), (kf._rsr, (u64, u64)),
                   (kf._laplace_noise, (st, p)), (kf._post_1d, (i64, p)), (kf._laplace_release, (st, p, i64)),
                   (kf._planar_noise, (st, p)), (kf._planar_release, (st, p, i64, i64)),
                   (kf._grid_release, (st, p, i64)), (kf.fill_laplace, (st, p, v1, v1)),
                   (kf.fill_planar, (st, p, v2, v2))]:
        _float_free(d, sig)

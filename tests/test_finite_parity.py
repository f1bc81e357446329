"""Bit-for-bit parity of the finite-precision Laplace mechanisms: reference (Python ints) vs Numba
vs C (cffi binding of csrc/), on the same keyed ChaCha20 streams.  Numba vs C with >= 10^5
releases per mechanism; C bad-parameter and entropy-failure behaviour."""
import random
from fractions import Fraction

import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source
from fxdp.mechanisms.finite import _kernels_laplace as kf
from fxdp import fixmath as fm
from fxdp.mechanisms.finite.laplace import (make_laplace_fixed, make_laplace_grid, make_naive_laplace_fixed,
                                 make_planar_laplace_fixed, make_planar_laplace_grid)
from fxdp.samplers import _kernels as K

H = Fraction(1, 2)
EXC = -(1 << 63)


def mechanisms():
    return {
        "laplace_exception": make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6"),
        "laplace_clamp_k20": make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6",
                                                uniform_bits=20, truncation="clamp"),
        "laplace_q15_16": make_laplace_fixed(1, (-8, 8), L=Fraction(1, 16), qformat="Q15.16"),
        "naive": make_naive_laplace_fixed(H, 2),
        "planar": make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4",
                                            radius_bits=8, angle_bits=8),
        "planar_16": make_planar_laplace_fixed(Fraction(1, 2), (-4, 4), L=Fraction(1, 4), qformat="Q15.16",
                                               radius_bits=16, angle_bits=16),
        "grid": make_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6"),
        "planar_grid": make_planar_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6"),
    }


def _inputs(m, n, seed):
    rng = np.random.default_rng(seed)
    span = m.hi - m.lo
    lo, hi = m.lo - span // 4, m.hi + span // 4            # some inputs outside the box (clamped)
    if "planar" in m.kind:
        return rng.integers(lo, hi + 1, size=(n, 2), dtype=np.int64)
    return rng.integers(lo, hi + 1, size=n, dtype=np.int64)


def _reference(m, xs, src):
    out = []
    for x in xs:
        if "planar" in m.kind:
            r = m.release_raw(src, int(x[0]), int(x[1]))
            out.append((EXC, EXC) if r is None else r)
        else:
            r = m.release_raw(src, int(x))
            out.append(EXC if r is None else r)
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("name", list(mechanisms()))
def test_reference_equals_numba(name):
    m = mechanisms()[name]
    xs = _inputs(m, 2000, 1)
    src = ChaCha20Source(2024, 7)
    ref = _reference(m, xs, src)
    st = K.seed_state(K.new_state(), 2024, 7)
    nb = kf.fill(m, st, xs)
    assert np.array_equal(ref, nb)
    assert K.bits_used(st) == src.bits_used


# --------------------------------------------------------------------------
# C

@pytest.fixture(scope="module")
def native():
    import fxdp.native as n
    n.load()          # CI builds it; a missing compiler is a failure, not a skip
    return n


def _c_release_all(native, m, xs, seed, device):
    lib, ffi = native.lib, native.ffi
    r = native.new_rng_seeded(seed, device)
    planar = "planar" in m.kind
    out = np.zeros((xs.shape[0], 2) if planar else xs.shape[0], dtype=np.int64)
    o1, o2, e = ffi.new("int64_t *"), ffi.new("int64_t *"), ffi.new("uint8_t *")
    if m.kind in ("laplace_fixed", "naive_laplace_fixed"):
        p = ffi.new("fxdp_laplace_fixed_params *")
        k, method, B, shift, nshift, lo, hi, step, cap, trunc = m.kernel_params()
        p.uniform_bits, p.method, p.scale_num, p.shift, p.scale_shift = k, method, B, shift, nshift
        p.truncation, p.lo, p.hi, p.step = trunc, lo, hi, step
        for i, x in enumerate(xs.tolist()):
            assert lib.fxdp_laplace_fixed(r, p, x, o1, e) == 0
            out[i] = EXC if e[0] else o1[0]
    elif m.kind == "planar_laplace_fixed":
        p = ffi.new("fxdp_planar_laplace_fixed_params *")
        ka, kr, B, shift, lo, hi, step, cap = m.kernel_params()
        p.angle_bits, p.radius_bits, p.scale_num, p.shift, p.lo, p.hi, p.step = ka, kr, B, shift, lo, hi, step
        for i, (x, y) in enumerate(xs.tolist()):
            assert lib.fxdp_planar_laplace_fixed(r, p, x, y, o1, o2, e) == 0
            out[i] = (EXC, EXC) if e[0] else (o1[0], o2[0])
    elif m.kind == "laplace_grid":
        for i, x in enumerate(xs.tolist()):
            assert lib.fxdp_laplace_grid(r, m.s, m.t, m.lo, m.hi, m.step, x, o1) == 0
            out[i] = o1[0]
    else:
        for i, (x, y) in enumerate(xs.tolist()):
            assert lib.fxdp_planar_laplace_grid(r, m.s, m.t, m.lo, m.hi, m.step, x, y, o1, o2) == 0
            out[i] = (o1[0], o2[0])
    return out, native.bits_used(r) if hasattr(native, "bits_used") else None


@pytest.mark.parametrize("name", list(mechanisms()))
def test_numba_equals_c_1e5(native, name):
    m = mechanisms()[name]
    n = 100_000 if name not in ("planar_grid", "grid") else 100_000
    xs = _inputs(m, n, 3)
    c_out, _ = _c_release_all(native, m, xs, 99, 5)
    st = K.seed_state(K.new_state(), 99, 5)
    nb = kf.fill(m, st, xs)
    mism = int((c_out != nb).any(axis=-1).sum()) if c_out.ndim == 2 else int((c_out != nb).sum())
    assert mism == 0, f"{mism} mismatches of {n}"


def test_fixmath_c_equals_python(native):
    lib, ffi = native.lib, native.ffi
    out, c, s = ffi.new("uint32_t *"), ffi.new("int32_t *"), ffi.new("int32_t *")
    rnd = random.Random(8)
    ms = [1 << 31, (1 << 32) - 1] + [rnd.randrange(1 << 31, 1 << 32) for _ in range(30000)]
    for m in ms:
        assert lib.fxdp_ln_mantissa_q32(m) == fm.ln_mantissa_q32(m)
    assert lib.fxdp_ln_mantissa_q32(5) == 0
    for k in range(1, 33):
        for w in [1, (1 << k) - 1] + [rnd.randrange(1, 1 << k) for _ in range(500)]:
            assert lib.fxdp_neglog_q26(w, k, out) == 0 and out[0] == fm.neglog_q26(w, k)
    for a in [0, 1 << 30, 1 << 31, 3 << 30, (1 << 32) - 1] + [rnd.getrandbits(32) for _ in range(30000)]:
        lib.fxdp_cordic_q30(a, c, s)
        assert (c[0], s[0]) == fm.cordic_cos_sin_q30(a)
    # bad parameters
    assert lib.fxdp_neglog_q26(0, 8, out) == 1
    assert lib.fxdp_neglog_q26(256, 8, out) == 1
    assert lib.fxdp_neglog_q26(3, 0, out) == 1
    assert lib.fxdp_neglog_q26(3, 33, out) == 1
    assert lib.fxdp_neglog_q26(3, 8, ffi.NULL) == 1


def test_c_bad_parameters_and_entropy_failure(native):
    lib, ffi = native.lib, native.ffi
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    good = dict(zip(("uniform_bits", "method", "scale_num", "shift", "scale_shift"), m.kernel_params()[:5]))
    good.update(truncation=0, lo=m.lo, hi=m.hi, step=m.step)

    def params(**kw):
        p = ffi.new("fxdp_laplace_fixed_params *")
        for key, v in {**good, **kw}.items():
            setattr(p, key, v)
        return p
    out, e = ffi.new("int64_t *"), ffi.new("uint8_t *")
    out[0], e[0] = 12345, 7
    r = native.new_rng_seeded(1)
    for bad in (dict(uniform_bits=0), dict(uniform_bits=33), dict(method=2), dict(shift=0), dict(shift=63),
                dict(truncation=2), dict(step=0), dict(lo=m.hi, hi=m.lo), dict(lo=m.lo + 1),
                dict(hi=1 << 62), dict(method=1, shift=27), dict(method=1, shift=20, scale_shift=31)):
        assert lib.fxdp_laplace_fixed(r, params(**bad), 0, out, e) == 1, bad
        assert (out[0], e[0]) == (12345, 7)
    assert lib.fxdp_laplace_fixed(r, params(), 0, ffi.NULL, e) == 1
    assert lib.fxdp_laplace_fixed(ffi.NULL, params(), 0, out, e) == 1
    # extreme inputs are clamped, no overflow
    for x in (-(1 << 63), (1 << 63) - 1):
        assert lib.fxdp_laplace_fixed(r, params(), x, out, e) == 0
    # entropy failure: replay of one word, the second release needs more
    rr = native.new_rng_replay([0x12345678])
    assert lib.fxdp_laplace_fixed(rr, params(), 0, out, e) == 0
    out[0], e[0] = 12345, 7
    assert lib.fxdp_laplace_fixed(rr, params(), 0, out, e) == 2
    assert (out[0], e[0]) == (12345, 7)
    pp = ffi.new("fxdp_planar_laplace_fixed_params *")
    pp.angle_bits, pp.radius_bits, pp.scale_num, pp.shift, pp.lo, pp.hi, pp.step = 8, 8, 1 << 31, 50, -32, 32, 16
    o2 = ffi.new("int64_t *")
    assert lib.fxdp_planar_laplace_fixed(r, pp, 0, 0, out, o2, e) == 0
    pp.angle_bits = 32
    assert lib.fxdp_planar_laplace_fixed(r, pp, 0, 0, out, o2, e) == 1
    pp.angle_bits, pp.hi = 8, 1 << 40
    assert lib.fxdp_planar_laplace_fixed(r, pp, 0, 0, out, o2, e) == 1
    assert lib.fxdp_laplace_grid(r, 0, 1, -32, 32, 16, 0, out) == 1
    assert lib.fxdp_laplace_grid(r, 1, 1, -32, 31, 16, 0, out) == 1


def test_fleet_simulation_equals_c_per_device(native):
    lib, ffi = native.lib, native.ffi
    m = mechanisms()["laplace_exception"]
    xs = _inputs(m, 64, 4)
    ids = np.arange(100, 164, dtype=np.uint64)
    sim = m.simulate(xs, seed=77, device_ids=ids)
    for i in range(64):
        c_out, _ = _c_release_all(native, m, xs[i:i + 1], 77, int(ids[i]))
        assert c_out[0] == sim[i]

"""Finite-precision Laplace mechanisms (reference form): exact enumeration over every bit string,
releases, privacy maps, entropy failure and bad parameters."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import EntropyError
from fxdp.mechanisms.finite.audit_finite import _Dist1D, _Dist2D
from fxdp.mechanisms.finite.laplace import (LaplaceFixed, PlanarLaplaceFixed, make_laplace_fixed, make_laplace_grid,
                                 make_naive_laplace_fixed, make_planar_laplace_fixed,
                                 make_planar_laplace_grid)
from fxdp.fixed import QFormat

H = Fraction(1, 2)


def small_1d(trunc="exception", k=8):
    return make_laplace_fixed(H, (-4, 4), sensitivity=2, L=H, qformat="Q9.6", uniform_bits=k, truncation=trunc)


@pytest.mark.parametrize("trunc", ["exception", "clamp"])
def test_1d_enumeration_equals_binary_search_counts(trunc):
    """Every 8-bit string through the reference release = the audit's exact distribution."""
    m = small_1d(trunc)
    dist = _Dist1D(m)
    for x in (-256, -100, 0, 37, 255, 256):
        counts = Counter(m.release_raw(ReplaySource.from_bits(j, 8), x) for j in range(256))
        assert dict(counts) == dist.pmf(x)


def test_1d_noise_symmetric_and_monotone_in_u():
    m = small_1d(k=10)
    noise = [m.noise_from_bits(j) for j in range(1 << 10)]
    assert noise == sorted(noise)                              # n'(u) non-decreasing in u (Condition 2)
    assert noise == [-v for v in reversed(noise)]              # exactly symmetric midpoint grid
    assert 0 not in noise or noise.count(0) % 2 == 0


def test_planar_enumeration_equals_histogram():
    m = PlanarLaplaceFixed(Fraction(1, 4), (-2, 2), sensitivity=1, L=1, qformat="Q11.4", radius_bits=3,
                           angle_bits=4, _unchecked=True)
    assert m.privacy_map(1) == math.inf
    dist = _Dist2D(m)
    nb = 4 + 2 * 3
    for x, y in [(0, 0), (-32, 17), (32, 32)]:
        counts = Counter(m.release_raw(ReplaySource.from_bits(v, nb), x, y) for v in range(1 << nb))
        gs = range(m.lo, m.hi + 1, m.step)
        exp = {}
        for gx in gs:
            for gy in gs:
                c = int(dist.rect(gx - x - m.half, gx - x - m.half + m.step, gy - y - m.half,
                                  gy - y - m.half + m.step))
                if c:
                    exp[(gx, gy)] = c
        exc = (1 << nb) - sum(exp.values())
        if exc:
            exp[None] = exc
        assert dict(counts) == exp


def test_releases_decode_and_exception_value():
    m = small_1d()
    src = ChaCha20Source(3)
    outs = [m.release(src, Fraction(1, 3)) for _ in range(300)]
    assert any(o is None for o in outs)                         # exception value occurs
    vals = [o for o in outs if o is not None]
    assert all(o % H == 0 and -4 <= o <= 4 for o in vals)
    mc = small_1d("clamp")
    assert all(o is not None for o in (mc.release(src, 0) for _ in range(300)))
    p = make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4", radius_bits=8, angle_bits=8)
    outs = [p(( 0.5, -0.25), rng=src) for _ in range(200)]
    assert any(o is None for o in outs) and any(o is not None for o in outs)
    g = make_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    assert all(v % H == 0 for v in (g.release(src, 1) for _ in range(50)))
    pg = make_planar_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    assert all(len(v) == 2 for v in (pg.release(src, (1, 2)) for _ in range(20)))


def test_entropy_failure_releases_nothing():
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    with pytest.raises(EntropyError):
        m.release(ReplaySource([]), 0)
    p = make_planar_laplace_fixed(Fraction(1, 4), (-2, 2), L=1, qformat="Q11.4", radius_bits=12, angle_bits=12)
    with pytest.raises(EntropyError):
        p.release(ReplaySource.from_bits(5, 32), (0, 0))       # needs 36 bits
    with pytest.raises(ValueError):
        m(0, rng="not a source")


def test_privacy_maps():
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    assert m.privacy_map(0) == 0.0
    e1, e2 = m.privacy_map(1), m.privacy_map(2)
    assert 0.5 < e1 < e2 and e2 - e1 == pytest.approx(0.5, abs=1e-12)
    assert m.epsilon == e1
    assert make_naive_laplace_fixed(H, 2).epsilon == math.inf
    g = make_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    assert g.epsilon <= 0.5 and g.D == 4
    pg = make_planar_laplace_grid(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    # L1 displacement of Euclidean-2 neighbours on the 1/2 grid: ceil(a/32) + ceil(b/32), a^2 + b^2 <= 128^2
    best = max(-(-a // 32) + -(-int(math.isqrt(128 * 128 - a * a)) // 32) for a in range(129))
    assert pg.D == best == 7 and pg.epsilon <= 0.5


def test_realized_parameters_round_toward_privacy():
    m = make_laplace_fixed(Fraction(1, 3), (-8, 8), sensitivity=1, L=H, qformat="Q15.16", uniform_bits=32)
    assert m.scale >= 3 and m.scale - 3 < Fraction(1, 1 << 40)
    assert m.epsilon_ideal <= Fraction(1, 3)
    assert m.B < 1 << 32 and m.B >= 1 << 31
    r = m.realized()
    assert r["delta_t"] < m.L / 2 and r["method"] == "inverse_cdf"


def test_auto_L_and_qformat_names():
    m = make_laplace_fixed(1, (-8, 8))
    assert m.L >= 8 * m.constants["delta_t"] and (8 / m.L).denominator == 1
    assert m.qformat == QFormat(32, True, 16)
    m2 = make_laplace_fixed(1, (-8, 8), L=1, qformat=QFormat(16, True, 8))
    assert m2.qformat.name == "Q7.8"


def test_simulate_matches_reference_per_device():
    from fxdp.samplers import _kernels as K
    m = make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    xs = np.array([0, 5, -300, 512, 64], dtype=np.int64)
    sim = m.simulate(xs, seed=42, device_ids=[10, 11, 12, 13, 14])
    for i, x in enumerate(xs):
        r = m.release_raw(ChaCha20Source(42, 10 + i), int(x))
        assert sim[i] == (-(1 << 63) if r is None else r)
    st = K.seed_state(K.new_state(), 42, 10)
    assert sim[0] == m.simulate(xs[:1], seed=42, device_ids=[10])[0]
    assert st is not None


BAD = [
    (lambda: make_laplace_fixed(0, (-8, 8)), "epsilon"),
    (lambda: make_laplace_fixed(-1, (-8, 8)), "epsilon"),
    (lambda: make_laplace_fixed(1, (-8, 8), sensitivity=0), "sensitivity"),
    (lambda: make_laplace_fixed(1, (-8, 8), sensitivity=Fraction(1, 1 << 20)), "sensitivity must be >="),
    (lambda: make_laplace_fixed(1, (-8, 8), qformat="UQ16.16"), "signed"),
    (lambda: make_laplace_fixed(1, (-8, 8), qformat="Q3.3"), "qformat"),
    (lambda: make_laplace_fixed(1, (-8, 8), qformat="float"), "qformat"),
    (lambda: make_laplace_fixed(1, (-8, 8), uniform_bits=0), "uniform_bits"),
    (lambda: make_laplace_fixed(1, (-8, 8), uniform_bits=33), r"uniform_bits must be in \[1, 32\]"),
    (lambda: make_laplace_fixed(1, (-8, 8), L=Fraction(1, 3)), "multiple of the format resolution"),
    (lambda: make_laplace_fixed(1, (-8, 8), L=Fraction(1, 1 << 16)), "smallest valid L"),
    (lambda: make_laplace_fixed(1, (8, -8), L=1), "m must be < M"),
    (lambda: make_laplace_fixed(1, (8, 8), L=1), "m must be < M"),
    (lambda: make_laplace_fixed(1, (-8, 7.5), L=1), "multiple of L"),
    (lambda: make_laplace_fixed(1, (-8, 8), L=1, qformat="Q2.5"), "too narrow"),
    (lambda: make_laplace_fixed(1, (-64, 64), L=1), "uniform_bits = 32 is too small"),
    (lambda: make_laplace_fixed(1, (-8, 8), L=1, truncation="saturate"), "truncation"),
    (lambda: make_laplace_fixed(1, [-8], L=1), "bounds"),
    (lambda: make_laplace_fixed(Fraction(1, 1 << 20), (-8, 8), L=1), "too large"),
    (lambda: make_naive_laplace_fixed(Fraction(1, 3), 1), "power of two"),
    (lambda: make_planar_laplace_fixed(1, (-2, 2), L=1, truncation="clamp"), "truncation"),
    (lambda: make_planar_laplace_fixed(1, (-2, 2), L=1, radius_bits=32), "radius_bits"),
    (lambda: make_planar_laplace_fixed(1, (-2, 2), L=1, angle_bits=1), "angle_bits"),
    (lambda: make_planar_laplace_fixed(1, (-2, 2), L=Fraction(1, 1 << 16)), "smallest valid L"),
    (lambda: make_planar_laplace_fixed(Fraction(1, 1024), (-(1 << 14), 1 << 14), L=1), "too wide"),
    (lambda: make_laplace_grid(1, (-8, 8), L=Fraction(1, 3)), "multiple"),
    (lambda: make_laplace_grid(1, (-8, 8), L=3), "multiple of L"),
    (lambda: make_planar_laplace_grid(1, (2, -2)), "m must be < M"),
]


@pytest.mark.parametrize("make,match", BAD)
def test_bad_parameters(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_inputs():
    m = make_laplace_fixed(1, (-8, 8), L=1)
    with pytest.raises(ValueError):
        m.release(ChaCha20Source(1), "zero")
    p = make_planar_laplace_fixed(1, (-2, 2), L=1)
    with pytest.raises(ValueError, match="pair"):
        p.release(ChaCha20Source(1), 3)
    assert m.check_input(1000) == m.hi and m.check_input(-1000.0) == m.lo   # clamped into [m, M]


def test_registered_kinds_and_config_round_trip():
    from fxdp.config import constructors, mechanism_from_table, mechanism_to_table
    kinds = constructors()
    for k in ("laplace_fixed", "planar_laplace_fixed", "laplace_grid", "planar_laplace_grid",
              "naive_laplace_fixed"):
        assert k in kinds
    m = fxdp.make_laplace_fixed(H, (-8, 8), sensitivity=2, L=H, qformat="Q9.6")
    t = mechanism_to_table(m)
    m2 = mechanism_from_table(t)
    assert isinstance(m2, LaplaceFixed) and m2.kernel_params() == m.kernel_params()

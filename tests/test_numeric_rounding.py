"""Readings off the grid (issue 17, item 5; fxdp/mechanisms/readings/_numeric.py): exact randomized rounding
(P(up) = the fractional position, by enumeration of every bit string), clamping of out-of-range
readings, NaN and infinity refused, the fleet's rounding stream bit-identical to the reference,
the release after it, the mean unbiased for off-grid readings, and entropy failure."""
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import fxdp
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import EntropyError
from fxdp.mechanisms import _fleet
from fxdp.mechanisms.readings._numeric import (ROUND_BITS, ROUND_STREAM, fine_positions, randomized_round,
                                               round_fleet)

KINDS = ["duchi", "piecewise", "hybrid", "square_wave"]


@pytest.mark.parametrize("ct", [False, True], ids=["lazy", "ct"])
def test_every_bit_string_rounds_up_with_the_fractional_position(ct):
    B = 5
    for i in (0, 3):
        for f in range(1 << B):
            counts, used = Counter(), set()
            for s in range(1 << B):
                src = ReplaySource.from_bits(s, B)
                counts[randomized_round(src, (i << B) + f, ct, frac_bits=B)] += 1
                used.add(src.bits_used)
            assert counts[i + 1] == f and counts[i] == (1 << B) - f        # P(up) = f / 2^B, exactly
            if f == 0:
                assert used == {0}                                        # on the grid: no bits
            elif ct:
                assert used == {B}
            else:
                assert max(used) <= B and min(used) >= 1


def test_fine_positions_clamp_out_of_range_and_refuse_nan():
    F = fine_positions([-3.0, 0.0, 2.5, 10.0, 99.0], 0.0, 10.0, 4)
    assert F.tolist() == [0, 0, 1 << ROUND_BITS, 4 << ROUND_BITS, 4 << ROUND_BITS]
    assert fine_positions([1.0], 0.0, 3.0, 1)[0] == round((1 << ROUND_BITS) / 3)
    for bad in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(ValueError, match="NaN and infinity are refused, never clamped"):
            fine_positions([1.0, bad], 0.0, 10.0, 4)


@pytest.mark.parametrize("kind", KINDS)
def test_out_of_range_readings_are_clamped_and_nan_refused(kind):
    m = getattr(fxdp, f"make_{kind}")(0, 10, 2, bits=4)
    for x, i in ((11, m.N), (-0.5, 0), (1e300, m.N)):
        assert m(x, ChaCha20Source(4, 1)) == m.release(ChaCha20Source(4, 1), i)
        assert m.round_readings([x], seed=3).tolist() == [i]
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="never clamped"):
            m(bad)
        with pytest.raises(ValueError, match="never clamped"):
            m.simulate([1.0, bad], seed=1)


@pytest.mark.parametrize("ct", [False, True], ids=["lazy", "ct"])
def test_fleet_rounding_stream_matches_the_reference(ct):
    rng = np.random.default_rng(5)
    fine = rng.integers(0, 1 << (ROUND_BITS + 6), size=(3000, 3), dtype=np.int64)
    fine[::7] &= ~np.int64((1 << ROUND_BITS) - 1)                  # some rows on the grid
    ids = np.arange(3000, dtype=np.uint64) * 31 + 2
    out, status, bits, _ = round_fleet(fine, 17, ids, ct)
    assert (status == 0).all()
    assert ((out - (fine >> ROUND_BITS)) >= 0).all() and ((out - (fine >> ROUND_BITS)) <= 1).all()
    for j in range(0, 3000, 29):
        src = ChaCha20Source(17, int(ids[j]), ROUND_STREAM)
        assert [randomized_round(src, int(f), ct) for f in fine[j]] == out[j].tolist()
        assert src.bits_used == bits[j]
    assert (bits[::7] == 0).all()


@pytest.mark.parametrize("kind", KINDS)
def test_simulate_rounds_on_the_rounding_stream_then_releases_on_stream_zero(kind):
    m = getattr(fxdp, f"make_{kind}")(-5, 35, 2, bits=6)
    vals = np.random.default_rng(1).uniform(-6, 36, 2000)          # off the grid, some out of range
    ids = np.arange(2000, dtype=np.uint64) * 3 + 1
    out = m.simulate(vals, 9, device_ids=ids)
    idx = m.round_readings(vals, 9, device_ids=ids)
    assert (out == m.simulate_device(idx, 9, device_ids=ids)).all()
    assert (np.abs(idx - m.grid_indices(vals)) <= 1).all() and (idx != m.grid_indices(vals)).any()
    for j in range(0, 2000, 97):
        i = m.round_reading(ChaCha20Source(9, int(ids[j]), ROUND_STREAM), float(vals[j]))
        assert i == idx[j] and m.release(ChaCha20Source(9, int(ids[j])), i) == out[j]


def test_multidim_rounds_each_attribute_in_order():
    m = fxdp.make_numeric_multidim([0, -1], [10, 1], 6, 2, base="duchi", bits=5)
    vals = np.random.default_rng(2).uniform(-1, 10, (1000, 2))
    ids = np.arange(1000, dtype=np.uint64)
    idx = m.round_readings(vals, 4, device_ids=ids)
    assert (m.simulate(vals, 4, device_ids=ids) == m.simulate_device(idx, 4, device_ids=ids)).all()
    for j in range(0, 1000, 53):
        assert m.round_reading(ChaCha20Source(4, j, ROUND_STREAM), vals[j]) == tuple(idx[j])
    assert m([11, -2], ChaCha20Source(1, 0)) == m.release(ChaCha20Source(1, 0), (m.N, 0))


def test_rounding_keeps_the_mean_unbiased():
    """Readings a third of a step above a grid level: nearest rounding is biased by a third of a
    step; the randomized rounding's mean index is within 4 standard errors of the position, and
    the Duchi estimate of the readings' mean within 4 of its standard errors."""
    m = fxdp.make_duchi(0, 1, 2, bits=3)
    phi = 2 + Fraction(1, 3)
    vals = np.full(200_000, float(phi / m.N))
    idx = m.round_readings(vals, seed=11)
    p = float(phi - 2)
    assert abs(idx.mean() - float(phi)) < 4 * math.sqrt(p * (1 - p) / vals.size)
    assert (m.grid_indices(vals) == 2).all()                      # nearest: always down
    est = m.estimate(m.simulate(vals, seed=12))
    assert abs(est.estimate - float(vals[0])) < 4 * est.stderr
    assert abs(float(2 / m.N) - float(vals[0])) > 6 * est.stderr  # nearest rounding's bias is visible


def test_rounding_entropy_failure_releases_nothing(monkeypatch):
    m = fxdp.make_piecewise(0, 1, 2)
    monkeypatch.setattr(_fleet, "_FIRST_BLOCK", 0xFFFFFFFF)
    with pytest.raises(EntropyError, match="randomized rounding.*64 of 64 devices failed; no output released"):
        m.simulate(np.full(64, 0.3), seed=1)
    out, status, _, _ = round_fleet(np.full((8, 1), 5, dtype=np.int64), 1, None, False, 0xFFFFFFFF)
    assert (status == 2).all() and (out == 0).all()


def test_true_statistic_is_the_mean_of_the_clamped_readings():
    m = fxdp.make_square_wave(0, 10, 2, bits=4)
    vals = [-1.0, 2.5, 3.3, 12.0]
    assert m.true_statistic(vals)[0] == pytest.approx((0 + 2.5 + 3.3 + 10) / 4, abs=1e-9)
    assert fxdp.make_duchi(0, 10, 2, bits=4).true_statistic(vals) == pytest.approx(15.8 / 4, abs=1e-9)
    md = fxdp.make_numeric_multidim([0, 0], [10, 1], 2, 2, bits=4)
    assert md.true_statistic([[-1.0, 0.3], [2.5, 0.4]]) == pytest.approx([1.25, 0.35], abs=1e-9)

"""SP 800-90B 4.4 continuous health tests (issue 13 item 2): csrc/fxdp_health.c against fxdp/health.py.

Sources are injected through the host build (cffi): stuck, repeating, biased and failing-late
sources must be caught (sticky, buffer zeroed, the DRBG and every release then fail with
FXDP_ERR_ENTROPY and write nothing); os.urandom must not be flagged over 10^6 bytes.
"""
import os
import random
from fractions import Fraction
from math import comb

import pytest

from fxdp import health, native
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError

ffi, lib = native.ffi, native.lib


# ---- cut-offs -------------------------------------------------------------------------------------

def test_rct_cutoff_c_matches_python_for_every_h256():
    for h in range(1, 2049):
        assert lib.fxdp_health_rct_cutoff(h) == health.rct_cutoff(h) == 1 + -(-20 * 256 // h)
        # the definition: the least C with 2^(-H (C - 1)) <= 2^-20
        c = health.rct_cutoff(h)
        assert Fraction(h, 256) * (c - 1) >= 20 > Fraction(h, 256) * (c - 2)
    assert lib.fxdp_health_rct_cutoff(0) == 0 and lib.fxdp_health_rct_cutoff(2049) == 0


def test_apt_cutoff_matches_sp800_90b_table_2():
    # SP 800-90B (January 2018) Table 2, adaptive proportion cut-offs for W = 512, alpha = 2^-20:
    # a published known answer for the exact computation.
    assert [health.apt_cutoff(256 * h // 2) for h in (1, 2, 4, 8, 16)] == [410, 311, 177, 62, 13]


@pytest.mark.parametrize("h256", [256, 512, 1024, 2048])
def test_apt_cutoff_is_the_critical_binomial_value(h256):
    """Recomputed straight from the definition in Fractions (p = 2^-H exact for whole H)."""
    p, w, alpha = Fraction(1, 2 ** (h256 // 256)), health.APT_WINDOW, Fraction(1, 2 ** 20)
    tail = lambda c: sum(comb(w, k) * p ** k * (1 - p) ** (w - k) for k in range(c, w + 1))  # noqa: E731
    c = health.apt_cutoff(h256)
    assert tail(c) <= alpha < tail(c - 1)


def test_apt_cutoff_fractional_h_is_bracketed_and_monotone():
    cuts = [health.apt_cutoff(h) for h in (96, 100, 128, 200, 300, 700, 1000, 1900)]
    assert cuts == sorted(cuts, reverse=True)
    # fractional H lies between its whole neighbours' cut-offs
    assert health.apt_cutoff(512) >= health.apt_cutoff(600) >= health.apt_cutoff(768)


def test_false_alarm_bounds_are_near_alpha():
    for h in (128, 256, 512, 1024, 2048):
        # exactly 2^-20 when 20/H is whole; the bound uses p = 2^-H rounded up (within 2^-64)
        assert health.rct_false_alarm(h) <= Fraction(1, 2 ** 20) * (1 + Fraction(1, 2 ** 40))
        assert health.apt_false_alarm(h) <= Fraction(1, 2 ** 17)


def test_bad_parameters_name_the_parameter():
    for bad in (0, 2049, -1, 1.5, True, "8"):
        with pytest.raises(ValueError, match="h256"):
            health.rct_cutoff(bad)
    with pytest.raises(ValueError, match="window"):
        health.apt_cutoff(256, window=1)
    with pytest.raises(ValueError, match="min_entropy"):
        health.h256_from_min_entropy(9)
    with pytest.raises(TypeError, match="min_entropy"):
        health.h256_from_min_entropy(0.5)
    assert health.h256_from_min_entropy("1/3") == 85          # rounded down: 85.33 -> 85
    with pytest.raises(ValueError, match="apt_cutoff"):
        health.HealthTest(256, apt_cutoff_value=1)
    with pytest.raises(ValueError, match="h256"):
        native.new_health(os.urandom, 0)
    with pytest.raises(ValueError, match="apt_cutoff"):
        native.new_health(os.urandom, 256, apt_cutoff=514)


def test_c_init_rejects_bad_parameters():
    hc = ffi.new("fxdp_health *")
    calls = []
    handle = ffi.new_handle(lambda n: calls.append(n) or os.urandom(n))
    for h256, apt in ((0, 13), (2049, 13), (2048, 1), (2048, 514)):
        assert lib.fxdp_health_init(hc, lib._fxdp_py_fill, handle, h256, apt) == ERR_PARAM
        assert hc.failed == lib.FXDP_HEALTH_INIT
    assert lib.fxdp_health_init(hc, ffi.NULL, handle, 2048, 13) == ERR_PARAM
    assert lib.fxdp_health_init(ffi.NULL, lib._fxdp_py_fill, handle, 2048, 13) == ERR_PARAM
    assert calls == []                                         # nothing drawn on a bad parameter
    buf = ffi.new("uint8_t[8]", [7] * 8)
    assert lib.fxdp_health_fill(hc, buf, 8) != 0 and list(buf) == [0] * 8    # never initialised
    assert lib.fxdp_health_fill(ffi.NULL, buf, 8) != 0


# ---- C against the reference -------------------------------------------------------------------------

class Scripted:
    """A byte source that serves a given byte string, then fails."""

    def __init__(self, data):
        self.data, self.pos = bytes(data), 0

    def __call__(self, n):
        if self.pos + n > len(self.data):
            raise OSError("scripted source exhausted")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def _pattern(rng, kind, n):
    if kind == "uniform":
        return bytes(rng.getrandbits(8) for _ in range(n))
    if kind == "runs":            # runs of equal bytes of random length 1..6
        out = bytearray()
        while len(out) < n:
            out += bytes([rng.getrandbits(8)]) * rng.randint(1, 6)
        return bytes(out[:n])
    if kind == "biased":          # byte 0 with probability 1/8, else uniform
        return bytes(0 if rng.random() < 0.125 else rng.getrandbits(8) for _ in range(n))
    if kind == "small":           # 3 bits of entropy at most per byte
        return bytes(rng.getrandbits(3) for _ in range(n))
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["uniform", "runs", "biased", "small"])
@pytest.mark.parametrize("h256", [96, 512, 1024, 2048])
def test_c_and_reference_agree_call_by_call(kind, h256):
    rng = random.Random(f"{kind}-{h256}")
    data = _pattern(rng, kind, 6000)
    src = Scripted(data)
    st, hc = native.new_health(src, h256)
    ref = health.HealthTest(h256)
    for _ in range(health.STARTUP_SAMPLES // health.STARTUP_CHUNK):
        try:
            ref.feed(data[ref.samples:ref.samples + health.STARTUP_CHUNK])
        except EntropyError:
            break
    assert st == (OK if ref.failed == health.OK else ERR_ENTROPY)
    assert hc.failed == ref.failed
    while ref.failed == health.OK and src.pos < len(data) - 700:
        n = rng.randint(1, 700)
        buf = ffi.new("uint8_t[]", n)
        rc = lib.fxdp_health_fill(hc, buf, n)
        chunk = data[ref.samples:ref.samples + n]
        try:
            ref.feed(chunk)
            assert rc == 0 and bytes(buf) == chunk
        except EntropyError:
            assert rc != 0 and bytes(buf) == bytes(n)
        assert hc.failed == ref.failed
        if ref.failed == health.OK:
            assert (hc.rct_count, hc.rct_last, hc.apt_count, hc.apt_first, hc.apt_seen) == \
                (ref.rct_count, ref.rct_last, ref.apt_count, ref.apt_first, ref.apt_seen)


# ---- injected bad sources are caught -----------------------------------------------------------------

def _stuck(n):
    return b"\xa5" * n


def _alternating(n):             # A B A B ...: no run of 2, but half of every window is A
    return bytes(0x55 if i % 2 == 0 else 0xAA for i in range(n))


class _Biased:
    """Byte 0 with probability 1/2 unless the last byte was 0 (so no runs): P[0] = 1/3, min-entropy
    1.58 bits per byte, claimed 8.  Only the adaptive proportion test can see it: a window opened by
    a 0 holds ~170 of them."""

    def __init__(self, seed=7):
        self.r, self.last = random.Random(seed), 1

    def __call__(self, n):
        out = bytearray()
        for _ in range(n):
            self.last = 0 if self.last != 0 and self.r.random() < 0.5 else self.r.randint(1, 255)
            out.append(self.last)
        return bytes(out)


@pytest.mark.parametrize("fill,h256,reason", [
    (_stuck, 2048, health.RCT), (_stuck, 256, health.RCT), (_alternating, 2048, health.APT),
    (_alternating, 1024, health.APT)])
def test_bad_source_fails_the_startup_test(fill, h256, reason):
    st, hc = native.new_health(fill, h256)
    assert st == ERR_ENTROPY and hc.failed == reason
    r = ffi.new("fxdp_rng *")
    assert lib.fxdp_rng_init_drbg(r, lib.fxdp_health_fill, hc) == ERR_ENTROPY
    ref = health.health_checked(fill, h256)
    with pytest.raises(EntropyError):
        ref(44)
    assert ref.health.failed == reason


@pytest.mark.parametrize("h256", [2048, 1024])
def test_biased_source_is_caught_by_the_adaptive_proportion_test(h256):
    st, hc = native.new_health(_Biased(), h256)
    buf = ffi.new("uint8_t[512]")
    rcs = [lib.fxdp_health_fill(hc, buf, 512) for _ in range(30)]
    assert (st == ERR_ENTROPY or 1 in rcs) and hc.failed == health.APT
    ref = health.health_checked(_Biased(), h256)
    with pytest.raises(EntropyError):
        for _ in range(31):
            ref(512)
    assert ref.health.failed == health.APT


def _good_then(bad, after):
    """os.urandom for `after` bytes, then the bad source."""
    state = {"left": after}

    def fill(n):
        good = min(n, state["left"])
        state["left"] -= good
        return os.urandom(good) + bad(n - good)
    return fill


@pytest.mark.parametrize("bad", [_stuck, _alternating])
def test_source_going_bad_later_is_caught_sticky_and_zeroed(bad):
    st, hc = native.new_health(_good_then(bad, health.STARTUP_SAMPLES + 4000), 1024)
    assert st == OK
    buf = ffi.new("uint8_t[100]")
    rcs = [lib.fxdp_health_fill(hc, buf, 100) for _ in range(60)]
    first_bad = rcs.index(1)
    assert 40 <= first_bad <= 41 + 600 // 100 and set(rcs[first_bad:]) == {1}   # sticky
    assert bytes(buf) == bytes(100)
    assert hc.failed in (health.RCT, health.APT)


def test_board_failure_is_sticky():
    flaky = {"n": 0}

    def fill(n):
        flaky["n"] += 1
        if flaky["n"] == 40:
            raise OSError("TRNG not ready")
        return os.urandom(n)
    st, hc = native.new_health(fill, 2048)
    assert st == OK
    buf = ffi.new("uint8_t[16]")
    rcs = [lib.fxdp_health_fill(hc, buf, 16) for _ in range(20)]
    assert rcs == [0] * 7 + [1] * 13 and hc.failed == health.BOARD and bytes(buf) == bytes(16)


# ---- good sources pass ---------------------------------------------------------------------------------

@pytest.mark.parametrize("h256", [256, 512, 1024])
def test_os_urandom_is_not_flagged_over_a_million_bytes(h256):
    """Claimed H of 1, 2 and 4 bits per byte (a true 8 bits): a false alarm here has probability
    below 10^6 * 2^-40 (RCT) plus 2000 windows * P[Binomial(511, 1/256) >= C - 1] (APT), ~0."""
    st, hc = native.new_health(os.urandom, h256)
    assert st == OK
    buf = ffi.new("uint8_t[4096]")
    for _ in range(245):                                          # 245 * 4096 + 1024 > 10^6
        assert lib.fxdp_health_fill(hc, buf, 4096) == 0
    assert hc.failed == health.OK


def test_reference_passes_os_urandom():
    checked = health.health_checked(os.urandom, 512)
    for _ in range(25):
        assert len(checked(4000)) == 4000
    assert checked.health.failed == health.OK and checked.health.samples == 101_024


# ---- nothing is released over a failing source ----------------------------------------------------------

def test_drbg_over_health_releases_like_plain_drbg_when_good():
    seed_bytes = os.urandom(health.STARTUP_SAMPLES + 44)
    st, hc = native.new_health(Scripted(seed_bytes), 1024)
    assert st == OK
    r1 = native.new_rng_drbg_health(hc)
    r2 = native.new_rng_drbg(Scripted(seed_bytes[health.STARTUP_SAMPLES:]))
    assert list(native.bits(r1, 32, 20)) == list(native.bits(r2, 32, 20))


def test_mechanism_release_over_failing_source_writes_nothing():
    # DRBG: the 44 seed bytes fail the test -> init fails, and every release after it
    st, hc = native.new_health(_good_then(_stuck, health.STARTUP_SAMPLES), 2048)
    assert st == OK
    with pytest.raises(EntropyError):
        native.new_rng_drbg_health(hc)
    r = ffi.new("fxdp_rng *")
    assert lib.fxdp_rng_init_drbg(r, lib.fxdp_health_fill, hc) == ERR_ENTROPY
    cfg = ffi.new("fxdp_rr_bool_cfg *", {"a": 3, "k": 2})
    x, out = ffi.new("uint8_t *", 1), ffi.new("uint8_t *", 0xEE)
    for fn in (lib.fxdp_rr_bool, lib.fxdp_rr_bool_ct):
        assert fn(r, cfg, x, out) == ERR_ENTROPY and out[0] == 0xEE
    # raw hook mode: the source goes stuck in the middle of a vector release -> all or nothing
    st, hc = native.new_health(_good_then(_stuck, health.STARTUP_SAMPLES + 4), 2048)
    assert st == OK
    r = ffi.new("fxdp_rng *")
    lib.fxdp_rng_init_hook(r, lib.fxdp_health_fill, hc)
    d = 256                                        # ~512 bits lazily: words 2.. come from the stuck part
    ue = ffi.new("fxdp_unary_encoding_cfg *", {"a_p": 3 << 14, "a_q": 1 << 14, "d": d, "bits": 16})
    xin, vec = ffi.new("uint32_t *", 5), ffi.new("uint8_t[]", [0xEE] * d)
    for fn in (lib.fxdp_unary_encoding, lib.fxdp_unary_encoding_ct):
        vec = ffi.new("uint8_t[]", [0xEE] * d)
        # unary encoding draws in place: a failure during the draws zeroes out (csrc/fxdp.h), a
        # failed rng leaves it untouched; either way nothing is released
        assert fn(r, ue, xin, vec) == ERR_ENTROPY and list(vec) in ([0xEE] * d, [0] * d)
    assert hc.failed == health.RCT


def test_board_that_succeeds_without_writing_is_caught():
    """fxdp_health_fill zeroes the buffer before the board's call: a hook that returns 0 and writes
    nothing serves a run of zeros, which the repetition count test catches at start-up."""
    silent = ffi.callback("int(void *, uint8_t *, size_t)", lambda ctx, out, n: 0)
    hc = ffi.new("fxdp_health *")
    assert lib.fxdp_health_init(hc, silent, ffi.NULL, 2048, 13) == ERR_ENTROPY
    assert hc.failed == health.RCT


def test_python_release_over_a_health_checked_source():
    """The Python side: OSEntropySource over health_checked(fill) releases while the source is good,
    and raises EntropyError (nothing released) once it is stuck, for good."""
    import fxdp
    from fxdp.bitsource import OSEntropySource
    m = fxdp.make_randomized_response_bool(0.75)
    good = OSEntropySource(urandom=health.health_checked(os.urandom, 1024))
    assert [m(1, rng=good) in (0, 1) for _ in range(50)] == [True] * 50
    src = OSEntropySource(urandom=health.health_checked(_good_then(_stuck, health.STARTUP_SAMPLES + 64), 2048))
    outs = []
    with pytest.raises(EntropyError):
        for _ in range(1000):
            outs.append(m(1, rng=src))
    assert len(outs) <= 64 * 8
    with pytest.raises(EntropyError):
        m(0, rng=src)

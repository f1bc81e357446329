"""discrete_laplace_fast (issue 12 item 2): exact tables, exactness by enumeration of every
bit string, reference = Numba bit for bit (keyed streams v1 and v2, the lookahead, the
hand-over past 64 bits), its own known-answer vectors, parameter errors.

Enumeration (as tests/test_enumeration.py does for CKS): every B-bit string is
served by a replay source (zero padding to a whole word, then failure); a run
*finishes* iff it returns within B bits, and then depends on those bits only.
So mass_finished(o) = count(o) / 2^B exactly, and for every outcome o the exact
probability must satisfy mass_finished(o) <= P_hi(o) and
P_lo(o) <= mass_finished(o) + mass_unfinished, with [P_lo, P_hi] a certified
rational interval from ``fxdp.conservative.exp_interval``.  The unfinished
mass must also be small, so the check has teeth.
"""
import json
from fractions import Fraction
from pathlib import Path

import numba
import numpy as np
import pytest

from fxdp import Generator
from fxdp.bitsource import ChaCha20Source, EntropyError, ReplaySource, Seed
from fxdp.conservative import exp_interval
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK
from fxdp.samplers import _kernels as K
from fxdp.samplers import _nb_fast_laplace as NF
from fxdp.samplers import fast_laplace as F
from fxdp.samplers import reference as ref

VEC = Path(__file__).resolve().parent / "vectors"
VEC_NAME = "discrete_laplace_fast.json"
VEC_SEED = 0x0123456789ABCDEF_FEDCBA9876543210_0F1E2D3C4B5A6978_8796A5B4C3D2E1F0
VEC_CASES = [[1, 1], [1, 10], [3, 7], [1, 1000], [2**32 - 1, 1], [7, 2]]
VEC_DRAWS = 64
PARAMS = [(1, 1), (1, 2), (2, 3), (3, 2), (1, 10), (5, 1)]


def _q_pow_iv(k, s, t):
    """Certified interval of q^k = exp(-k s/t)."""
    return exp_interval(Fraction(-k * s, t), 200) if k else (Fraction(1), Fraction(1))


def _laplace_iv(z, s, t):
    ql, qh = _q_pow_iv(1, s, t)
    pl, ph = _q_pow_iv(abs(z), s, t)
    return (1 - qh) / (1 + qh) * pl, (1 - ql) / (1 + ql) * ph


def _geometric_iv(y, s, t):
    hl, hh = _q_pow_iv(y, s, t)
    ll, lh = _q_pow_iv(y + 1, s, t)
    return hl - lh, hh - ll


def _check_masses(counts, unfinished, B, iv, s, t, unseen=range(-8, 9)):
    total = 1 << B
    for o, c in counts.items():
        lo, hi = iv(o, s, t)
        assert Fraction(c, total) <= hi, (o, c)
        assert lo <= Fraction(c + unfinished, total), (o, c)
    # outcomes never seen finished: their mass is all in the unfinished runs
    for o in unseen:
        if o not in counts:
            lo, _ = iv(o, s, t)
            assert lo <= Fraction(unfinished, total)


# --------------------------------------------------------------------------
# tables

@pytest.mark.parametrize("s,t", [(1, 10), (3, 7), (1, 1000), (7, 2), (2**32 - 1, 1), (1, 2**32 - 1)])
def test_boundary_table_is_the_exact_floor(s, t):
    """B_j / 2^64 < q^j < (B_j + 1) / 2^64 for every entry, checked at 200 bits."""
    table = F.boundary_table(s, t)
    assert len(table) == F.TABLE_LEN == 64
    for j, bj in enumerate(table, start=1):
        assert 0 <= bj < 2**64
        if j * s > 46 * t:                  # exp(-46) < 2^-64
            assert bj == 0
            continue
        lo, hi = _q_pow_iv(j, s, t)
        assert Fraction(bj, 2**64) < lo and hi < Fraction(bj + 1, 2**64), j
    assert list(table) == sorted(table, reverse=True)


def test_scaled_floor_deep_digits():
    """Digits past the table (the exact path) agree with a 400-bit enclosure."""
    for j, s, t, nbits in [(1, 1, 10, 100), (3, 2, 7, 150), (64, 1, 10, 90), (5, 7, 3, 70)]:
        f = F.scaled_floor(j, s, t, nbits)
        lo, hi = exp_interval(Fraction(-j * s, t), 400)
        assert Fraction(f, 2**nbits) < lo and hi < Fraction(f + 1, 2**nbits)
    assert F.scaled_floor(5, 2**31, 3, 70) == 0           # exp(-3.6e9) < 2^-71


def test_lookahead_agrees_with_the_bit_loop():
    """Every entry of the 12-bit lookahead is what ``invert`` does on that prefix."""
    for s, t in [(1, 10), (2, 3), (1, 1000)]:
        look = F.lookahead_table(s, t)
        table = F.boundary_table(s, t)
        decided = 0
        for x in range(0, 1 << 12, 7):
            src = ReplaySource.from_bits(x, 12)
            try:
                a = F.invert(src, s, t, table)
            except EntropyError:
                assert look[x] == -1
                continue
            if src.bits_used > 12:          # read the zero padding: undecided within 12 bits
                assert look[x] == -1
                continue
            assert look[x] == (src.bits_used << 8) | a
            decided += 1
        assert decided > 0


# --------------------------------------------------------------------------
# exactness by enumeration

@pytest.mark.parametrize("s,t", PARAMS)
def test_enumeration_geometric_reference(s, t):
    """The inversion alone: Y = a (a < n) with P(Y = y) = q^y - q^(y+1)."""
    B = 14
    table = F.boundary_table(s, t)
    counts, unfinished, tail = {}, 0, 0
    for v in range(1 << B):
        src = ReplaySource.from_bits(v, B)
        try:
            a = F.invert(src, s, t, table)
        except EntropyError:
            unfinished += 1
            continue
        if src.bits_used > B:
            unfinished += 1
        elif a == len(table):
            tail += 1
        else:
            counts[a] = counts.get(a, 0) + 1
    _check_masses(counts, unfinished + tail, B, _geometric_iv, s, t, range(0, 9))
    assert Fraction(unfinished, 1 << B) < Fraction(1, 20)


@pytest.mark.parametrize("s,t", PARAMS)
def test_enumeration_reference(s, t):
    B = 12
    counts, unfinished = {}, 0
    for v in range(1 << B):
        src = ReplaySource.from_bits(v, B)
        try:
            z = F.discrete_laplace_fast(src, s, t)
        except EntropyError:
            unfinished += 1
            continue
        if src.bits_used > B:
            unfinished += 1
        else:
            counts[z] = counts.get(z, 0) + 1
    _check_masses(counts, unfinished, B, _laplace_iv, s, t)
    assert Fraction(unfinished, 1 << B) < Fraction(1, 2)


@numba.njit(cache=True)
def _enumerate_numba(s, t, table, look, B, base, counts, values, statuses, used):
    """Every B-bit string through the Numba fill core; finished runs counted per value."""
    st = np.zeros(K.STATE_WORDS, np.uint32)
    words = np.zeros(1, np.uint32)
    out = np.zeros(1, np.int64)
    unfinished = 0
    record = values.shape[0] == (1 << B)
    for v in range((1 << B)):
        words[0] = np.uint32(v << (32 - B))
        K.replay_into(st, words, 1)
        status, done, lo, a, b = NF.fill_dlap_fast_core(st, s, t, table, look, out, np.int64(0))
        nb = K.bits_used_nb(st)
        if record:
            values[v] = out[0] if status == 0 else 0
            statuses[v] = status
            used[v] = nb
        if status != 0 or nb > B:
            unfinished += 1
        else:
            counts[out[0] - base] += 1
    return unfinished


def _numba_enum(s, t, B, record=False):
    table, look = NF.fast_laplace_tables(s, t)
    counts = np.zeros(4001, np.int64)
    n = (1 << B) if record else 0
    values, statuses, used = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    unf = _enumerate_numba(np.uint64(s), np.uint64(t), table, look, B, -2000, counts, values,
                           statuses, used)
    return {i - 2000: int(c) for i, c in enumerate(counts) if c}, int(unf), values, statuses, used


@pytest.mark.parametrize("s,t", PARAMS)
def test_enumeration_numba_matches_reference_string_by_string(s, t):
    """Numba on every 12-bit string: same status class, value and bits as the reference."""
    B = 12
    _, _, values, statuses, used = _numba_enum(s, t, B, record=True)
    for v in range(1 << B):
        src = ReplaySource.from_bits(v, B)
        try:
            z = F.discrete_laplace_fast(src, s, t)
        except EntropyError:
            assert statuses[v] == ERR_ENTROPY
            continue
        assert statuses[v] == OK and values[v] == z and used[v] == src.bits_used, v


@pytest.mark.parametrize("s,t", PARAMS)
def test_enumeration_numba_20_bits(s, t):
    B = 20
    counts, unfinished, *_ = _numba_enum(s, t, B)
    _check_masses(counts, unfinished, B, _laplace_iv, s, t)
    assert Fraction(unfinished, 1 << B) < Fraction(1, 8)


# --------------------------------------------------------------------------
# parity on keyed streams

def _numba_draws(seed, s, t, n, device_id=0):
    st = K.seed_state(K.new_state(), seed, device_id, 0)
    out = np.zeros(n, np.int64)
    status, done = NF.fill_discrete_laplace_fast(st, s, t, out)
    assert (status, done) == (OK, n)
    return out.tolist(), K.bits_used(st)


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("s,t", [(1, 10), (1, 1), (3, 2), (2, 7), (1, 1000), (7, 1), (1, 2**32 - 1),
                                 (2**32 - 1, 1), (2**32 - 1, 2**32 - 2)])
def test_numba_matches_reference_keyed(s, t, version):
    seed = Seed(12345 + s + t, version)
    got, used = _numba_draws(seed, s, t, 400, device_id=3)
    src = ChaCha20Source(seed, 3, 0)
    want = [F.discrete_laplace_fast(src, s, t) for _ in range(400)]
    assert got == want and used == src.bits_used


def test_numba_without_lookahead_reads_the_same_bits():
    """The 12-bit lookahead is a shortcut only: disabled (all -1), the bit loop gives the same."""
    table, look = NF.fast_laplace_tables(1, 10)
    outs = []
    for lk in (look, np.full_like(look, -1)):
        st = K.seed_state(K.new_state(), 99)
        out = np.zeros(3000, np.int64)
        assert NF.fill_dlap_fast_core(st, np.uint64(1), np.uint64(10), table, lk, out, np.int64(0))[:2] \
            == (OK, 3000)
        outs.append((out.tolist(), K.bits_used(st)))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("j", [1, 5, 64])
def test_draw_past_64_bits_is_finished_exactly(j):
    """A stream whose first 64 bits equal B_j leaves boundary j undecided at 64 bits: the
    kernel hands over (NEED_DEEP) and the Python finish reads exactly the reference's bits."""
    s, t = 1, 10
    bj = F.boundary_table(s, t)[j - 1]
    rest = [0x9E3779B9, 0x7F4A7C15, 0xF39CC060, 0x5CEDC834, 0x2FE12A6D, 0x4786B1EB]
    for tail in (rest, [w ^ 0xFFFFFFFF for w in rest]):
        words = [bj >> 32, bj & 0xFFFFFFFF] + tail
        table, look = NF.fast_laplace_tables(s, t)
        st = K.replay_state(words)
        out = np.zeros(1, np.int64)
        status, done, lo, a, b = NF.fill_dlap_fast_core(st, np.uint64(s), np.uint64(t), table, look, out,
                                                        np.int64(0))
        assert status == NF.NEED_DEEP and int(lo) == bj and (a, b) == (j - 1, j + 1)
        st = K.replay_state(words)
        status, done = NF.fill_discrete_laplace_fast(st, s, t, out)
        src = ReplaySource(words)
        want = F.discrete_laplace_fast(src, s, t)
        assert (status, done) == (OK, 1)
        assert out[0] == want and K.bits_used(st) == src.bits_used > 64


def test_entropy_failure_and_params():
    out = np.zeros(5, np.int64)
    st = K.replay_state([0x12345678])
    status, done = NF.fill_discrete_laplace_fast(st, 1, 10, out)
    assert status == ERR_ENTROPY and done < 5
    for s, t in [(0, 1), (1, 0), (2**32, 1), (1, 2**32), (-1, 3)]:
        st = K.seed_state(K.new_state(), 1)
        assert NF.fill_discrete_laplace_fast(st, s, t, out) == (ERR_PARAM, 0)
        assert K.bits_used(st) == 0
        with pytest.raises(ValueError, match="[st] must be"):
            Generator(1).discrete_laplace_fast(s, t)


def test_generator_method():
    g = Generator(77)
    z = g.discrete_laplace_fast(1, 10, size=1000)
    src = ChaCha20Source(77)
    assert z.tolist() == [F.discrete_laplace_fast(src, 1, 10) for _ in range(1000)]
    assert g.bits_used == src.bits_used
    assert isinstance(Generator(77).discrete_laplace_fast(1, 10), int)


def test_bits_per_sample_at_scale_10():
    """Goal of issue 12: <= 10 bits per sample at scale 10 (CKS: 19.7); entropy is 5.76."""
    src = ChaCha20Source(2024)
    n = 20000
    for _ in range(n):
        F.discrete_laplace_fast(src, 1, 10)
    fast = src.bits_used / n
    src = ChaCha20Source(2024)
    for _ in range(2000):
        ref.discrete_laplace(src, 1, 10)
    assert 5.76 < fast < 10 < src.bits_used / 2000


# --------------------------------------------------------------------------
# known-answer vectors (tests/vectors/discrete_laplace_fast.json and v2/)

def build_vectors(version):
    cases = []
    for params in VEC_CASES:
        src = ChaCha20Source(Seed(VEC_SEED, version), 7, 0)
        outputs, used = [], []
        for _ in range(VEC_DRAWS):
            outputs.append(F.discrete_laplace_fast(src, *params))
            used.append(src.bits_used)
        case = {"sampler": "discrete_laplace_fast", "params": params, "seed": hex(VEC_SEED),
                "device_id": 7, "stream": 0, "outputs": outputs, "bits_used": used}
        if version == 2:
            case["stream_version"] = 2
        cases.append(case)
    return {"draws": VEC_DRAWS, "cases": cases}


def _vec_path(version):
    return (VEC if version == 1 else VEC / "v2") / VEC_NAME


def _dumps(obj):
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize("version", [1, 2])
def test_vectors_fresh_and_numba(version):
    text = _vec_path(version).read_text()
    assert text == _dumps(build_vectors(version))
    for case in json.loads(text)["cases"]:
        seed = Seed(int(case["seed"], 16), case.get("stream_version", 1))
        st = K.seed_state(K.new_state(), seed, case["device_id"], case["stream"])
        for want, used in zip(case["outputs"], case["bits_used"]):
            out = np.zeros(1, np.int64)
            assert NF.fill_discrete_laplace_fast(st, *case["params"], out) == (OK, 1)
            assert out[0] == want and K.bits_used(st) == used


if __name__ == "__main__":      # python tests/test_discrete_laplace_fast.py: write the vector files
    for v in (1, 2):
        _vec_path(v).write_text(_dumps(build_vectors(v)))


# --------------------------------------------------------------------------
# C (csrc/fxdp_dlap_fast.c, host build through cffi)

def _c_draws(rng, s, t, n):
    from fxdp import native
    mod = native.load()
    table = mod.ffi.new("uint64_t[]", list(F.boundary_table(s, t)))
    out = mod.ffi.new("int64_t *")
    got = []
    for _ in range(n):
        st = mod.lib.fxdp_discrete_laplace_fast(rng, table, s, t, out)
        if st != OK:
            return got, st
        got.append(int(out[0]))
    return got, OK


@pytest.mark.parametrize("version", [1, 2])
def test_host_c_matches_vectors(version):
    from fxdp import native
    for case in json.loads(_vec_path(version).read_text())["cases"]:
        seed = Seed(int(case["seed"], 16), case.get("stream_version", 1))
        rng = native.new_rng_seeded(seed, case["device_id"], case["stream"])
        for want, used in zip(case["outputs"], case["bits_used"]):
            got, st = _c_draws(rng, *case["params"], 1)
            assert st == OK and got == [want] and native.bits_used(rng) == used


@pytest.mark.parametrize("s,t", [(1, 10), (2, 3), (1, 100)])
def test_host_c_matches_reference_keyed(s, t):
    from fxdp import native
    rng = native.new_rng_seeded(Seed(31337, 2), 5, 1)
    got, st = _c_draws(rng, s, t, 500)
    src = ChaCha20Source(Seed(31337, 2), 5, 1)
    assert st == OK and got == [F.discrete_laplace_fast(src, s, t) for _ in range(500)]
    assert native.bits_used(rng) == src.bits_used


def test_host_c_errors():
    """ERR_PARAM before any bit (NULLs, s or t = 0, an increasing table); past 64 inversion
    bits the portable C returns ERR_RANGE (the Python path finishes such a draw exactly)."""
    from fxdp import native
    mod = native.load()
    ffi, lib = mod.ffi, mod.lib
    good = ffi.new("uint64_t[]", list(F.boundary_table(1, 10)))
    bad = ffi.new("uint64_t[]", list(F.boundary_table(1, 10))[::-1])
    out = ffi.new("int64_t *")
    for args in [(good, 0, 10), (good, 1, 0), (ffi.NULL, 1, 10), (bad, 1, 10)]:
        rng = native.new_rng_seeded(1)
        assert lib.fxdp_discrete_laplace_fast(rng, *args, out) == ERR_PARAM
        assert native.bits_used(rng) == 0
    assert lib.fxdp_discrete_laplace_fast(native.new_rng_seeded(1), good, 1, 10, ffi.NULL) == ERR_PARAM
    b1 = F.boundary_table(1, 10)[0]
    rng = native.new_rng_replay([b1 >> 32, b1 & 0xFFFFFFFF, 0x9E3779B9, 0x7F4A7C15])
    from fxdp.errors import ERR_RANGE
    assert lib.fxdp_discrete_laplace_fast(rng, good, 1, 10, out) == ERR_RANGE


# --------------------------------------------------------------------------
# fleet

@pytest.mark.parametrize("version", [1, 2])
def test_fleet_matches_per_device_streams(version):
    """Device i of the fleet = fill_discrete_laplace_fast on the stream of (seed, ids[i], stream);
    more devices than one lane chunk, parameters with the tail in play."""
    seed = Seed(4242, version)
    ids = np.array([0, 1, 7, 2**40 + 3] + list(range(100, 400)), dtype=np.uint64)
    for s, t in [(1, 10), (1, 100)]:
        out = np.zeros((len(ids), 40), np.int64)
        status = np.full(len(ids), 99, np.int64)
        NF.fleet_discrete_laplace_fast(K.seed_key_words(seed), ids, 3, s, t, 40, out, status)
        assert (status == OK).all()
        for i in (0, 1, 2, 3, 150, len(ids) - 1):
            st = K.seed_state(K.new_state(), seed, int(ids[i]), 3)
            row = np.zeros(40, np.int64)
            assert NF.fill_discrete_laplace_fast(st, s, t, row) == (OK, 40)
            assert out[i].tolist() == row.tolist()


def test_fleet_bad_params():
    out = np.zeros((2, 3), np.int64)
    status = np.zeros(2, np.int64)
    NF.fleet_discrete_laplace_fast(K.seed_key_words(1), np.arange(2, dtype=np.uint64), 0, 0, 10, 3, out, status)
    assert (status == ERR_PARAM).all() and not out.any()


# --------------------------------------------------------------------------
# integers only (the typing check of tests/test_numba_types.py)


"""Host C samplers against the Python reference: outputs and bits consumed
(final rng state words), bad inputs, entropy-failure injection, exhaustive
enumeration."""
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError
from fxdp.samplers import reference as ref
from fxdp.samplers.bounded import make_bounded_laplace_table

sys.path.insert(0, str(Path(__file__).resolve().parent / "c"))
import ctest_support as cs  # noqa: E402

ffi, lib = native.ffi, native.lib
U32, U64 = 2**32 - 1, 2**64 - 1
I64_MIN, I64_MAX = -2**63, 2**63 - 1
SEED = 0x5EED_0F_F8D9_0000_1111_2222_3333_4444_5555_6666_7777_8888_9999


def _tables():
    t1 = make_bounded_laplace_table(2, (0, 8), k=16)
    t2 = make_bounded_laplace_table(10, (0, 40), k=32)
    t3 = make_bounded_laplace_table(1, (-3, 3), k=12)
    rnd = random.Random(9)
    out = [(list(t1.thresholds), 16), (list(t2.thresholds), 32), (list(t3.thresholds), 12),
           ([], 1), ([], 32), ([0], 1), ([1], 1), ([0, 2**32 - 1], 32), ([5], 3)]
    for k in (1, 2, 7, 20, 31, 32):
        m = rnd.randint(1, min(50, 2**k - 1))
        out.append((sorted(rnd.sample(range(2**k), m)), k))
    return out


# (sampler name, params for the reference, bulk wrapper call, draws)
CASES = []
for n in [1, 2, 3, 5, 7, 1000, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**63 + 1, 2**64 - 1, 123456789012]:
    CASES.append(("uniform_below", (n,), 400))
for a, k in [(0, 0), (1, 0), (0, 5), (32, 5), (1, 1), (3, 2), (5, 3), (1, 8), (255, 8), (3006477107, 32),
             (2**62 + 5, 63), (2**63 - 1, 63), (2**63, 63), (1, 63), (2**40, 41), (6, 10)]:
    CASES.append(("bernoulli_dyadic", (a, k), 500))
    CASES.append(("bernoulli_dyadic_ct", (a, k), 300))
for n, d in [(0, 1), (1, 1), (0, 7), (7, 7), (1, 2), (1, 3), (2, 3), (12345, 99991), (2**64 - 2, 2**64 - 1),
             (1, 2**64 - 1), (2**63, 2**64 - 1), (2**63 - 1, 2**63), (5, 1024)]:
    CASES.append(("bernoulli_rational", (n, d), 500))
for n, d in [(0, 1), (1, 1), (1, 2), (2, 1), (7, 3), (1, 10), (0, U32), (2**32 - 1, 2**31), (U32, U32),
             (5, U32), (U32, 1), (3, 100)]:
    CASES.append(("bernoulli_exp", (n, d), 300))
for s, t in [(1, 1), (1, 10), (3, 7), (10, 1), (1, 1000), (U32, 1), (1, U32), (U32, U32), (7, 2**20), (2, 3)]:
    CASES.append(("discrete_laplace", (s, t), 300))
for s, t, lo, hi in [(1, 10, -5, 5), (1, 3, 0, 0), (1, 100, I64_MIN, I64_MAX), (1, 1000, -3, -1),
                     (1, 1000, 2, 2**40), (1, U32, I64_MIN, I64_MIN), (1, U32, I64_MAX, I64_MAX)]:
    CASES.append(("discrete_laplace_censored", (s, t, lo, hi), 300))
for thr, k in _tables():
    CASES.append(("table_sample_ct", (thr, k), 300))


def _ids(case):
    name, params, _ = case
    short = ",".join(str(p) if not isinstance(p, list) else f"[{len(p)}]" for p in params)
    return f"{name}({short})"


def bulk(rng, name, params, count):
    if name == "bernoulli_dyadic_ct":
        return native.bernoulli_dyadic(rng, *params, count, constant_time=True)
    return getattr(native, name)(rng, *params, count)


def c_state(r):
    return r.counter, r.word_pos, r.bitbuf, r.bitcount, r.status


def py_state(src):
    return src.counter, src._pos, src._buf, src._nbuf, 0


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_parity_bulk_outputs_and_bits(case):
    name, params, draws = case
    for dev in (0, 3):
        r = native.new_rng_seeded(SEED, dev, 1)
        src = ChaCha20Source(SEED, dev, 1)
        got = bulk(r, name, params, draws)
        want = [int(getattr(ref, name)(src, *params)) for _ in range(draws)]
        assert got.tolist() == want
        assert c_state(r) == py_state(src)
        assert native.bits_used(r) == src.bits_used


# single-sample C entry points: (C function, out type, argument builder)
def _single(name, params):
    if name == "uniform_below":
        n = params[0]
        if n <= U32:
            return [("fxdp_uniform_below_u32", "uint32_t *", (n,)), ("fxdp_uniform_below_u64", "uint64_t *", (n,))]
        return [("fxdp_uniform_below_u64", "uint64_t *", (n,))]
    if name == "table_sample_ct":
        thr, k = params
        return [("fxdp_table_sample_ct", "uint32_t *", (ffi.new("uint32_t[]", thr or [0]), len(thr), k))]
    out = {"bernoulli_dyadic": "uint8_t *", "bernoulli_dyadic_ct": "uint8_t *", "bernoulli_rational": "uint8_t *",
           "bernoulli_exp": "uint8_t *", "discrete_laplace": "int64_t *",
           "discrete_laplace_censored": "int64_t *"}[name]
    return [("fxdp_" + name, out, params)]


@pytest.mark.parametrize("case", CASES[::3], ids=_ids)
def test_parity_single_calls(case):
    name, params, _ = case
    for fn, otype, args in _single(name, params):
        r = native.new_rng_seeded(SEED, 11, 2)
        src = ChaCha20Source(SEED, 11, 2)
        out = ffi.new(otype)
        for _ in range(60):
            assert getattr(lib, fn)(r, *args, out) == OK
            assert out[0] == int(getattr(ref, name)(src, *params)), fn
            assert c_state(r) == py_state(src)


def test_parity_random_parameters():
    """Many random parameter sets, a few draws each, one shared stream (state carried across samplers)."""
    rnd = random.Random(2026)
    r = native.new_rng_seeded(SEED, 99)
    src = ChaCha20Source(SEED, 99)
    for _ in range(1500):
        kind = rnd.randrange(8)
        if kind == 0:
            name, params = "uniform_below", (rnd.randint(1, 2**rnd.randint(1, 64) - 1),)
        elif kind in (1, 2):
            k = rnd.randint(0, 63)
            name, params = ("bernoulli_dyadic", "bernoulli_dyadic_ct")[kind - 1], (rnd.randint(0, 2**k), k)
        elif kind == 3:
            d = rnd.randint(1, 2**rnd.randint(1, 64) - 1)
            name, params = "bernoulli_rational", (rnd.randint(0, d), d)
        elif kind == 4:
            d = rnd.randint(1, 2**rnd.randint(1, 32) - 1)
            name, params = "bernoulli_exp", (rnd.randint(0, 3 * d) & U32, d)
        elif kind == 5:
            name, params = "discrete_laplace", (rnd.randint(1, 2**rnd.randint(1, 32) - 1),
                                                rnd.randint(1, 2**rnd.randint(1, 32) - 1))
        elif kind == 6:
            lo = rnd.randint(-50, 50)
            name, params = "discrete_laplace_censored", (rnd.randint(1, 20), rnd.randint(1, 200), lo,
                                                         lo + rnd.randint(0, 30))
        else:
            k = rnd.randint(1, 32)
            thr = sorted(rnd.sample(range(2**k), min(2**k - 1, rnd.randint(0, 30)))) if k < 20 else \
                sorted({rnd.randrange(2**k) for _ in range(rnd.randint(0, 30))})
            name, params = "table_sample_ct", (thr, k)
        n = rnd.randint(1, 4)
        got = bulk(r, name, params, n).tolist()
        want = [int(getattr(ref, name)(src, *params)) for _ in range(n)]
        assert got == want, (name, params)
        assert c_state(r) == py_state(src)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["uniform_below", "bernoulli_dyadic", "bernoulli_dyadic_ct", "bernoulli_rational",
                                  "bernoulli_exp", "discrete_laplace", "discrete_laplace_censored",
                                  "table_sample_ct"])
def test_parity_at_scale(name):
    """10^5 draws per sampler, C against the reference directly, zero mismatches.

    (The 10^6-draw parity per sampler runs C against the Numba kernels in
    tests/test_numba_parity.py, with the reference checked there on 2*10^4 draws
    plus checkpoints; running the pure-Python reference for 10^6 draws of every
    sampler took minutes and added no coverage.)"""
    cases = [c for c in CASES if c[0] == name]
    per = -(-10**5 // len(cases))
    total = 0
    for i, (_, params, _) in enumerate(cases):
        r = native.new_rng_seeded(SEED, 1000 + i)
        src = ChaCha20Source(SEED, 1000 + i)
        got = bulk(r, name, params, per)
        f = getattr(ref, name)
        want = np.fromiter((f(src, *params) for _ in range(per)), dtype=got.dtype, count=per)
        assert np.array_equal(got, want), params
        assert c_state(r) == py_state(src)
        total += per
    assert total >= 10**5


# ---- bad inputs: every parameter of every C function --------------------------------

THR = ffi.new("uint32_t[3]", [1, 5, 9])
GOOD = {  # function: (out type, valid args)
    "fxdp_bits": ("uint32_t *", [5]),
    "fxdp_bits64": ("uint64_t *", [40]),
    "fxdp_uniform_below_u32": ("uint32_t *", [10]),
    "fxdp_uniform_below_u64": ("uint64_t *", [10]),
    "fxdp_bernoulli_dyadic": ("uint8_t *", [3, 4]),
    "fxdp_bernoulli_dyadic_ct": ("uint8_t *", [3, 4]),
    "fxdp_bernoulli_rational": ("uint8_t *", [1, 3]),
    "fxdp_bernoulli_exp": ("uint8_t *", [1, 3]),
    "fxdp_discrete_laplace": ("int64_t *", [1, 3]),
    "fxdp_discrete_laplace_censored": ("int64_t *", [1, 3, -5, 5]),
    "fxdp_table_sample_ct": ("uint32_t *", [THR, 3, 4]),
}
BAD = [  # (function, argument index, bad value)
    ("fxdp_bits", 0, 33), ("fxdp_bits", 0, 2**31),
    ("fxdp_bits64", 0, 65), ("fxdp_bits64", 0, 1000),
    ("fxdp_uniform_below_u32", 0, 0), ("fxdp_uniform_below_u64", 0, 0),
    ("fxdp_bernoulli_dyadic", 0, 17), ("fxdp_bernoulli_dyadic", 1, 64), ("fxdp_bernoulli_dyadic", 1, 1),
    ("fxdp_bernoulli_dyadic_ct", 0, 17), ("fxdp_bernoulli_dyadic_ct", 1, 64), ("fxdp_bernoulli_dyadic_ct", 1, 1),
    ("fxdp_bernoulli_dyadic", 0, U64), ("fxdp_bernoulli_dyadic_ct", 0, U64),
    ("fxdp_bernoulli_rational", 0, 4), ("fxdp_bernoulli_rational", 1, 0), ("fxdp_bernoulli_rational", 0, U64),
    ("fxdp_bernoulli_exp", 1, 0),
    ("fxdp_discrete_laplace", 0, 0), ("fxdp_discrete_laplace", 1, 0),
    ("fxdp_discrete_laplace_censored", 0, 0), ("fxdp_discrete_laplace_censored", 1, 0),
    ("fxdp_discrete_laplace_censored", 2, 6), ("fxdp_discrete_laplace_censored", 3, -6),
    ("fxdp_discrete_laplace_censored", 2, I64_MAX),
    ("fxdp_table_sample_ct", 2, 0), ("fxdp_table_sample_ct", 2, 33), ("fxdp_table_sample_ct", 0, ffi.NULL),
]
SENTINEL = {"uint8_t *": 0xA5, "uint32_t *": 0xA5A5A5A5, "uint64_t *": 0xA5A5A5A5A5A5A5A5,
            "int64_t *": -0x5A5A5A5A5A5A5A5A}


def _check_param_error(fn, otype, args, null_rng=False, null_out=False):
    r = native.new_rng_seeded(1, 2)
    native.bits(r, 3, 1)                       # something buffered
    before = native.state_words(r)
    out = ffi.new(otype, SENTINEL[otype])
    st = getattr(lib, fn)(ffi.NULL if null_rng else r, *args, ffi.NULL if null_out else out)
    assert st == ERR_PARAM
    assert out[0] == SENTINEL[otype]
    assert (native.state_words(r) == before).all()


@pytest.mark.parametrize("fn,idx,value", BAD, ids=lambda v: str(v)[:20])
def test_bad_parameter(fn, idx, value):
    otype, args = GOOD[fn]
    args = list(args)
    args[idx] = value
    _check_param_error(fn, otype, args)


@pytest.mark.parametrize("fn", sorted(GOOD))
def test_null_pointers_and_good_args(fn):
    otype, args = GOOD[fn]
    _check_param_error(fn, otype, args, null_rng=True)
    _check_param_error(fn, otype, args, null_out=True)
    r = native.new_rng_seeded(1, 2)
    out = ffi.new(otype, SENTINEL[otype])
    assert getattr(lib, fn)(r, *args, out) == OK       # the baseline arguments are valid


@pytest.mark.parametrize("fn", sorted(GOOD))
def test_dead_rng_fails_even_without_reading_bits(fn):
    otype, args = GOOD[fn]
    r = native.new_rng_replay([])
    out = ffi.new(otype, SENTINEL[otype])
    st = getattr(lib, fn)(r, *args, out)
    assert st == ERR_ENTROPY and out[0] == SENTINEL[otype] and r.status == ERR_ENTROPY
    # zero-bit draws on a failed rng fail too (no output after an entropy failure)
    zero_bit = {"fxdp_bits": [0], "fxdp_bits64": [0], "fxdp_uniform_below_u32": [1],
                "fxdp_uniform_below_u64": [1], "fxdp_bernoulli_dyadic": [0, 4], "fxdp_bernoulli_dyadic_ct": [1, 0],
                "fxdp_bernoulli_rational": [3, 3], "fxdp_bernoulli_exp": [0, 3]}
    if fn in zero_bit:
        assert getattr(lib, fn)(r, *zero_bit[fn], out) == ERR_ENTROPY and out[0] == SENTINEL[otype]


def test_python_wrappers_name_the_parameter():
    r = native.new_rng_seeded(1)
    for call, match in [(lambda: native.uniform_below(r, 0, 1), "n must be"),
                        (lambda: native.bernoulli_dyadic(r, 5, 2, 1), "a must be"),
                        (lambda: native.bernoulli_dyadic(r, 0, 64, 1), "k must be"),
                        (lambda: native.bernoulli_rational(r, 4, 3, 1), "n must be"),
                        (lambda: native.bernoulli_rational(r, 0, 0, 1), "d must be"),
                        (lambda: native.bernoulli_exp(r, 1, 0, 1), "d must be"),
                        (lambda: native.discrete_laplace(r, 0, 1, 1), "s must be"),
                        (lambda: native.discrete_laplace(r, 1, 2**32, 1), "t must be"),
                        (lambda: native.discrete_laplace_censored(r, 1, 1, 2, 1, 1), "hi must be"),
                        (lambda: native.table_sample_ct(r, [3, 2], 4, 1), "strictly increasing"),
                        (lambda: native.table_sample_ct(r, [16], 4, 1), "thresholds entry"),
                        (lambda: native.table_sample_ct(r, [], 0, 1), "k must be"),
                        (lambda: native.bits(r, 1, -1), "count")]:
        with pytest.raises(ValueError, match=match):
            call()


def test_bulk_stops_at_first_failure_and_releases_nothing():
    words = ChaCha20Source(SEED, 5)
    w = [words.bits(32) for _ in range(3)]
    r = native.new_rng_replay(w)
    out = np.full(8, 7, dtype=np.uint32)
    produced = ffi.new("size_t *", 99)
    st = lib.fxdp_fill_bits(r, 32, ffi.from_buffer("uint32_t[]", out), 8, produced)
    assert st == ERR_ENTROPY and produced[0] == 3
    assert out[:3].tolist() == w and out[3:].tolist() == [7] * 5
    r = native.new_rng_replay(w)
    with pytest.raises(EntropyError):
        native.discrete_laplace(r, 1, 10, 1000)        # the wrapper releases no partial array


# ---- entropy failure injection ------------------------------------------------------------

INJECT = [("discrete_laplace", (1, 10)), ("discrete_laplace", (3, 7)), ("discrete_laplace", (1, 1000)),
          ("discrete_laplace", (1, U32)), ("discrete_laplace_censored", (1, 10, -2, 2)),
          ("bernoulli_exp", (7, 3)), ("bernoulli_exp", (U32, 2**31)), ("bernoulli_rational", (1, 3)),
          ("bernoulli_dyadic", (1, 63)), ("bernoulli_dyadic_ct", (2**62, 63)), ("uniform_below", (2**64 - 1,)),
          ("table_sample_ct", ([1, 5, 9], 32))]


@pytest.mark.parametrize("name,params", INJECT, ids=lambda v: str(v)[:30])
def test_entropy_failure_at_every_word(name, params):
    """Replay only the first j words the draw needs, j = 0 .. needed-1: FXDP_ERR_ENTROPY, output
    untouched; with all of them the draw equals the reference."""
    fn, otype, args = _single(name, params)[-1]
    tested = 0
    for dev in range(40):
        src = ChaCha20Source(SEED, dev, 4)
        words = [src.bits(32) for _ in range(16)]
        rsrc = ReplaySource(words)
        try:
            want = int(getattr(ref, name)(rsrc, *params))
        except EntropyError:
            continue                                   # needs more than 16 words from this stream
        needed = -(-rsrc.bits_used // 32)
        for j in range(needed):
            r = native.new_rng_replay(words[:j])
            out = ffi.new(otype, SENTINEL[otype])
            assert getattr(lib, fn)(r, *args, out) == ERR_ENTROPY, j
            assert out[0] == SENTINEL[otype]
            assert r.status == ERR_ENTROPY
            with pytest.raises(EntropyError):
                getattr(ref, name)(ReplaySource(words[:j]), *params)
        r = native.new_rng_replay(words[:needed])
        out = ffi.new(otype, SENTINEL[otype])
        assert getattr(lib, fn)(r, *args, out) == OK and out[0] == want
        tested += max(needed, 1)
    assert tested >= 40


# ---- exhaustive enumeration ---------------------------------------------------------------

@pytest.fixture(scope="module")
def test_program(tmp_path_factory):
    d = tmp_path_factory.mktemp("cexh")
    cs.write_kat_header(d)
    return cs.compile_c(d / "test_fxdp", [cs.HERE / "test_fxdp.c", *cs.LIB_SOURCES, *cs.HOST_SOURCES],
                        ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"], [d])


def test_exhaustive_enumeration_in_c(test_program):
    """k <= 12: all 2^k bit strings through bernoulli_dyadic(_ct) (every a in [0, 2^k]) and
    table_sample_ct (random tables): counts equal probability * 2^k exactly."""
    res = cs.run([test_program, "exhaustive", "12"])
    assert res.returncode == 0 and " 0 failed" in res.stdout, res.stdout + res.stderr


def test_known_answer_vectors_in_c(test_program):
    res = cs.run([test_program, "kat"])
    assert res.returncode == 0 and " 0 failed" in res.stdout, res.stdout + res.stderr


def _all_strings_rng(k):
    """A hook rng whose stream is every k-bit string in order, concatenated."""
    value = 0
    for x in range(2**k):
        value = (value << k) | x
    nbits = k * 2**k
    nbytes = -(-nbits // 32) * 4
    value <<= nbytes * 8 - nbits
    data = value.to_bytes(nbytes, "big")
    words = [int.from_bytes(data[i:i + 4], "big") for i in range(0, nbytes, 4)]
    blob = b"".join(w.to_bytes(4, "little") for w in words)
    pos = [0]

    def fill(n):
        out = blob[pos[0]:pos[0] + n]
        pos[0] += n
        return out
    return native.new_rng_hook(fill)


@pytest.mark.parametrize("k", [1, 3, 6, 9])
def test_exhaustive_via_bulk_dyadic_ct(k):
    for a in sorted({0, 1, 2**k, 2**k - 1, 2**(k - 1), 3 % (2**k + 1), (5 * 2**k) // 7}):
        out = native.bernoulli_dyadic(_all_strings_rng(k), a, k, 2**k, constant_time=True)
        assert int(out.sum()) == a


@pytest.mark.parametrize("k", [8, 10, 12])
def test_exhaustive_via_bulk_table(k):
    t = make_bounded_laplace_table(1, (-2, 2), k=k)
    idx = native.table_sample_ct(_all_strings_rng(k), t.thresholds, k, 2**k)
    counts = np.bincount(idx, minlength=len(t.weights))
    assert counts.tolist() == list(t.weights)

"""Numba kernels against the Python reference (and the host C library when it builds),
bit for bit: outputs, and stream bits used after every draw.

* ``parity_cases()`` lists (sampler, params) for every sampler; other parity
  tests (Numba vs C) import it:  ``sys.path.insert(0, tests_dir); from
  test_numba_parity import parity_cases, numba_draws, reference_draws``.
* Every case: >= 10^4 single draws, reference vs Numba, comparing the output
  and ``bits_used`` after every draw; then the bulk ``fill_`` kernel on the
  same stream must give the same outputs and the same final state.
* At scale: 10^6 ``fill_`` draws per sampler.  The reference (~10^5 bits/s)
  cannot follow 10^6 draws, so it checks the first 2*10^4 draws and then 1000
  draws from each of 10 checkpoints spread over the run (a reference source
  positioned at the checkpoint's stream bit).  Where the C library loads, the
  whole 10^6 draws and the final state words are compared with C as well.
* Entropy failure part-way through a draw (replay source): same outputs before
  it, same draw fails, same bits_used afterwards; parameter errors.
"""
import random

import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source, ReplaySource
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError
from fxdp.samplers import _kernels as K
from fxdp.samplers import reference as ref
from fxdp.samplers.bounded import make_bounded_laplace_table

SEED = 0x5EED_FACE_0000_1111_2222_3333_4444_5555_6666_7777_8888_9999_AAAA_BBBB_CCCC
U32, U64 = 2**32 - 1, 2**64 - 1
I64_MIN, I64_MAX = -2**63, 2**63 - 1
DRAWS = 10_000


def _tables():
    t1 = make_bounded_laplace_table(2, (0, 8), k=16)
    t2 = make_bounded_laplace_table(10, (0, 40), k=32)
    t3 = make_bounded_laplace_table(1, (-3, 3), k=12)
    rnd = random.Random(12)
    out = [(list(t1.thresholds), 16), (list(t2.thresholds), 32), (list(t3.thresholds), 12),
           ([], 1), ([0], 1), ([1], 1), ([5], 3), ([0, U32], 32)]
    for k in (2, 7, 20, 31):
        m = rnd.randint(1, min(40, 2**k - 1))
        out.append((sorted(rnd.sample(range(2**k), m)), k))
    return out


def parity_cases():
    """[(sampler name, [params])], params positional as in fxdp.samplers.reference."""
    cases = []
    for n in [1, 2, 3, 5, 7, 1000, 2**31 + 1, U32, 2**32, 2**32 + 1, 2**33 - 1, 2**63 + 12345, U64]:
        cases.append(("uniform_below", [n]))
    dy = [(0, 8), (256, 8), (0, 0), (1, 0), (1, 1), (12, 5), (2**31, 32), (3006477107, 32),
          (1, 63), (2**63 - 1, 63), (2**62 + 5, 63), (2**63, 63)]
    cases += [("bernoulli_dyadic", list(p)) for p in dy]
    cases += [("bernoulli_dyadic_ct", list(p)) for p in dy]
    for p in [(0, 7), (7, 7), (1, 2), (1, 3), (5, 8), (12345, 99991), (1, U64), (2**63, U64),
              (U64 - 1, U64), (2**40 + 3, 2**41 + 7)]:
        cases.append(("bernoulli_rational", list(p)))
    for p in [(0, 1), (1, 1), (1, 10), (7, 3), (5, 1), (U32, 2**31), (U32, U32), (1, U32), (3, 4)]:
        cases.append(("bernoulli_exp", list(p)))
    for p in [(1, 1), (1, 10), (3, 7), (7, 3), (1, 1000), (U32, 1), (1, U32), (U32, U32)]:
        cases.append(("discrete_laplace", list(p)))
    for p in [(1, 10, -5, 5), (1, 3, 0, 0), (1, 100, I64_MIN, I64_MAX), (2, 5, 3, 10),
              (1, 4, -10, -2)]:
        cases.append(("discrete_laplace_censored", list(p)))
    for thr, k in _tables():
        cases.append(("table_sample_ct", [thr, k]))
    return cases


def _case_id(case):
    name, params = case
    if name == "table_sample_ct":
        return f"{name}-{len(params[0])}x{params[1]}"
    return f"{name}-" + "-".join(str(p) for p in params)


CASES = parity_cases()


def reference_draws(sampler, params, src, n):
    """n reference draws from ``src`` -> (outputs, bits_used after each)."""
    fn = getattr(ref, sampler)
    outs, used = [], []
    for _ in range(n):
        outs.append(int(fn(src, *params)))
        used.append(src.bits_used)
    return outs, used


def numba_draws(sampler, params, state, n):
    """n single-draw Numba calls on ``state`` -> (outputs, bits_used after each); asserts OK."""
    fn = K.SAMPLERS[sampler][0]
    p = K.typed_params(sampler, params)
    bu = K.bits_used_nb
    outs, used = [], []
    for _ in range(n):
        s, v = fn(state, *p)
        assert s == OK
        outs.append(int(v))
        used.append(bu(state))
    return outs, used


def numba_fill(sampler, params, state, n):
    """n draws with the bulk kernel -> outputs array (int64 / uint64)."""
    dtype = np.uint64 if sampler == "uniform_below" else np.int64
    out = np.zeros(n, dtype)
    s, cnt = K.SAMPLERS[sampler][1](state, *K.typed_params(sampler, params), out)
    assert (s, cnt) == (OK, n)
    return out


def ref_source_from_state(state, bit):
    """A reference ChaCha20Source continuing a keyed Numba state (key, nonce, counter, buffered block
    and bits): under stream version 2 the key at a position is the end of a chain of blocks, so a
    checkpoint far into the stream starts from the state's current key (the first draws of every run
    are checked against a source started at block 0, and the whole run against C)."""
    s = [int(w) for w in state[:K.SHARED_WORDS]]
    src = ChaCha20Source(None, key=s[K.KEY:K.KEY + 8], nonce=s[K.NONCE:K.NONCE + 3], counter=s[K.COUNTER],
                         version=2 if s[K.MODE] == K.MODE_CHACHA_FKE else 1)
    src._block, src._pos = s[K.BLOCK:K.BLOCK + 16], s[K.WORD_POS]
    src._buf, src._nbuf = s[K.BITBUF], s[K.BITCOUNT]
    src.bits_used = bit
    return src


def ref_source_at(seed, device_id, stream, bit):
    """A reference ChaCha20Source positioned at stream bit ``bit`` (bits_used = bit; version 1)."""
    src = ChaCha20Source(seed, device_id, stream, counter=bit // 512)
    skip = bit % 512
    while skip >= 32:
        src.bits(32)
        skip -= 32
    src.bits(skip)
    src.bits_used = bit
    return src


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_reference_parity(case):
    sampler, params = case
    dev = len(params) + 11
    want = reference_draws(sampler, params, ChaCha20Source(SEED, dev, 0), DRAWS)
    st = K.seed_state(K.new_state(), SEED, dev, 0)
    got = numba_draws(sampler, params, st, DRAWS)
    assert got[0] == want[0]
    assert got[1] == want[1]
    # the bulk kernel on the same stream: same outputs, same final state
    st2 = K.seed_state(K.new_state(), SEED, dev, 0)
    out = numba_fill(sampler, params, st2, DRAWS)
    assert [int(v) for v in out] == want[0]
    assert (st2 == st).all()


# one heavier parameter set per sampler for the 10^6-draw run
SCALE_CASES = [
    ("uniform_below", [1000]),
    ("bernoulli_dyadic", [3006477107, 32]),
    ("bernoulli_dyadic_ct", [3006477107, 32]),
    ("bernoulli_rational", [12345, 99991]),
    ("bernoulli_exp", [7, 3]),
    ("discrete_laplace", [3, 70]),
    ("discrete_laplace_censored", [1, 10, -5, 5]),
    ("table_sample_ct", [list(make_bounded_laplace_table(10, (0, 40), k=32).thresholds), 32]),
]
SCALE = 10**6
CHUNKS = 10
CHECK = 1000


def _native():
    try:
        from fxdp import native
        native.load()
        return native
    except Exception:  # noqa: BLE001 - no compiler / cffi: Numba-vs-reference only
        return None


@pytest.mark.parametrize("case", SCALE_CASES, ids=[c[0] for c in SCALE_CASES])
def test_million_draws(case):
    sampler, params = case
    dev, stream = 2024, 3
    st = K.seed_state(K.new_state(), SEED, dev, stream)
    dtype = np.uint64 if sampler == "uniform_below" else np.int64
    out = np.zeros(SCALE, dtype)
    fill = K.SAMPLERS[sampler][1]
    p = K.typed_params(sampler, params)
    per = SCALE // CHUNKS
    starts = []
    for c in range(CHUNKS):
        starts.append((K.bits_used(st), st.copy()))
        assert fill(st, *p, out[c * per:(c + 1) * per]) == (OK, per)
    # first 2*10^4 draws against the reference, with bits used
    want, used = reference_draws(sampler, params, ChaCha20Source(SEED, dev, stream), 20_000)
    assert [int(v) for v in out[:20_000]] == want
    st0 = K.seed_state(K.new_state(), SEED, dev, stream)
    numba_fill(sampler, params, st0, 20_000)
    assert K.bits_used(st0) == used[-1]
    # checkpoints spread over the run
    for c, (bit, state_c) in enumerate(starts):
        src = ref_source_from_state(state_c, bit)
        want, used = reference_draws(sampler, params, src, CHECK)
        assert [int(v) for v in out[c * per:c * per + CHECK]] == want, c
        stc = state_c.copy()
        numba_fill(sampler, params, stc, CHECK)
        assert K.bits_used(stc) == used[-1], c
    # the whole run against C, when the C library is available
    native = _native()
    if native is not None:
        rng = native.new_rng_seeded(SEED, dev, stream)
        call = getattr(native, sampler)
        cout = call(rng, *params, SCALE)
        assert (np.asarray(cout).astype(np.int64) == out.astype(np.int64)).all()
        cw, nw = native.state_words(rng).copy(), st[:K.SHARED_WORDS].copy()
        if st[K.MODE] == K.MODE_CHACHA_FKE:       # C also erases the words it has served (version 2)
            nw[K.BLOCK:K.BLOCK + int(st[K.WORD_POS])] = 0
        assert (cw == nw).all()


@pytest.mark.parametrize("case", CASES[::3], ids=[_case_id(c) for c in CASES[::3]])
def test_entropy_failure_mid_draw(case):
    sampler, params = case
    rnd = random.Random(_case_id(case))
    fn = K.SAMPLERS[sampler][0]
    p = K.typed_params(sampler, params)
    for trial in range(8):
        words = [rnd.getrandbits(32) for _ in range(rnd.randint(0, 5))]
        src = ReplaySource(words)
        st = K.replay_state(words)
        rfn = getattr(ref, sampler)
        for i in range(1000):
            try:
                w, werr = int(rfn(src, *params)), OK
            except EntropyError:
                w, werr = 0, ERR_ENTROPY
            s, v = fn(st, *p)
            assert (s, int(v)) == (werr, w), (trial, i)
            assert K.bits_used(st) == src.bits_used, (trial, i)
            if werr != OK:
                break
        # fill on the same words: completes exactly the draws the reference completed
        st2 = K.replay_state(words)
        dtype = np.uint64 if sampler == "uniform_below" else np.int64
        out = np.zeros(1000, dtype)
        s, cnt = K.SAMPLERS[sampler][1](st2, *p, out)
        if werr == OK:      # the sampler reads nothing for these params
            assert (s, cnt) == (OK, 1000)
        else:
            assert (s, cnt) == (ERR_ENTROPY, i)
            assert (st2 == st).all()


BAD = [
    ("uniform_below", [0]),
    ("bernoulli_dyadic", [9, 3]), ("bernoulli_dyadic", [1, 64]), ("bernoulli_dyadic", [0, -1]),
    ("bernoulli_dyadic_ct", [2**63 + 1, 63]), ("bernoulli_dyadic_ct", [0, 64]),
    ("bernoulli_rational", [1, 0]), ("bernoulli_rational", [8, 7]),
    ("bernoulli_exp", [2**32, 1]), ("bernoulli_exp", [1, 0]), ("bernoulli_exp", [1, 2**32]),
    ("discrete_laplace", [0, 1]), ("discrete_laplace", [1, 0]), ("discrete_laplace", [2**32, 1]),
    ("discrete_laplace", [1, 2**32]),
    ("discrete_laplace_censored", [1, 1, 5, 4]), ("discrete_laplace_censored", [0, 1, 0, 0]),
    ("table_sample_ct", [[1, 2], 0]), ("table_sample_ct", [[1, 2], 33]),
    ("table_sample_ct", [[1, 8], 3]),
]


@pytest.mark.parametrize("case", BAD, ids=[_case_id(c) for c in BAD])
def test_parameter_errors(case):
    sampler, params = case
    single, fill, fleet = K.SAMPLERS[sampler]
    p = K.typed_params(sampler, params)
    st = K.seed_state(K.new_state(), 1)
    K.bits(st, np.int64(3))
    before = st.copy()
    s, v = single(st, *p)
    assert (s, int(v)) == (ERR_PARAM, 0)
    out = np.zeros(4, np.int64)
    assert fill(st, *p, out) == (ERR_PARAM, 0)
    assert (st == before).all() and not out.any()
    status = np.full(2, -1, np.int64)
    fleet(K.seed_key_words(1), np.arange(2, dtype=np.uint64), np.int64(0), *p, np.int64(4),
          np.zeros((2, 4), np.int64), status)
    assert (status == ERR_PARAM).all()


def test_fleet_matches_per_device_fill():
    key = K.seed_key_words(SEED)
    devs = np.array([5, 0, 2**64 - 1, 77], np.uint64)
    for sampler, params in SCALE_CASES:
        p = K.typed_params(sampler, params)
        dtype = np.uint64 if sampler == "uniform_below" else np.int64
        out = np.zeros((len(devs), 300), dtype)
        status = np.full(len(devs), -1, np.int64)
        K.SAMPLERS[sampler][2](key, devs, np.int64(9), *p, np.int64(250), out, status)
        assert (status == OK).all()
        assert not out[:, 250:].any()
        for i, d in enumerate(devs):
            st = K.seed_state(K.new_state(), SEED, int(d), 9)
            assert (numba_fill(sampler, params, st, 250).astype(dtype) == out[i, :250]).all()

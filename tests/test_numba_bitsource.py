"""Numba bit source (fxdp.samplers._kernels) against the definition in fxdp.bitsource.

* RFC 8439 section 2.3.2 block-function vector (Numba and reference);
* the reference ChaCha20 against the ``cryptography`` package's ChaCha20 on
  random keys, nonces and counters (its 16-byte nonce is the 4-byte
  little-endian counter followed by the 12-byte nonce), and Numba's block
  function on the same inputs;
* keyed streams (seed, device_id, stream) word for word against ChaCha20Source;
* bits(n) / bits64(n) sequences across word and block boundaries, with
  bits_used after every call;
* replay mode, sticky failure, hook mode, counter exhaustion, parameter errors,
  the state layout (words 34.. untouched) and the fleet seeding.
"""
import random

import numpy as np
import pytest

from fxdp.bitsource import ChaCha20Source, ReplaySource, Seed, chacha20_block as ref_block, derive_key_nonce
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError
from fxdp.samplers import _kernels as K

RFC_KEY = [0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C,
           0x13121110, 0x17161514, 0x1B1A1918, 0x1F1E1D1C]
RFC_NONCE = [0x09000000, 0x4A000000, 0x00000000]
RFC_OUT = [0xE4E7F110, 0x15593BD1, 0x1FDD0F50, 0xC47120A3,
           0xC7F4D1C7, 0x0368C033, 0x9AAA2204, 0x4E6CD4C3,
           0x466482D2, 0x09AA9F07, 0x05D7C214, 0xA2028BD9,
           0xD19C12B5, 0xB94E16DE, 0xE883D0CB, 0x4E3C50A2]

SEED = 0x0123456789ABCDEF_FEDCBA9876543210_0F1E2D3C4B5A6978_8796A5B4C3D2E1F0
STREAMS = [(0, 0, 0), (1, 0, 0), (SEED, 7, 0), (SEED, 7, 1), (SEED, 2**64 - 1, 2**32 - 1),
           (2**256 - 1, 2**32, 5), (0xDEADBEEF, 123456789, 0)]


def nb_block(key, counter, nonce):
    out = np.zeros(16, np.uint32)
    K.chacha20_block(np.array(key, np.uint32), np.uint64(counter), np.array(nonce, np.uint32), out)
    return [int(w) for w in out]


def test_rfc8439_block_vector():
    assert ref_block(RFC_KEY, 1, RFC_NONCE) == RFC_OUT
    assert nb_block(RFC_KEY, 1, RFC_NONCE) == RFC_OUT


def _crypto_keystream(key_words, counter, nonce_words, nblocks):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    key = b"".join(w.to_bytes(4, "little") for w in key_words)
    nonce16 = counter.to_bytes(4, "little") + b"".join(w.to_bytes(4, "little") for w in nonce_words)
    enc = Cipher(algorithms.ChaCha20(key, nonce16), mode=None).encryptor()
    ks = enc.update(bytes(64 * nblocks))
    return [int.from_bytes(ks[i:i + 4], "little") for i in range(0, len(ks), 4)]


def test_reference_and_numba_block_vs_cryptography():
    import cryptography  # noqa: F401  (a test dependency: the [test] extra)
    rnd = random.Random(8439)
    for trial in range(40):
        key = [rnd.getrandbits(32) for _ in range(8)]
        nonce = [rnd.getrandbits(32) for _ in range(3)]
        counter = rnd.choice([0, 1, rnd.getrandbits(32) - 4, 0xFFFFFFFE - 3, rnd.getrandbits(16)])
        counter = max(counter, 0)
        nblocks = 3
        ks = _crypto_keystream(key, counter, nonce, nblocks)
        for b in range(nblocks):
            want = ks[16 * b:16 * b + 16]
            assert ref_block(key, counter + b, nonce) == want, (trial, b)
            assert nb_block(key, counter + b, nonce) == want, (trial, b)
    # the RFC vector as a keystream too
    assert _crypto_keystream(RFC_KEY, 1, RFC_NONCE, 1) == RFC_OUT


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("seed,device_id,stream", STREAMS)
def test_keyed_stream_matches_reference(seed, device_id, stream, version):
    seed = Seed(seed, version)
    st = K.seed_state(K.new_state(), seed, device_id, stream)
    key, nonce = derive_key_nonce(seed, device_id, stream)
    assert st[K.KEY:K.KEY + 8].tolist() == key
    assert st[K.NONCE:K.NONCE + 3].tolist() == nonce
    mode = K.MODE_CHACHA if version == 1 else K.MODE_CHACHA_FKE
    assert (st[K.COUNTER], st[K.WORD_POS], st[K.BLOCK_LEN], st[K.BITCOUNT], st[K.MODE],
            st[K.STATUS]) == (0, 16, 16, 0, mode, 0)
    assert K.bits_used(st) == 0
    n = 16 * 5 + 3
    got = np.zeros(n, np.uint64)
    assert K.fill_bits(st, np.int64(32), got) == (OK, n)
    src = ChaCha20Source(seed, device_id, stream)
    assert got.tolist() == [src.bits(32) for _ in range(n)]
    assert K.bits_used(st) == src.bits_used == 32 * n
    if version == 1:        # 16 output words per block
        assert st[K.COUNTER] == 6 and st[K.WORD_POS] == 3
    else:                   # 8 per block; the key is the last block's words 0..7
        assert st[K.COUNTER] == 11 and st[K.WORD_POS] == 8 + 3
        last = ref_block(_fke_key(seed, device_id, stream, 10), 10, nonce)
        assert st[K.KEY:K.KEY + 8].tolist() == last[:8] == src.key
        assert st[K.BLOCK:K.BLOCK + 8].tolist() == [0] * 8


def _fke_key(seed, device_id, stream, j):
    """K_j of the version-2 stream, by the rule in docs/bitstream.md (independent of the sources)."""
    key, nonce = derive_key_nonce(seed, device_id, stream)
    for i in range(j):
        key = ref_block(key, i, nonce)[:8]
    return key


def test_version2_rule_from_blocks():
    """Version 2 output = words 8..15 of block j under K_j, K_{j+1} = words 0..7 (the rule itself)."""
    key, nonce = derive_key_nonce(SEED, 9, 4)
    want = []
    for j in range(4):
        blk = ref_block(key, j, nonce)
        want += blk[8:]
        key = blk[:8]
    src = ChaCha20Source(Seed(SEED, 2), 9, 4)
    assert [src.bits(32) for _ in range(32)] == want
    assert ChaCha20Source(SEED, 9, 4).version == 2           # an int seed is the current rule
    v1 = ChaCha20Source(Seed(SEED, 1), 9, 4)
    assert [v1.bits(32) for _ in range(16)] == ref_block(derive_key_nonce(SEED, 9, 4)[0], 0, nonce)
    for bad in (0, 3, "2", True, None):
        with pytest.raises(ValueError, match="stream_version"):
            Seed(1, bad)


def test_seed_validation():
    st = K.new_state()
    for bad in [(-1, 0, 0), (2**256, 0, 0), (0, -1, 0), (0, 2**64, 0), (0, 0, 2**32), (1.5, 0, 0)]:
        with pytest.raises(ValueError):
            K.seed_state(st, *bad)
    with pytest.raises(ValueError):
        K.seed_state(np.zeros(38, np.int64), 1)
    with pytest.raises(ValueError):
        K.replay_state([0] * 17)


def _compare_reads(st, src, ops):
    """Apply ('bits'|'bits64', n) ops to both; compare values, statuses and bits_used."""
    for i, (kind, n) in enumerate(ops):
        try:
            want = getattr(src, kind)(n)
            werr = OK
        except EntropyError:
            want, werr = 0, ERR_ENTROPY
        s, v = getattr(K, kind)(st, np.int64(n))
        assert (s, int(v)) == (werr, want), (i, kind, n)
        assert K.bits_used(st) == src.bits_used, (i, kind, n)
        assert int(st[K.BITBUF]) < (1 << int(st[K.BITCOUNT])) and st[K.BITCOUNT] <= 31


def test_bits_sequences_cross_word_and_block_boundaries():
    rnd = random.Random(5)
    for trial in range(6):
        seed, dev, stream = rnd.getrandbits(256), rnd.getrandbits(64), rnd.getrandbits(8)
        ops = []
        total = 0
        while total < 3 * 512 + 100:        # more than three blocks
            if rnd.random() < 0.3:
                n = rnd.choice([0, 1, 31, 32, 33, 63, 64, rnd.randint(0, 64)])
                ops.append(("bits64", n))
            else:
                n = rnd.choice([0, 1, 2, 31, 32, rnd.randint(0, 32)])
                ops.append(("bits", n))
            total += n
        st = K.seed_state(K.new_state(), seed, dev, stream)
        _compare_reads(st, ChaCha20Source(seed, dev, stream), ops)
    # exact boundary walks: land on every word end and block end
    for step in (1, 3, 7, 16, 31, 32):
        st = K.seed_state(K.new_state(), SEED, 3, 0)
        _compare_reads(st, ChaCha20Source(SEED, 3, 0), [("bits", step)] * (1100 // step + 2))


def test_replay_and_sticky_failure():
    rnd = random.Random(17)
    for trial in range(30):
        nwords = rnd.randint(0, 4)
        words = [rnd.getrandbits(32) for _ in range(nwords)]
        ops = [("bits", rnd.randint(0, 32)) if rnd.random() < 0.7 else ("bits64", rnd.randint(0, 64))
               for _ in range(12)]
        st = K.replay_state(words)
        src = ReplaySource(words)
        _compare_reads(st, src, ops)
        if st[K.STATUS] != OK:
            # sticky: every kernel now fails without touching the state, even bits(0)
            before = st.copy()
            assert K.bits(st, np.int64(0)) == (ERR_ENTROPY, 0)
            assert K.bits64(st, np.int64(0)) == (ERR_ENTROPY, 0)
            assert K.uniform_below(st, np.uint64(1)) == (ERR_ENTROPY, 0)
            assert K.bernoulli_dyadic(st, np.uint64(0), np.int64(3)) == (ERR_ENTROPY, False)
            assert K.discrete_laplace(st, np.uint64(1), np.uint64(1)) == (ERR_ENTROPY, 0)
            assert K.fill_bits(st, np.int64(0), np.zeros(3, np.uint64)) == (ERR_ENTROPY, 0)
            assert (st == before).all()


def test_replay_bits_matches_from_bits():
    for value, nbits in [(0, 0), (1, 1), (0b101, 3), (0xABCDE, 20), (2**32 - 1, 32), (0x1234_5678_9, 36)]:
        st = K.replay_bits(value, nbits)
        src = ReplaySource.from_bits(value, nbits)
        ops = [("bits", 1)] * 70
        _compare_reads(st, src, ops)


def test_counter_exhaustion():
    rnd = random.Random(99)
    key = [rnd.getrandbits(32) for _ in range(8)]
    nonce = [rnd.getrandbits(32) for _ in range(3)]
    st = K.keyed_state(key, nonce, counter=0xFFFFFFFE)
    src = ChaCha20Source(None, key=key, nonce=nonce, counter=0xFFFFFFFE)
    got = np.zeros(20, np.uint64)
    s, cnt = K.fill_bits(st, np.int64(32), got)
    assert (s, cnt) == (ERR_ENTROPY, 16)
    assert got[:16].tolist() == ref_block(key, 0xFFFFFFFE, nonce)
    assert [src.bits(32) for _ in range(16)] == got[:16].tolist()
    with pytest.raises(EntropyError):
        src.bits(1)
    assert st[K.STATUS] == ERR_ENTROPY and st[K.COUNTER] == 0xFFFFFFFF
    # block 0xFFFFFFFF was never generated: the block still holds block 0xFFFFFFFE
    assert st[K.BLOCK:K.BLOCK + 16].tolist() == ref_block(key, 0xFFFFFFFE, nonce)
    assert K.bits(st, np.int64(0)) == (ERR_ENTROPY, 0)
    # a read inside the last block still works when it does not need a new word
    st = K.keyed_state(key, nonce, counter=0xFFFFFFFE)
    assert K.bits(st, np.int64(32 - 5))[0] == OK
    for _ in range(15):
        assert K.bits(st, np.int64(32))[0] == OK
    assert K.bits(st, np.int64(5))[0] == OK
    assert K.bits(st, np.int64(0)) == (OK, 0)
    assert K.bits(st, np.int64(1)) == (ERR_ENTROPY, 0)


def test_hook_mode_is_c_only():
    st = K.seed_state(K.new_state(), 1)
    st[K.MODE] = K.MODE_HOOK
    assert K.bits(st, np.int64(0)) == (OK, 0)
    assert K.bits(st, np.int64(1)) == (ERR_ENTROPY, 0)
    assert st[K.STATUS] == ERR_ENTROPY


def test_parameter_errors_leave_state_untouched():
    st = K.seed_state(K.new_state(), 5, 6, 7)
    K.bits(st, np.int64(5))
    before = st.copy()
    assert K.bits(st, np.int64(33)) == (ERR_PARAM, 0)
    assert K.bits(st, np.int64(-1)) == (ERR_PARAM, 0)
    assert K.bits64(st, np.int64(65)) == (ERR_PARAM, 0)
    assert K.fill_bits(st, np.int64(40), np.zeros(2, np.uint64)) == (ERR_PARAM, 0)
    assert (st == before).all() and st[K.STATUS] == OK


def test_words_beyond_shared_layout_untouched():
    st = K.new_state()
    assert st.shape == (K.STATE_WORDS,) and K.STATE_WORDS == 38 and K.SHARED_WORDS == 34
    st[K.SHARED_WORDS:] = 0xA5A5A5A5
    K.seed_state(st, SEED, 1, 2)
    out = np.zeros(1000, np.uint64)
    K.fill_bits(st, np.int64(17), out)
    for name in K.SAMPLERS:
        p = {"table_sample_ct": [[3, 9], 4], "discrete_laplace_censored": [1, 3, -2, 2]}.get(name, [1, 3])
        if name in ("uniform_below", "uniform_below_ct"):
            p = [7]
        K.SAMPLERS[name][0](st, *K.typed_params(name, p))
    K.replay_state([1, 2], st)
    K.bits64(st, np.int64(64))
    K.bits(st, np.int64(1))
    assert (st[K.SHARED_WORDS:] == 0xA5A5A5A5).all()


@pytest.mark.parametrize("version", [1, 2])
def test_bits_used_formula(version):
    st = K.seed_state(K.new_state(), Seed(3, version))
    src = ChaCha20Source(Seed(3, version))
    per_block = 512 if version == 1 else 256
    for n in [0, 5, 27, 32, 32, 1] + [32] * 20 + [7]:
        K.bits(st, np.int64(n))
        src.bits(n)
        s = [int(x) for x in st[:34]]
        assert K.bits_used(st) == (s[K.COUNTER] * per_block - (s[K.BLOCK_LEN] - s[K.WORD_POS]) * 32
                                   - s[K.BITCOUNT])
        assert K.bits_used(st) == src.bits_used == K.bits_used_nb(st)


@pytest.mark.parametrize("version", [1, 2])
def test_fleet_seeding_matches_seed_state(version):
    key = K.seed_key_words(Seed(SEED, version))
    assert key.tolist()[8] == version
    devs = np.array([0, 1, 7, 2**32, 2**64 - 1], np.uint64)
    out = np.zeros((len(devs), 40), np.uint64)
    status = np.full(len(devs), -1, np.int64)
    K.fleet_bits(key, devs, np.int64(3), np.int64(32), np.int64(40), out, status)
    assert (status == OK).all()
    for i, d in enumerate(devs):
        src = ChaCha20Source(Seed(SEED, version), int(d), 3)
        assert out[i].tolist() == [src.bits(32) for _ in range(40)]

"""Host C bit source (csrc/fxdp_chacha20.c, fxdp_rng.c) against the Python definition (fxdp.bitsource)."""
import random
import re

import numpy as np
import pytest

from fxdp import native
from fxdp.bitsource import ChaCha20Source, ReplaySource, Seed, chacha20_block, derive_key_nonce
from fxdp.errors import ERR_ENTROPY, ERR_PARAM, OK, EntropyError

ffi, lib = native.ffi, native.lib

RFC_KEY = list(range(0, 32))
RFC_OUT = [0xE4E7F110, 0x15593BD1, 0x1FDD0F50, 0xC47120A3, 0xC7F4D1C7, 0x0368C033, 0x9AAA2204, 0x4E6CD4C3,
           0x466482D2, 0x09AA9F07, 0x05D7C214, 0xA2028BD9, 0xD19C12B5, 0xB94E16DE, 0xE883D0CB, 0x4E3C50A2]
STREAMS = [(0, 0, 0), (1, 0, 0), (12345, 7, 0), (12345, 7, 1), ((1 << 256) - 1, (1 << 64) - 1, (1 << 32) - 1),
           (0x0123456789ABCDEF_FEDCBA9876543210_0F1E2D3C4B5A6978_8796A5B4C3D2E1F0, 2**40 + 3, 5)]


def le_words(b):
    return [int.from_bytes(b[i:i + 4], "little") for i in range(0, len(b), 4)]


def c_state(r):
    """(counter, word_pos, bitbuf, bitcount) of a C rng."""
    return r.counter, r.word_pos, r.bitbuf, r.bitcount


def py_state(src):
    return src.counter, src._pos, src._buf, src._nbuf


# ---- layout -------------------------------------------------------------------

def test_state_layout_matches_numba():
    offsets = {"key": 0, "nonce": 8, "counter": 11, "block": 12, "word_pos": 28, "bitbuf": 29,
               "bitcount": 30, "mode": 31, "status": 32, "block_len": 33}
    for field, word in offsets.items():
        assert ffi.offsetof("fxdp_rng", field) == 4 * word, field
    assert ffi.offsetof("fxdp_rng", "fill") >= 4 * lib.FXDP_RNG_SHARED_WORDS
    assert lib.FXDP_RNG_SHARED_WORDS == 34
    assert ffi.sizeof("fxdp_rng") == ffi.offsetof("fxdp_rng", "fill_ctx") + ffi.sizeof("void *")
    assert native.state_words_needed() == -(-ffi.sizeof("fxdp_rng") // 4)
    assert (lib.FXDP_OK, lib.FXDP_ERR_PARAM, lib.FXDP_ERR_ENTROPY, lib.FXDP_ERR_RANGE) == (0, 1, 2, 3)
    assert (lib.FXDP_MODE_CHACHA, lib.FXDP_MODE_REPLAY, lib.FXDP_MODE_HOOK) == (0, 1, 2)


def test_cdef_covers_every_header_prototype():
    """The binding is generated from the headers: every declared function is callable."""
    from fxdp import _cffi_build as cb
    csrc = cb.find_csrc()
    for h in cb.HEADERS:
        text = re.sub(r"/\*.*?\*/", "", (csrc / h).read_text(), flags=re.S)
        names = re.findall(r"\b(fxdp_\w+)\s*\(", text)
        assert names
        for name in names:
            assert hasattr(lib, name), name


def test_header_filter_handles_cpp_guards_inline_and_defines(tmp_path):
    from fxdp import _cffi_build as cb
    h = tmp_path / "x.h"
    h.write_text("#ifndef X_H\n#define X_H\n#include <stdint.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                 "#define FXDP_A 3\n#define FXDP_B (FXDP_A << 2) /* c */\n#define FXDP_C UINT32_C(0xFFFFFFFF)\n"
                 "#define FXDP_F(x) ((x) + 1)\n#define FXDP_S \"s\"\n"
                 "static inline uint32_t fxdp_x(uint32_t a) { if (a) { return a; } return 1u; }\n"
                 "int fxdp_y(int);\n#ifdef __cplusplus\n}\n#endif\n#endif\n")
    cdef = cb.header_cdef(h)
    assert "#define FXDP_A 3" in cdef and "#define FXDP_B 12" in cdef and "#define FXDP_C 4294967295" in cdef
    assert "FXDP_F" not in cdef and "FXDP_S" not in cdef and "extern" not in cdef and "{" not in cdef
    assert "uint32_t fxdp_x(uint32_t a);" in cdef and "int fxdp_y(int);" in cdef
    from cffi import FFI
    FFI().cdef(cdef)   # parses


# ---- ChaCha20 ------------------------------------------------------------------

def test_rfc8439_block_vector():
    key = ffi.new("uint32_t[8]", le_words(bytes(RFC_KEY)))
    nonce = ffi.new("uint32_t[3]", le_words(bytes.fromhex("000000090000004a00000000")))
    out = ffi.new("uint32_t[16]")
    lib.fxdp_chacha20_block(key, 1, nonce, out)
    assert list(out) == RFC_OUT
    assert chacha20_block(list(key), 1, list(nonce)) == RFC_OUT
    # out may alias the key
    buf = ffi.new("uint32_t[16]", list(key) + [0] * 8)
    lib.fxdp_chacha20_block(buf, 1, nonce, buf)
    assert list(buf) == RFC_OUT


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("seed,dev,stream", STREAMS)
def test_keystream_equals_python(seed, dev, stream, version):
    seed = Seed(seed, version)
    r = native.new_rng_seeded(seed, dev, stream)
    src = ChaCha20Source(seed, dev, stream)
    words = native.bits(r, 32, 16 * 5 + 3)
    assert words.tolist() == [src.bits(32) for _ in range(len(words))]
    assert c_state(r) == py_state(src)
    key, nonce = derive_key_nonce(seed, dev, stream)
    assert list(r.nonce) == nonce
    assert list(r.key) == (key if version == 1 else src.key)      # version 2: the current key K_j
    if version == 2:
        assert list(r.block)[:r.word_pos] == [0] * r.word_pos      # served output and the key words erased
    r2 = native.new_rng_keyed(key, nonce, version)
    assert native.bits(r2, 32, 50).tolist() == words[:50].tolist()


def test_init_states():
    r = native.new_rng_seeded(5, 6, 7)
    assert (r.counter, r.word_pos, r.block_len, r.bitcount, r.bitbuf, r.mode, r.status) == \
        (0, 16, 16, 0, 0, lib.FXDP_MODE_CHACHA_FKE, 0)
    r = native.new_rng_seeded(Seed(5, 1), 6, 7)
    assert (r.counter, r.word_pos, r.block_len, r.mode, r.status) == (0, 16, 16, lib.FXDP_MODE_CHACHA, 0)
    key = ffi.new("uint32_t[8]", list(range(8)))
    for bad in (0, 3, 0xFFFFFFFF):
        assert lib.fxdp_rng_init_stream(r, bad, key, 1, 2, 3) == ERR_PARAM
        out = ffi.new("uint32_t *", 7)
        assert r.status == ERR_ENTROPY and lib.fxdp_bits(r, 0, out) == ERR_ENTROPY and out[0] == 7
        assert lib.fxdp_rng_init_keyed_version(r, bad, key, ffi.new("uint32_t[3]")) == ERR_PARAM
    assert lib.fxdp_rng_init_stream(r, 2, ffi.NULL, 1, 2, 3) == ERR_PARAM and r.status == ERR_ENTROPY
    assert lib.fxdp_rng_init_stream(ffi.NULL, 2, key, 1, 2, 3) == ERR_PARAM
    r = native.new_rng_replay([1, 2, 3])
    assert (r.word_pos, r.block_len, r.mode, r.status) == (0, 3, lib.FXDP_MODE_REPLAY, 0)
    assert list(r.block)[:4] == [1, 2, 3, 0]


# ---- bits ------------------------------------------------------------------------

@pytest.mark.parametrize("trial", range(6))
def test_bits_stream_equals_reference(trial):
    rnd = random.Random(trial)
    seed, dev = Seed(rnd.getrandbits(256), 1 + trial % 2), rnd.getrandbits(64)
    r = native.new_rng_seeded(seed, dev, trial)
    src = ChaCha20Source(seed, dev, trial)
    out32, out64 = ffi.new("uint32_t *"), ffi.new("uint64_t *")
    for _ in range(3000):      # crosses many words and blocks
        if rnd.random() < 0.7:
            n = rnd.choice([0, 1, 2, 31, 32, rnd.randint(0, 32)])
            assert lib.fxdp_bits(r, n, out32) == OK
            assert out32[0] == src.bits(n)
        else:
            n = rnd.choice([0, 33, 63, 64, rnd.randint(0, 64)])
            assert lib.fxdp_bits64(r, n, out64) == OK
            assert out64[0] == src.bits64(n)
        assert c_state(r) == py_state(src)
        assert native.bits_used(r) == src.bits_used
    # the bulk path reads the same stream
    for n in (0, 1, 5, 17, 32):
        assert native.bits(r, n, 200).tolist() == [src.bits(n) for _ in range(200)]
    for n in (0, 33, 64):
        assert native.bits64(r, n, 100).tolist() == [src.bits64(n) for _ in range(100)]
    assert c_state(r) == py_state(src)


def test_bits_bad_n_and_nulls_write_nothing():
    r = native.new_rng_seeded(1, 2)
    before = native.state_words(r)
    out32, out64 = ffi.new("uint32_t *", 0xDEAD), ffi.new("uint64_t *", 0xBEEF)
    for n in (33, 64, 1000, 2**31):
        assert lib.fxdp_bits(r, n, out32) == ERR_PARAM
    for n in (65, 1000):
        assert lib.fxdp_bits64(r, n, out64) == ERR_PARAM
    assert lib.fxdp_bits(ffi.NULL, 1, out32) == ERR_PARAM
    assert lib.fxdp_bits(r, 1, ffi.NULL) == ERR_PARAM
    assert lib.fxdp_bits64(ffi.NULL, 1, out64) == ERR_PARAM
    assert lib.fxdp_bits64(r, 1, ffi.NULL) == ERR_PARAM
    assert out32[0] == 0xDEAD and out64[0] == 0xBEEF
    assert (native.state_words(r) == before).all()
    with pytest.raises(ValueError, match="n must be in"):
        native.bits(r, 33, 1)


# ---- replay, hook, drbg ------------------------------------------------------------

def test_replay_serves_words_then_fails_sticky():
    words = [0xDEADBEEF, 0x01234567, 0xFFFFFFFF]
    r = native.new_rng_replay(words)
    src = ReplaySource(words)
    out = ffi.new("uint32_t *", 0)
    for n in (4, 32, 20, 31, 9):
        assert lib.fxdp_bits(r, n, out) == OK
        assert out[0] == src.bits(n)
    assert r.bitcount == 0 and r.word_pos == 3
    out[0] = 0x5A5A
    assert lib.fxdp_bits(r, 1, out) == ERR_ENTROPY
    assert out[0] == 0x5A5A and r.status == ERR_ENTROPY
    with pytest.raises(EntropyError):
        src.bits(1)
    assert lib.fxdp_bits(r, 0, out) == ERR_ENTROPY        # every later call fails, n = 0 too
    assert out[0] == 0x5A5A


def test_failure_is_sticky_with_bits_still_buffered():
    r = native.new_rng_replay([0xDEADBEEF])
    out = ffi.new("uint32_t *")
    assert lib.fxdp_bits(r, 4, out) == OK and out[0] == 0xD
    out[0] = 7
    assert lib.fxdp_bits(r, 29, out) == ERR_ENTROPY and out[0] == 7
    assert r.bitcount == 28                                # the buffer is kept but never released
    assert lib.fxdp_bits(r, 1, out) == ERR_ENTROPY and out[0] == 7
    with pytest.raises(EntropyError):
        native.bits(r, 1, 1)


def test_replay_bad_length():
    r = ffi.new("fxdp_rng *")
    words = ffi.new("uint32_t[17]")
    assert lib.fxdp_rng_init_replay(r, words, 17) == ERR_PARAM
    assert r.status == ERR_ENTROPY                         # fail closed: a bad init gives a dead rng
    assert lib.fxdp_rng_init_replay(r, ffi.NULL, 2) == ERR_PARAM
    assert lib.fxdp_rng_init_replay(ffi.NULL, words, 1) == ERR_PARAM
    assert lib.fxdp_rng_init_replay(r, ffi.NULL, 0) == OK
    assert lib.fxdp_rng_init_replay(r, words, 16) == OK
    with pytest.raises(ValueError):
        native.new_rng_replay([0] * 17)


class ByteStream:
    def __init__(self, data, fail_after=None):
        self.data, self.pos, self.calls, self.fail_after = bytes(data), 0, [], fail_after

    def __call__(self, n):
        self.calls.append(n)
        if self.fail_after is not None and len(self.calls) > self.fail_after:
            raise OSError("board TRNG failed")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out


def test_hook_mode_little_endian_words():
    data = bytes(random.Random(3).getrandbits(8) for _ in range(400))
    fill = ByteStream(data)
    r = native.new_rng_hook(fill)
    src = ReplaySource(le_words(data))
    rnd = random.Random(4)
    out = ffi.new("uint32_t *")
    for _ in range(150):
        n = rnd.randint(0, 32)
        assert lib.fxdp_bits(r, n, out) == OK
        assert out[0] == src.bits(n)
    assert set(fill.calls) == {4}
    assert r.mode == lib.FXDP_MODE_HOOK


@pytest.mark.parametrize("bad", ["raise", "short"])
def test_hook_failure_is_sticky(bad):
    data = bytes(range(16))
    fill = ByteStream(data, fail_after=2) if bad == "raise" else ByteStream(data[:9])
    r = native.new_rng_hook(fill)
    out = ffi.new("uint32_t *", 99)
    assert lib.fxdp_bits(r, 32, out) == OK and out[0] == 0x03020100
    assert lib.fxdp_bits(r, 16, out) == OK and out[0] == 0x0706
    out[0] = 99
    assert lib.fxdp_bits(r, 32, out) == ERR_ENTROPY and out[0] == 99
    assert lib.fxdp_bits(r, 8, out) == ERR_ENTROPY and out[0] == 99   # 16 bits buffered, not released
    calls = len(fill.calls)
    assert lib.fxdp_bits(r, 32, out) == ERR_ENTROPY
    assert len(fill.calls) == calls                                   # the hook is not asked again


def test_drbg_mode():
    seed = bytes(random.Random(5).getrandbits(8) for _ in range(44))
    fill = ByteStream(seed)
    r = native.new_rng_drbg(fill)
    assert fill.calls == [44]
    key, nonce = le_words(seed[:32]), le_words(seed[32:])
    assert r.mode == lib.FXDP_MODE_CHACHA_FKE                         # forward secure: version 2
    src = ChaCha20Source(None, key=key, nonce=nonce, version=2)
    assert native.bits(r, 32, 40).tolist() == [src.bits(32) for _ in range(40)]
    assert fill.calls == [44]                                         # the DRBG never asks again
    # the state holds K_j and unread output only: the seed key and every served word are gone
    assert list(r.key) == src.key != key
    assert list(r.block)[:r.word_pos] == [0] * r.word_pos


def test_drbg_reseed_matches_the_model():
    """fxdp_rng_reseed: key ^= 32 fresh bytes from the DRBG's fill, buffered words dropped; the
    Python model (ChaCha20Source.reseed) gives the same stream; only a DRBG can reseed."""
    rnd = random.Random(11)
    seed = bytes(rnd.getrandbits(8) for _ in range(44))
    fresh = [bytes(rnd.getrandbits(8) for _ in range(32)) for _ in range(3)]
    fill = ByteStream(seed + b"".join(fresh))
    r = native.new_rng_drbg(fill)
    src = ChaCha20Source(None, key=le_words(seed[:32]), nonce=le_words(seed[32:]), version=2)
    for i, n in enumerate((5, 37, 1)):            # mid-block, several blocks, and before any block
        assert native.bits(r, 7, n).tolist() == [src.bits(7) for _ in range(n)]
        assert lib.fxdp_rng_reseed(r) == OK
        src.reseed(le_words(fresh[i]))
        assert list(r.key) == src.key and r.word_pos == 16 and list(r.block) == [0] * 16
    assert native.bits(r, 32, 30).tolist() == [src.bits(32) for _ in range(30)]
    assert fill.calls == [44, 32, 32, 32]
    # a failing fill at reseed: sticky entropy failure, key wiped, nothing more released
    r = native.new_rng_drbg(ByteStream(seed, fail_after=1))
    native.bits(r, 32, 3)
    assert lib.fxdp_rng_reseed(r) == ERR_ENTROPY
    out = ffi.new("uint32_t *", 9)
    assert r.status == ERR_ENTROPY and list(r.key) == [0] * 8
    assert lib.fxdp_bits(r, 1, out) == ERR_ENTROPY and out[0] == 9
    assert lib.fxdp_rng_reseed(r) == ERR_ENTROPY
    # not a DRBG: nothing to reseed from
    for rng in (native.new_rng_seeded(3), native.new_rng_replay([1, 2]), native.new_rng_keyed([0] * 8, [0] * 3)):
        assert lib.fxdp_rng_reseed(rng) == ERR_PARAM
    assert lib.fxdp_rng_reseed(ffi.NULL) == ERR_PARAM
    with pytest.raises(ValueError, match="version-2"):
        ChaCha20Source(Seed(1, 1)).reseed([0] * 8)


def test_drbg_failure():
    with pytest.raises(EntropyError):
        native.new_rng_drbg(ByteStream(b"", fail_after=0))
    with pytest.raises(EntropyError):
        native.new_rng_drbg(ByteStream(bytes(43)))                    # short read
    r = ffi.new("fxdp_rng *")
    assert lib.fxdp_rng_init_drbg(r, ffi.NULL, ffi.NULL) == ERR_ENTROPY
    assert r.status == ERR_ENTROPY
    out = ffi.new("uint32_t *", 3)
    assert lib.fxdp_bits(r, 0, out) == ERR_ENTROPY and out[0] == 3
    assert lib.fxdp_rng_init_drbg(ffi.NULL, ffi.NULL, ffi.NULL) == ERR_PARAM


# ---- counter exhaustion, shared state ------------------------------------------------

@pytest.mark.parametrize("version", [1, 2])
def test_counter_exhaustion(version):
    seed, dev = Seed(77, version), 9
    r = native.new_rng_seeded(seed, dev)
    r.counter = 0xFFFFFFFE
    key, nonce = derive_key_nonce(seed, dev, 0)
    src = ChaCha20Source(None, key=key, nonce=nonce, counter=0xFFFFFFFE, version=version)
    words = 16 if version == 1 else 8
    assert native.bits(r, 32, words).tolist() == [src.bits(32) for _ in range(words)]
    assert r.counter == 0xFFFFFFFF
    out = ffi.new("uint32_t *", 11)
    assert lib.fxdp_bits(r, 0, out) == OK and out[0] == 0
    out[0] = 11
    assert lib.fxdp_bits(r, 1, out) == ERR_ENTROPY and out[0] == 11
    assert r.status == ERR_ENTROPY and r.counter == 0xFFFFFFFF
    with pytest.raises(EntropyError):
        src.bits(1)


def test_state_array_is_shared():
    arr = native.new_state_array()
    assert arr.dtype == np.uint32 and len(arr) == native.state_words_needed()
    r = native.rng_from_state_array(arr)
    key = ffi.new("uint32_t[8]", list(range(1, 9)))
    lib.fxdp_rng_init_seed(r, key, 10, 11, 12)
    assert arr[:8].tolist() == list(range(1, 9)) and arr[8:11].tolist() == [10, 11, 12]
    assert arr[11] == 0 and arr[28] == 16 and arr[33] == 16
    src = ChaCha20Source(Seed(sum(w << (32 * i) for i, w in enumerate(range(1, 9))), 1), 10 | (11 << 32), 12)
    assert native.bits(r, 7, 10).tolist() == [src.bits(7) for _ in range(10)]
    assert (arr[11], arr[28], arr[29], arr[30]) == py_state(src)
    assert (native.state_words(r) == arr[:34]).all()
    # a write through the array (as Numba would) is seen by C
    arr[30], arr[29] = 0, 0
    src._nbuf, src._buf = 0, 0
    assert native.bits(r, 32, 3).tolist() == [src.bits(32) for _ in range(3)]


def test_state_array_checks():
    with pytest.raises(ValueError):
        native.rng_from_state_array(np.zeros(34, dtype=np.uint32))         # too short for the struct
    with pytest.raises(ValueError):
        native.rng_from_state_array(np.zeros(64, dtype=np.int64))
    a = native.new_state_array()
    a.flags.writeable = False
    with pytest.raises(ValueError):
        native.rng_from_state_array(a)
    big = np.zeros(80, dtype=np.uint32)
    off = 1 if big.ctypes.data % 8 == 0 else 0
    with pytest.raises(ValueError, match="aligned"):
        native.rng_from_state_array(big[off:off + 40])


def test_corrupt_state_is_rejected_without_ub():
    r = native.new_rng_seeded(1)
    r.bitcount = 40
    out = ffi.new("uint32_t *", 5)
    assert lib.fxdp_bits(r, 1, out) == ERR_PARAM and out[0] == 5
    r = native.new_rng_seeded(1)
    r.mode = 9
    assert lib.fxdp_bits(r, 1, out) == ERR_ENTROPY and out[0] == 5 and r.status == ERR_ENTROPY


def test_seed_validation():
    for bad in (-1, 1 << 256, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            native.new_rng_seeded(bad)
    with pytest.raises(ValueError, match="device_id"):
        native.new_rng_seeded(0, 1 << 64)
    with pytest.raises(ValueError, match="stream"):
        native.new_rng_seeded(0, 0, 1 << 32)


def test_numba_and_c_share_one_state():
    """A Numba state array (fxdp.samplers._kernels) viewed as fxdp_rng *: draws alternate
    between C and Numba on one stream and equal the reference's."""
    from fxdp.samplers import _kernels as K
    arr = K.seed_state(K.new_state(), 4242, 17, 3)
    r = native.rng_from_state_array(arr)
    src = ChaCha20Source(4242, 17, 3)
    rnd = random.Random(8)
    out = ffi.new("uint32_t *")
    for i in range(300):
        n = rnd.randint(0, 32)
        if i % 2:
            assert lib.fxdp_bits(r, n, out) == OK
            got = out[0]
        else:
            buf = np.empty(1, np.uint64)
            K.fill_bits(arr, np.uint64(n), buf)
            got = int(buf[0])
        assert got == src.bits(n)
    assert native.bits_used(r) == src.bits_used

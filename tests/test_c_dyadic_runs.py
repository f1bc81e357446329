"""The lazy C releases that draw a vector of one-parameter Bernoullis as runs
(``fxdp_i_bernoulli_dyadic_run`` in csrc/fxdp_bernoulli.c: basic RAPPOR's flips, 32 at a time;
unary encoding's a_q items, tests/test_unary_encoding.py) read exactly the reference's bits: on
replayed streams cut after every word, after 0..31 bits already read, the same report and bits used,
or FXDP_ERR_ENTROPY with the report zeroed exactly when the reference runs out."""
import numpy as np
import pytest

import fxdp
from fxdp import native
from fxdp.bitsource import ReplaySource
from fxdp.errors import EntropyError


@pytest.mark.parametrize("bits", [3, 16, 32, 33, 63])
def test_rappor_lazy_flips_read_the_reference_bits_at_every_cut(bits):
    ffi, lib = native.ffi, native.lib
    rnd = np.random.default_rng(100 + bits)
    k = 70                                            # chunks of 32, 32 and 6 flips
    checked = failed = 0
    for f in ("1/2", "1/8", 1):
        m = fxdp.make_rappor(f, 3, k, bits=bits)
        cfg = ffi.new("fxdp_rappor_cfg *", {"a": m.a, "bits": bits, "k": k, "m": 3})
        for trial in range(4):
            x = [0] * k
            for i in rnd.choice(k, 3, replace=False):
                x[int(i)] = 1
            words = [int(w) for w in rnd.integers(0, 1 << 32, 16)]
            skip = int(rnd.integers(0, 32))
            for cut in range(1, 17):
                src, r = ReplaySource(words[:cut]), native.new_rng_replay(words[:cut])
                src.bits(skip)
                native.bits(r, skip, 1)
                out = ffi.new("uint8_t[]", [0xEE] * k)
                st = lib.fxdp_rappor(r, cfg, ffi.new("uint8_t[]", x), out)
                try:
                    want = m.release(src, x)
                except EntropyError:
                    assert st == lib.FXDP_ERR_ENTROPY and list(out) == [0] * k
                    failed += 1
                    continue
                assert st == 0 and list(out) == want
                assert r.word_pos * 32 - r.bitcount == src.bits_used
                checked += 1
    assert checked > 20 and failed > 20


def test_rappor_input_may_share_the_output_buffer():
    """The flips are combined with x after each chunk is drawn, item by item, so a caller that passes
    the same buffer as x and out gets the report it would get from two buffers."""
    ffi, lib = native.ffi, native.lib
    m = fxdp.make_rappor("1/2", 4, 70)
    cfg = ffi.new("fxdp_rappor_cfg *", {"a": m.a, "bits": m.bits, "k": 70, "m": 4})
    x = [1 if i in (0, 31, 32, 69) else 0 for i in range(70)]
    for dev in range(20):
        two = ffi.new("uint8_t[]", 70)
        assert lib.fxdp_rappor(native.new_rng_seeded(8, dev), cfg, ffi.new("uint8_t[]", x), two) == 0
        one = ffi.new("uint8_t[]", x)
        assert lib.fxdp_rappor(native.new_rng_seeded(8, dev), cfg, one, one) == 0
        assert list(one) == list(two)

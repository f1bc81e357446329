"""The lazy C releases that draw a vector of one-parameter Bernoullis as runs
(``fxdp_i_bernoulli_dyadic_run`` in csrc/fxdp_bernoulli.c: unary encoding's a_q items as two runs
around x, basic RAPPOR's flips 32 at a time, L-OUE's permanent bits on the permanent stream before
the instantaneous ones; thresholds of more than 32 bits one by one) read
exactly the reference's bits: on replayed streams cut after every word, after 0..31 bits already
read, the same report and bits used, or FXDP_ERR_ENTROPY with the report zeroed exactly when the
reference runs out."""
import numpy as np
import pytest

import fxdp
from fxdp import native
from fxdp.bitsource import ReplaySource
from fxdp.errors import EntropyError


def _every_cut(rnd, nwords, n_out, release_c, release_ref):
    """release_c(rng, out) -> status and release_ref(src) -> report on streams of the same random
    words cut after 1..nwords of them, after the same 0..31 bits were read: (reports compared,
    failures compared)."""
    ffi, lib = native.ffi, native.lib
    words = [int(w) for w in rnd.integers(0, 1 << 32, nwords)]
    skip = int(rnd.integers(0, 32))
    checked = failed = 0
    for cut in range(1, nwords + 1):
        src, r = ReplaySource(words[:cut]), native.new_rng_replay(words[:cut])
        src.bits(skip)
        native.bits(r, skip, 1)
        out = ffi.new("uint8_t[]", [0xEE] * n_out)
        st = release_c(r, out)
        try:
            want = release_ref(src)
        except EntropyError:
            assert st == lib.FXDP_ERR_ENTROPY and list(out) == [0] * n_out
            failed += 1
            continue
        assert st == 0 and list(out) == want
        assert r.word_pos * 32 - r.bitcount == src.bits_used
        checked += 1
    return checked, failed


@pytest.mark.parametrize("bits", [5, 16, 32, 33, 40, 63])
def test_unary_encoding_lazy_runs_read_the_reference_bits_at_every_cut(bits):
    ffi, lib = native.ffi, native.lib
    rnd = np.random.default_rng(bits)
    d = 40
    total = np.zeros(2, int)
    for optimized in (True, False):
        m = fxdp.make_unary_encoding(d, "3/2", optimized=optimized, bits=bits)
        cfg = ffi.new("fxdp_unary_encoding_cfg *", {"a_p": m.a_p, "a_q": m.a_q, "d": d, "bits": bits})
        for x in (0, 1, 17, d - 2, d - 1):
            total += _every_cut(rnd, 8, d, lambda r, out: lib.fxdp_unary_encoding(r, cfg, ffi.new("uint32_t *", x), out),
                                lambda src: m.release(src, x))
    assert total[0] > 20 and total[1] > 20


@pytest.mark.parametrize("bits", [3, 16, 32, 33, 63])
def test_rappor_lazy_flips_read_the_reference_bits_at_every_cut(bits):
    ffi, lib = native.ffi, native.lib
    rnd = np.random.default_rng(100 + bits)
    k = 70                                            # chunks of 32, 32 and 6 flips
    total = np.zeros(2, int)
    for f in ("1/2", "1/8", 1):
        m = fxdp.make_rappor(f, 3, k, bits=bits)
        cfg = ffi.new("fxdp_rappor_cfg *", {"a": m.a, "bits": bits, "k": k, "m": 3})
        for trial in range(4):
            x = [0] * k
            for i in rnd.choice(k, 3, replace=False):
                x[int(i)] = 1
            total += _every_cut(rnd, 16, k, lambda r, out: lib.fxdp_rappor(r, cfg, ffi.new("uint8_t[]", x), out),
                                lambda src: m.release(src, x))
    assert total[0] > 20 and total[1] > 20


@pytest.mark.parametrize("bits", [8, 32, 40])
def test_longitudinal_ue_lazy_report_reads_the_reference_bits_at_every_cut(bits):
    """L-OUE: the permanent stream is derived from the device secret and x (never fails); the
    instantaneous stream r is the one cut."""
    from fxdp.mechanisms.memoized.longitudinal import secret_from_seed
    ffi, lib = native.ffi, native.lib
    rnd = np.random.default_rng(200 + bits)
    d = 40
    total = np.zeros(2, int)
    m = fxdp.make_longitudinal_ue(d, 3, 1, bits=bits)
    cc = m.c_config()
    for dev_id in range(3):
        dev = ffi.new("fxdp_longitudinal_device *")
        assert lib.fxdp_longitudinal_provision(native.new_rng_seeded(4, dev_id, 1), dev) == 0
        secret = secret_from_seed(4, dev_id)
        for x in (0, 17, d - 1):
            total += _every_cut(rnd, 8, d,
                                lambda r, out: lib.fxdp_longitudinal_ue_report(cc.cfg, dev, r, ffi.new("uint32_t *", x), out),
                                lambda src: m.report(src, x, secret))
    assert total[0] > 10 and total[1] > 10


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

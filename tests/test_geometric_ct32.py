"""The constant-time geometric mechanism's 32-bit word arithmetic and its program-memory twin.

csrc/fxdp_mech_geometric.c computes fxdp_geometric_ct (and fxdp_geometric_ct_rom, the
form `fxdp export` uses on AVR, where the threshold table sits in program memory and is
read with LPM) in 32-bit words: x saturated to int32, clamped to [lo, hi], then the noise
clamp with bounds capped at the table width.  These tests check it against the definition
clamp(clamp(x, lo, hi) + idx - width, lo, hi), idx = fxdp_table_sample_ct on the same
stream, for hand-made configurations the mechanism constructors never produce (bounds at
the int32 limits, width below hi - lo, any k, int64 extremes as inputs), on the host
(cffi) and, with --slow, exported and run on the AVR (simavr) and Cortex-M0+ (QEMU).
"""
from __future__ import annotations

import random
import subprocess

import pytest

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
SEED = 0x9E3779B97F4A7C15F39CC0605CEDC8341082276BF3A27251F86C6A11D0C18E95


def _lib():
    from fxdp import native
    return native.ffi, native.lib, native


def _random_cfg(rnd):
    k = rnd.choice([2, 3, 5, 8, 12, 16, 31, 32, 32, 32])
    width = rnd.randint(1, min(120, ((1 << k) - 1) // 2))
    thr = sorted(rnd.sample(range(1, 1 << k), 2 * width)) if k < 20 else \
        sorted({rnd.randrange(1, 1 << k) for _ in range(2 * width + 8)})[:2 * width]
    assert len(thr) == 2 * width
    kind = rnd.randrange(5)
    if kind == 0:
        lo = I32_MIN + rnd.randint(0, 50)
        hi = lo + rnd.randint(0, 300)
    elif kind == 1:
        hi = I32_MAX - rnd.randint(0, 50)
        lo = hi - rnd.randint(0, 300)
    elif kind == 2:
        lo, hi = I32_MIN, I32_MAX
    else:
        lo = rnd.randint(-1000, 1000)
        hi = lo + rnd.randint(0, 2 * width + 5)
    n = rnd.choice([1, 1, 2, 5, 16])
    return k, width, thr, lo, hi, n


def _inputs(rnd, lo, hi, n):
    pool = [lo, hi, lo - 1, hi + 1, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 0, -1,
            I32_MIN, I32_MAX, I32_MIN - 1, I32_MAX + 1, 1 << 32, -(1 << 32), (1 << 32) - 1]
    out = []
    for _ in range(n):
        r = rnd.random()
        out.append(rnd.choice(pool) if r < 0.4 else rnd.randint(lo - 400, hi + 400) if r < 0.8
                   else rnd.randint(I64_MIN, I64_MAX))
    return [min(max(v, I64_MIN), I64_MAX) for v in out]


def _clamp(v, lo, hi):
    return min(max(v, lo), hi)


@pytest.mark.parametrize("fn", ["fxdp_geometric_ct", "fxdp_geometric_ct_rom"])
def test_ct_matches_definition_on_host(fn):
    ffi, lib, native = _lib()
    rnd = random.Random(20260705)
    for case in range(600):
        k, width, thr, lo, hi, n = _random_cfg(rnd)
        tbl = ffi.new("uint32_t[]", thr)
        cfg = ffi.new("fxdp_geometric_cfg *", {"s": 1, "t": 1, "lo": lo, "hi": hi, "n": n, "k": k,
                                                "width": width})
        cfg.thresholds = tbl
        xs = _inputs(rnd, lo, hi, n)
        x = ffi.new("int64_t[]", xs)
        out = ffi.new("int64_t[]", [0x5A5A] * n)
        r1 = native.new_rng_seeded(SEED, case, 0)
        r2 = native.new_rng_seeded(SEED, case, 0)
        assert getattr(lib, fn)(r1, cfg, x, out) == 0
        idx = ffi.new("uint32_t *")
        want = []
        for xi in xs:
            assert lib.fxdp_table_sample_ct(r2, tbl, 2 * width, k, idx) == 0
            want.append(_clamp(_clamp(xi, lo, hi) + idx[0] - width, lo, hi))
        assert list(out) == want, (case, k, width, lo, hi, xs)
        # exactly the same bits consumed
        assert list(native.state_words(r1)) == list(native.state_words(r2))


@pytest.mark.parametrize("fn", ["fxdp_geometric_ct", "fxdp_geometric_ct_rom"])
def test_ct_parameter_errors(fn):
    ffi, lib, native = _lib()
    thr = [10, 20, 30, 40]

    def call(**kw):
        d = {"s": 1, "t": 1, "lo": -5, "hi": 5, "n": 1, "k": 8, "width": 2}
        tb = kw.pop("thr", thr)
        d.update(kw)
        cfg = ffi.new("fxdp_geometric_cfg *", d)
        keep = ffi.new("uint32_t[]", tb) if tb is not None else ffi.NULL
        cfg.thresholds = keep
        out = ffi.new("int64_t[]", [77] * 16)
        st = getattr(lib, fn)(native.new_rng_seeded(1), cfg, ffi.new("int64_t[]", [0] * 16), out)
        if st != 0:
            assert list(out) == [77] * 16
        return st

    assert call() == 0
    assert call(k=32) == 0 and call(lo=I32_MIN, hi=I32_MAX) == 0 and call(lo=3, hi=3) == 0
    assert call(n=16) == 0 and call(width=1, thr=[1, 2]) == 0
    for bad in [dict(n=0), dict(n=17), dict(k=0), dict(k=33), dict(width=0), dict(width=32768),
                dict(thr=None), dict(lo=I32_MIN - 1), dict(hi=I32_MAX + 1), dict(lo=6, hi=5),
                dict(lo=I64_MIN), dict(hi=I64_MAX), dict(lo=1 << 32, hi=1 << 32),
                dict(lo=-(1 << 32), hi=-(1 << 32)), dict(k=5, thr=[1, 2, 3, 32]), dict(k=5)]:
        assert call(**bad) == 1, bad
    assert call(k=6, thr=[1, 2, 3, 63]) == 0


def test_rom_twin_is_used_on_avr_only(tmp_path):
    import fxdp.export as E
    import fxdp.mechanisms as M
    m = M.make_geometric(10, bounds=(0, 100), constant_time=True)
    spec = E.device_spec(m)
    assert spec.c_function == "fxdp_geometric_ct" and spec.rom_function == "fxdp_geometric_ct_rom"
    for target, rom in (("avr-atmega328p", True), ("cortex-m0plus", False), ("host", False)):
        E.generate(m, target, tmp_path / target)
        c = (tmp_path / target / "src" / "fxdp_config.c").read_text()
        assert ("return fxdp_geometric_ct_rom(r, &fxdp_cfg, x, y);" in c) == rom
        assert ("static const uint32_t fxdp_geometric_thresholds[100] FXDP_CONFIG_ROM = {" in c) == rom
        assert ("return fxdp_geometric_ct(r, &fxdp_cfg, x, y);" in c) != rom
    # the lazy form and table-free mechanisms have no twin
    assert E.device_spec(M.make_geometric(10)).rom_function is None
    assert E.device_spec(M.make_randomized_response_bool(0.75, constant_time=True)).rom_function is None


def test_avr_table_in_program_memory(tmp_path):
    """On the ATmega328P the 400-byte half table is in flash (.text), not copied to RAM (.data)."""
    import fxdp.export as E
    import fxdp.mechanisms as M
    from fxdp import targets as T
    ok, why = T.get_target("avr-atmega328p").available()
    if not ok:
        pytest.skip(why)
    def firmware(constant_time, name):
        m = M.make_geometric(10, bounds=(0, 100), constant_time=constant_time)
        fw = tmp_path / name
        E.generate(m, "avr-atmega328p", fw)
        return T.build("avr-atmega328p", [fw / "main.c", *E.library_sources(fw)], [fw / "src", fw / "board"],
                       out_dir=tmp_path / (name + "-b"))
    elf = firmware(True, "ct")
    syms = subprocess.run(["avr-nm", "-S", str(elf)], capture_output=True, text=True, check=True).stdout
    row = [ln.split() for ln in syms.splitlines() if ln.endswith(" fxdp_geometric_thresholds")]
    assert row and int(row[0][1], 16) == 400
    assert row[0][2] in "tT", row                     # text (flash), not d/D (RAM)
    assert int(row[0][0], 16) < 0x800000              # a program-memory address (RAM is 0x800000+)
    # RAM: the lazy form's firmware (no table) has the same main.c strings and board state, so the
    # constant-time one's .data may exceed it by its cfg and index buffers, never by the table
    extra = T.size("avr-atmega328p", elf)["data"] - T.size("avr-atmega328p", firmware(False, "lazy"))["data"]
    assert extra < 400, extra


# --------------------------------------------------------------------------
# half table: only s[i] = t[i] - c (i < W) stored, t[2W - 1 - i] = 2^k - t[i] + c = 2^k - s[i]

def _proved_tables():
    from fractions import Fraction
    from fxdp.samplers.bounded import make_bounded_laplace_table
    rnd = random.Random(20261122)
    cfgs = [(10, (0, 100), None, 32), (3, (0, 7), None, 32), (2, (I32_MIN, I32_MIN + 30), None, 12),
            (Fraction(7, 2), (-20, 20), None, 32), (1, (0, 1), None, 8), (Fraction(1, 64), (0, 3), None, 32)]
    for _ in range(150):
        sc = rnd.choice([Fraction(1, 3), Fraction(1, 2), 1, 2, 5, 10, 37, 1000,
                         Fraction(rnd.randint(1, 5000), rnd.randint(1, 50))])
        a = rnd.randint(-50, 50)
        b = a + rnd.randint(0, 40)
        ob = None if rnd.random() < 0.5 else (a - rnd.randint(0, 15), b + rnd.randint(0, 15))
        cfgs.append((sc, (a, b), ob, rnd.choice([8, 9, 12, 16, 20, 24, 31, 32])))
    out = []
    for sc, ib, ob, k in cfgs:
        try:
            out.append(make_bounded_laplace_table(sc, ib, ob, k))
        except ValueError:
            pass
    return out


def test_proved_tables_are_symmetric():
    """Every table the constructor builds has the half form (checked exactly by the exporter),
    with c = 0 and c = 1 both occurring: s[i] = t[i] - c stored, t[2W - 1 - i] = 2^k - s[i];
    a table without the symmetry keeps the full form."""
    from types import SimpleNamespace
    from fxdp.mechanisms.additive.geometric import geometric_half_table
    seen = set()
    for tb in _proved_tables():
        half, thr = geometric_half_table(tb)
        c = half - 1
        assert half in (1, 2) and len(thr) == tb.width
        assert [v + c for v in thr] == list(tb.thresholds[:tb.width])           # s[i] = t[i] - c
        assert [(1 << tb.k) - v for v in reversed(thr)] == list(tb.thresholds[tb.width:])
        seen.add((c, tb.k == 32))
    assert seen == {(0, True), (1, True), (0, False), (1, False)}
    odd = SimpleNamespace(thresholds=(10, 20, 30, 40), width=2, k=6)     # 64 - 10 + c != 40
    assert geometric_half_table(odd) == (0, [10, 20, 30, 40])
    odd = SimpleNamespace(thresholds=(10, 56), width=1, k=6)             # c = 2
    assert geometric_half_table(odd) == (0, [10, 56])


def _pack(draws, k):
    """Replay words whose bit stream (most significant first) is the k-bit draws, zero padded."""
    v, nb = 0, 0
    for d in draws:
        v, nb = (v << k) | d, nb + k
    pad = -nb % 32
    v <<= pad
    nw = (nb + pad) // 32
    return [(v >> (32 * (nw - 1 - i))) & 0xFFFFFFFF for i in range(nw)]


@pytest.mark.parametrize("fn", ["fxdp_geometric_ct", "fxdp_geometric_ct_rom"])
def test_half_table_scan_is_the_full_scan(fn):
    """The half-table cfg gives index #{i < 2W : t[i] <= u} for every draw u tried: 0, 2^k - 1, both
    sides of every stored threshold and of every mirrored one, random ones."""
    from fxdp.mechanisms.additive.geometric import geometric_half_table
    ffi, lib, native = _lib()
    rnd = random.Random(7)
    for tb in _proved_tables()[:60]:
        k, w, full = tb.k, tb.width, list(tb.thresholds)
        half, thr = geometric_half_table(tb)
        top = (1 << k) - 1
        us = {0, 1, 2, top, top - 1}
        for t in full:
            us.update(u for u in (t - 1, t, t + 1) if 0 <= u <= top)
        us = sorted(us) + [rnd.randint(0, top) for _ in range(20)]
        n = 16
        for form, tbl_vals in ((half, thr), (0, full)):
            tbl = ffi.new("uint32_t[]", tbl_vals)
            cfg = ffi.new("fxdp_geometric_cfg *", {"s": 1, "t": 1, "lo": -w - 3, "hi": w + 3, "n": n, "k": k,
                                                    "half": form, "width": w})
            cfg.thresholds = tbl
            for j in range(0, len(us), n):
                draws = us[j:j + n]
                draws += [0] * (n - len(draws))
                out = ffi.new("int64_t[]", n)
                r = native.new_rng_replay(_pack(draws, k))
                assert getattr(lib, fn)(r, cfg, ffi.new("int64_t[]", n), out) == 0
                want = [sum(t <= u for t in full) - w for u in draws]
                assert list(out) == want, (form, k, w, draws)


@pytest.mark.parametrize("fn", ["fxdp_geometric_ct", "fxdp_geometric_ct_rom"])
def test_half_parameter(fn):
    ffi, lib, native = _lib()
    for half, thr, ok in ((0, [10, 20, 30, 40], True), (1, [10, 20], True), (2, [10, 20], True),
                          (3, [10, 20], False), (255, [10, 20], False), (1, [10, 300], False)):
        cfg = ffi.new("fxdp_geometric_cfg *", {"s": 1, "t": 1, "lo": -5, "hi": 5, "n": 1, "k": 8, "half": half,
                                                "width": 2})
        tbl = ffi.new("uint32_t[]", thr)
        cfg.thresholds = tbl
        out = ffi.new("int64_t[]", [77])
        st = getattr(lib, fn)(native.new_rng_seeded(1), cfg, ffi.new("int64_t[]", [0]), out)
        assert (st == 0) == ok and (ok or out[0] == 77), (half, thr, st)


# --------------------------------------------------------------------------
# exported and run on the emulators: bounds at the int32 limits, small k

EMU_CASES = {
    "top": lambda M: M.make_geometric(3, bounds=(I32_MAX - 60, I32_MAX), constant_time=True),
    "bottom_k12": lambda M: M.make_geometric(2, bounds=(I32_MIN, I32_MIN + 30), constant_time=True, bits=12),
    "vec_wide": lambda M: M.make_geometric(4, bounds=(-40, 40), constant_time=True, vector=True, dim=5),
}


@pytest.mark.slow
@pytest.mark.parametrize("target", ["avr-atmega328p", "cortex-m0plus"])
@pytest.mark.parametrize("case", sorted(EMU_CASES))
def test_exported_ct_extremes_on_emulators(tmp_path, target, case):
    import fxdp.export as E
    import fxdp.mechanisms as M
    from fxdp import targets as T
    from fxdp.export import harness as H
    ok, why = T.get_target(target).available()
    if not ok:
        pytest.skip(why)
    m = EMU_CASES[case](M)
    n = 300
    fw = tmp_path / "fw"
    E.generate(m, target, fw)
    elf = H.build_harness(m, fw, target, tmp_path / "build", seed=SEED, n=n, n_ct=16, n_drbg=0, entropy=False)
    res = H.run_harness(target, elf, count=True, timeout=900)
    assert res.exit_code == 0
    want = H.simulate_lines(m, E.device_spec(m), SEED, n)
    bad = [(i, w, g) for i, (w, g) in enumerate(zip(want, res.parity)) if w != g]
    assert len(res.parity) == n and not bad, bad[:3]
    assert len(res.ct_counts) == 16 and not res.ct_errors
    assert len(set(res.ct_counts)) == 1, sorted(set(res.ct_counts))

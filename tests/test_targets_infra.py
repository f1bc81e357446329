"""Target infrastructure (fxdp.targets): build and run targets/selftest on
every target under its emulator; check output, exit status and counts.
The toolchains and emulators are installed on dev machines and in CI, so
nothing here skips."""

import pytest

from fxdp import targets
from fxdp.targets import TargetError, TargetTimeout, build, get_target, list_targets, run, size

NAMES = ["avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "host", "rv32imac"]
SELFTEST = targets.targets_dir() / "selftest" / "selftest.c"
N = 100
M64 = 2**64 - 1


def expected_lines(n=N):
    a, s = 0x0123456789ABCDEF, 0x12345678

    def lcg(k):
        x = s
        for _ in range(k):
            x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
        return x

    sdiv = -(10**12 // 12345)  # C truncates toward zero
    vals = [("mul64", a * s), ("div64", a // s), ("mod64", a % s), ("shl64", a << (s & 31)),
            ("shr64", a >> (s & 63)), ("sdiv64", sdiv), ("div32", s // 7), ("mod32", s % 1000),
            ("lcg", lcg(n) << 32 | (lcg(n) ^ lcg(2 * n)))]
    return ["selftest start", *(f"{k} {v & M64:016x}" for k, v in vals), "selftest end"]


def test_target_list_and_descriptions():
    ts = list_targets()
    assert [t.name for t in ts] == NAMES
    for t in ts:
        assert t.kind in ("qemu", "simavr", "native")
        assert t.int_bits == (16 if t.name.startswith("avr") else 32)
        assert t.packages and t.description
    assert not get_target("cortex-m0plus").hw_divide and get_target("cortex-m3").hw_divide
    assert get_target("avr-atmega328p").count_unit == "cycles"


def test_unknown_target_lists_valid_names():
    with pytest.raises(ValueError) as e:
        get_target("pdp11")
    for name in NAMES:
        assert name in str(e.value)


def test_missing_tool_names_debian_package(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    ok, why = get_target("cortex-m3").available()
    assert not ok and "gcc-arm-none-eabi" in why and "qemu-system-arm" in why
    with pytest.raises(TargetError, match="apt-get install"):
        build("cortex-m3", [SELFTEST], out_dir="/nonexistent")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("targets")
    return {name: build(name, [SELFTEST], defines={"SELFTEST_N": N}, out_dir=out / name)
            for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_selftest(name, built):
    t = get_target(name)
    assert t.available() == (True, "")
    elf = built[name]
    r = run(t, elf, timeout=30, count=True)
    assert r.lines == expected_lines()
    assert r.exit_code == 3
    c = r.region_counts
    assert len(c) == 3, c
    assert c[0] == c[1] > 0, c           # the same loop twice: the same count
    assert c[2] > c[0], c                # twice the iterations: more
    # Per iteration, the 2N loop costs what the N loop does (fixed overhead cancels).
    assert (c[2] - c[0]) % N == 0, c
    assert run(t, elf, count=True).region_counts == c   # deterministic
    plain = run(t, elf)
    assert plain.lines == r.lines and plain.exit_code == 3 and plain.region_counts is None
    sz = size(t, elf)
    assert set(sz) == {"text", "data", "bss"} and sz["text"] > 0


def test_timeout_is_reported(tmp_path):
    elf = build("cortex-m3", [SELFTEST], defines={"SELFTEST_HANG": None}, out_dir=tmp_path)
    with pytest.raises(TargetTimeout, match="mod32 0000000000000380"):
        run("cortex-m3", elf, timeout=1)


def test_user_code_is_strict_c99(tmp_path):
    src = tmp_path / "narrow.c"
    src.write_text("#include <stdint.h>\nvolatile uint32_t w = 300;\n"
                   "int main(void) { uint8_t b = w; return b; }\n")
    with pytest.raises(TargetError, match="Wconversion"):
        build("host", [src], out_dir=tmp_path)


@pytest.mark.parametrize("name", ["cortex-m0plus", "avr-atmega328p"])
def test_object_cache_builds_the_same_elf_and_follows_headers(tmp_path, monkeypatch, name):
    """FXDP_OBJECT_CACHE: a build from the cache is byte for byte the build without it; a copy of
    the same files in another folder (as every export is) is served from the cache; a changed
    header that a source includes, or a changed define, is compiled again."""
    def project(where, value):
        where.mkdir()
        (where / "val.h").write_text(f"#define VAL {value}u\n")
        (where / "lib.c").write_text('#include <stdint.h>\n#include "val.h"\n'
                                     "uint32_t lib_val(void) { return VAL; }\n")
        main = SELFTEST.read_text()
        (where / "main.c").write_text(main)
        return [where / "main.c", where / "lib.c"]

    monkeypatch.delenv("FXDP_OBJECT_CACHE", raising=False)
    plain = build(name, project(tmp_path / "a", 7), out_dir=tmp_path / "plain")
    cache = tmp_path / "cache"
    monkeypatch.setenv("FXDP_OBJECT_CACHE", str(cache))
    first = build(name, project(tmp_path / "b", 7), out_dir=tmp_path / "first")
    assert first.read_bytes() == plain.read_bytes()
    stored = sorted(p.name for p in cache.glob("*.o"))
    assert any(s.startswith("lib-") for s in stored) and any(s.startswith("main-") for s in stored)

    again = build(name, project(tmp_path / "c", 7), out_dir=tmp_path / "again")     # another folder
    assert again.read_bytes() == plain.read_bytes()
    assert sorted(p.name for p in cache.glob("*.o")) == stored                     # nothing compiled

    changed = build(name, project(tmp_path / "d", 8), out_dir=tmp_path / "changed")   # val.h differs
    now = sorted(p.name for p in cache.glob("*.o"))
    new = [s for s in now if s not in stored and s.startswith("lib-")]
    assert new, "a changed header was not compiled"
    old = next(s for s in stored if s.startswith("lib-"))
    assert (cache / new[0]).read_bytes() != (cache / old).read_bytes()             # VAL 8, not 7
    assert changed.is_file()
    build(name, project(tmp_path / "e", 7), defines={"SELFTEST_EXTRA": 1}, out_dir=tmp_path / "defined")
    assert len(list(cache.glob("lib-*.o"))) == 3                                   # and a new define

"""csrc/fxdp_fixed.c against fxdp.fixed, case by case, and its portability.

A small C driver (below) is built with the host gcc under ASan + UBSan
(-fno-sanitize-recover=all: any undefined behaviour aborts the run).  It reads
one call per line on stdin and prints the status and the out value, which
starts as a sentinel, so "out untouched on error" is checked as well.  Every
line is compared with the Python implementation over edge values (INT_MIN,
-1, 0, 1, INT_MAX, powers of two), every frac and rounding, products aimed at
the overflow boundary, ties, random values, and invalid parameters.

The library is also compiled (-c) for the three MCU toolchains with the strict
warning flags and -Werror.  The toolchains are required, not optional: these
tests fail rather than skip when one is missing (CI installs them).
"""
import functools
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from fxdp import errors
from fxdp.errors import RangeError
from fxdp.fixed import QFormat, Rounding

REPO = Path(__file__).resolve().parent.parent
CSRC = REPO / "csrc"
STRICT = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Wconversion", "-Werror"]

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
U32_MAX = 2**32 - 1
SENT32, SENT64, SENTU32 = 0x5A5A5A5A, 0x5A5A5A5A5A5A5A5A, 0xA5A5A5A5
ROUND_BY_CODE = {r.c_code: r for r in Rounding}

DRIVER = r"""
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "fxdp.h"

#define SENT32 INT32_C(0x5A5A5A5A)
#define SENT64 INT64_C(0x5A5A5A5A5A5A5A5A)
#define SENTU32 UINT32_C(0xA5A5A5A5)

static int rd_i(int64_t *v) { return scanf("%" SCNd64, v) == 1; }
static int rd_u(uint64_t *v) { return scanf("%" SCNu64, v) == 1; }

int main(void)
{
    char op[24];
    int64_t a, b, r, s;
    uint64_t ua, ub, f;
    while (scanf("%23s", op) == 1) {
        int st;
        int32_t o32 = SENT32;
        int64_t o64 = SENT64;
        uint32_t ou32 = SENTU32;
        if (!strcmp(op, "enums")) {
            printf("%d %d %d %d %d %d %d %d\n", (int)FXDP_OK, (int)FXDP_ERR_PARAM, (int)FXDP_ERR_ENTROPY,
                   (int)FXDP_ERR_RANGE, (int)FXDP_ROUND_NEAREST_EVEN, (int)FXDP_ROUND_FLOOR,
                   (int)FXDP_ROUND_CEIL, (int)FXDP_ROUND_TOWARD_ZERO);
        } else if (!strcmp(op, "clz32")) {
            if (!rd_u(&ua)) return 2;
            printf("%u\n", fxdp_clz32((uint32_t)ua));
        } else if (!strcmp(op, "clz64")) {
            if (!rd_u(&ua)) return 2;
            printf("%u\n", fxdp_clz64(ua));
        } else if (!strncmp(op, "mul", 3)) {
            /* mul32|mul64|mulu32 a b frac round sat; suffix n: NULL out */
            int null_out = op[strlen(op) - 1] == 'n';
            if (!strncmp(op, "mulu32", 6)) {
                if (!rd_u(&ua) || !rd_u(&ub)) return 2;
            } else {
                if (!rd_i(&a) || !rd_i(&b)) return 2;
            }
            if (!rd_u(&f) || !rd_i(&r) || !rd_i(&s)) return 2;
            if (!strncmp(op, "mul32", 5)) {
                st = (int)fxdp_mul_q_i32((int32_t)a, (int32_t)b, (unsigned)f, (fxdp_round)r, (int)s,
                                         null_out ? NULL : &o32);
                printf("%d %" PRId32 "\n", st, o32);
            } else if (!strncmp(op, "mul64", 5)) {
                st = (int)fxdp_mul_q_i64(a, b, (unsigned)f, (fxdp_round)r, (int)s, null_out ? NULL : &o64);
                printf("%d %" PRId64 "\n", st, o64);
            } else {
                st = (int)fxdp_mul_q_u32((uint32_t)ua, (uint32_t)ub, (unsigned)f, (fxdp_round)r, (int)s,
                                         null_out ? NULL : &ou32);
                printf("%d %" PRIu32 "\n", st, ou32);
            }
        } else if (!strncmp(op, "u", 1)) {
            /* u{sadd,ssub,cadd,csub}[n] a b */
            int null_out = op[strlen(op) - 1] == 'n';
            uint32_t x, y;
            if (!rd_u(&ua) || !rd_u(&ub)) return 2;
            x = (uint32_t)ua;
            y = (uint32_t)ub;
            if (!strcmp(op, "usadd")) printf("%" PRIu32 "\n", fxdp_sat_add_u32(x, y));
            else if (!strcmp(op, "ussub")) printf("%" PRIu32 "\n", fxdp_sat_sub_u32(x, y));
            else {
                if (!strncmp(op, "ucadd", 5)) st = (int)fxdp_checked_add_u32(x, y, null_out ? NULL : &ou32);
                else if (!strncmp(op, "ucsub", 5)) st = (int)fxdp_checked_sub_u32(x, y, null_out ? NULL : &ou32);
                else return 3;
                printf("%d %" PRIu32 "\n", st, ou32);
            }
        } else {
            /* {sadd,ssub,cadd,csub}{32,64}[n] a b */
            int null_out = op[strlen(op) - 1] == 'n';
            int w64 = strstr(op, "64") != NULL;
            if (!rd_i(&a) || !rd_i(&b)) return 2;
            if (!strncmp(op, "sadd", 4)) {
                if (w64) printf("%" PRId64 "\n", fxdp_sat_add_i64(a, b));
                else printf("%" PRId32 "\n", fxdp_sat_add_i32((int32_t)a, (int32_t)b));
            } else if (!strncmp(op, "ssub", 4)) {
                if (w64) printf("%" PRId64 "\n", fxdp_sat_sub_i64(a, b));
                else printf("%" PRId32 "\n", fxdp_sat_sub_i32((int32_t)a, (int32_t)b));
            } else if (!strncmp(op, "cadd", 4) || !strncmp(op, "csub", 4)) {
                int add = op[1] == 'a';
                if (w64) {
                    st = (int)(add ? fxdp_checked_add_i64(a, b, null_out ? NULL : &o64)
                                   : fxdp_checked_sub_i64(a, b, null_out ? NULL : &o64));
                    printf("%d %" PRId64 "\n", st, o64);
                } else {
                    st = (int)(add ? fxdp_checked_add_i32((int32_t)a, (int32_t)b, null_out ? NULL : &o32)
                                   : fxdp_checked_sub_i32((int32_t)a, (int32_t)b, null_out ? NULL : &o32));
                    printf("%d %" PRId32 "\n", st, o32);
                }
            } else {
                return 3;
            }
        }
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    gcc = shutil.which("gcc")
    assert gcc, "host gcc is required"
    d = tmp_path_factory.mktemp("cfixed")
    (d / "driver.c").write_text(DRIVER)
    exe = d / "driver"
    cmd = [gcc, *STRICT, "-O1", "-g", "-fno-omit-frame-pointer",
           "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-I", str(CSRC), str(CSRC / "fxdp_fixed.c"), str(d / "driver.c"), "-o", str(exe)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return exe


def run_cases(exe, cases):
    """cases: list of (line, expected_output_line). Runs them all in one process."""
    inp = "".join(line + "\n" for line, _ in cases)
    res = subprocess.run([str(exe)], input=inp, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0",
                              "UBSAN_OPTIONS": "print_stacktrace=1"})
    assert res.returncode == 0, res.stderr[-3000:]
    out = res.stdout.splitlines()
    assert len(out) == len(cases)
    bad = [(line, want, got) for (line, want), got in zip(cases, out) if want != got]
    assert not bad, f"{len(bad)} mismatches of {len(cases)}, e.g. {bad[:8]}"


# ---- Python expectations ------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _fmt(word, signed, frac):
    return QFormat(word, signed, frac)


def expect_mul(word, signed, a, b, frac, r, sat, sentinel):
    max_frac = word - 1 if signed else word
    if not 0 <= frac <= max_frac or r not in ROUND_BY_CODE or sat not in (0, 1):
        return f"{errors.ERR_PARAM} {sentinel}"
    try:
        v = _fmt(word, signed, frac).mul(a, b, "saturating" if sat else "checked", ROUND_BY_CODE[r])
    except RangeError:
        return f"{errors.ERR_RANGE} {sentinel}"
    return f"{errors.OK} {v}"


def expect_checked(word, signed, op, a, b, sentinel):
    try:
        v = getattr(_fmt(word, signed, 0), op)(a, b, "checked")
    except RangeError:
        return f"{errors.ERR_RANGE} {sentinel}"
    return f"{errors.OK} {v}"


def edges_signed(w):
    lo, hi = -(2 ** (w - 1)), 2 ** (w - 1) - 1
    vals = {lo, lo + 1, lo + 2, -1, 0, 1, 2, 3, -2, -3, hi, hi - 1, hi - 2,
            2 ** (w // 2), -(2 ** (w // 2)), 2 ** (w // 2) - 1, 2 ** (w - 2), -(2 ** (w - 2)),
            2 ** (w // 2 - 1) + 1, -(2 ** (w // 2 - 1)) - 1}
    return sorted(vals)


def edges_unsigned(w):
    hi = 2**w - 1
    return sorted({0, 1, 2, 3, hi, hi - 1, hi - 2, 2 ** (w // 2), 2 ** (w // 2) - 1, 2 ** (w // 2) + 1,
                   2 ** (w - 1), 2 ** (w - 1) - 1, 2 ** (w - 1) + 1})


def rand_val(rng, lo, hi):
    k = rng.random()
    if k < 0.5:
        bits = rng.randint(0, hi.bit_length())
        v = rng.getrandbits(bits) if bits else 0
        if lo < 0 and rng.random() < 0.5:
            v = -v - rng.randint(0, 1)
        return min(max(v, lo), hi)
    return rng.randint(lo, hi)


# ---- tests ------------------------------------------------------------------------

def test_enum_values_match_python(driver):
    want = (f"{errors.OK} {errors.ERR_PARAM} {errors.ERR_ENTROPY} {errors.ERR_RANGE} "
            + " ".join(str(r.c_code) for r in
                       (Rounding.NEAREST_EVEN, Rounding.FLOOR, Rounding.CEIL, Rounding.TOWARD_ZERO)))
    run_cases(driver, [("enums", want)])


def test_clz(driver):
    rng = random.Random(7)
    cases = []
    for w in (32, 64):
        vals = {0, 1, 2, 3, 2**w - 1} | {2**k for k in range(w)} | {2**k - 1 for k in range(1, w + 1)} \
            | {2**k + 1 for k in range(1, w)}
        vals |= {rng.getrandbits(rng.randint(1, w)) for _ in range(2000)}
        cases += [(f"clz{w} {v}", str(w - v.bit_length())) for v in sorted(vals)]
    run_cases(driver, cases)


@pytest.mark.parametrize("w", [32, 64])
def test_add_sub_signed(driver, w):
    rng = random.Random(100 + w)
    lo, hi = -(2 ** (w - 1)), 2 ** (w - 1) - 1
    sent = SENT32 if w == 32 else SENT64
    e = edges_signed(w)
    pairs = [(a, b) for a in e for b in e] + [(rand_val(rng, lo, hi), rand_val(rng, lo, hi)) for _ in range(4000)]
    fmt = _fmt(w, True, 0)
    cases = []
    for a, b in pairs:
        cases.append((f"sadd{w} {a} {b}", str(fmt.add(a, b, "saturating"))))
        cases.append((f"ssub{w} {a} {b}", str(fmt.sub(a, b, "saturating"))))
        cases.append((f"cadd{w} {a} {b}", expect_checked(w, True, "add", a, b, sent)))
        cases.append((f"csub{w} {a} {b}", expect_checked(w, True, "sub", a, b, sent)))
    cases.append((f"cadd{w}n 1 2", f"{errors.ERR_PARAM} {sent}"))
    cases.append((f"csub{w}n {lo} 1", f"{errors.ERR_PARAM} {sent}"))
    run_cases(driver, cases)


def test_add_sub_unsigned(driver):
    rng = random.Random(3)
    e = edges_unsigned(32)
    pairs = [(a, b) for a in e for b in e] + [(rand_val(rng, 0, U32_MAX), rand_val(rng, 0, U32_MAX))
                                              for _ in range(4000)]
    fmt = _fmt(32, False, 0)
    cases = []
    for a, b in pairs:
        cases.append((f"usadd {a} {b}", str(fmt.add(a, b, "saturating"))))
        cases.append((f"ussub {a} {b}", str(fmt.sub(a, b, "saturating"))))
        cases.append((f"ucadd {a} {b}", expect_checked(32, False, "add", a, b, SENTU32)))
        cases.append((f"ucsub {a} {b}", expect_checked(32, False, "sub", a, b, SENTU32)))
    cases.append(("ucaddn 1 2", f"{errors.ERR_PARAM} {SENTU32}"))
    cases.append(("ucsubn 0 1", f"{errors.ERR_PARAM} {SENTU32}"))
    run_cases(driver, cases)


MUL_KINDS = [  # op, word, signed, sentinel, max frac
    ("mul32", 32, True, SENT32, 31),
    ("mul64", 64, True, SENT64, 63),
    ("mulu32", 32, False, SENTU32, 32),
]


@pytest.mark.parametrize("op,w,signed,sent,max_frac", MUL_KINDS, ids=[k[0] for k in MUL_KINDS])
def test_mul_q(driver, op, w, signed, sent, max_frac):
    rng = random.Random(op)
    lo, hi = (-(2 ** (w - 1)), 2 ** (w - 1) - 1) if signed else (0, 2**w - 1)
    e = edges_signed(w) if signed else edges_unsigned(w)
    edge_pairs = [(a, b) for a in e for b in e]
    cases = []

    def add(a, b, frac, r, sat):
        cases.append((f"{op} {a} {b} {frac} {r} {sat}", expect_mul(w, signed, a, b, frac, r, sat, sent)))

    for frac in range(0, max_frac + 1):
        pairs = list(edge_pairs)
        pairs += [(rand_val(rng, lo, hi), rand_val(rng, lo, hi)) for _ in range(120)]
        # products aimed at the overflow boundaries, where the rounding decides: a
        # product within about 2^frac of B * 2^frac (B = a range end, or 2^64 - 1 for
        # the carry out of the low limb in mul64) needs |a| ~ 2^frac
        bounds = [hi, hi + 1, lo, lo - 1] if signed else [hi, hi + 1]
        if w == 64:
            bounds += [2**64 - 1, -(2**64 - 1)]
        for _ in range(80):
            bound = rng.choice(bounds)
            a = rng.randint(2**frac, 2 ** (frac + 2)) if rng.random() < 0.7 else rand_val(rng, lo, hi)
            a = min(a, hi)
            if signed and rng.random() < 0.5:
                a = -a
            if a in (0, -1, 1):
                continue
            b = (bound << frac) // a + rng.randint(-1, 1)
            if lo <= b <= hi:
                pairs.append((a, b))
        # exact ties: a * b = (odd) * 2^(frac-1), both parities of the quotient
        if frac:
            for _ in range(20):
                a = (2 * rng.randrange(0, 2 ** min(w - frac, 30)) + 1) << (frac - 1)
                if a <= hi:
                    pairs += [(a, 1), (-a, 1), (a, -1)] if signed else [(a, 1)]
        for a, b in pairs:
            for r in range(4):
                for sat in (0, 1):
                    add(a, b, frac, r, sat)
    if w == 64:
        # rounding carries out of the low 64-bit limb: |a*b| >> 1 == 2^64 - 1 with a half remainder
        b = (2**65 - 1) // 7
        for a2, b2 in [(7, b), (-7, b), (7, -b), (-7, -b)]:
            for r in range(4):
                for sat in (0, 1):
                    add(a2, b2, 1, r, sat)
    # invalid parameters: frac too large, unknown rounding, saturate not 0/1, NULL out
    for frac in (max_frac + 1, max_frac + 2, 64, 100, 2**32 - 1):
        add(3, 5, frac, 0, 0)
    for r in (4, 5, 99, -1):
        add(3, 5, 1, r, 1)
    for sat in (2, -1, 255):
        add(3, 5, 1, 1, sat)
    cases.append((f"{op}n 3 5 1 1 0", f"{errors.ERR_PARAM} {sent}"))
    cases.append((f"{op}n {hi} {hi} 0 1 0", f"{errors.ERR_PARAM} {sent}"))
    run_cases(driver, cases)


TARGETS = [
    ("avr-gcc", ["-mmcu=atmega328p"]),
    ("arm-none-eabi-gcc", ["-mcpu=cortex-m0plus", "-mthumb"]),
    ("riscv64-unknown-elf-gcc", ["-march=rv32imac", "-mabi=ilp32", "-ffreestanding"]),
    ("gcc", ["-Wsign-conversion", "-Wshadow"]),
]


@pytest.mark.parametrize("cc,flags", TARGETS, ids=[t[0] for t in TARGETS])
@pytest.mark.parametrize("opt", ["-O0", "-O2", "-Os"])
def test_cross_compiles_with_werror(cc, flags, opt, tmp_path):
    exe = shutil.which(cc)
    assert exe, f"{cc} is required (CI installs it; see .ci)"
    cmd = [exe, *STRICT, opt, *flags, "-I", str(CSRC), "-c", str(CSRC / "fxdp_fixed.c"),
           "-o", str(tmp_path / "fxdp_fixed.o")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)}\n{res.stderr}"

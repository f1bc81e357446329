"""Proof on emulated hardware: every exported mechanism on every target.

For each (target, mechanism) the export (`fxdp.export.generate`) is built
once with the harness of fxdp/export/harness.py and run once under the
target's emulator (host natively / under callgrind, AVR on libsimavr,
Cortex-M0+/M3/M4 and RV32 on QEMU with the instruction-count plugin).  One run
checks:

* parity: 10,000 releases, device i on the keyed stream (SEED, i, 0), inputs
  from the shared input model, equal line for line (hex of every output, or
  FNV-1a-32 of outputs longer than 8 bytes) to ``m.simulate`` on the PC;
* the built-in DRBG keyed with the same (seed, device id) gives the same
  releases;
* constant time: CT_N releases over varied secrets and streams, each between
  two ``port_mark()`` calls: identical instruction counts (QEMU, callgrind)
  or cycle counts (AVR) for the constant-time forms, and differing counts for
  the lazy forms (so the check can fail);
* the report encoder (docs/wire.md): the parity releases encoded by the export's
  fxdp_encode_report, framed by fxdp_encode_header and fxdp_report_crc32, give the
  CRC-32 trailer of ``m.encode_reports`` on the simulated outputs, with no output refused
  (the host test in tests/test_wire.py compares every byte);
* entropy failure: a board hook that fails after 0, 1, 2, ... words gives
  FXDP_ERR_ENTROPY with the output untouched (or a complete release; the forms
  that draw in place in the caller's buffer, DeviceSpec.in_place, zero it
  instead), and the failure is sticky; a DRBG whose seeding hook fails
  releases nothing.

Jobs run in parallel (one per CPU), longest (AVR) first.  AVR dominates: every
device's fresh ChaCha20 block costs ~65,000 cycles there, and simavr runs ~70 M
cycles/s (2026-11-29), so 10^4 releases take ~10 s per mechanism (full RAPPOR:
28 s for the first half alone).  AVR runs were 576 of the ~870 CPU s of all jobs;
the other targets take about 0.5 s per run and 0.8 s per build.
"""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import heavy_jobs

import fxdp.export as E
from fxdp.export import harness as H

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "export_fake"))
from cases import CASES, VARIANTS, make  # noqa: E402

TARGETS = ["host", "avr-atmega328p", "cortex-m0plus", "cortex-m3", "cortex-m4", "rv32imac"]
# FXDP_EXPORT_TARGETS=a,b narrows the targets while developing (one group at a time); CI runs every one.
RUN_TARGETS = [t for t in TARGETS if t in os.environ["FXDP_EXPORT_TARGETS"].split(",")] \
    if os.environ.get("FXDP_EXPORT_TARGETS") else TARGETS
N = 10_000
CT_N = 48
N_DRBG = 8
SEED = 0x243F6A8885A308D313198A2E03707344A4093822299F31D0082EFA98EC4E6C89   # pi
# FXDP_EXPORT_CASES=a,b narrows the run while developing; CI runs every case.
TARGET_CASES = sorted(os.environ["FXDP_EXPORT_CASES"].split(",")) if os.environ.get("FXDP_EXPORT_CASES") \
    else sorted(CASES)
SLOW = {"avr-atmega328p"}
# every mechanism kind and form on every target; parameter variants (cases.VARIANTS) not on AVR
JOBS = [(t, c) for t in RUN_TARGETS for c in TARGET_CASES if not (t in SLOW and c in VARIANTS)]


def _is_ct(case):
    return bool(make(case).constant_time)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    t_start = time.perf_counter()
    base = tmp_path_factory.mktemp("export_targets")
    mechs = {c: make(c) for c in TARGET_CASES}
    outputs = {c: H.simulate_outputs(m, E.device_spec(m), SEED, N) for c, m in mechs.items()}
    expected = {c: H.expected_lines(outputs[c], E.device_spec(m)) for c, m in mechs.items()}

    for t, c in JOBS:                                   # exports first (cheap), then the runs
        E.generate(mechs[c], t, base / t / c / "fw")

    def job(target, case, chunk, chunks):
        """One build and emulator run: chunk 0 runs every check on its share of the parity
        releases; further chunks (AVR) only the parity releases of the next device ids."""
        t0 = time.perf_counter()
        m = mechs[case]
        d = base / target / case
        per, first = N // chunks, chunk == 0
        elf = H.build_harness(m, d / "fw", target, d / f"build{chunk}", seed=SEED, n=per, dev0=chunk * per,
                              n_ct=CT_N if first else 0, n_drbg=N_DRBG if first else 0, entropy=first)
        res = H.run_harness(target, elf, count=first, timeout=900)
        res.seconds = time.perf_counter() - t0
        res.wires = [(chunk * per, (chunk + 1) * per, res.wire)]     # this program's report batch
        return res

    # AVR jobs run as two programs (parity releases of devices [0, N/2) and [N/2, N)), so that the
    # longest ones spread over the CPUs.
    units = []
    for t, c in JOBS:
        chunks = 2 if t in SLOW else 1
        units += [(t, c, k, chunks) for k in range(chunks)]
    units.sort(key=lambda u: (u[0] not in SLOW, "rappor_full" not in u[1], u[2]))    # longest first
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:   # emulators are processes
        futs = {u: ex.submit(job, *u) for u in units}
    out = {}
    for (t, c, k, n) in sorted(futs, key=lambda u: u[2]):          # chunk 0 before its later chunks
        f = futs[(t, c, k, n)]
        if isinstance(out.get((t, c)), Exception):
            continue
        if f.exception() is not None:                    # reported by each test of that job
            out[(t, c)] = f.exception()
        elif k == 0:
            out[(t, c)] = f.result()
        else:
            out[(t, c)].parity += f.result().parity
            out[(t, c)].wires += f.result().wires
            out[(t, c)].seconds = max(out[(t, c)].seconds, f.result().seconds)
    return expected, out, outputs, time.perf_counter() - t_start


def _result(runs, target, case):
    res = runs[1][(target, case)]
    if isinstance(res, Exception):
        raise res
    return res


@pytest.mark.parametrize("target, case", JOBS)
def test_parity_with_simulation(runs, target, case):
    res = _result(runs, target, case)
    want = runs[0][case]
    assert len(want) == N
    assert res.exit_code == 0
    bad = [(i, w, g) for i, (w, g) in enumerate(zip(want, res.parity)) if w != g]
    assert len(res.parity) == N and not bad, \
        f"{target} {case}: {len(bad)} of {N} releases differ from m.simulate, first {bad[:3]}"
    assert res.drbg == want[:N_DRBG], "the DRBG keyed with (seed, device id) must give the same releases"


@pytest.mark.parametrize("target, case", JOBS)
def test_report_encoder(runs, target, case):
    """Each program's parity releases, encoded on the target, are the batch m.encode_reports
    writes for the simulated outputs (its CRC-32 trailer over header and every record)."""
    res = _result(runs, target, case)
    m, outputs = make(case), runs[2][case]
    assert [(a, b) for a, b, _ in res.wires] == [(k * (N // len(res.wires)), (k + 1) * (N // len(res.wires)))
                                                 for k in range(len(res.wires))]
    for a, b, wire in res.wires:
        assert wire == H.expected_wire(m, outputs[a:b]), f"{target} {case}: records {a}..{b - 1}"


@pytest.mark.parametrize("target, case", JOBS)
def test_constant_time_counts(runs, target, case):
    res = _result(runs, target, case)
    counts = res.ct_counts
    assert len(counts) == CT_N and not res.ct_errors, (len(counts), res.ct_errors[:3])
    assert min(counts) > 0
    if _is_ct(case):
        assert len(set(counts)) == 1, f"{target} {case}: constant-time release took {sorted(set(counts))}"
    else:
        assert len(set(counts)) > 1, f"{target} {case}: the lazy form should vary, got {counts[:5]}"


@pytest.mark.parametrize("target, case", JOBS)
def test_entropy_failure_releases_nothing(runs, target, case):
    res = _result(runs, target, case)
    in_place = E.device_spec(make(case)).in_place   # drawn into out, zeroed on a failure (u = 2)
    assert H.check_entropy(res, in_place) == []
    # a hook that fails at once: error, nothing written (in place: out zeroed, or untouched when the
    # failure comes before the first draw into out, as in L-OUE's permanent-stream derivation)
    steps, st, untouched = res.entropy[0][:3]
    assert (steps, st) == (0, 2) and untouched in ((1, 2) if in_place else (1,)), res.entropy[0]


def test_every_kind_and_form_on_every_target():
    from fxdp.export import exportable_kinds
    for target in TARGETS:
        forms = {(make(c).kind, _is_ct(c)) for t, c in JOBS if t == target}
        for kind in ("randomized_response_bool", "randomized_response", "rappor", "geometric", "hadamard_response",
                     "subset_selection", "local_hashing", "dbitflip"):
            assert (kind, True) in forms and (kind, False) in forms, (target, kind)
        assert {k for k, _ in forms} >= set(exportable_kinds()), target


def test_within_its_time_budget(runs, capsys):
    """The whole fixture (simulations, exports, builds, every emulator run) within its budget
    (tests/heavy_jobs.py), and the slowest jobs printed."""
    rows = sorted(((r.seconds, t, c) for (t, c), r in runs[1].items() if not isinstance(r, Exception)),
                  reverse=True)
    with capsys.disabled():
        print("\nslowest export target jobs: " + ", ".join(f"{t}/{c} {s:.1f}s" for s, t, c in rows[:6]))
    assert rows, "no export target job ran"
    heavy_jobs.check("export targets", runs[3])

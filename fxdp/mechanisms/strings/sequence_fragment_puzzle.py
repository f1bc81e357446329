"""Apple's Sequence Fragment Puzzle (SFP; "Learning with Privacy at Scale", Apple 2017): finds the
frequent strings without a candidate list, from a fragment of each device's string and the whole
string, each through a Count Mean Sketch; the registered kind ``sequence_fragment_puzzle``
(issue 34): the reference release, its privacy map and exact audit, the Numba fleet
(``_kernels_sequence_fragment_puzzle.py``), the C device form (csrc/fxdp_mech_sequence_fragment_puzzle.c,
two calls of the sketch's entry point), the wire codec and the server's discovery.

A string s of at most L = max_length bytes is the vector x = (len(s), s, zero padding) of L + 1
bytes (fxdp.strhash.encode), read as G = ceil((L + 1) / 2) fragments of 2 bytes (a zero byte
appended when L + 1 is odd).  A device

1. draws the position p uniform in [0, G) (``uniform_below``; ``uniform_below_ct`` in constant
   time),
2. computes the puzzle's word hash r = h_R(s) >> 24, 8 bits of the keyed string hash (fxdp.strhash)
   at the hash index R = 2^32 - 1, which no sketch uses,
3. releases the 3-byte fragment string (r, x[2p] ^ r, x[2p + 1] ^ rot4(r)) (rot4 swaps a byte's
   nibbles) with the fragment Count Mean Sketch (``fragment_width``, ``fragment_hashes``,
   epsilon_f, strings of 3 bytes), and then
4. releases s with the word Count Mean Sketch (``width``, ``hashes``, epsilon_w), and reports
   (p, the fragment sketch's report, the word sketch's report).

With hadamard=True both sketches are Hadamard Count Mean Sketches (1 + log2 m + log2 k bits each).

Why the masks: the string hash is linear in the bytes (fxdp.strhash), so two fragments that differ
only in r by the same amount collide in the same rows, for every such pair: the padding fragments
(r, 0, 0) of different words did, and the fragment sketch's errors were up to 8 times its stated
standard error (tests/test_sequence_fragment_puzzle.py).  Masking the bytes with r, by xor, makes
the differences of two fragments depend on both r values, not on their difference alone; the
errors then match the stated standard error.  The server knows r, so it unmasks.

Privacy.  The requested epsilon is split as epsilon_f = share * epsilon and epsilon_w = epsilon -
epsilon_f (share = ``fragment_share``, 1/2 by default, as in Apple's description and pure-LDP);
each sketch rounds its flip probability up (fxdp.mechanisms.strings.count_mean_sketch), so each
realized epsilon is at most its part.  p does not depend on s, and given p the two reports are drawn
independently, so the probability of a report is (1/G) P_f(fragment report) P_w(word report): the
ratio for two strings is at most ratio_f * ratio_w, and ``epsilon`` = ln(ratio_f ratio_w) rounded up,
never above the request.  Every pair of strings is a pair of neighbours (the input metric is
discrete), so ``epsilon`` is the local epsilon.  The bound is reached: ``exact_audit`` finds two
strings and a report where both factors are at their worst.

The server (``discover``): for each position p, the fragment sketch of the reports with that p
estimates the share of every fragment (r, c0, c1) of the 2^24 (at p = 0, c0 is the length byte,
1..L; ``alphabet`` restricts the other bytes); the ``keep`` largest of each position are kept.  For each word hash r found at every
position, the kept fragments are joined in order into vectors, pruned to valid ones (a length byte,
then zero bytes after the string; positions past the string's length are its padding, known
without a fragment) and to the ``keep`` best partial sums of fragment estimates at each position; a string is kept only if its own word hash is r.  The word sketch (all n reports)
then estimates every string found, and the ``top`` largest are returned.  ``estimate(reports,
candidates)`` is the word sketch's estimator (standard errors with the hash-collision term).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np

from ... import strhash
from ...conservative import log_up
from ...reports import AuditReport
from ...samplers import reference as ref
from .._device import SRC_RNG, _init, u8, u32
from ..base import CConfig, Mechanism
from ._strings import StringInput, check_epsilon, check_share
from .count_mean_sketch import CountMeanSketch, HadamardCountMeanSketch, SketchCounts, SketchStatistic, _check_int

SRC_SEQUENCE_FRAGMENT_PUZZLE = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_strhash.c",
                                          "fxdp_mech_unary_encoding.c", "fxdp_mech_count_mean_sketch.c",
                                          "fxdp_mech_sequence_fragment_puzzle.c"]

WORD_HASH_INDEX = 0xFFFFFFFF          # the puzzle's word hash: strhash index 2^32 - 1 (sketches use < 2^16)
FRAGMENT_LENGTH = 3                   # the fragment string: (r, x[2p], x[2p + 1])
MAX_LENGTH = 254                      # G = ceil((L + 1) / 2) <= 127 positions: p is one byte
FRAGMENT_CANDIDATES = 1 << 19         # fragments scored per kernel call (a block of word hashes r)


def _rot4(r):
    """The byte r with its nibbles swapped: the second fragment byte's mask."""
    return ((r << 4) | (r >> 4)) & 0xFF


class PuzzleSketches:
    """The puzzle's reports without the reports: the fragment sketch of each position's reports
    (``SketchCounts`` or None where no report has that position) and the word sketch of all of
    them (``SketchCounts``).  ``discover`` and ``estimate`` take it in place of reports."""

    def __init__(self, fragments, word):
        self.fragments, self.word = list(fragments), word


class PuzzleStatistic:
    """``fxdp estimate``'s streamed statistic of a Sequence Fragment Puzzle: a fragment sketch per
    position and the word sketch (O(G k_f m_f + k m) memory), mergeable; ``estimate_rows(truth)``
    equals the estimator on all the reports added (integer sums are exact)."""

    def __init__(self, mechanism):
        self.m = mechanism
        self.fragments = [SketchStatistic(mechanism.fragment) for _ in range(mechanism.positions)]
        self.word = SketchStatistic(mechanism.word)

    @property
    def n(self) -> int:
        return self.word.n

    def add(self, reports):
        ps, frags, words = self.m.split_reports(np.asarray(reports).reshape(-1, self.m.report_columns))
        for p in np.unique(ps):
            self.fragments[int(p)].add(frags[ps == p])
        self.word.add(words)
        return self

    def merge(self, other):
        for a, b in zip(self.fragments, other.fragments):
            a.merge(b)
        self.word.merge(other.word)
        return self

    def sketches(self) -> PuzzleSketches:
        return PuzzleSketches([f.sketch() if f.n else None for f in self.fragments], self.word.sketch())

    def estimate_rows(self, truth=None):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        return self.m.estimate_rows(self.sketches(), truth)


class SequenceFragmentPuzzle(StringInput, Mechanism):
    """The Sequence Fragment Puzzle client over byte strings (see the module docstring)."""
    kind = "sequence_fragment_puzzle"

    def __init__(self, epsilon, max_length=16, width=1024, hashes=16, fragment_width=None, fragment_hashes=None,
                 fragment_share=Fraction(1, 2), hadamard=False, constant_time=False, bits=32, hash_key=None):
        self.max_length = strhash.check_max_length(max_length)
        if self.max_length > MAX_LENGTH:
            raise ValueError(f"max_length must be in [1, {MAX_LENGTH}] (the position is one byte), got {max_length}")
        for name, v in (("hadamard", hadamard), ("constant_time", constant_time)):
            if not isinstance(v, bool):
                raise TypeError(f"{name} must be a bool, got {type(v).__name__}")
        self.hadamard, self.constant_time = hadamard, constant_time
        self.fragment_share = check_share(fragment_share, "fragment_share")
        self.epsilon_requested = check_epsilon(epsilon, 128)
        self.hash_key = strhash.parse_hash_key(hash_key)
        self._hash_key_arg = hash_key
        self._widths = (width, hashes, fragment_width, fragment_hashes)
        cls = HadamardCountMeanSketch if hadamard else CountMeanSketch
        eps_f = self.epsilon_requested * self.fragment_share
        parts = []
        for part, (w, k, eps, length) in (("fragment", (width if fragment_width is None else fragment_width,
                                                         hashes if fragment_hashes is None else fragment_hashes,
                                                         eps_f, FRAGMENT_LENGTH)),
                                          ("word", (width, hashes, self.epsilon_requested - eps_f, self.max_length))):
            try:
                parts.append(cls(w, k, eps, length, constant_time, bits, hash_key))
            except ValueError as e:
                raise ValueError(f"the {part} sketch (epsilon {float(eps)!r} of the {float(epsilon)!r} requested): "
                                 f"{e}") from None
        self.fragment, self.word = parts
        self.bits = self.word.bits
        self.positions = (self.max_length + 2) // 2
        self._ratio = self.fragment._ratio * self.word._ratio
        self._eps = log_up(self._ratio)

    # --- description
    @property
    def output_domain(self):
        return (f"TupleDomain(AtomDomain(u8) < {self.positions}, {self.fragment.output_domain}, "
                f"{self.word.output_domain})")

    @property
    def bits_per_report(self):
        return (self.positions - 1).bit_length() + self.fragment.bits_per_report + self.word.bits_per_report

    def config(self):
        width, hashes, fw, fk = self._widths
        return {"epsilon": self.epsilon_requested, "max_length": self.max_length, "width": width, "hashes": hashes,
                "fragment_width": fw, "fragment_hashes": fk, "fragment_share": self.fragment_share,
                "hadamard": self.hadamard, "constant_time": self.constant_time, "bits": self.bits,
                "hash_key": self._hash_key_arg}

    def realized(self):
        return {"epsilon": self._eps, "positions": self.positions,
                "fragment": {**self.fragment.realized(), "width": self.fragment.width, "hashes": self.fragment.hashes},
                "word": {**self.word.realized(), "width": self.word.width, "hashes": self.word.hashes},
                "hash_key": self.hash_key.hex()}

    # --- input and release
    def word_hash(self, s):
        """r = h_R(s) >> 24: the puzzle's 8-bit word hash of a checked string."""
        return strhash.hash32(self.hash_key, WORD_HASH_INDEX, s, self.max_length) >> 24

    def padded(self, s):
        """The encoded vector of s with a zero byte appended when L + 1 is odd (2 G bytes)."""
        return strhash.encode(s, self.max_length).ljust(2 * self.positions, b"\x00")

    def fragment_string(self, s, p):
        """The fragment string (r, x[2p] ^ r, x[2p + 1] ^ rot4(r)) of s at position p."""
        x = self.padded(s)
        r = self.word_hash(s)
        return bytes([r, x[2 * p] ^ r, x[2 * p + 1] ^ _rot4(r)])

    def release(self, src, x):
        """(p, the fragment sketch's release, the word sketch's release)."""
        p = ref.uniform_below_ct(src, self.positions) if self.constant_time else ref.uniform_below(src, self.positions)
        frag = self.fragment._release(src, self.fragment_string(x, p))
        return (int(p), frag, self.word._release(src, x))

    # --- the fleet (Numba, all cores): bit for bit the reference release of every device
    def _word_hash_coeffs(self):
        if getattr(self, "_r_coeffs", None) is None:
            from ...samplers._nb_strhash import SCRATCH_WORDS, strhash_coefficients
            out = np.empty(self.max_length + 2, np.uint32)
            strhash_coefficients(np.array(strhash.key_words(self.hash_key), np.uint32), np.uint32(WORD_HASH_INDEX),
                                 self.max_length, out, np.empty(SCRATCH_WORDS, np.uint32))
            self._r_coeffs = out
        return self._r_coeffs

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_sequence_fragment_puzzle import fleet_sfp_cms, fleet_sfp_hcms
        f, w = self.fragment, self.word
        out = np.zeros((x.shape[0], self.report_columns), np.dtype(self.report_dtype))
        common = (np.uint64(self.positions), self._word_hash_coeffs(), f._coeffs(), np.uint32(32 - f.log2_width),
                  np.uint64(f.hashes), w._coeffs(), np.uint32(32 - w.log2_width), np.uint64(w.hashes))
        if self.hadamard:
            fleet_sfp_hcms(key, ids, first_block, *common, np.uint64(f.width), np.uint64(f.a_q), np.uint64(w.width),
                           np.uint64(w.a_q), np.uint64(self.bits), bool(self.constant_time), x, out, status, bits)
            return out
        from ...samplers._nb_lanes import ahead_blocks
        from ...samplers._nb_run import dyadic_run_table
        per = self.bits if self.constant_time else 2
        nb = ahead_blocks((f.width + w.width) * per + 256, key)
        full = np.uint64(1) << np.uint64(self.bits)
        fleet_sfp_cms(key, ids, first_block, *common, np.uint64(int(full) - f.a_q), np.uint64(f.a_q),
                      np.uint64(int(full) - w.a_q), np.uint64(w.a_q), np.uint64(self.bits), bool(self.constant_time), x,
                      out, status, bits, dyadic_run_table(f.a_q, self.bits), dyadic_run_table(w.a_q, self.bits), nb,
                      np.int64(f.width))
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation: device i releases values[i] on the keyed stream (seed, device_ids[i],
        stream 0), bit for bit as ``release`` and the C form.  Returns the reports in the device
        form: CMS, uint8 rows (p, the fragment sketch's m_f + 2 bytes, the word sketch's m + 2);
        HCMS, uint32 rows (p, j_f, l_f, b_f, j_w, l_w, b_w).  ``split_reports`` separates them."""
        return super().simulate(values, seed, device_ids)

    # --- the device form (csrc/fxdp_mech_sequence_fragment_puzzle.c)
    @property
    def report_dtype(self):
        return self.word.report_dtype

    @property
    def report_columns(self):
        return 1 + self.fragment.report_columns + self.word.report_columns

    def release_output(self, out):
        nf = self.fragment.report_columns
        return (int(out[0]), self.fragment.release_output(out[1:1 + nf]), self.word.release_output(out[1 + nf:]))

    def report_fields(self):
        from .._wire import ReportField
        fields = [ReportField("p", 1, 0, self.positions - 1)]
        for prefix, part in (("f_", self.fragment), ("w_", self.word)):
            fields += [ReportField(prefix + r.name, r.count, r.lo, r.hi) for r in part.report_fields()]
        return fields

    def _cms_cfg(self, part):
        from ._device_count_mean_sketch import _ue_fields
        key = "{ " + ", ".join(u32(v) for v in strhash.key_words(self.hash_key)) + " }"
        return _init([("ue", _init(_ue_fields(part))), ("key", key), ("hashes", u32(part.hashes)),
                      ("max_len", u32(part.max_length)), ("log2_width", u8(part.log2_width))])

    def _entry(self):
        return ("fxdp_hadamard_sequence_fragment_puzzle" if self.hadamard else "fxdp_sequence_fragment_puzzle") + \
            ("_ct" if self.constant_time else "")

    def _device_check(self):
        from ._device_count_mean_sketch import check_device
        check_device(self.fragment)
        check_device(self.word)

    def _device_output(self):
        if self.hadamard:
            return {"ctype": "uint32_t", "count": 7, "meaning": "p, then the fragment's (j, l, bit), the word's (j, l, bit)"}
        return {"ctype": "uint8_t", "count": self.report_columns,
                "meaning": "p, then the fragment sketch's j & 0xFF, j >> 8 and m_f bits, the word sketch's j bytes and m bits"}

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base): two Count Mean Sketch configs, the
        fragment's (strings of 3 bytes) and the word's, and the positions G."""
        from .._device import _ct_text
        self._device_check()
        f, w = self.fragment, self.word
        rounds = 32 * ref.UNIFORM_CT_ROUNDS
        if self.hadamard:
            spent = rounds + 2 * (2 * rounds + self.bits)
        else:
            spent = 3 * rounds + (f.width + w.width) * self.bits
        kind = "Hadamard Count Mean Sketches" if self.hadamard else "Count Mean Sketches"
        spec = {
            "c_function": self._entry(),
            "cfg_type": "fxdp_sequence_fragment_puzzle_cfg",
            "cfg_init": _init([("fragment", self._cms_cfg(f)), ("word", self._cms_cfg(w)),
                               ("positions", u32(self.positions))]),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": self.max_length + 1,
                      "meaning": "the encoded string: [len] || bytes || zero padding, 1 <= len <= max_length"},
            "output": self._device_output(),
            "sources": list(SRC_SEQUENCE_FRAGMENT_PUZZLE),
            "summary": (f"Sequence Fragment Puzzle, strings of 1..{self.max_length} bytes: a 2-byte fragment at one "
                        f"of {self.positions} positions with an 8-bit word hash (k = {f.hashes}, m = {f.width}) and "
                        f"the string (k = {w.hashes}, m = {w.width}), through two {kind}; epsilon <= {self.epsilon!r}; "
                        + _ct_text(self.constant_time, spent)),
        }
        spec["in_place"] = True            # the reports drawn into out, zeroed on an entropy failure
        return spec

    def c_config(self, dim=None):
        from ... import native
        self._device_check()

        def part(m):
            return {"ue": {"a_p": (1 << m.bits) - m.a_q, "a_q": m.a_q, "d": m.width, "bits": m.bits},
                    "key": list(strhash.key_words(self.hash_key)), "hashes": m.hashes, "max_len": m.max_length,
                    "log2_width": m.log2_width}
        cfg = native.ffi.new("fxdp_sequence_fragment_puzzle_cfg *", {
            "fragment": part(self.fragment), "word": part(self.word), "positions": self.positions})
        out = self._device_output()
        return CConfig(cfg, [], self._entry(), self.constant_time, "uint8_t", np.uint8, out_ctype=out["ctype"],
                       out_dtype=np.dtype(self.report_dtype), out_count=out["count"])

    # --- the exact audit: given p, the report's probability is a product
    def report_pmf(self, report, x):
        """P(report | x), exactly: report = (p, fragment release, word release)."""
        p, fr, wr = report
        return (Fraction(1, self.positions) * self._part_pmf(self.fragment, fr, self.fragment_string(x, p))
                * self._part_pmf(self.word, wr, x))

    @staticmethod
    def _part_pmf(part, rel, s):
        return part.report_pmf(*rel, s) if part.hadamard else part.report_pmf(rel[0], rel[1], s)

    @staticmethod
    def _worst_report(part, s, t):
        """A release of part whose probability ratio for strings s over t is part's worst, or None
        when no hash index separates them."""
        for j in range(part.hashes):
            u, v = part.cell(j, s), part.cell(j, t)
            if u == v:
                continue
            if not part.hadamard:
                return (j, [int(i == u) for i in range(part.width)])
            l = next(l for l in range(part.width) if (bin(l & u).count("1") - bin(l & v).count("1")) & 1)
            return (j, l, bin(l & u).count("1") & 1)
        return None

    def exact_audit(self, d_in=1):
        """Closed form: for p, the ratio is the fragment release's times the word release's, each at
        most its sketch's worst, ((1 - q)/q)^2 (CMS) or (1 - q)/q (HCMS).  Both are reached at once
        for two strings whose fragments at p = 0 (the length byte and the first byte, with the word
        hash) some fragment hash index separates, and that some word hash index separates: the
        witness is the first such pair b"\\x00", b"\\x01", ... and the report where both sketches
        report the first string's one-hot cell (or Hadamard bit)."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (product channel)", d_in=0)
        s = b"\x00"
        for t in range(1, 256):
            other = bytes([t])
            fr = self._worst_report(self.fragment, self.fragment_string(s, 0), self.fragment_string(other, 0))
            wr = self._worst_report(self.word, s, other)
            if fr is None or wr is None:
                continue
            report = (0, fr, wr)
            ratio = self.report_pmf(report, s) / self.report_pmf(report, other)
            return AuditReport(repr(self), self._eps, log_up(ratio),
                               {"x": s.hex(), "x_prime": other.hex(), "p": 0, "fragment_j": fr[0], "word_j": wr[0]},
                               "closed form (product channel)", d_in=d_in)
        return AuditReport(repr(self), self._eps, 0.0, {"note": "no hash index separates the witnesses"},
                           "closed form (product channel)", d_in=d_in)

    def enumerated_epsilon(self, inputs):
        """max over the given inputs and every report of the probability ratio, by enumerating every
        (p, fragment report, word report) (tiny widths only): the audit's check."""
        if self.hadamard:
            def releases(part):
                return [(j, l, b) for j in range(part.hashes) for l in range(part.width) for b in (0, 1)]
        else:
            if self.fragment.width + self.word.width > 12:
                raise ValueError("enumerated_epsilon enumerates 2^(fragment_width + width) reports: their sum must "
                                 f"be <= 12, got {self.fragment.width + self.word.width}")

            def releases(part):
                return [(j, list(b)) for j in range(part.hashes) for b in product((0, 1), repeat=part.width)]
        inputs = [self.check_input(x) for x in inputs]
        worst = Fraction(1)
        frs, wrs = releases(self.fragment), releases(self.word)
        for p in range(self.positions):
            fp = [[self._part_pmf(self.fragment, fr, self.fragment_string(x, p)) for x in inputs] for fr in frs]
            wp = [[self._part_pmf(self.word, wr, x) for x in inputs] for wr in wrs]
            for a in fp:
                for b in wp:
                    prs = [u * v for u, v in zip(a, b)]
                    worst = max(worst, max(prs) / min(prs))
        return worst

    # --- the server
    def split_reports(self, reports):
        """(p int64[n], the fragment sketch's reports, the word sketch's reports) of device-form
        reports (each part in its sketch's device form)."""
        arr = np.asarray(reports)
        if arr.ndim != 2 or arr.shape[1] != self.report_columns or arr.dtype.kind not in "ui":
            raise ValueError(f"reports must be an integer matrix of {self.report_columns} columns (the device form "
                             f"m.simulate returns), got {arr.dtype} {arr.shape}")
        if arr.shape[0] == 0:
            raise ValueError("reports must hold at least one report")
        p = arr[:, 0].astype(np.int64)
        if p.min() < 0 or p.max() >= self.positions:
            raise ValueError(f"reports hold a position outside [0, {self.positions})")
        nf = self.fragment.report_columns
        return p, arr[:, 1:1 + nf], arr[:, 1 + nf:]

    def sketches(self, reports) -> PuzzleSketches:
        """The fragment sketch of each position's reports and the word sketch of all of them
        (device-form reports, or a ``PuzzleSketches`` as it is)."""
        if isinstance(reports, PuzzleSketches):
            if len(reports.fragments) != self.positions or reports.word is None:
                raise ValueError(f"sketches must hold {self.positions} fragment sketches and the word sketch")
            return reports
        ps, frags, words = self.split_reports(reports)
        fr = [SketchCounts(*self.fragment.sketch(frags[ps == p])) if np.any(ps == p) else None
              for p in range(self.positions)]
        return PuzzleSketches(fr, SketchCounts(*self.word.sketch(words)))

    def report_statistic(self):
        """The mergeable sketches (a fragment sketch per position and the word sketch)."""
        return PuzzleStatistic(self)

    def estimate(self, reports, candidates=None):
        """An Estimate: each candidate's share of the devices from the word sketch (all the
        reports; standard errors with the hash-collision term), in the candidates' order;
        candidates None: the strings ``discover`` finds (top 10), most frequent first.  reports:
        device-form reports or their ``sketches``."""
        sk = self.sketches(reports)
        if candidates is None:
            candidates = [r["value"] for r in self.discover(sk, top=10)]
        return self.word.estimate(sk.word, candidates)

    def top_fragments(self, reports, keep, alphabet=None):
        """For each position p, the ``keep`` fragments (r, c0, c1) with the largest estimated shares
        among the reports of p: a list of (estimates float64[keep'], fragments int64[keep']) with
        fragment = r << 16 | c0 << 8 | c1, largest first.  Scored: at p = 0, c0 a length byte 1..L
        and c1 in the alphabet; elsewhere c0, c1 in the alphabet or 0 (padding); alphabet None:
        every byte."""
        from ._kernels_sequence_fragment_puzzle import fragment_scores
        f = self.fragment
        m = f.width
        sk = self.sketches(reports)
        xs, ns = [], []
        for counts in sk.fragments:
            if counts is not None and int(np.asarray(counts.n_j).sum()):
                x, n_j, _ = f.cell_estimates(counts)
                xs.append(x)
                ns.append(int(n_j.sum()))
            else:
                xs.append(np.zeros((f.hashes, m)))
                ns.append(0)
        x_all = np.ascontiguousarray(np.stack(xs), np.float64)
        alpha = self._alphabet(alphabet)
        rest = np.union1d(alpha, [0]).astype(np.int64)
        groups = [(np.array([0], np.int64), np.arange(1, self.max_length + 1, dtype=np.int64), alpha)]
        if self.positions > 1:
            groups.append((np.arange(1, self.positions, dtype=np.int64), rest, rest))
        best = [(np.zeros(0), np.zeros(0, np.int64)) for _ in range(self.positions)]
        for pos, c0s, c1s in groups:
            per_r = c0s.size * c1s.size
            block = max(1, min(256, FRAGMENT_CANDIDATES // per_r))
            scores = np.empty((pos.size, block * per_r), np.float64)
            for r0 in range(0, 256, block):
                rs = np.arange(r0, min(256, r0 + block), dtype=np.int64)
                sc = scores[:, : rs.size * per_r]
                fragment_scores(x_all, f._coeffs(), np.uint32(32 - f.log2_width), rs, c0s, c1s, pos, sc)
                flat = np.arange(rs.size * per_r)
                ids = (rs[flat // per_r] << 16) | (c0s[(flat // c1s.size) % c0s.size] << 8) | c1s[flat % c1s.size]
                for i, p in enumerate(pos):
                    s = sc[i]
                    k = min(keep, s.size)
                    top = np.argpartition(-s, k - 1)[:k]
                    vals = np.concatenate([best[p][0], s[top]])
                    cand = np.concatenate([best[p][1], ids[top]])
                    order = np.argsort(-vals, kind="stable")[:keep]
                    best[p] = (vals[order], cand[order])
        out = []
        for p in range(self.positions):
            s, ids = best[p]
            est = (m / (m - 1)) * (s / ns[p] - 1.0 / m) if ns[p] else np.full(s.size, -np.inf)
            out.append((est, ids))
        return out

    @staticmethod
    def _alphabet(alphabet):
        """The bytes discovery scores (int64, sorted): alphabet as bytes or str (its UTF-8 bytes);
        None: 1..255."""
        if alphabet is None:
            return np.arange(1, 256, dtype=np.int64)
        if isinstance(alphabet, str):
            alphabet = alphabet.encode("utf-8")
        if not isinstance(alphabet, (bytes, bytearray)) or not alphabet:
            raise ValueError("alphabet must be a non-empty bytes or str (the bytes discovery scores), or None")
        return np.unique(np.frombuffer(bytes(alphabet), np.uint8)).astype(np.int64)

    def discover(self, reports, top=10, keep=None, alphabet=None):
        """The top strings found, most frequent first: rows {"value": bytes, "estimate", "stderr"}
        (the word sketch's estimates; module docstring); reports: device-form reports or their
        ``sketches``.  keep: the fragments kept per position and
        the partial strings kept per word hash at each position (default max(4 top, 64)); alphabet: the
        bytes the strings are made of (bytes or str; None: any byte), which the server alone
        uses: fewer candidate fragments, faster and with fewer false ones."""
        top = _check_int("top", top, 1, 1 << 16)
        keep = max(top * 4, 64) if keep is None else _check_int("keep", keep, top, 1 << 16)
        reports = self.sketches(reports)
        frags = self.top_fragments(reports, keep, alphabet)
        by_hash = {}
        for p, (est, ids) in enumerate(frags):
            for e, f in zip(est, ids):
                if np.isfinite(e):
                    by_hash.setdefault(int(f) >> 16, [[] for _ in range(self.positions)])[p].append(
                        (float(e), int(f) & 0xFFFF))
        found = []
        for r, lists in by_hash.items():
            partial = [(0.0, b"")]
            for p, pieces in enumerate(lists):
                grown = []
                for score, x in partial:
                    if p and 2 * p > x[0]:           # past the string: padding, known
                        grown.append((score, x + b"\x00\x00"))
                        continue
                    for e, c in pieces:
                        y = x + bytes([c >> 8, c & 0xFF])
                        if self._valid_prefix(y):
                            grown.append((score + e, y))
                grown.sort(key=lambda t: -t[0])
                partial = grown[:keep]
                if not partial:
                    break
            for _, x in partial:
                s = bytes(x[1:1 + x[0]])
                if self.word_hash(s) == r:
                    found.append(s)
        return self.ranked(reports, list(dict.fromkeys(found)), top)

    def _valid_prefix(self, y):
        """y (an even prefix of a padded vector) can begin the vector of a string: a length byte
        1..L, zero bytes past the string and past L + 1."""
        n = y[0]
        if not 1 <= n <= self.max_length:
            return False
        return not any(y[n + 1:])


def make_sequence_fragment_puzzle(epsilon, max_length=16, width=1024, hashes=16, fragment_width=None,
                                  fragment_hashes=None, fragment_share=Fraction(1, 2), hadamard=False,
                                  constant_time=False, bits=32, hash_key=None):
    """Apple's Sequence Fragment Puzzle client (module docstring): strings of 1..max_length bytes
    (max_length <= 254), epsilon in (0, 128] split into fragment_share (in (0, 1), default 1/2) for
    the fragment sketch and the rest for the word sketch; the word sketch's width (a power of two)
    and hashes, the fragment sketch's (default: the same); hadamard: HCMS for both."""
    return SequenceFragmentPuzzle(epsilon, max_length, width, hashes, fragment_width, fragment_hashes, fragment_share,
                                  hadamard, constant_time, bits, hash_key)


README_ROWS = {
    'sequence_fragment_puzzle': ('Apple 2017 (SFP)',
        '`epsilon = 8`, `max_length = 8`, `width = 256`, `hashes = 16`, `hadamard = true`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'sequence_fragment_puzzle_ct': lambda: make_sequence_fragment_puzzle(8, 5, 16, 4, fragment_width=8,
                                                                         constant_time=True, bits=16),
    'sequence_fragment_puzzle_lazy': lambda: make_sequence_fragment_puzzle(4, 6, 16, 4),
    'hadamard_sequence_fragment_puzzle_ct': lambda: make_sequence_fragment_puzzle(4, 8, 64, 300, fragment_hashes=4,
                                                                                  hadamard=True, constant_time=True,
                                                                                  bits=16),
    'hadamard_sequence_fragment_puzzle_lazy': lambda: make_sequence_fragment_puzzle(4, 7, 64, 12, hadamard=True),
}
EXPORT_VARIANTS = {'sequence_fragment_puzzle_lazy', 'hadamard_sequence_fragment_puzzle_lazy'}

__all__ = ["PuzzleSketches", "PuzzleStatistic", "SequenceFragmentPuzzle", "WORD_HASH_INDEX",
           "make_sequence_fragment_puzzle"]

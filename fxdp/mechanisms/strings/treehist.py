"""TreeHist (Bassily, Nissim, Stemmer and Thakurta, "Practical Locally Private Heavy Hitters",
NeurIPS 2017 / JMLR 2020) over byte strings: a prefix tree pruned by a threshold, then the
survivors' frequencies from a report of the whole string; the registered kind ``treehist``
(issue 34): the reference release, its privacy map and exact audit, the Numba fleet
(``_kernels_treehist.py``), the C device form (csrc/fxdp_mech_treehist.c: the Prefix Extending
Method's entry point, then the Hadamard Count Mean Sketch's), the wire codec and the server's
discovery.

A device holding a string s of at most L = max_length bytes reports

1. its prefix report: the Prefix Extending Method's release (fxdp.mechanisms.strings.prefix_extending:
   a level t uniform in [0, G), the prefix of the vector x = (len(s), s, zero padding) of
   l_t = min(start + (t + 1) step, L + 1) bytes, hashed to an item and released by local hashing)
   at epsilon_p = (1 - word_share) epsilon, and then
2. its word report: the Hadamard Count Mean Sketch's release of s (fxdp.mechanisms.strings.
   count_mean_sketch, ``width`` and ``hashes``) at epsilon_w = word_share epsilon.

The report is (t, a, b, y, j, l, bit).  The paper's tree is over the bits of the string, with one
level per bit; here a level adds ``step`` bytes (1 or 2), as pure-LDP's TreeHist adds a fragment of
``fragment_length`` characters: the tree of a 32-byte string has 33 levels, not 264.  Its
frequency oracles are the paper's Hashtogram in spirit (a hash to a small range, then a binary
randomized response: local hashing and HCMS are both of that shape); its final estimates, as the
paper's, come from a second report of the whole string.

Privacy.  Given the string the two reports are drawn independently and the level does not depend
on it, so the ratio of two strings' report probabilities is at most ratio_p * ratio_w (local
hashing's p/q times HCMS's (1 - q)/q): ``epsilon`` = ln(ratio_p ratio_w) rounded up, never above
the request (each part rounds its own probabilities toward more noise), over every pair of strings
(the local epsilon).  ``exact_audit`` exhibits two strings and a report that reach it.

The server (``discover``): level 0's candidates are every valid first prefix; each level keeps the
candidates whose estimated share (local hashing's unbiased estimator over the level's reports) is
at least the threshold, TreeHist's pruning (default: ``z`` = 4 standard errors of a prefix no device
holds at that level), at most ``keep`` of them (the largest), and extends them by every next byte
that keeps the vector valid.  The last level's survivors are the candidates; the word sketch over
all n reports estimates their shares (with the hash key's term in the standard error), and the
``top`` largest are returned.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ... import strhash
from ...conservative import log_up
from ...reports import AuditReport
from .._device import SRC_RNG, _init, u8, u32, u64
from ..base import CConfig, Mechanism
from ._strings import StringInput, check_epsilon, check_share
from .count_mean_sketch import HadamardCountMeanSketch, SketchCounts, _check_int
from .prefix_extending import MAX_LEVEL_CANDIDATES, PrefixExtending

SRC_TREEHIST = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_strhash.c", "fxdp_mech_local_hashing.c",
                          "fxdp_mech_prefix_extending.c", "fxdp_mech_unary_encoding.c",
                          "fxdp_mech_count_mean_sketch.c", "fxdp_mech_treehist.c"]


class TreeHist(StringInput, Mechanism):
    """TreeHist's client over byte strings (see the module docstring)."""
    kind = "treehist"
    report_dtype = "int64"
    report_columns = 7

    def __init__(self, max_length, epsilon, start=1, step=1, width=1024, hashes=1024, word_share=Fraction(1, 2),
                 optimized=True, constant_time=False, bits=32, hash_key=None):
        for name, v in (("optimized", optimized), ("constant_time", constant_time)):
            if not isinstance(v, bool):
                raise TypeError(f"{name} must be a bool, got {type(v).__name__}")
        self.word_share = check_share(word_share, "word_share")
        self.epsilon_requested = check_epsilon(epsilon, 128)
        self.constant_time, self.optimized = constant_time, optimized
        eps_w = self.epsilon_requested * self.word_share
        try:
            self.prefix = PrefixExtending(max_length, self.epsilon_requested - eps_w, start, step, optimized,
                                          constant_time, bits, hash_key)
        except ValueError as e:
            raise ValueError(f"the prefix report (epsilon {float(self.epsilon_requested - eps_w)!r} of the "
                             f"{float(epsilon)!r} requested): {e}") from None
        self.max_length = self.prefix.max_length
        try:
            self.word = HadamardCountMeanSketch(width, hashes, eps_w, self.max_length, constant_time, bits, hash_key)
        except ValueError as e:
            raise ValueError(f"the word report (epsilon {float(eps_w)!r} of the {float(epsilon)!r} requested): "
                             f"{e}") from None
        self.hash_key, self._hash_key_arg = self.prefix.hash_key, hash_key
        self.bits = self.word.bits
        self.levels, self.groups = self.prefix.levels, self.prefix.groups
        self._ratio = self.prefix.oracle._ratio * self.word._ratio
        self._eps = log_up(self._ratio)

    # --- description
    @property
    def output_domain(self):
        return f"TupleDomain({self.prefix.output_domain}, {self.word.output_domain})"

    @property
    def bits_per_report(self):
        return self.prefix.bits_per_report + self.word.bits_per_report

    def config(self):
        p, w = self.prefix, self.word
        return {"max_length": self.max_length, "epsilon": self.epsilon_requested, "start": p.start, "step": p.step,
                "width": w.width, "hashes": w.hashes, "word_share": self.word_share, "optimized": self.optimized,
                "constant_time": self.constant_time, "bits": self.bits, "hash_key": self._hash_key_arg}

    def realized(self):
        return {"epsilon": self._eps, "prefix": self.prefix.realized(),
                "word": {**self.word.realized(), "width": self.word.width, "hashes": self.word.hashes}}

    # --- release
    def release(self, src, x):
        """((t, a, b, y), (j, l, bit)): the prefix report, then the word report."""
        return (self.prefix._release(src, x), self.word._release(src, x))

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_treehist import fleet_treehist
        p, o, w = self.prefix, self.prefix.oracle, self.word
        out = np.zeros((x.shape[0], 7), np.int64)
        fleet_treehist(key, ids, first_block, np.uint64(p.groups), np.array(p.levels, np.int64), p._coeffs(),
                       np.uint64(o.a_p), np.uint64(o.w), np.uint64(o.bits), np.uint64(o.g), np.uint64(o.prime),
                       w._coeffs(), np.uint32(32 - w.log2_width), np.uint64(w.hashes), np.uint64(w.width),
                       np.uint64(w.a_q), np.uint64(w.bits), bool(self.constant_time), x, out, status, bits)
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation, bit for bit as ``release`` and the C form: an n x 7 int64 array of
        (t, a, b, y, j, l, bit)."""
        return super().simulate(values, seed, device_ids)

    def release_output(self, out):
        v = [int(u) for u in out]
        return (tuple(v[:4]), tuple(v[4:]))

    def report_fields(self):
        from .._wire import ReportField
        return self.prefix.report_fields() + [ReportField("j", 1, 0, self.word.hashes - 1),
                                              ReportField("l", 1, 0, self.word.width - 1),
                                              ReportField("bit", 1, 0, 1)]

    # --- the device form (csrc/fxdp_mech_treehist.c)
    def _device_check(self):
        from ._device_count_mean_sketch import check_device
        self.prefix._device_check()
        check_device(self.word)

    def device_spec(self, dim=None):
        """The C device form: the Prefix Extending Method's config and the word HCMS's config."""
        from ._device_count_mean_sketch import _ue_fields
        self._device_check()
        p, o, w = self.prefix, self.prefix.oracle, self.word
        key = "{ " + ", ".join(u32(v) for v in strhash.key_words(self.hash_key)) + " }"
        lh = _init([("a_p", u64(o.a_p)), ("w", u64(o.w)), ("d", u32(o.d)), ("g", u32(o.g)), ("bits", u8(o.bits))])
        pem = _init([("lh", lh), ("key", key), ("max_len", u32(p.max_length)), ("groups", u32(p.groups)),
                     ("start", u8(p.start)), ("step", u8(p.step))])
        word = _init([("ue", _init(_ue_fields(w))), ("key", key), ("hashes", u32(w.hashes)),
                      ("max_len", u32(w.max_length)), ("log2_width", u8(w.log2_width))])
        return {
            "in_place": True,              # the two reports drawn into out, zeroed on an entropy failure
            "c_function": "fxdp_treehist" + ("_ct" if self.constant_time else ""),
            "cfg_type": "fxdp_treehist_cfg",
            "cfg_init": _init([("prefix", pem), ("word", word)]),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": self.max_length + 1,
                      "meaning": "the encoded string: [len] || bytes || padding, 1 <= len <= max_length"},
            "output": {"ctype": "uint32_t", "count": 7,
                       "meaning": "the prefix report (t, a, b, y), then the word report (j, l, bit)"},
            "sources": list(SRC_TREEHIST),
            "summary": (f"TreeHist, strings of 1..{self.max_length} bytes: a prefix of one of {p.groups} levels by "
                        f"local hashing (g = {o.g}) and the string by a Hadamard Count Mean Sketch (k = {w.hashes}, "
                        f"m = {w.width}); epsilon <= {self.epsilon!r}; "
                        + ("constant time in the string and its length (local hashing's seed: 62 bits unless a "
                           "retry, p < 2^-29)" if self.constant_time else
                           "lazy (not constant time: time and bits used depend on the draw)")),
        }

    def c_config(self, dim=None):
        from ... import native
        self._device_check()
        p, o, w = self.prefix, self.prefix.oracle, self.word
        keyw = list(strhash.key_words(self.hash_key))
        cfg = native.ffi.new("fxdp_treehist_cfg *", {
            "prefix": {"lh": {"a_p": o.a_p, "w": o.w, "d": o.d, "g": o.g, "bits": o.bits}, "key": keyw,
                       "max_len": p.max_length, "groups": p.groups, "start": p.start, "step": p.step},
            "word": {"ue": {"a_p": (1 << w.bits) - w.a_q, "a_q": w.a_q, "d": w.width, "bits": w.bits}, "key": keyw,
                     "hashes": w.hashes, "max_len": w.max_length, "log2_width": w.log2_width}})
        return CConfig(cfg, [], "fxdp_treehist" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint8_t", np.uint8, out_ctype="uint32_t", out_dtype=np.uint32, out_count=7)

    # --- the exact audit
    def report_pmf(self, report, x):
        """P(report | x), exactly: report = ((t, a, b, y), (j, l, bit))."""
        (t, a, b, y), (j, l, bit) = report
        p, o = self.prefix, self.prefix.oracle
        z = p.item(t, strhash.encode(x, self.max_length)[: p.levels[t]])
        pr_lh = Fraction(1, o.prime * (o.prime - 1)) * (o.p if y == o.hash(a, b, z) else o.q)
        return Fraction(1, p.groups) * pr_lh * self.word.report_pmf(j, l, bit, x)

    def exact_audit(self, d_in=1):
        """Closed form: the ratio is local hashing's for the level's items times HCMS's, each at
        most its worst (p/q and (1 - q)/q).  Both are reached at once for two strings whose level-0
        items differ (a seed (a, b) of local hashing then separates them) and that some word hash
        index separates: the witness is the first such pair b"\\x00", b"\\x01", ... and the report
        with y and the Hadamard bit those of the first string."""
        if d_in == 0:
            return AuditReport(repr(self), 0.0, 0.0, {}, "closed form (product channel)", d_in=0)
        p, o, w = self.prefix, self.prefix.oracle, self.word
        s = b"\x00"
        zs = p.item(0, strhash.encode(s, self.max_length)[: p.levels[0]])
        for k in range(1, 256):
            other = bytes([k])
            zo = p.item(0, strhash.encode(other, self.max_length)[: p.levels[0]])
            wr = next(((j, l) for j in range(w.hashes) for l in [self._hadamard_row(j, s, other)] if l is not None),
                      None)
            if zs == zo or wr is None:
                continue
            a, b = next((a, b) for a in range(1, 64) for b in range(64) if o.hash(a, b, zs) != o.hash(a, b, zo))
            j, l = wr
            report = ((0, a, b, o.hash(a, b, zs)), (j, l, bin(l & w.cell(j, s)).count("1") & 1))
            ratio = self.report_pmf(report, s) / self.report_pmf(report, other)
            return AuditReport(repr(self), self._eps, log_up(ratio),
                               {"x": s.hex(), "x_prime": other.hex(), "t": 0, "a": a, "b": b, "j": j, "l": l},
                               "closed form (product channel)", d_in=d_in)
        return AuditReport(repr(self), self._eps, 0.0, {"note": "no seed and hash index separate the witnesses"},
                           "closed form (product channel)", d_in=d_in)

    def _hadamard_row(self, j, s, t):
        u, v = self.word.cell(j, s), self.word.cell(j, t)
        if u == v:
            return None
        return next(l for l in range(self.word.width) if (bin(l & u).count("1") - bin(l & v).count("1")) & 1)

    # --- the server
    def split_reports(self, reports):
        """(the prefix reports int64[n, 4], the word reports int64[n, 3])."""
        r = np.asarray(reports)
        if r.ndim != 2 or r.shape[1] != 7 or r.shape[0] == 0 or r.dtype.kind not in "ui":
            raise ValueError("reports must be an n x 7 integer array of (t, a, b, y, j, l, bit), n >= 1")
        r = r.astype(np.int64)
        return r[:, :4], r[:, 4:]

    def estimate(self, reports, candidates=None):
        """An Estimate: each candidate's share of the devices from the word reports (the Hadamard
        Count Mean Sketch over all n; standard errors with the hash key's term), in the candidates'
        order; candidates None: the strings ``discover`` finds (top 10), most frequent first."""
        if candidates is None:
            candidates = [r["value"] for r in self.discover(reports, top=10)]
        _, words = self.split_reports(reports)
        return self.word.estimate(SketchCounts(*self.word.sketch(words.astype(np.uint32))), candidates)

    def discover(self, reports, top=10, threshold=None, z=4.0, keep=None):
        """The top strings found, most frequent first: rows {"value": bytes, "estimate", "stderr"}
        (the word reports' estimates).  Each level keeps the prefixes whose estimated share is at
        least ``threshold`` (default: z standard errors of a share of 0 at that level), at most
        ``keep`` (default max(4 top, 64)) of them, the largest."""
        top = _check_int("top", top, 1, 1 << 16)
        keep = max(top * 4, 64) if keep is None else _check_int("keep", keep, top, 1 << 20)
        if threshold is not None and not (isinstance(threshold, (int, float)) and 0 <= threshold <= 1):
            raise ValueError(f"threshold must be a share in [0, 1] or None, got {threshold!r}")
        if not isinstance(z, (int, float)) or not 0 < z < 64:
            raise ValueError(f"z must be in (0, 64), got {z!r}")
        p = self.prefix
        pre, _ = self.split_reports(reports)
        first = self.max_length * 256 ** max(0, self.levels[0] - 1) if self.levels[0] > 1 else self.max_length
        if first > MAX_LEVEL_CANDIDATES:
            raise ValueError(f"discovery would score {first:,} candidates at level 0 (every valid prefix of "
                             f"start + step = {self.levels[0]} bytes; at most {MAX_LEVEL_CANDIDATES:,}): use start + "
                             "step <= 3")
        cands = p._extend([b""], self.levels[0])
        for t, length in enumerate(self.levels):
            if t:
                cands = p._extend(cands, length)
            if not cands:
                return []
            est, _, n_t = p.estimate_prefixes(pre, t, cands)
            if n_t == 0:
                return []
            cut = threshold if threshold is not None else z * float(np.sqrt(p.oracle.variance(0.0, n_t)))
            order = np.argsort(-est, kind="stable")[:keep]
            cands = [cands[i] for i in order if est[i] >= cut]
        return self.ranked(reports, [bytes(c[1:1 + c[0]]) for c in cands], top)


def make_treehist(max_length, epsilon, start=1, step=1, width=1024, hashes=1024, word_share=Fraction(1, 2),
                  optimized=True, constant_time=False, bits=32, hash_key=None):
    """TreeHist's client (module docstring): strings of 1..max_length bytes (max_length <= 254),
    epsilon in (0, 128] split into word_share (in (0, 1), default 1/2) for the word report (a
    Hadamard Count Mean Sketch of ``width`` and ``hashes``) and the rest for the prefix report (the
    Prefix Extending Method's levels of start, then step bytes more)."""
    return TreeHist(max_length, epsilon, start, step, width, hashes, word_share, optimized, constant_time, bits,
                    hash_key)


README_ROWS = {
    'treehist': ('Bassily et al. 2017 (TreeHist)',
        '`max_length = 8`, `epsilon = 8`, `width = 256`, `hashes = 256`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'treehist_ct': lambda: make_treehist(6, 8, width=64, hashes=300, constant_time=True, bits=16),
    'treehist_lazy': lambda: make_treehist(7, 6, width=64, hashes=12, optimized=False),
}
EXPORT_VARIANTS = {'treehist_lazy'}

__all__ = ["TreeHist", "make_treehist"]

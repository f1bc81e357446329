"""The Prefix Extending Method (PEM; Wang, Li and Jha, "Locally Differentially Private Heavy Hitter
Identification", TDSC 2019): finds the frequent strings without a candidate list; the registered
kind ``prefix_extending`` (issue 34): the reference release, its privacy map and audit, the Numba
fleet, the C device form (csrc/fxdp_mech_prefix_extending.c: the group's prefix hashed, then
``fxdp_local_hashing[_ct]``), the wire codec and the server's discovery.  Reports, as ``simulate``
returns them and the device writes them: rows (t, a, b, y).

A string s of at most L = max_length bytes is the byte vector x = (len(s), s, zero padding) of
L + 1 bytes (fxdp.strhash.encode), so strings of different lengths are different vectors and
the first byte found is the length.  Devices are split into G groups, G = ceil((L + 1 - start) /
step) for a first prefix of `start` bytes and `step` bytes more per group: group t in [0, G)
reports the prefix of x of l_t = min(start + (t + 1) step, L + 1) bytes.

A device

1. draws its group t uniform in [0, G) (``uniform_below``; ``uniform_below_ct`` in constant time),
2. compresses its prefix to an item of [0, 2^30): z = h_t(prefix) >> 2 with the keyed string hash
   of fxdp.strhash (hash index t, the prefix as a string of at most L + 1 bytes), and
3. releases z with local hashing (OLH, or BLH with optimized=False) over 2^30 items: the report
   is (t, a, b, y).

t does not depend on s and z is a function of s, so the report's epsilon is the local hashing
release's, over every pair of strings (realized, rounded up, never above the request).  Two
distinct prefixes of one level share an item with probability 2^-30 over the hash key; such a
pair adds the other's count to both.

The server (``discover``): level 0's candidates are every prefix of `start` bytes that can begin
a valid vector (a length byte in [1, L]); each level keeps the `keep` candidates with the largest
estimates from its group's reports and extends each by every next byte that keeps the vector
valid (a byte after the string's length must be 0); the last level's survivors are the strings
found, with their estimated shares and standard errors (local hashing's unbiased estimator over
the group's n_t reports: the group is a uniform sample of the devices).
"""
from __future__ import annotations

import numpy as np

from ... import strhash
from ...reports import AuditReport
from ...samplers import reference as ref
from .._device import SRC_RNG, _init, u8, u32, u64
from ..base import CConfig, Mechanism
from ..oracles.local_hashing import LocalHashing
from ._strings import StringInput

SRC_PREFIX_EXTENDING = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_strhash.c", "fxdp_mech_local_hashing.c",
                                  "fxdp_mech_prefix_extending.c"]

ITEM_BITS = 30                          # compressed prefixes: items of [0, 2^30) < 2^31 - 1
MAX_LEVEL_CANDIDATES = 1 << 22          # discovery's first level: every valid prefix is scored


def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int in [{lo}, {hi}], got {type(value).__name__}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{name} must be in [{lo}, {hi}], got {value}")
    return int(value)


class PrefixExtending(StringInput, Mechanism):
    """The Prefix Extending Method client over byte strings (see the module docstring)."""
    kind = "prefix_extending"

    def __init__(self, max_length, epsilon, start=2, step=1, optimized=True, constant_time=False, bits=32,
                 hash_key=None):
        self.max_length = strhash.check_max_length(max_length)
        if self.max_length == strhash.MAX_LENGTH:
            raise ValueError(f"max_length must be in [1, {strhash.MAX_LENGTH - 1}] (the prefixes are hashed as "
                             f"strings of max_length + 1 bytes), got {max_length}")
        width = self.max_length + 1
        self.start = _check_int("start", start, 1, min(2, width))
        self.step = _check_int("step", step, 1, 2)
        if not isinstance(constant_time, bool) or not isinstance(optimized, bool):
            raise TypeError("constant_time and optimized must be bools")
        self.constant_time, self.optimized = constant_time, optimized
        self.hash_key = strhash.parse_hash_key(hash_key)
        self._hash_key_arg = hash_key
        self.oracle = LocalHashing(1 << ITEM_BITS, epsilon, optimized=optimized, constant_time=constant_time,
                                   bits=bits)
        self.bits = self.oracle.bits
        self.epsilon_requested = self.oracle.epsilon_requested
        self.levels = [min(self.start + (t + 1) * self.step, width)
                       for t in range(-(-(width - self.start) // self.step))] or [width]
        self.groups = len(self.levels)

    # --- description
    @property
    def output_domain(self):
        return f"(group t < {self.groups}, {self.oracle.output_domain})"

    @property
    def bits_per_report(self):
        return (self.groups - 1).bit_length() + self.oracle.bits_per_report

    def privacy_map(self, d_in):
        return self.oracle.privacy_map(d_in)

    def config(self):
        return {"max_length": self.max_length, "epsilon": self.epsilon_requested, "start": self.start,
                "step": self.step, "optimized": self.optimized, "constant_time": self.constant_time,
                "bits": self.bits, "hash_key": self._hash_key_arg}

    def realized(self):
        return {**self.oracle.realized(), "groups": self.groups, "levels": self.levels,
                "hash_key": self.hash_key.hex()}

    # --- input and release
    def item(self, t, prefix):
        """The item of [0, 2^30) that group t's device releases for its prefix (bytes of x)."""
        return strhash.hash32(self.hash_key, t, bytes(prefix), self.max_length + 1) >> (32 - ITEM_BITS)

    def _coeffs(self):
        if getattr(self, "_coeff_table", None) is None:
            from ...samplers._nb_strhash import strhash_table
            self._coeff_table = strhash_table(np.array(strhash.key_words(self.hash_key), np.uint32), self.groups,
                                              self.max_length + 1)
        return self._coeff_table

    def _items(self, t, prefixes):
        """int64 items of many prefixes of level t (the Numba hash; ``item``'s values)."""
        from ...samplers._nb_strhash import strhash32_rows
        rows = strhash.encoded_rows(prefixes, bytes, self.max_length + 1)
        h = np.empty(len(prefixes), np.uint32)
        strhash32_rows(self._coeffs()[t], rows, h)
        return (h >> np.uint32(32 - ITEM_BITS)).astype(np.int64)

    def release(self, src, x):
        """(t, a, b, y): the group, then local hashing's release of the item of the group's prefix."""
        t = ref.uniform_below_ct(src, self.groups) if self.constant_time else ref.uniform_below(src, self.groups)
        prefix = strhash.encode(x, self.max_length)[: self.levels[t]]
        a, b, y = self.oracle._release(src, self.item(t, prefix))
        return (int(t), a, b, y)

    # --- the fleet (Numba, all cores): bit for bit the reference release of every device
    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_prefix_extending import fleet_prefix_extending
        o = self.oracle
        out = np.zeros((x.shape[0], 4), np.int64)
        fleet_prefix_extending(key, ids, first_block, np.uint64(self.groups), np.array(self.levels, np.int64),
                               self._coeffs(), np.uint64(o.a_p), np.uint64(o.w), np.uint64(o.bits), np.uint64(o.g),
                               np.uint64(o.prime), bool(self.constant_time), x, out, status, bits)
        return out

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation: device i releases values[i] on the keyed stream (seed, device_ids[i],
        stream 0), bit for bit as ``release``.  Returns an n x 4 int64 array of (t, a, b, y)."""
        return super().simulate(values, seed, device_ids)

    # --- audit: the local hashing release's, over every pair of strings
    def exact_audit(self, d_in=1):
        """The ratio of two strings' report probabilities is local hashing's for their items in the
        reported group (t independent of the string): the oracle's audit, whose witness items are
        items of distinct prefixes (any two strings of different length differ in every group's
        prefix, and distinct items reach the oracle's worst ratio)."""
        rep = self.oracle.exact_audit(d_in)
        return AuditReport(repr(self), self.privacy_map(d_in), rep.epsilon_realized,
                           {"oracle": "local_hashing over the compressed prefixes", **rep.witness},
                           rep.method, d_in=d_in)

    # --- the device form (csrc/fxdp_mech_prefix_extending.c)
    report_dtype = "int64"

    def _device_check(self):
        self.oracle._device_check()

    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base): local hashing's config over 2^30
        items, the hash key's 8 words, L, G, start and step; out = (t, a, b, y)."""
        self._device_check()
        o = self.oracle
        lh = _init([("a_p", u64(o.a_p)), ("w", u64(o.w)), ("d", u32(o.d)), ("g", u32(o.g)), ("bits", u8(o.bits))])
        key = "{ " + ", ".join(u32(w) for w in strhash.key_words(self.hash_key)) + " }"
        ct = self.constant_time
        return {
            "c_function": "fxdp_prefix_extending" + ("_ct" if ct else ""),
            "cfg_type": "fxdp_prefix_extending_cfg",
            "cfg_init": _init([("lh", lh), ("key", key), ("max_len", u32(self.max_length)),
                               ("groups", u32(self.groups)), ("start", u8(self.start)), ("step", u8(self.step))]),
            "tables": [],
            "input": {"ctype": "uint8_t", "count": self.max_length + 1,
                      "meaning": "the encoded string: [len] || bytes || padding, 1 <= len <= max_length"},
            "output": {"ctype": "uint32_t", "count": 4, "meaning": "the group t, then local hashing's (a, b, y)"},
            "sources": list(SRC_PREFIX_EXTENDING),
            "summary": (f"Prefix Extending Method, strings of 1..{self.max_length} bytes in {self.groups} groups of "
                        f"prefixes, each compressed by the string hash to 2^{ITEM_BITS} items and released by local "
                        f"hashing (g = {o.g}); epsilon <= {self.epsilon!r}; "
                        + ("constant time in the string and its length" if ct else
                           "lazy (not constant time: time and bits used depend on the draw)")),
        }

    def c_config(self, dim=None):
        from ... import native
        self._device_check()
        o = self.oracle
        cfg = native.ffi.new("fxdp_prefix_extending_cfg *", {
            "lh": {"a_p": o.a_p, "w": o.w, "d": o.d, "g": o.g, "bits": o.bits},
            "key": list(strhash.key_words(self.hash_key)), "max_len": self.max_length, "groups": self.groups,
            "start": self.start, "step": self.step})
        return CConfig(cfg, [], "fxdp_prefix_extending" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint8_t", np.uint8, out_ctype="uint32_t", out_dtype=np.uint32, out_count=4)

    def release_output(self, out):
        return tuple(int(v) for v in out)

    def report_fields(self):
        from .._wire import ReportField
        o = self.oracle
        return [ReportField("t", 1, 0, self.groups - 1), ReportField("a", 1, 1, o.prime - 1),
                ReportField("b", 1, 0, o.prime - 1), ReportField("y", 1, 0, o.g - 1)]

    # --- the server
    def estimate(self, reports, candidates=None):
        """An Estimate: the shares of the devices holding each candidate string (the last group's
        reports, local hashing's unbiased estimator), in the candidates' order; candidates None:
        the strings ``discover`` finds (top 10), most frequent first."""
        from ...reports import Estimate
        if candidates is None:
            rows = self.discover(reports, top=10)
            cand = [r["value"] for r in rows]
            est, se = np.array([r["estimate"] for r in rows]), np.array([r["stderr"] for r in rows])
        else:
            cand = [self.check_input(c) for c in candidates]
            full = [strhash.encode(c, self.max_length)[: self.levels[-1]] for c in cand]
            est, se, _ = self.estimate_prefixes(reports, self.groups - 1, full)
        return Estimate("frequency", np.asarray(est, float), np.asarray(se, float),
                        labels=[c.decode("utf-8", "backslashreplace") for c in cand])

    def _reports(self, reports):
        r = np.asarray(reports, dtype=np.int64)
        if r.ndim != 2 or r.shape[1] != 4 or r.shape[0] == 0:
            raise ValueError("reports must be an n x 4 array of (t, a, b, y), n >= 1")
        if r[:, 0].min() < 0 or r[:, 0].max() >= self.groups:
            raise ValueError(f"reports hold a group outside [0, {self.groups})")
        self.oracle._reports(r[:, 1:])
        return r

    def _valid_next(self, prefix):
        """The bytes that may follow a prefix of a valid vector."""
        if not prefix:
            return range(1, self.max_length + 1)              # the length byte
        return range(256) if len(prefix) - 1 < prefix[0] else range(1)

    def _extend(self, prefixes, to):
        out = []
        for p in prefixes:
            todo = [p]
            while len(todo[0]) < to:
                todo = [q + bytes([c]) for q in todo for c in self._valid_next(q)]
            out += todo
        return out

    def estimate_prefixes(self, reports, t, prefixes):
        """(estimates, stderr, n_t): the shares of the devices whose level-t prefix is each given
        prefix (group t's reports; local hashing's unbiased estimator and closed-form variance)."""
        from ._kernels_prefix_extending import item_support
        r = self._reports(reports)
        g = r[r[:, 0] == t]
        n_t = g.shape[0]
        if n_t == 0:
            return np.zeros(len(prefixes)), np.full(len(prefixes), np.inf), 0
        items = self._items(t, prefixes)
        s = np.zeros(items.size, np.int64)
        item_support(np.ascontiguousarray(g[:, 1]), np.ascontiguousarray(g[:, 2]), np.ascontiguousarray(g[:, 3]),
                     items, np.uint64(self.oracle.g), np.uint64(self.oracle.prime), s)
        p, qs = float(self.oracle.p), float(self.oracle.q_star)
        est = (s / n_t - qs) / (p - qs)
        return est, np.sqrt(self.oracle.variance(np.clip(est, 0.0, 1.0), n_t)), n_t

    def discover(self, reports, top=10, keep=None):
        """The top strings found, most frequent first: rows {"value": bytes, "estimate", "stderr"}
        (module docstring); keep: the candidates kept at each level (default 4 top)."""
        top = _check_int("top", top, 1, 1 << 20)
        keep = top * 4 if keep is None else _check_int("keep", keep, top, 1 << 20)
        first = self.max_length * 256 ** max(0, self.levels[0] - 1) if self.levels[0] > 1 else self.max_length
        if first > MAX_LEVEL_CANDIDATES:
            raise ValueError(f"discovery would score {first:,} candidates at level 0 (every valid prefix of "
                             f"start + step = {self.levels[0]} bytes; at most {MAX_LEVEL_CANDIDATES:,}): use start + "
                             "step <= 3")
        cands = self._extend([b""], self.levels[0])
        for t, length in enumerate(self.levels):
            if t:
                cands = self._extend(cands, length)
            est, se, _ = self.estimate_prefixes(reports, t, cands)
            order = np.argsort(-est, kind="stable")[: (top if t == self.groups - 1 else keep)]
            cands, est, se = [cands[i] for i in order], est[order], se[order]
        return [{"value": bytes(c[1:1 + c[0]]), "estimate": float(e), "stderr": float(s)}
                for c, e, s in zip(cands, est, se)]


def make_prefix_extending(max_length, epsilon, start=2, step=1, optimized=True, constant_time=False, bits=32,
                          hash_key=None):
    """The Prefix Extending Method client (module docstring): strings of 1..max_length bytes
    (max_length <= 254), epsilon as local hashing takes it, prefixes of start (1 or 2) bytes then
    step (1 or 2) bytes more per group."""
    return PrefixExtending(max_length, epsilon, start, step, optimized, constant_time, bits, hash_key)


README_ROWS = {
    'prefix_extending': ('Wang, Li and Jha 2019 (PEM)',
        '`max_length = 8`, `epsilon = 4`, `start = 1`, `step = 1`, `constant_time = true`'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    'prefix_extending_ct': lambda: make_prefix_extending(6, 4, constant_time=True, bits=16),
    'prefix_extending_lazy': lambda: make_prefix_extending(6, 2, start=1, step=2),
}
EXPORT_VARIANTS = {'prefix_extending_lazy'}

__all__ = ["ITEM_BITS", "PrefixExtending", "make_prefix_extending"]

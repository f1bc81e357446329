"""What the string mechanisms (Count Mean Sketch, Prefix Extending Method) share: their input, a
byte string of 1..max_length bytes (a str is UTF-8 encoded), in the device form of encoded rows
(fxdp.strhash.encode: length, bytes, zero padding), and the synthetic population of ``fxdp
simulate``, the demo and the error plot."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ... import strhash

SYNTHETIC_WORDS = 64           # the synthetic population: Zipf(1) over b"word-00" .. b"word-63"


def check_epsilon(epsilon, hi):
    """A requested epsilon in (0, hi] (int, float, Fraction or numpy number), as a Fraction."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, Fraction, np.integer, np.floating)):
        raise TypeError(f"epsilon must be a number in (0, {hi}], got {type(epsilon).__name__}")
    if not (isinstance(epsilon, Fraction) or math.isfinite(float(epsilon))) or not 0 < epsilon <= hi:
        raise ValueError(f"epsilon must be in (0, {hi}], got {epsilon}")
    return Fraction(epsilon)


def check_share(share, name):
    """A share of the epsilon: a number in (0, 1), as a Fraction."""
    if isinstance(share, bool) or not isinstance(share, (int, float, Fraction, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number in (0, 1), got {type(share).__name__}")
    try:
        value = Fraction(share)
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a number in (0, 1), got {share}") from None
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {share}")
    return value


class StringInput:
    """Mixin of a mechanism over byte strings of 1..``self.max_length`` bytes."""
    input_domain = "AtomDomain(bytes)"
    input_metric = "DiscreteMetric"
    string_input = True

    def check_input(self, x):
        return strhash.check_value(x, self.max_length)

    def fleet_inputs(self, values):
        """The strings as encoded rows uint8[n, max_length + 1] (fxdp.strhash.encoded_rows), each
        checked; an integer matrix of that shape is taken as encoded rows already (the device form:
        length, bytes, and padding that is ignored; fxdp.strhash.canonical_rows)."""
        if isinstance(values, np.ndarray) and values.ndim == 2 and values.dtype.kind in "ui":
            return strhash.canonical_rows(values, self.max_length)
        return strhash.encode_strings(values, self.max_length)

    def harness_inputs(self):
        """Encoded strings whose every byte is in [1, max_length]: a valid length, then bytes (those
        past the length are padding, ignored as on the device)."""
        return {"kind": "int", "lo": 1, "span": self.max_length, "sim_dtype": "uint8", "sim_flat": False}

    def synthetic_words(self):
        """The synthetic population's distinct strings (their last max_length bytes)."""
        return list(dict.fromkeys(f"word-{i:02d}".encode()[-self.max_length:] for i in range(SYNTHETIC_WORDS)))

    def synthetic_population(self, devices, seed):
        """(encoded rows of the devices' strings, their shares): Zipf(1) over ``synthetic_words``,
        drawn from numpy's PCG64 seeded with (seed, 0x5EED)."""
        from ...validate import check_int
        devices = check_int("devices", devices, 1)
        words = self.synthetic_words()
        w = 1.0 / np.arange(1, len(words) + 1)
        idx = np.random.default_rng([int(seed), 0x5EED]).choice(len(words), size=devices, p=w / w.sum())
        rows = strhash.encoded_rows(words, self.check_input, self.max_length)[idx]
        return rows, self.true_statistic(rows)

    def true_statistic(self, values):
        """{string: share of the devices} of every distinct string, most frequent first (ties in
        byte order)."""
        rows = self.fleet_inputs(values)
        if rows.shape[0] == 0:
            raise ValueError("values must hold at least one string")
        uniq, counts = np.unique(rows, axis=0, return_counts=True)
        order = sorted(range(len(uniq)), key=lambda i: (-counts[i], strhash.row_bytes(uniq[i])))
        n = rows.shape[0]
        return {strhash.row_bytes(uniq[i]): Fraction(int(counts[i]), n) for i in order}

    def privacy_map(self, d_in):
        """The realized epsilon ``self._eps`` (rounded up) for d_in >= 1, 0 for d_in = 0: every
        pair of strings is a pair of neighbours (a kind whose epsilon is another's has its own)."""
        if d_in < 0:
            raise ValueError(f"d_in must be >= 0, got {d_in}")
        return 0.0 if d_in == 0 else self._eps

    def estimate_rows(self, reports, truth=None):
        """Rows {name, true, estimate, stderr}: of the candidates in truth ({string: share}), else of
        ``m.candidates`` (a list set by the caller), else of the strings the kind's ``estimate``
        gives without candidates (the discovery kinds: the top 10 found).  The Count Mean Sketch,
        which finds no string by itself, has its own."""
        if isinstance(truth, dict):
            return self.estimate(reports, list(truth)).as_rows([float(v) for v in truth.values()])
        return self.estimate(reports, getattr(self, "candidates", None)).as_rows(None)

    def ranked(self, reports, found, top):
        """The ``top`` of the strings found by their ``estimate`` from the reports, most frequent
        first: rows {"value": bytes, "estimate", "stderr"} (discovery's last step)."""
        if not found:
            return []
        est = self.estimate(reports, found)
        order = np.argsort(-est.estimate, kind="stable")[:top]
        return [{"value": found[i], "estimate": float(est.estimate[i]), "stderr": float(est.stderr[i])}
                for i in order]

    def output_distribution(self, x, x_prime):
        raise ValueError(f"{self.kind}: a report has too many outcomes to enumerate; the exact distribution is not "
                         "drawn (fxdp.audit gives the worst case in closed form)")

    def default_pair(self):
        """The audit's witness strings where it names strings (hex), else b"\\x00", b"\\x01"."""
        w = self.exact_audit().witness
        if isinstance(w.get("x"), str) and isinstance(w.get("x_prime"), str):
            return bytes.fromhex(w["x"]), bytes.fromhex(w["x_prime"])
        return b"\x00", b"\x01"

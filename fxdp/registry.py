"""The one registry of mechanism kinds.

A *kind* is the TOML ``kind`` and the constructor name without ``make_``.  Each
entry names the family module that defines ``make_<kind>`` and whether the kind
has a C device form (``fxdp export``).  ``fxdp.config``, the command line, the
firmware exporter, ``fxdp.make_<kind>`` and the README's kind table all read
this list; adding a mechanism adds one line here (or one ``register`` call from
the family's own package, see docs/architecture.md).

Modules are imported on first use, so reading the registry compiles nothing.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Kind:
    kind: str             # TOML kind; the constructor is make_<kind>
    module: str           # the family module defining make_<kind>
    exportable: bool      # has a C device form (m.device_spec())
    summary: str          # one line for listings

    @property
    def constructor_name(self) -> str:
        return f"make_{self.kind}"

    def constructor(self):
        return getattr(importlib.import_module(self.module), self.constructor_name)


_KINDS: dict[str, Kind] = {}


def register(kind, module, exportable=True, summary=""):
    """Add a mechanism kind (ValueError if the name is taken by another module)."""
    if not isinstance(kind, str) or not kind.isidentifier():
        raise ValueError(f"kind must be a Python identifier (make_<kind> is its constructor), got {kind!r}")
    old = _KINDS.get(kind)
    if old is not None and old.module != module:
        raise ValueError(f"kind {kind!r} is already registered by {old.module}")
    _KINDS[kind] = Kind(kind, module, bool(exportable), summary)
    return _KINDS[kind]


def unregister(kind):
    """Remove a kind added with register (tests, plug-ins)."""
    _KINDS.pop(kind, None)


def kinds() -> list[str]:
    return sorted(_KINDS)


def get(kind) -> Kind:
    try:
        return _KINDS[kind]
    except (KeyError, TypeError):
        raise ValueError(f"unknown mechanism kind {kind!r}; valid kinds: {', '.join(kinds())}") from None


def constructor(kind):
    return get(kind).constructor()


def constructors() -> dict:
    """{kind: make_<kind>} for every registered kind (imports the family modules)."""
    return {k: _KINDS[k].constructor() for k in kinds()}


def registered() -> list[str]:
    """Every kind in the order of registration (the recommenders' candidate order: a tie in
    their ranking keeps it)."""
    return list(_KINDS)


def answer(kind, question):
    """The family's answer to ``question`` for ``kind`` (a function; ``fxdp.mechanisms.base.answers``),
    or None when the kind does not answer it (imports the family module)."""
    return getattr(constructor(kind), "answers", {}).get(question)


def answering(question) -> list[tuple[str, object]]:
    """[(kind, answer)] of every kind that answers ``question``, in registration order."""
    out = []
    for kind in registered():
        f = answer(kind, question)
        if f is not None:
            out.append((kind, f))
    return out


def exportable_kinds() -> list[str]:
    return [k for k in kinds() if _KINDS[k].exportable]


_MECH = "fxdp.mechanisms."
_FINITE = _MECH + "finite.laplace"
for _kind, _module, _exportable, _summary in (
    ("randomized_response_bool", _MECH + "oracles.randomized_response", True, "binary randomized response"),
    ("randomized_response", _MECH + "oracles.randomized_response", True, "k-ary randomized response"),
    ("rappor", _MECH + "oracles.rappor", True, "basic one-time RAPPOR"),
    ("rappor_full", _MECH + "memoized.rappor_full", True, "full RAPPOR: Bloom filter, PRR and IRR, cohorts"),
    ("geometric", _MECH + "additive.geometric", True, "two-sided geometric (discrete Laplace), bounded"),
    ("unary_encoding", _MECH + "oracles.unary_encoding", True, "unary encoding frequency oracle (OUE, SUE)"),
    ("hadamard_response", _MECH + "oracles.hadamard_response", True, "Hadamard response frequency oracle (log2 K bits)"),
    ("count_mean_sketch", _MECH + "strings.count_mean_sketch", True,
     "Count Mean Sketch (Apple; CMS, HCMS) over byte strings, keyed string hash"),
    ("prefix_extending", _MECH + "strings.prefix_extending", True,
     "Prefix Extending Method: finds the frequent byte strings without a candidate list"),
    ("sequence_fragment_puzzle", _MECH + "strings.sequence_fragment_puzzle", True,
     "Sequence Fragment Puzzle (Apple): fragments and words through two Count Mean Sketches"),
    ("treehist", _MECH + "strings.treehist", True,
     "TreeHist: a prefix tree pruned by a threshold, then the strings' shares from a word sketch"),
    ("longitudinal_grr", _MECH + "memoized.longitudinal", True,
     "longitudinal k-ary RR (L-GRR): memoized permanent GRR + instantaneous GRR"),
    ("longitudinal_ue", _MECH + "memoized.longitudinal", True,
     "longitudinal unary encoding (L-OUE): memoized permanent OUE + instantaneous SUE"),
    ("dbitflip", _MECH + "memoized.dbitflip", True, "dBitFlip (Microsoft): memoized bits on sampled histogram buckets"),
    ("subset_selection", _MECH + "oracles.subset_selection", True, "subset selection frequency oracle (k indices)"),
    ("local_hashing", _MECH + "oracles.local_hashing", True, "local hashing frequency oracle (OLH, BLH)"),
    ("duchi", _MECH + "readings.duchi", True, "Duchi et al. one-bit mechanism for a bounded reading (grid)"),
    ("piecewise", _MECH + "readings.piecewise", True, "Piecewise mechanism for a bounded reading (grid)"),
    ("hybrid", _MECH + "readings.hybrid", True, "Hybrid mechanism (Piecewise or Duchi) for a bounded reading (grid)"),
    ("square_wave", _MECH + "readings.square_wave", True,
     "Square Wave mechanism for a bounded reading (grid), EMS distribution estimate"),
    ("hierarchical_histogram", _MECH + "ranges.hierarchical_histogram", True,
     "hierarchical histogram of a bounded reading (grid): ranges and quantiles, constrained inference"),
    ("haar_hrr", _MECH + "ranges.haar_hrr", True,
     "HaarHRR: Haar coefficients of a bounded reading (grid) by Hadamard RR; ranges and quantiles"),
    ("numeric_multidim", _MECH + "readings.numeric_multidim", True,
     "k of d bounded readings (Wang et al. 2019), each through Duchi, Piecewise or Hybrid at epsilon / k"),
    ("laplace_fixed", _FINITE, True, "fixed-point Laplace with snapping and truncation (Gazeau et al.)"),
    ("naive_laplace_fixed", _FINITE, False, "the textbook fixed-point Laplace (unsafe; for the audit)"),
    ("planar_laplace_fixed", _FINITE, True, "planar fixed-point Laplace (Gazeau et al. section 6)"),
    ("laplace_grid", _FINITE, True, "exact discrete Laplace on the fixed-point grid"),
    ("planar_laplace_grid", _FINITE, True, "two exact discrete Laplaces on the fixed-point grid"),
):
    register(_kind, _module, _exportable, _summary)

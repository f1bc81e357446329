"""Device (C) forms of the seed mechanisms: ``device_spec()`` builders and the cffi
bridge to csrc/fxdp_mech_*.c (host fleet loops csrc/host/fxdp_host_mech.c).

``device_spec`` dicts are what the firmware exporter (fxdp/export) consumes; the
keys are documented in fxdp/mechanisms/base.py.  ``c_cfg`` / ``c_fleet`` /
``c_release`` run the same C entry points on the host, for the parity tests
and benchmarks.
"""
from __future__ import annotations

import numpy as np

from ..errors import raise_for_status

RAPPOR_MAX_K = 1024          # FXDP_RAPPOR_MAX_K in csrc/fxdp.h
GEOMETRIC_MAX_N = 16         # FXDP_GEOMETRIC_MAX_N
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

SRC_RNG = ["fxdp_chacha20.c", "fxdp_rng.c"]
SRC_RR = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_table.c", "fxdp_mech_rr.c"]
SRC_RAPPOR = SRC_RNG + ["fxdp_bernoulli.c", "fxdp_mech_rappor.c"]
SRC_GEOMETRIC = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_laplace.c", "fxdp_table.c",
                           "fxdp_mech_geometric.c"]


# --------------------------------------------------------------------------
# C literals

def u8(v):
    return f"{int(v)}u"


def u32(v):
    return f"UINT32_C({int(v)})"


def u64(v):
    return f"UINT64_C({int(v)})"


def i64(v):
    v = int(v)
    if v == I64_MIN:
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"INT64_C({v})"


def _init(fields):
    return "{ " + ", ".join(f".{k} = {v}" for k, v in fields) + " }"


def _p(frac):
    return f"{frac.numerator}/{frac.denominator} (~{float(frac):.6g})"


def _ct_text(ct, bits_per_release):
    if ct:
        return f"constant time (exactly {bits_per_release} random bits per release, branch-free)"
    return "lazy (not constant time: time and bits used depend on the draw)"


# --------------------------------------------------------------------------
# device_spec builders

def geometric_half_table(table):
    """(half, stored thresholds) of a proved table for fxdp_geometric_cfg (csrc/fxdp.h).

    When the table is symmetric, t[2W - 1 - i] = 2^k - t[i] + c with c in {0, 1} for every i
    (what make_bounded_laplace_table builds: mirrored weights, the odd unit of the remainder on
    the left end), checked here exactly: (1 + c, [t[i] - c for i < W]), the C scan deriving the
    other half as 2^k - s[i]; otherwise (0, all 2W thresholds)."""
    t = [int(v) for v in table.thresholds]
    w, top = int(table.width), 1 << int(table.k)
    if len(t) == 2 * w:
        c = t[0] + t[-1] - top
        if c in (0, 1) and all(t[2 * w - 1 - i] == top - t[i] + c for i in range(w)):
            return 1 + c, [v - c for v in t[:w]]
    return 0, t


def rr_bool_spec(m):
    ct = m.constant_time
    return {
        "c_function": "fxdp_rr_bool_ct" if ct else "fxdp_rr_bool",
        "cfg_type": "fxdp_rr_bool_cfg",
        "cfg_init": _init([("a", u64(m.a)), ("k", u8(m.bits))]),
        "tables": [],
        "input": {"ctype": "uint8_t", "count": 1},
        "output": {"ctype": "uint8_t", "count": 1},
        "sources": list(SRC_RR),
        "summary": (f"binary randomized response: out = x with probability p = a/2^{m.bits} = "
                    f"{_p(m.p_realized)}, else 1 - x (x, out in {{0, 1}}); epsilon <= {m.epsilon!r}; "
                    + _ct_text(ct, m.bits)),
    }


def rr_spec(m):
    ct = m.constant_time
    fields = [("t", u32(m.t)), ("w0", u32(m.w0)), ("k", u8(m.bits))]
    tables = []
    if ct:
        fields.append(("thresholds", "fxdp_rr_thresholds"))
        tables.append(("fxdp_rr_thresholds", "uint32_t", [int(v) for v in m.thresholds]))
    domain = (f"x in [0, {m.t - 1}] (category indices; constant-time form: members only)" if ct else
              f"x in [0, {m.t}] (category indices; {m.t} = not a category, answered uniformly)")
    return {
        "c_function": "fxdp_rr_ct" if ct else "fxdp_rr",
        "cfg_type": "fxdp_rr_cfg",
        "cfg_init": _init(fields),
        "tables": tables,
        "input": {"ctype": "uint32_t", "count": 1},
        "output": {"ctype": "uint32_t", "count": 1},
        "sources": list(SRC_RR),
        "summary": (f"k-ary randomized response over t = {m.t} categories: the truth w.p. p = w0/2^{m.bits} = "
                    f"{_p(m.p_realized)}, each other category w.p. {m.w}/2^{m.bits}; {domain}; "
                    f"epsilon <= {m.epsilon!r}; " + _ct_text(ct, m.bits)),
    }


def rappor_spec(m):
    ct = m.constant_time
    if m.k > RAPPOR_MAX_K:
        raise ValueError(f"k = {m.k}: the C device form holds at most FXDP_RAPPOR_MAX_K = {RAPPOR_MAX_K} "
                         "bits per report")
    return {
        "c_function": "fxdp_rappor_ct" if ct else "fxdp_rappor",
        "cfg_type": "fxdp_rappor_cfg",
        "cfg_init": _init([("a", u64(m.a)), ("bits", u8(m.bits)), ("k", u32(m.k)), ("m", u32(m.m))]),
        "tables": [],
        "input": {"ctype": "uint8_t", "count": m.k},
        "output": {"ctype": "uint8_t", "count": m.k},
        "sources": list(SRC_RAPPOR),
        "summary": (f"basic RAPPOR: {m.k} input bits (0/1 bytes, at most m = {m.m} ones), each flipped w.p. "
                    f"f/2 = a/2^{m.bits} = {_p(m.flip_prob)} (f = {_p(m.f_realized)}); epsilon <= "
                    f"{m.epsilon!r}; " + _ct_text(ct, m.k * m.bits)),
    }


def geometric_spec(m, dim=None):
    if m.vector:
        if dim is None:
            raise ValueError("vector=True: the device form releases a fixed number of values; "
                             "call device_spec(dim=d) with the vector length d")
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= GEOMETRIC_MAX_N:
            raise ValueError(f"dim must be an integer in [1, {GEOMETRIC_MAX_N}] (FXDP_GEOMETRIC_MAX_N), "
                             f"got {dim!r}")
        n = dim
    else:
        if dim not in (None, 1):
            raise ValueError(f"dim applies to vector=True only (scalar: dim = 1), got {dim!r}")
        n = 1
    if m.scale == 0:
        raise ValueError("scale = 0 releases the input unchanged (privacy map infinite); it has no device "
                         "form")
    lo, hi = m.bounds
    fields = [("s", u32(m.s)), ("t", u32(m.t)), ("lo", i64(lo)), ("hi", i64(hi)), ("n", u32(n))]
    tables = []
    ct = m.table is not None
    if ct:
        half, thr = geometric_half_table(m.table)
        fields += [("k", u8(m.table.k)), ("half", u8(half)), ("width", u32(m.table.width)),
                   ("thresholds", "fxdp_geometric_thresholds")]
        tables.append(("fxdp_geometric_thresholds", "uint32_t", thr))
        stored = (f"{len(thr)} thresholds stored, the mirrored half derived in the scan" if half else
                  f"{len(thr)} thresholds stored")
        noise = (f"noise from the proved {2 * m.table.width + 1}-entry table over [-{m.table.width}, "
                 f"{m.table.width}] (one {m.table.k}-bit draw, full scan; {stored}; table epsilon "
                 f"{m.table.epsilon_realized!r}); input clamped to the bounds first")
    else:
        noise = f"exact discrete Laplace noise of scale t/s = {m.t}/{m.s}"
    what = f"{n} int64 values (L1)" if m.vector else "one int64 value"
    bounds = "int64 range" if (lo, hi) == (I64_MIN, I64_MAX) else f"[{lo}, {hi}]"
    return {
        "c_function": "fxdp_geometric_ct" if ct else "fxdp_geometric",
        "cfg_type": "fxdp_geometric_cfg",
        "cfg_init": _init(fields),
        "tables": tables,
        "input": {"ctype": "int64_t", "count": n},
        "output": {"ctype": "int64_t", "count": n},
        "sources": list(SRC_GEOMETRIC),
        "summary": (f"geometric mechanism on {what}: {noise}, saturated to {bounds}; epsilon <= "
                    f"{m.epsilon!r} per unit of L1 distance; "
                    + _ct_text(ct, n * m.table.k if ct else 0)),
    }


# --------------------------------------------------------------------------
# cffi bridge (host)

def c_cfg(m, dim=None):
    """(cfg cdata, keepalive list, entry-point name, ct flag) of mechanism m for the C library."""
    from .. import native
    from .geometric import Geometric
    from .randomized_response import RandomizedResponse, RandomizedResponseBool
    from .rappor import Rappor

    ffi = native.ffi
    keep = []
    if isinstance(m, RandomizedResponseBool):
        cfg = ffi.new("fxdp_rr_bool_cfg *", {"a": m.a, "k": m.bits})
        name = "fxdp_rr_bool"
    elif isinstance(m, RandomizedResponse):
        cfg = ffi.new("fxdp_rr_cfg *", {"t": m.t, "w0": m.w0, "k": m.bits})
        if m.constant_time:
            tbl = ffi.new("uint32_t[]", [int(v) for v in m.thresholds])
            keep.append(tbl)
            cfg.thresholds = tbl
        name = "fxdp_rr"
    elif isinstance(m, Rappor):
        cfg = ffi.new("fxdp_rappor_cfg *", {"a": m.a, "bits": m.bits, "k": m.k, "m": m.m})
        name = "fxdp_rappor"
    elif isinstance(m, Geometric):
        if m.scale == 0:
            raise ValueError("scale = 0 has no device form")
        lo, hi = m.bounds
        cfg = ffi.new("fxdp_geometric_cfg *", {"s": m.s, "t": m.t, "lo": lo, "hi": hi, "n": dim or 1})
        if m.table is not None:
            half, thr = geometric_half_table(m.table)
            tbl = ffi.new("uint32_t[]", thr)
            keep.append(tbl)
            cfg.thresholds = tbl
            cfg.k = m.table.k
            cfg.half = half
            cfg.width = m.table.width
        name = "fxdp_geometric"
    else:
        raise ValueError(f"no C form for {type(m).__name__}")
    ct = bool(m.constant_time)
    return cfg, keep, name + ("_ct" if ct else ""), ct


_IO = {"fxdp_rr_bool": ("uint8_t", np.uint8), "fxdp_rr": ("uint32_t", np.uint32),
       "fxdp_rappor": ("uint8_t", np.uint8), "fxdp_geometric": ("int64_t", np.int64)}


def c_fleet(m, values, seed, device_ids=None, first_block=0):
    """The C host fleet (csrc/host/fxdp_host_mech.c) on the inputs m.simulate takes.

    Returns (out, status, bits_used, ids) shaped as ``_kernels_mech.simulate_detailed``
    (out rows of failed devices are zero)."""
    from .. import native
    from . import _kernels_mech as km

    ffi, lib = native.ffi, native.lib
    x = km.prepare_values(m, values)
    n = x.shape[0]
    ids = km.check_device_ids(device_ids, n)
    key = km.check_seed(seed)
    fb = km._first_block(first_block)
    dim = x.shape[1] if x.ndim == 2 and not _is_rappor(m) else None
    if dim == 0:
        raise ValueError("vector of length 0: nothing to release")
    cfg, keep, name, ct = c_cfg(m, dim)
    base = name[:-3] if ct else name
    ctype, dtype = _IO[base]
    xin = np.ascontiguousarray(x, dtype=dtype)
    out = np.zeros(x.shape, dtype=dtype)
    status = np.zeros(n, dtype=np.uint8)
    bits = np.zeros(n, dtype=np.uint64)
    fleet = getattr(lib, base.replace("fxdp_", "fxdp_fleet_"))
    buf = lambda arr, t: ffi.from_buffer(f"{t}[]", arr) if arr.size else ffi.NULL  # noqa: E731
    fleet(ffi.from_buffer("uint32_t[]", key), buf(ids, "uint64_t"), n, fb, cfg, int(ct),
          buf(xin, ctype), buf(out, ctype), buf(status, "uint8_t"), buf(bits, "uint64_t"))
    del keep
    if base == "fxdp_rr_bool":
        out = out.astype(np.bool_)
    elif base == "fxdp_rr":
        out = out.astype(np.int64)
    elif base == "fxdp_geometric" and not m.vector:
        out = out.reshape(n)
    return out, status, bits.astype(np.int64), ids


def _is_rappor(m):
    from .rappor import Rappor
    return isinstance(m, Rappor)


def c_release(m, rng, x):
    """One release of device input x through the C entry point on rng (an ``fxdp_rng *``).

    x in the device form (bool / index / k bits / int64 or d int64s).  Returns the output
    (same form) or raises (nothing returned) on a non-OK status."""
    from .. import native
    from . import _kernels_mech as km

    ffi, lib = native.ffi, native.lib
    xx = km.prepare_values(m, [x])[0]
    xx = np.atleast_1d(xx)
    dim = xx.shape[0] if not _is_rappor(m) and getattr(m, "vector", False) else None
    cfg, keep, name, ct = c_cfg(m, dim)
    base = name[:-3] if ct else name
    ctype, dtype = _IO[base]
    xin = np.ascontiguousarray(xx, dtype=dtype)
    out = np.zeros(xin.shape, dtype=dtype)
    st = getattr(lib, name)(rng, cfg, ffi.from_buffer(f"{ctype}[]", xin),
                            ffi.from_buffer(f"{ctype}[]", out))
    del keep
    raise_for_status(st, name)
    if base == "fxdp_rr_bool":
        return bool(out[0])
    if base == "fxdp_rr":
        return int(out[0])
    if base == "fxdp_rappor":
        return [int(v) for v in out]
    return [int(v) for v in out] if m.vector else int(out[0])

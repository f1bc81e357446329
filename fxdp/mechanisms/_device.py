"""Device (C) forms: the C-literal helpers the families' ``device_spec()`` builders share,
and the generic cffi bridge to the C entry points (host fleet loops csrc/host/fxdp_host_mech.c).

``device_spec`` dicts are what the firmware exporter (fxdp/export) consumes; the
keys are documented in fxdp/mechanisms/base.py.  ``c_cfg`` / ``c_fleet`` /
``c_release`` run the same C entry points on the host through the protocol
(``Mechanism.c_config``), for the parity tests and benchmarks; this module
imports no mechanism class.
"""
from __future__ import annotations

import numpy as np

from ..errors import raise_for_status

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
# cffi bridge (host): generic, through the protocol (Mechanism.c_config, fleet_inputs,
# fleet_outputs, release_output)

def c_cfg(m, dim=None):
    """(cfg cdata, keepalive list, entry-point name, ct flag) of mechanism m for the C library."""
    cc = m.c_config(dim)
    return cc.cfg, cc.keep, cc.function, cc.constant_time


def _vector_dim(m, x):
    """The vector length the C cfg needs (``n``), or None for a fixed-size input."""
    return x.shape[1] if x.ndim == 2 and getattr(m, "vector", False) else None


def c_fleet(m, values, seed, device_ids=None, first_block=0):
    """The C host fleet (csrc/host/fxdp_host_mech.c) on the inputs m.simulate takes.

    Returns (out, status, bits_used, ids) shaped as ``_fleet.simulate_detailed``
    (out rows of failed devices are zero)."""
    from .. import native
    from ._fleet import check_first_block
    from ._fleet import check_device_ids, check_seed

    ffi, lib = native.ffi, native.lib
    x = m.fleet_inputs(values)
    n = x.shape[0]
    ids = check_device_ids(device_ids, n)
    key = check_seed(seed)
    fb = check_first_block(first_block)
    dim = _vector_dim(m, x)
    if dim == 0:
        raise ValueError("vector of length 0: nothing to release")
    cc = m.c_config(dim)
    xin = np.ascontiguousarray(x, dtype=cc.dtype)
    out = np.zeros(x.shape if cc.out_count is None else (n, cc.out_count), dtype=cc.out_dtype)
    status = np.zeros(n, dtype=np.uint8)
    bits = np.zeros(n, dtype=np.uint64)
    fleet = getattr(lib, cc.base.replace("fxdp_", "fxdp_fleet_"))
    buf = lambda arr, t: ffi.from_buffer(f"{t}[]", arr) if arr.size else ffi.NULL  # noqa: E731
    fleet(ffi.from_buffer("uint32_t[]", key), buf(ids, "uint64_t"), n, fb, cc.cfg, int(cc.constant_time),
          buf(xin, cc.ctype), buf(out, cc.out_ctype), buf(status, "uint8_t"), buf(bits, "uint64_t"))
    del cc
    return m.fleet_outputs(out), status, bits.astype(np.int64), ids


def c_release(m, rng, x):
    """One release of device input x through the C entry point on rng (an ``fxdp_rng *``).

    x in the device form (bool / index / k bits / int64 or d int64s).  Returns the output
    (same form as the reference release) or raises (nothing returned) on a non-OK status."""
    from .. import native

    ffi, lib = native.ffi, native.lib
    xx = np.atleast_1d(m.fleet_inputs([x])[0])
    cc = m.c_config(xx.shape[0] if getattr(m, "vector", False) else None)
    xin = np.ascontiguousarray(xx, dtype=cc.dtype)
    out = np.zeros(xin.shape if cc.out_count is None else (cc.out_count,), dtype=cc.out_dtype)
    st = getattr(lib, cc.function)(rng, cc.cfg, ffi.from_buffer(f"{cc.ctype}[]", xin),
                                   ffi.from_buffer(f"{cc.out_ctype}[]", out))
    name = cc.function
    del cc
    raise_for_status(st, name)
    return m.release_output(out)

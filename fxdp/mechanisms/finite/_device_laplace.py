"""Device (C) forms of the finite-precision Laplace mechanisms: ``device_spec()``
builders for the firmware exporter (fxdp/export; keys in fxdp/mechanisms/base.py).

Entry points (csrc/fxdp_laplace_fixed.c, declared in the finite section of
csrc/fxdp.h) take raw int64 inputs of the mechanism's Q format and write raw
int64 outputs, ``INT64_MIN`` (``EXCEPTION_RAW``) for the exception value, the
same integers ``m.simulate`` returns.  The naive mechanism (Example 1.1) and
``_unchecked`` objects have no device form: their privacy map is infinite.
"""
from __future__ import annotations

from .._device import SRC_RNG, _init, i64, u32
from .constants import EXCEPTION_RAW

SRC_FINITE = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_laplace.c", "fxdp_fixed.c",
                        "fxdp_fixmath.c", "fxdp_laplace_fixed.c"]
EXCEPTION_NOTE = "INT64_MIN = the exception value"


def _refuse_unsafe(m):
    if getattr(m, "naive", False):
        raise ValueError(f"{m.kind} is the unsafe textbook mechanism of Example 1.1 (privacy map infinite): "
                         "it has no device form; export make_laplace_fixed or make_laplace_grid instead")
    if getattr(m, "unchecked", False):
        raise ValueError(f"{m.kind} built with _unchecked=True has no privacy guarantee: no device form")


def _box(m):
    return f"[{m.lo}, {m.hi}] raw {m.qformat.name} (= [{m.decode(m.lo)}, {m.decode(m.hi)}]), step L = {m.step} raw"


def _io(m, count, exception=False):
    """(input, output) of a device spec; outputs lie in the box, or are INT64_MIN (the report
    layout's escape, docs/wire.md) where the mechanism has an exception value."""
    out = {"ctype": "int64_t", "count": count, "min": m.lo, "max": m.hi}
    if exception:
        out["escape"] = EXCEPTION_RAW
    return ({"ctype": "int64_t", "count": count, "min": m.lo, "max": m.hi}, out)


def laplace_fixed_spec(m):
    _refuse_unsafe(m)
    k, method, B, shift, nshift, lo, hi, step, cap, trunc = m.kernel_params()
    inp, out = _io(m, 1, exception=trunc != 1)
    trunc_text = ("outside the box: the nearer bound (clamp, Remark 2)" if trunc == 1
                  else f"outside the box: {EXCEPTION_NOTE}")
    return {
        "c_function": "fxdp_laplace_fixed_release",
        "cfg_type": "fxdp_laplace_fixed_params",
        "cfg_init": _init([("uniform_bits", u32(k)), ("method", u32(method)), ("scale_num", u32(B)),
                           ("shift", u32(shift)), ("scale_shift", u32(nshift)), ("truncation", u32(trunc)),
                           ("lo", i64(lo)), ("hi", i64(hi)), ("step", i64(step))]),
        "tables": [],
        "input": inp,
        "output": out,
        "sources": list(SRC_FINITE),
        "summary": (f"fixed-point Laplace (Gazeau et al.): raw x clamped to {_box(m)}, noise "
                    f"round(B * (-ln u) / 2^{shift}) with B = {B} (scale {m.scale} >= sensitivity/epsilon), "
                    f"one {k}-bit uniform, snapped to the L grid; {trunc_text}; epsilon <= {m.epsilon!r}; "
                    "lazy (not constant time)"),
    }


def planar_laplace_fixed_spec(m):
    _refuse_unsafe(m)
    ka, kr, B, shift, lo, hi, step, cap = m.kernel_params()
    inp, out = _io(m, 2, exception=True)
    return {
        "c_function": "fxdp_planar_laplace_fixed_release",
        "cfg_type": "fxdp_planar_laplace_fixed_params",
        "cfg_init": _init([("angle_bits", u32(ka)), ("radius_bits", u32(kr)), ("scale_num", u32(B)),
                           ("shift", u32(shift)), ("lo", i64(lo)), ("hi", i64(hi)), ("step", i64(step))]),
        "tables": [],
        "input": inp,
        "output": out,
        "sources": list(SRC_FINITE),
        "summary": (f"planar fixed-point Laplace (Gazeau et al.): raw (x, y) clamped to the box {_box(m)} "
                    f"per coordinate; CORDIC angle ({ka} bits), Gamma(2) radius B (E1 + E2) / 2^{shift} with "
                    f"B = {B} ({kr} bits each), snapped to the L grid; outside the box: both outputs "
                    f"{EXCEPTION_NOTE}; epsilon <= {m.epsilon!r}; lazy (not constant time)"),
    }


def laplace_grid_spec(m, planar=False):
    _refuse_unsafe(m)
    inp, out = _io(m, 2 if planar else 1)
    what = "two exact discrete Laplaces (x then y)" if planar else "exact discrete Laplace"
    return {
        "c_function": "fxdp_planar_laplace_grid_release" if planar else "fxdp_laplace_grid_release",
        "cfg_type": "fxdp_laplace_grid_cfg",
        "cfg_init": _init([("s", u32(m.s)), ("t", u32(m.t)), ("lo", i64(m.lo)), ("hi", i64(m.hi)),
                           ("step", i64(m.step))]),
        "tables": [],
        "input": inp,
        "output": out,
        "sources": list(SRC_FINITE),
        "summary": (f"exact-grid Laplace: raw input clamped to {_box(m)} and snapped to the grid, plus "
                    f"{what} of scale t/s = {m.t}/{m.s} grid steps, censored to the box; epsilon <= "
                    f"{m.epsilon!r}; lazy (not constant time)"),
    }

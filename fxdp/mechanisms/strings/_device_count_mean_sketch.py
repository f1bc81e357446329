"""Device (C) form of the Count Mean Sketch and its Hadamard variant: the ``device_spec()`` and
cffi configuration builders (keys in fxdp/mechanisms/base.py) of csrc/fxdp_mech_count_mean_sketch.c.

The entry points take the encoded string (``fxdp.strhash.encode``: length, bytes, padding) and
write the report as ``m.simulate`` returns it: CMS uint8[m + 2] (j & 0xFF, j >> 8, the m bits,
drawn in place), HCMS uint32[3] (j, l, bit).  The config holds unary encoding's config of the
flips (a_p = 2^bits - a_q, a_q, d = m, bits), the public hash key's 8 words, k, max_length and log2 m."""
from __future__ import annotations

import numpy as np

from ... import strhash
from ...samplers import reference as ref
from .._device import SRC_RNG, _ct_text, _init, u8, u32, u64
from ..base import CConfig

SRC_COUNT_MEAN_SKETCH = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_strhash.c", "fxdp_mech_unary_encoding.c",
                                   "fxdp_mech_count_mean_sketch.c"]
MAX_LOG2_WIDTH = 10            # CMS: the m bits are drawn in place (FXDP_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH)
MAX_LOG2_WIDTH_HCMS = 16       # HCMS: l < 2^16 (FXDP_HADAMARD_COUNT_MEAN_SKETCH_MAX_LOG2_WIDTH)


def _entry(m):
    base = "fxdp_hadamard_count_mean_sketch" if m.hadamard else "fxdp_count_mean_sketch"
    return base + ("_ct" if m.constant_time else "")


def _ue_fields(m):
    """Unary encoding's config of the flips (fxdp_unary_encoding_cfg): a_p = 2^bits - a_q, d = m."""
    return [("a_p", u64((1 << m.bits) - m.a_q)), ("a_q", u64(m.a_q)), ("d", u32(m.width)), ("bits", u8(m.bits))]


def check_device(m):
    """ValueError for a width the C form cannot hold."""
    top = MAX_LOG2_WIDTH_HCMS if m.hadamard else MAX_LOG2_WIDTH
    if m.log2_width > top:
        raise ValueError(f"width = {m.width}: the C device form holds a width of at most 2^{top}")


def device_spec(m):
    check_device(m)
    key = "{ " + ", ".join(u32(w) for w in strhash.key_words(m.hash_key)) + " }"
    rounds = 32 * ref.UNIFORM_CT_ROUNDS      # each uniform_below_ct draw reads all its rounds
    spent = rounds + m.width * m.bits if not m.hadamard else 2 * rounds + m.bits
    spec = {
        "c_function": _entry(m),
        "cfg_type": "fxdp_count_mean_sketch_cfg",
        "cfg_init": _init([("ue", _init(_ue_fields(m))), ("key", key), ("hashes", u32(m.hashes)),
                           ("max_len", u32(m.max_length)), ("log2_width", u8(m.log2_width))]),
        "tables": [],
        "input": {"ctype": "uint8_t", "count": m.max_length + 1,
                  "meaning": "the encoded string: [len] || bytes || zero padding, 1 <= len <= max_length"},
        "output": m._device_output(),
        "sources": list(SRC_COUNT_MEAN_SKETCH),
        "summary": (m._device_text() + f", strings of 1..{m.max_length} bytes; epsilon <= {m.epsilon!r}; "
                    + _ct_text(m.constant_time, spent)),
    }
    if not m.hadamard:
        spec["in_place"] = True          # the bits drawn into out, zeroed on an entropy failure
    return spec


def c_config(m):
    from ... import native
    check_device(m)
    cfg = native.ffi.new("fxdp_count_mean_sketch_cfg *", {
        "ue": {"a_p": (1 << m.bits) - m.a_q, "a_q": m.a_q, "d": m.width, "bits": m.bits},
        "key": list(strhash.key_words(m.hash_key)), "hashes": m.hashes, "max_len": m.max_length,
        "log2_width": m.log2_width})
    out = m._device_output()
    return CConfig(cfg, [], _entry(m), m.constant_time, "uint8_t", np.uint8, out_ctype=out["ctype"],
                   out_dtype=np.dtype(m.report_dtype), out_count=out["count"])

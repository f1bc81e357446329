"""The exported C report encoder (docs/wire.md): ``fxdp_encode_report``, ``fxdp_encode_header``
and ``fxdp_report_crc32``, generated into fxdp_config.h/.c from the mechanism's report layout
(``m.report_layout()``), so the device writes exactly the bytes ``m.encode_reports`` writes.

The encoder reads only the release's output, which the device then sends in the clear: its
time reveals nothing the report does not.  It is written without data-dependent branches or
indices all the same (masks, fixed loop bounds), so a constant-time release stays constant time
with the encoding included.
"""
from __future__ import annotations

from .spec import CTYPES, DeviceSpec
from .templates import template

HEADER_BYTES = 24
TRAILER_BYTES = 4


def _u(v: int, bits: int) -> str:
    return f"UINT{64 if bits > 32 else 32}_C({v & ((1 << (64 if bits > 32 else 32)) - 1)})"


def config_h_lines(m, spec: DeviceSpec) -> list[str]:
    layout = m.report_layout()
    return ["/* Report wire format (docs/wire.md): records of FXDP_REPORT_BYTES, batched as a header,",
            " * the records and a CRC-32 trailer.  The fingerprint is CRC-32 of the layout and every",
            " * baked integer above: a server refuses reports from any other configuration. */",
            "#define FXDP_REPORT_VERSION 1u",
            f"#define FXDP_REPORT_FINGERPRINT UINT32_C(0x{layout.fingerprint:08X})",
            f"#define FXDP_REPORT_BITS {layout.bits}u",
            f"#define FXDP_REPORT_BYTES {layout.record_bytes}u",
            f"#define FXDP_REPORT_HEADER_BYTES {HEADER_BYTES}u",
            f"#define FXDP_REPORT_TRAILER_BYTES {TRAILER_BYTES}u", "",
            "/* Record of an FXDP_OK output y; FXDP_ERR_PARAM (out all zero) if a value lies outside the layout. */",
            "fxdp_status fxdp_encode_report(const fxdp_output_t y[FXDP_OUTPUT_COUNT], uint8_t out[FXDP_REPORT_BYTES]);",
            "/* Batch header announcing count records (magic, version, fingerprint, record size, count). */",
            "void fxdp_encode_header(uint64_t count, uint8_t out[FXDP_REPORT_HEADER_BYTES]);",
            "/* CRC-32 (IEEE, as zlib) of data[0..n) continuing crc (0 to start): the batch trailer, little-endian. */",
            "uint32_t fxdp_report_crc32(uint32_t crc, const uint8_t *data, size_t n);", ""]


PUT = template("fxdp_report_put.c.in")


def _field_code(f, first: int, pos: int, ctype: str) -> str:
    bits = CTYPES[ctype][0]
    wide = bits > 32 or f.max_code > 0xFFFFFFFF
    t = "uint64_t" if wide else "uint32_t"
    put = "fxdp_w_put64" if wide else "fxdp_w_put32"
    span = f.hi - f.lo
    lines = [f"    /* field {f.name}: y[{first}..{first + f.count - 1}] in [{f.lo}, {f.hi}]"
             + ("" if f.escape is None else f" or the escape {f.escape} (code {f.max_code})")
             + f", {f.width} bits each, from bit {pos} */",
             "    for (j = 0; j < " + f"{f.count}u; j++) {{",
             f"        {t} v = ({t})y[{first}u + j];",
             f"        {t} code = ({t})(v - {_u(f.lo, 64 if wide else 32)});"]
    if f.escape is not None:
        lines += [f"        {t} esc = ({t})0u - ({t})(v == {_u(f.escape, 64 if wide else 32)});",
                  f"        bad |= (uint32_t)(code > {_u(span, 64 if wide else 32)}) & (uint32_t)(esc == 0u);",
                  f"        code = (code & ~esc) | ({_u(f.max_code, 64 if wide else 32)} & esc);"]
    else:
        lines.append(f"        bad |= (uint32_t)(code > {_u(span, 64 if wide else 32)});")
    if f.width:
        lines.append(f"        {put}(out, {pos}u + j * {f.width}u, code, {f.width}u);")
    else:
        lines.append("        (void)code;")
    lines.append("    }")
    return "\n".join(lines) + "\n"


def config_c_code(m, spec: DeviceSpec) -> str:
    from .templates import render
    layout = m.report_layout()
    parts, first, pos, need = [], 0, 0, set()
    for f in layout.fields:
        parts.append(_field_code(f, first, pos, spec.output["ctype"]))
        if f.width:
            need.add(64 if CTYPES[spec.output["ctype"]][0] > 32 or f.max_code > 0xFFFFFFFF else 32)
        first += f.count
        pos += f.count * f.width
    return render(PUT, fields="".join(parts), need32=int(32 in need), need64=int(64 in need))

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


PUT = r"""/* Report encoder (docs/wire.md): every field element as its code (value - lo, or the escape
 * code) in `width` bits, most significant bit first, packed from bit 7 of out[0] on. */
#if @@need32@@ || @@need64@@
/* shifts by one and a rotating mask (variable shifts are loops on AVR) */
static void fxdp_w_put32(uint8_t *out, uint32_t pos, uint32_t code, uint32_t width)
{
    uint32_t b;
    uint8_t *o = out + (pos >> 3);
    uint8_t mask = (uint8_t)(0x80u >> (pos & 7u));
    code <<= 32u - width;                        /* 1 <= width <= 32: the code's top bit first */
    for (b = 0; b < width; b++) {
        *o = (uint8_t)(*o | (uint8_t)(mask & (uint8_t)(0u - (code >> 31))));
        code <<= 1;
        mask = (uint8_t)(mask >> 1);
        if (mask == 0u) {                        /* depends on the bit position only */
            mask = 0x80u;
            o++;
        }
    }
}
#endif

#if @@need64@@
static void fxdp_w_put64(uint8_t *out, uint32_t pos, uint64_t code, uint32_t width)
{
    if (width > 32u) {
        fxdp_w_put32(out, pos, (uint32_t)(code >> 32), width - 32u);
        fxdp_w_put32(out, pos + width - 32u, (uint32_t)code, 32u);
    } else {
        fxdp_w_put32(out, pos, (uint32_t)code, width);
    }
}
#endif

fxdp_status fxdp_encode_report(const fxdp_output_t y[FXDP_OUTPUT_COUNT], uint8_t out[FXDP_REPORT_BYTES])
{
    uint32_t j, bad = 0u;
    for (j = 0; j < FXDP_REPORT_BYTES; j++) {
        out[j] = 0u;
    }
@@fields@@    if (bad != 0u) {
        for (j = 0; j < FXDP_REPORT_BYTES; j++) {
            out[j] = 0u;
        }
        return FXDP_ERR_PARAM;
    }
    return FXDP_OK;
}

void fxdp_encode_header(uint64_t count, uint8_t out[FXDP_REPORT_HEADER_BYTES])
{
    uint32_t j;
    out[0] = (uint8_t)'F';
    out[1] = (uint8_t)'X';
    out[2] = (uint8_t)'D';
    out[3] = (uint8_t)'R';
    out[4] = (uint8_t)FXDP_REPORT_VERSION;
    out[5] = 0u;
    out[6] = 0u;
    out[7] = 0u;
    for (j = 0; j < 4u; j++) {
        out[8u + j] = (uint8_t)((FXDP_REPORT_FINGERPRINT >> (8u * j)) & 0xFFu);
        out[12u + j] = (uint8_t)(((uint32_t)FXDP_REPORT_BYTES >> (8u * j)) & 0xFFu);
    }
    for (j = 0; j < 8u; j++) {
        out[16u + j] = (uint8_t)((count >> (8u * j)) & 0xFFu);
    }
}

uint32_t fxdp_report_crc32(uint32_t crc, const uint8_t *data, size_t n)
{
    size_t i;
    uint32_t b;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= (uint32_t)data[i];
        for (b = 0; b < 8u; b++) {
            crc = (crc >> 1) ^ (UINT32_C(0xEDB88320) & (UINT32_C(0) - (crc & 1u)));
        }
    }
    return ~crc;
}
"""


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

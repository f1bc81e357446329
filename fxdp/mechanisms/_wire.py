"""The report wire format (docs/wire.md): device outputs as packed bits, in checked batches.

A *record* is one device's report: the fields of the mechanism's report layout
(``Mechanism.report_fields()``), each element stored as the code ``v - lo`` (or the escape
code ``hi - lo + 1``) in ``width = bit_length(number of codes - 1)`` bits, most significant bit
first, the fields one after another, the bit string packed most significant bit first into
``record_bytes = ceil(bits / 8)`` bytes (zero padding).  A *batch* is a 24-byte header (magic
``FXDR``, format version, reserved zeros, the configuration's 32-bit fingerprint, the record
size, the record count), the records, and a CRC-32 of everything before it.  A file is one or
more batches back to back.

Nothing here knows a mechanism family: the layout comes from the protocol (base.py).
"""
from __future__ import annotations

import hashlib
import io
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"FXDR"
VERSION = 1
HEADER = struct.Struct("<4sBBHIIQ")      # magic, version, reserved u8, reserved u16, fingerprint, record bytes, count
HEADER_BYTES = HEADER.size              # 24
TRAILER_BYTES = 4                       # CRC-32 (zlib / IEEE 802.3) of header + records, little-endian
MASK64 = (1 << 64) - 1
CTYPE_RANGE = {"uint8_t": (0, 255), "int8_t": (-128, 127), "uint16_t": (0, 65535), "int16_t": (-32768, 32767),
               "uint32_t": (0, (1 << 32) - 1), "int32_t": (-(1 << 31), (1 << 31) - 1),
               "uint64_t": (0, MASK64), "int64_t": (-(1 << 63), (1 << 63) - 1)}
CHUNK_RECORDS = 1 << 16


class WireError(ValueError):
    """A report file or buffer that does not decode; the message names the byte offset."""


@dataclass(frozen=True)
class ReportField:
    """``count`` consecutive device output elements, each an integer in [lo, hi] or ``escape``
    (a value outside [lo, hi] the device may also send, e.g. the finite Laplace's exception)."""
    name: str
    count: int
    lo: int
    hi: int
    escape: int | None = None

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"report field name must be an identifier, got {self.name!r}")
        if self.count < 1 or self.hi < self.lo or self.max_code > MASK64:
            raise ValueError(f"report field {self.name}: need count >= 1 and lo <= hi within 64 bits, "
                             f"got count {self.count}, [{self.lo}, {self.hi}]")
        if self.escape is not None and (self.lo <= self.escape <= self.hi or not -(1 << 63) <= self.escape <= MASK64):
            raise ValueError(f"report field {self.name}: the escape {self.escape} lies in [{self.lo}, {self.hi}]")

    @property
    def max_code(self) -> int:
        return self.hi - self.lo + (1 if self.escape is not None else 0)

    @property
    def width(self) -> int:
        return self.max_code.bit_length()

    def text(self) -> str:
        return f"{self.name}:{self.count}:{self.lo}:{self.hi}:{'' if self.escape is None else self.escape}"


@dataclass(frozen=True)
class ReportLayout:
    """A mechanism's record layout, its fingerprint and the form decoded reports take."""
    kind: str
    fields: tuple
    dtype: str                  # numpy dtype of the decoded reports (what m.simulate returns)
    params_text: str            # the baked configuration (docs/wire.md, "Fingerprint")
    matrix: bool = False        # decoded as an (n, count) matrix even when count == 1

    @property
    def count(self) -> int:
        return sum(f.count for f in self.fields)

    @property
    def bits(self) -> int:
        return sum(f.count * f.width for f in self.fields)

    @property
    def record_bytes(self) -> int:
        return max(1, (self.bits + 7) // 8)

    @property
    def fingerprint_text(self) -> bytes:
        lines = [f"fxdp-wire/{VERSION}", self.kind, self.params_text] + [f.text() for f in self.fields]
        return ("\n".join(lines) + "\n").encode()

    @property
    def fingerprint(self) -> int:
        return zlib.crc32(self.fingerprint_text) & 0xFFFFFFFF

    def columns(self) -> list:
        """Column names of the reports as a table (CSV, Parquet): the field name, or name[j]."""
        return [f.name if f.count == 1 else f"{f.name}[{j}]" for f in self.fields for j in range(f.count)]

    # --- values <-> codes
    def as_matrix(self, outputs, what="outputs") -> np.ndarray:
        """outputs (n,) or (n, count) as an (n, count) int64 array (uint64 for uint64 ctypes)."""
        arr = np.asarray(outputs)
        if arr.ndim == 1 and self.count == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2 or arr.shape[1] != self.count:
            want = "(n,)" if self.count == 1 else f"(n, {self.count})"
            raise ValueError(f"{what} must have shape {want} ({self.kind} reports), got {arr.shape}")
        if arr.dtype == bool:
            arr = arr.view(np.uint8)
        if arr.dtype.kind not in "iu":
            raise ValueError(f"{what} must be integers, got dtype {arr.dtype}")
        return arr if arr.dtype.kind == "u" else arr.astype(np.int64, copy=False)

    def codes(self, mat, first_record=0, where=None) -> list:
        """Per field, the (n, count) uint64 codes of the values; ValueError naming the first record
        with a value out of range (where(i): the text naming row i, default "record <index>")."""
        out, col = [], 0
        for f in self.fields:
            v = mat[:, col:col + f.count]
            col += f.count
            if v.dtype.kind == "u" and f.lo == 0 and f.escape is None:  # bits, indices: the code is v
                bad = v > f.hi
                if bad.any():
                    i, j = np.argwhere(bad)[0]
                    at = where(int(i)) if where else f"record {first_record + int(i)}"
                    raise ValueError(f"{at}: field {f.name}[{int(j)}] = {int(v[i, j])} is outside [0, {f.hi}]")
                out.append(v)
                continue
            code = v.astype(np.uint64) - np.uint64(f.lo & MASK64)      # wraps mod 2^64: v - lo
            bad = code > np.uint64(f.hi - f.lo)
            if f.escape is not None:
                esc = v == np.int64(f.escape) if v.dtype == np.int64 else v == np.uint64(f.escape & MASK64)
                code[esc] = np.uint64(f.max_code)
                bad &= ~esc
            if bad.any():
                i, j = np.argwhere(bad)[0]
                at = where(int(i)) if where else f"record {first_record + int(i)}"
                allowed = f"[{f.lo}, {f.hi}]" + ("" if f.escape is None else f" or {f.escape}")
                raise ValueError(f"{at}: field {f.name}[{int(j)}] = {int(v[i, j])} is outside {allowed}")
            out.append(code)
        return out

    def values(self, codes) -> np.ndarray:
        """(n, count) array in the decoded dtype from the per-field codes (already range-checked)."""
        cols = []
        for f, code in zip(self.fields, codes):
            if f.lo == 0 and f.escape is None:                         # the code is the value
                cols.append(code)
                continue
            v = code.astype(np.uint64) + np.uint64(f.lo & MASK64)      # wraps back: lo + code
            v = v.view(np.int64) if f.lo < 0 or f.escape is not None and f.escape < 0 else v
            if f.escape is not None:
                v = np.where(code == np.uint64(f.max_code), np.array(f.escape).astype(v.dtype), v)
            cols.append(v)
        if len(cols) > 1:
            cols = [c.astype(self.dtype, copy=False) for c in cols]
        mat = np.concatenate(cols, axis=1) if len(cols) > 1 else cols[0]
        return mat.astype(self.dtype)

    def shaped(self, mat):
        return mat.reshape(-1) if self.count == 1 and not self.matrix else mat

    # --- records
    def pack(self, outputs, first_record=0) -> np.ndarray:
        """(n, record_bytes) uint8 records of outputs (ValueError on a value out of range)."""
        mat = self.as_matrix(outputs)
        n = mat.shape[0]
        bits = np.zeros((n, self.record_bytes * 8), dtype=np.uint8)
        pos = 0
        for f, code in zip(self.fields, self.codes(mat, first_record)):
            w = f.width
            if w == 1:                                   # bit vectors: the codes are the bits
                bits[:, pos:pos + f.count] = code.astype(np.uint8)
                pos += f.count
            elif w:
                shifts = np.arange(w - 1, -1, -1, dtype=np.uint64)
                b = (code.astype(np.uint64)[:, :, None] >> shifts) & np.uint64(1)
                bits[:, pos:pos + f.count * w] = b.reshape(n, f.count * w)
                pos += f.count * w
        return np.packbits(bits, axis=1)

    def unpack(self, records, first_record=0, offset_of=None) -> np.ndarray:
        """The (n, count) decoded values of (n, record_bytes) uint8 records; WireError naming the
        first record (and its offset) with non-zero padding or a code out of range."""
        n = records.shape[0]
        bits = np.unpackbits(records, axis=1)
        where = (lambda i: f"record {first_record + i}" + ("" if offset_of is None else
                                                          f" at byte offset {offset_of(i)}"))
        pad = bits[:, self.bits:]
        if pad.size and pad.any():
            i = int(np.nonzero(pad.any(axis=1))[0][0])
            raise WireError(f"{where(i)}: padding bits after bit {self.bits} are not zero")
        codes, pos = [], 0
        for f in self.fields:
            w = f.width
            if w == 0:
                codes.append(np.zeros((n, f.count), dtype=np.uint64))
                continue
            if w == 1:
                code = bits[:, pos:pos + f.count]                      # uint8 bits
            else:
                b = bits[:, pos:pos + f.count * w].reshape(n, f.count, w).astype(np.uint64)
                code = (b << np.arange(w - 1, -1, -1, dtype=np.uint64)).sum(axis=2, dtype=np.uint64)
            pos += f.count * w
            over = code > np.uint64(f.max_code)
            if over.any():
                i, j = np.argwhere(over)[0]
                raise WireError(f"{where(int(i))}: field {f.name}[{int(j)}] code {int(code[i, j])} is out of "
                                f"range (at most {f.max_code}: values [{f.lo}, {f.hi}]"
                                + ("" if f.escape is None else f" and the escape {f.escape}") + ")")
            codes.append(code)
        return self.values(codes)

    def header(self, count) -> bytes:
        return HEADER.pack(MAGIC, VERSION, 0, 0, self.fingerprint, self.record_bytes, int(count))


def encode(layout: ReportLayout, outputs) -> bytes:
    """One batch: header, the records of outputs, CRC-32."""
    mat = layout.as_matrix(outputs)
    n = mat.shape[0]
    if n == 0:
        raise ValueError("outputs: no reports to encode (a batch holds at least one record)")
    parts = [layout.header(n)]
    for s in range(0, n, CHUNK_RECORDS):
        parts.append(layout.pack(mat[s:s + CHUNK_RECORDS], first_record=s).tobytes())
    body = b"".join(parts)
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def _open(source):
    """(binary file object, name, close?) for bytes, a path or a binary file object."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(source)), "<bytes>", True
    if isinstance(source, (str, Path)):
        return open(source, "rb"), str(source), True
    if hasattr(source, "read"):
        return source, getattr(source, "name", "<file>"), False
    raise TypeError(f"reports must be bytes, a path or a binary file object, got {type(source).__name__}")


def _read(f, n) -> bytes:
    out = bytearray()
    while len(out) < n:
        b = f.read(n - len(out))
        if not b:
            break
        out += b
    return bytes(out)


def iter_chunks(layout: ReportLayout, source, chunk_records=CHUNK_RECORDS, batches=None):
    """Yield (first record index, decoded (k, count) values) over every batch of source.

    Checks each header (magic, version, reserved bytes, fingerprint, record size), each record
    (padding, range) and each batch's CRC-32; raises WireError naming the byte offset.  A chunk is
    yielded before its batch's CRC is checked: a consumer must treat the data as whole only when
    the iteration ends without an error (decode and estimate do).  batches: a list to which each
    batch whose CRC checked is appended as (batch index, byte offset, record count, SHA-256 digest
    of its bytes), for duplicate detection (fxdp estimate); the bytes themselves are untouched."""
    f, name, close = _open(source)
    try:
        yield from _iter_chunks(layout, f, name, chunk_records, batches)
    finally:
        if close:
            f.close()


def _iter_chunks(layout, f, name, chunk_records, batches=None):
    offset, index, nbatch = 0, 0, 0
    rb = layout.record_bytes
    while True:
        head = _read(f, HEADER_BYTES)
        if not head:
            if nbatch == 0:
                raise WireError(f"{name}: empty: no report batch (a batch starts with the {HEADER_BYTES}-byte "
                                f"header {MAGIC!r})")
            return
        if head[:4] != MAGIC[:len(head[:4])] or len(head) < 4:
            raise WireError(f"{name}: byte offset {offset}: not a report batch (starts {head[:4]!r}, want {MAGIC!r})"
                            + (": trailing bytes after the last batch" if nbatch else ""))
        if len(head) < HEADER_BYTES:
            raise WireError(f"{name}: byte offset {offset}: truncated batch header ({len(head)} of {HEADER_BYTES} bytes)")
        magic, version, r8, r16, fp, rec, count = HEADER.unpack(head)
        if version != VERSION:
            raise WireError(f"{name}: byte offset {offset + 4}: format version {version}, this fxdp reads {VERSION}")
        if r8 or r16:
            raise WireError(f"{name}: byte offset {offset + 5}: reserved header bytes are not zero")
        if fp != layout.fingerprint:
            raise WireError(f"{name}: byte offset {offset + 8}: configuration fingerprint 0x{fp:08x}, but "
                            f"{layout.kind} as configured has 0x{layout.fingerprint:08x}: these reports come from "
                            "a different configuration (docs/wire.md)")
        if rec != rb:
            raise WireError(f"{name}: byte offset {offset + 12}: record size {rec} bytes, the layout has {rb}")
        if count == 0:
            raise WireError(f"{name}: byte offset {offset + 16}: a batch of 0 records")
        crc = zlib.crc32(head)
        digest = hashlib.sha256(head) if batches is not None else None
        first = offset + HEADER_BYTES
        done = 0
        while done < count:
            k = min(chunk_records, count - done)
            data = _read(f, k * rb)
            if len(data) < k * rb:
                got = done + len(data) // rb
                raise WireError(f"{name}: truncated: the batch at byte offset {offset} declares {count} records "
                                f"of {rb} bytes; the data ends at byte offset {first + done * rb + len(data)}, "
                                f"inside record {index + got} (byte offset {first + got * rb})")
            crc = zlib.crc32(data, crc)
            if digest is not None:
                digest.update(data)
            recs = np.frombuffer(data, dtype=np.uint8).reshape(k, rb)
            base = first + done * rb
            try:
                vals = layout.unpack(recs, index, offset_of=lambda i, base=base: base + i * rb)
            except WireError as exc:                 # every decode error starts with the source's name
                raise WireError(f"{name}: {exc}") from None
            yield index, vals
            done += k
            index += k
        tail = _read(f, TRAILER_BYTES)
        end = first + count * rb
        if len(tail) < TRAILER_BYTES:
            raise WireError(f"{name}: truncated: the batch at byte offset {offset} ends at byte offset "
                            f"{end + len(tail)} inside its CRC-32 (byte offset {end})")
        stored = struct.unpack("<I", tail)[0]
        if stored != crc & 0xFFFFFFFF:
            raise WireError(f"{name}: the batch at byte offset {offset} (records {index - count}..{index - 1}, "
                            f"bytes {offset}..{end + 3}) is corrupted: CRC-32 0x{crc & 0xFFFFFFFF:08x}, stored "
                            f"0x{stored:08x} at byte offset {end}")
        if digest is not None:
            digest.update(tail)
            batches.append((nbatch, offset, count, digest.digest()))
        offset = end + TRAILER_BYTES
        nbatch += 1


def decode(layout: ReportLayout, source) -> np.ndarray:
    """Every report of source, in the decoded form; WireError (nothing returned) on any defect."""
    parts = [vals for _, vals in iter_chunks(layout, source)]
    mat = np.concatenate(parts, axis=0) if len(parts) > 1 else parts[0]
    return layout.shaped(mat)


def params_text(spec: dict) -> str:
    """The baked configuration of a device spec (docs/wire.md): cfg_type, cfg_init without
    whitespace, then each table as name:ctype:v0,v1,..."""
    lines = [str(spec["cfg_type"]), re.sub(r"\s+", "", str(spec["cfg_init"]))]
    for name, ctype, values in spec["tables"]:
        lines.append(f"{name}:{ctype}:" + ",".join(str(int(v)) for v in values))
    return "\n".join(lines)


def layout_from_spec(kind, spec: dict, fields=None, dtype=None) -> ReportLayout:
    """The default layout: one field "y" over the device output with its stated range ("min",
    "max", "escape" in device_spec()["output"]), else the whole range of its C type.  "matrix":
    True keeps one-element reports as an (n, 1) matrix (a k-subset at k = 1)."""
    out = spec["output"]
    ctype, count = out["ctype"], int(out.get("count", 1))
    if fields is None:
        lo, hi = CTYPE_RANGE[ctype]
        fields = [ReportField("y", count, int(out.get("min", lo)), int(out.get("max", hi)), out.get("escape"))]
    fields = tuple(fields)
    if sum(f.count for f in fields) != count:
        raise ValueError(f"{kind}: the report fields cover {sum(f.count for f in fields)} output elements, "
                         f"the device writes {count}")
    if dtype is None:
        dtype = ("u" if ctype.startswith("u") else "") + ctype[:-2].lstrip("u")
    return ReportLayout(kind, fields, str(np.dtype(dtype)), params_text(spec), bool(out.get("matrix", False)))


class ReportMultiset:
    """The default sufficient statistic for streaming estimation: the multiset of reports
    (distinct rows and their counts).  Every estimator here is a symmetric function of the
    reports, so the estimate on the multiset equals the estimate on the reports in any order
    (integer sums are exact).  Memory grows with the distinct reports, not with n."""
    FLUSH_ROWS = 1 << 20            # pending distinct rows merged at the latest

    def __init__(self, mechanism, layout: ReportLayout):
        self.m, self.layout = mechanism, layout
        self._rows = np.zeros((0, layout.count), dtype=layout.dtype)
        self._counts = np.zeros(0, dtype=np.int64)
        self._pending, self._pending_rows = [], 0

    @property
    def n(self) -> int:
        return int(self._counts.sum()) + sum(int(c.sum()) for _, c in self._pending)

    @property
    def rows(self):
        self._flush()
        return self._rows

    @property
    def counts(self):
        self._flush()
        return self._counts

    def add(self, reports):
        mat = np.asarray(reports).reshape(-1, self.layout.count)
        if mat.shape[1] == 1:          # one value per report: the 1-d unique is ~10x faster than axis=0
            rows, counts = np.unique(mat[:, 0], return_counts=True)
            rows = rows[:, None]
        else:
            rows, counts = np.unique(mat, axis=0, return_counts=True)
        self._queue(rows.astype(self.layout.dtype), counts.astype(np.int64))
        return self

    def merge(self, other):
        self._queue(other.rows, other.counts)
        return self

    def _queue(self, rows, counts):
        # merged lazily, once the pending rows outgrow the merged ones: O(n log n) in all, even
        # when nearly every report is distinct
        self._pending.append((rows, counts))
        self._pending_rows += rows.shape[0]
        if self._pending_rows > max(self.FLUSH_ROWS, self._rows.shape[0]):
            self._flush()

    def _flush(self):
        if not self._pending:
            return
        allr = np.concatenate([self._rows] + [r for r, _ in self._pending])
        allc = np.concatenate([self._counts] + [c for _, c in self._pending])
        self._pending, self._pending_rows = [], 0
        uniq, inv = np.unique(allr, axis=0, return_inverse=True)
        tot = np.zeros(uniq.shape[0], dtype=np.int64)
        np.add.at(tot, inv.reshape(-1), allc)
        self._rows, self._counts = uniq, tot

    def reports(self):
        return self.layout.shaped(np.repeat(self.rows, self.counts, axis=0))

    def estimate_rows(self, truth=None):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        finish = getattr(self.m, "estimate_from_multiset", None)
        if finish is not None:           # the family's estimator on (distinct rows, counts): O(distinct) memory
            return finish(self.rows, self.counts).as_rows(truth)
        return self.m.estimate_rows(self.reports(), truth)


class ColumnSums:
    """The sufficient statistic of estimators that read only n and each column's sum (bit-vector
    reports: RAPPOR, unary encoding): O(count) memory.  finish(sums, n) -> Estimate is the
    family's estimator on them, the one its estimate(reports) calls, so the two agree exactly."""

    def __init__(self, mechanism, layout: ReportLayout, finish):
        self.m, self.layout, self.finish = mechanism, layout, finish
        self.sums = np.zeros(layout.count, dtype=np.int64)
        self._n = 0

    @property
    def n(self) -> int:
        return self._n

    def add(self, reports):
        mat = np.asarray(reports).reshape(-1, self.layout.count)
        self.sums += mat.sum(axis=0, dtype=np.int64)
        self._n += mat.shape[0]
        return self

    def merge(self, other):
        self.sums += other.sums
        self._n += other.n
        return self

    def estimate_rows(self, truth=None):
        if self._n == 0:
            raise ValueError("reports: no reports to estimate from")
        return self.finish(self.sums, self._n).as_rows(truth)


class Histogram:
    """The sufficient statistic of estimators that read only how often each value was reported
    (one index per report: randomized response, Hadamard response): O(hi - lo) memory.
    finish(hist) -> Estimate is the family's estimator on it, the one its estimate(reports)
    calls, so the two agree exactly."""

    def __init__(self, mechanism, layout: ReportLayout, finish):
        (f,) = layout.fields
        if f.count != 1 or f.escape is not None:
            raise ValueError("Histogram: one field of one element without an escape")
        self.m, self.layout, self.finish, self.lo = mechanism, layout, finish, f.lo
        self.hist = np.zeros(f.hi - f.lo + 1, dtype=np.int64)

    @property
    def n(self) -> int:
        return int(self.hist.sum())

    def add(self, reports):
        v = np.asarray(reports).reshape(-1).astype(np.int64) - self.lo
        if v.size and (v.min() < 0 or v.max() >= self.hist.size):
            raise ValueError(f"reports must lie in [{self.lo}, {self.lo + self.hist.size - 1}]")
        self.hist += np.bincount(v, minlength=self.hist.size)
        return self

    def merge(self, other):
        self.hist += other.hist
        return self

    def estimate_rows(self, truth=None):
        if self.n == 0:
            raise ValueError("reports: no reports to estimate from")
        return self.finish(self.hist).as_rows(truth)

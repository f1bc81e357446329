"""Layer 5: report files and the streaming estimate (``fxdp estimate``, ``fxdp simulate
--write-reports``), and the user's true values (``fxdp simulate --values``).

Formats (docs/wire.md):

* ``bin``: the wire format, one or more report batches (``m.encode_reports``); the header's
  fingerprint ties the file to the configuration;
* ``csv``: a header row naming the layout's columns (``y``, or ``bits[0]``, ``bits[1]``, ...),
  then one report per line, decimal integers; written with LF line ends, read with LF or CRLF;
* ``parquet``: the same columns as int64 (pyarrow, the ``parquet`` extra).

CSV and Parquet carry no fingerprint: only the values' ranges are checked.  Every format is read
in chunks into the mechanism's mergeable sufficient statistic (``m.report_statistic()``), so a
file is never held in memory whole; nothing is estimated unless every file reads completely.
"""
from __future__ import annotations

import csv
import hashlib
import math
import sys
import time
from pathlib import Path

import numpy as np

from .mechanisms.base import check_mechanism

FORMATS = ("bin", "csv", "parquet")
CHUNK = 1 << 16


def guess_format(path, fmt=None):
    """fmt if given, else from the extension: .csv, .parquet/.pq, anything else bin."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        return fmt
    ext = Path(path).suffix.lower()
    return {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(ext, "bin")


def check_file(path, what):
    """path as a Path if it names a regular file; else an OSError saying what it is instead (what:
    "report file", "values file")."""
    p = Path(path)
    if p.is_dir():
        raise IsADirectoryError(f"{what} {p} is a directory, not a file")
    if not p.exists():
        raise FileNotFoundError(f"{what} not found: {p}")
    if not p.is_file():
        raise OSError(f"{what} {p} is not a regular file")
    return p


def _not_text(path, exc, fmt_hint):
    return ValueError(f"{path}: not a UTF-8 text file (byte {exc.object[exc.start:exc.start + 1]!r} at offset "
                      f"{exc.start} of a block), so not CSV{fmt_hint}")


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ImportError("Parquet report files need pyarrow: pip install 'fxdp[parquet]'") from None
    return pyarrow


def _table_chunk(m, layout, mat, first, path, line_of):
    """Range-check one chunk of table rows and return it in the decoded form."""
    try:
        codes = layout.codes(mat, first, where=line_of)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return layout.shaped(layout.values(codes))


def iter_csv(m, path, chunk=CHUNK):
    try:
        yield from _iter_csv(m, path, chunk)
    except UnicodeDecodeError as exc:
        raise _not_text(path, exc, " (read as CSV by --format csv or the .csv extension; a wire-format file "
                                   "is --format bin)") from None


def _iter_csv(m, path, chunk):
    layout = m.report_layout()
    cols = layout.columns()
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        head = next(reader, None)
        if head is None:
            raise ValueError(f"{path}: empty file (want a header row {','.join(cols)} and one report per line)")
        if [h.strip() for h in head] != cols:
            raise ValueError(f"{path}: line 1: the header must be {','.join(cols)} ({m.kind} reports), got "
                             f"{','.join(head)[:200]}")
        rows, first = [], 0
        for line, row in enumerate(reader, start=2):
            if len(row) != len(cols):
                raise ValueError(f"{path}: line {line}: {len(row)} values, want {len(cols)}")
            try:
                rows.append([int(v) for v in row])
            except ValueError:
                raise ValueError(f"{path}: line {line}: not integers: {','.join(row)[:200]}") from None
            if len(rows) == chunk:
                yield first, _table_chunk(m, layout, np.array(rows, dtype=np.int64), first, path,
                                          lambda i, b=first: f"line {b + i + 2}")
                first += len(rows)
                rows = []
        if rows:
            yield first, _table_chunk(m, layout, np.array(rows, dtype=np.int64), first, path,
                                      lambda i, b=first: f"line {b + i + 2}")


def iter_parquet(m, path, chunk=CHUNK):
    _pyarrow()
    import pyarrow.parquet as pq
    layout = m.report_layout()
    cols = layout.columns()
    pf = pq.ParquetFile(path)
    missing = [c for c in cols if c not in pf.schema_arrow.names]
    if missing:
        raise ValueError(f"{path}: Parquet columns {missing} missing ({m.kind} reports have {', '.join(cols)})")
    first = 0
    for batch in pf.iter_batches(batch_size=chunk, columns=cols):
        mat = np.column_stack([batch.column(c).to_numpy(zero_copy_only=False).astype(np.int64) for c in cols])
        yield first, _table_chunk(m, layout, mat, first, path, lambda i, b=first: f"row {b + i}")
        first += mat.shape[0]


def iter_reports(m, path, fmt=None, chunk=CHUNK, batches=None):
    """Yield (first index, reports chunk) of one report file, in the form m.simulate returns.
    batches (wire format): a list receiving each batch's (index, byte offset, records, SHA-256)."""
    check_mechanism(m, "iter_reports")
    fmt = guess_format(path, fmt)
    if fmt == "bin":
        return m.iter_report_chunks(path, chunk, batches)
    if fmt == "csv":
        return iter_csv(m, path, chunk)
    return iter_parquet(m, path, chunk)


def write_reports(m, reports, path, fmt=None):
    """Write reports (as m.simulate returns them) to path in fmt (default: from the extension)."""
    check_mechanism(m, "write_reports")
    fmt = guess_format(path, fmt)
    layout = m.report_layout()
    mat = layout.as_matrix(reports, "reports")
    layout.codes(mat)                                   # range check before anything is written
    path = Path(path)
    if fmt == "bin":
        path.write_bytes(m.encode_reports(reports))
    elif fmt == "csv":
        # LF line ends (a Unix text file, as other tools write CSV); the reader takes LF and CRLF
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(layout.columns())
            for s in range(0, mat.shape[0], CHUNK):
                w.writerows(mat[s:s + CHUNK].tolist())
    else:
        pa = _pyarrow()
        table = pa.table({c: mat[:, j].astype(np.int64) for j, c in enumerate(layout.columns())})
        pa.parquet.write_table(table, str(path))
    return path


class _Progress:
    """A one-line progress bar on stderr, drawn only on a terminal."""

    def __init__(self, total_bytes, enabled=None):
        self.total = max(1, total_bytes)
        self.on = sys.stderr.isatty() if enabled is None else enabled
        self.last = 0.0

    def update(self, done, reports):
        if not self.on or time.monotonic() - self.last < 0.2:
            return
        self.last = time.monotonic()
        frac = min(1.0, done / self.total)
        bar = "#" * int(30 * frac)
        sys.stderr.write(f"\r[{bar:<30}] {100 * frac:5.1f}%  {reports:,} reports")
        sys.stderr.flush()

    def close(self):
        if self.on:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


# A repeated wire batch is refused only when its records hold at least this many bits: two honest
# batches that large coincide with negligible probability, while a gateway's batches of one report
# (docs/wire.md) repeat by chance (a 1-bit report has two batches of one).
DUPLICATE_MIN_BITS = 128
_ALLOW = "pass --allow-duplicates if the repeat is genuine"


def check_distinct_paths(paths):
    """ValueError when two of the paths name the same file (the same resolved path)."""
    seen = {}
    for i, p in enumerate(paths):
        key = Path(p).resolve()
        if key in seen:
            raise ValueError(f"report files {seen[key][1]} (argument {seen[key][0] + 1}) and {p} (argument {i + 1}) "
                             f"are the same file: its reports would count twice; {_ALLOW}")
        seen[key] = (i, p)


def _file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.digest()


class _Duplicates:
    """Repeated report data across the files of one estimate: whole files (by content) and, in the
    wire format, batches of at least DUPLICATE_MIN_BITS record bits (by SHA-256 of their bytes)."""

    def __init__(self, record_bits):
        self.record_bits = record_bits
        self.files, self.batches = {}, {}

    def add_file(self, path, digest):
        if digest in self.files:
            raise ValueError(f"report files {self.files[digest]} and {path} have the same content (SHA-256 "
                             f"{digest.hex()[:16]}...): its reports would count twice; {_ALLOW}")
        self.files[digest] = path

    def add_batches(self, path, batches):
        for index, offset, count, digest in batches:
            if count * self.record_bits < DUPLICATE_MIN_BITS:
                continue
            if digest in self.batches:
                q, j, off = self.batches[digest]
                raise ValueError(f"{path}: batch {index} (byte offset {offset}, {count:,} reports) repeats batch {j} "
                                 f"of {q} (byte offset {off}) byte for byte (SHA-256 {digest.hex()[:16]}...): its "
                                 f"reports would count twice; {_ALLOW}")
            self.batches[digest] = (path, index, offset)


def estimate_files(m, paths, fmt=None, truth=None, progress=None, chunk=CHUNK, allow_duplicates=False):
    """The mechanism's estimate over every report in the files, streamed in chunks through
    m.report_statistic().  Returns {"reports", "files", "format", "fingerprint", "seconds",
    "estimates"}; raises (nothing estimated) if any file fails to read whole.  Repeated data is
    refused unless allow_duplicates: the same file twice (by path or by content) and, in the wire
    format, a batch of >= DUPLICATE_MIN_BITS record bits that repeats one seen before."""
    check_mechanism(m, "estimate_files")
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("give at least one report file")
    for p in paths:
        check_file(p, "report file")
    if not allow_duplicates:
        check_distinct_paths(paths)
    dups = None if allow_duplicates else _Duplicates(m.report_layout().bits)
    t0 = time.perf_counter()
    stat = m.report_statistic()
    sizes = [p.stat().st_size for p in paths]
    bar = _Progress(sum(sizes), progress)
    done_bytes = 0
    try:
        for p, size in zip(paths, sizes):
            n_file = 0
            batches = [] if dups is not None and guess_format(p, fmt) == "bin" else None
            for _, reports in iter_reports(m, p, fmt, chunk, batches):
                stat.add(reports)
                n_file += len(reports)
                bar.update(done_bytes + size * min(1.0, n_file * m.report_layout().record_bytes / max(size, 1)),
                           stat.n)
            if n_file == 0:
                raise ValueError(f"{p}: no reports in the file")
            if dups is not None:
                if batches is not None:             # the file's content: its batches, in order
                    dups.add_batches(p, batches)
                    dups.add_file(p, hashlib.sha256(b"".join(d for *_, d in batches)).digest())
                else:
                    dups.add_file(p, _file_digest(p))
            done_bytes += size
    finally:
        bar.close()
    rows = stat.estimate_rows(truth)
    return {"mechanism": repr(m), "reports": stat.n, "files": [str(p) for p in paths],
            "format": guess_format(paths[0], fmt), "fingerprint": f"0x{m.report_fingerprint:08x}",
            "seconds": time.perf_counter() - t0, "estimates": rows}


def _cell(text):
    t = text.strip()
    low = t.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        v = int(t)
    except ValueError:
        raise ValueError(f"not an integer or true/false: {t[:40]!r}") from None
    if not -(1 << 63) <= v < 1 << 63:
        raise ValueError(f"{t[:40]} does not fit an int64 (device form)")
    return v


def load_values(path, columns=None, strings=False):
    """True values from a file: .npy (the array as saved), .csv or .parquet (the named columns,
    default every column; one column gives shape (n,), several (n, c)).  CSV cells are integers
    or true/false; a file's columns are all true/false (a bool array) or all integers.  ValueError
    naming the file, line and column on anything else.  strings=True (a mechanism over byte
    strings, ``m.string_input``): ``load_string_values``."""
    if strings:
        return load_string_values(path, columns)
    path = check_file(path, "values file")
    ext = path.suffix.lower()
    if ext == ".npy":
        if columns:
            raise ValueError("--column applies to CSV and Parquet files, not .npy")
        arr = _load_npy(path)
    elif ext == ".csv":
        try:
            arr = _load_csv_values(path, columns)
        except UnicodeDecodeError as exc:
            raise _not_text(path, exc, " (a .csv values file is text: a header row, then one device per line)") from None
    elif ext in (".parquet", ".pq"):
        _pyarrow()
        import pyarrow.parquet as pq
        arr = _table_values(path, pq.read_table(path, columns=list(columns) if columns else None))
    else:
        raise ValueError(f"{path}: values must be a .npy, .csv or .parquet file")
    if arr.shape[0] == 0:
        raise ValueError(f"{path}: no values")
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{path}: values must be integers or booleans (device form), got {arr.dtype}")
    return arr


def load_string_values(path, columns=None):
    """Byte strings, one device each, from a file: .txt (one value per line, UTF-8; the line break is
    not part of the value), .csv (one column of text, named by columns or the only column) or
    .parquet (one string or binary column).  Text is UTF-8 encoded as the device holds it, so
    Numba and C see the same bytes.  ValueError naming the file and line (or row) for a line that
    is not UTF-8 or is empty, and for a missing or second column."""
    path = check_file(path, "values file")
    ext = path.suffix.lower()
    cols = list(columns or [])
    if len(cols) > 1:
        raise ValueError(f"{path}: strings come from one column, got --column {', '.join(cols)}")
    if ext == ".txt":
        if cols:
            raise ValueError("--column applies to CSV and Parquet files, not .txt")
        out = []
        with open(path, "rb") as f:
            for line, raw in enumerate(f, start=1):
                b = raw[:-1] if raw.endswith(b"\n") else raw
                b = b[:-1] if b.endswith(b"\r") else b
                try:
                    b.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{path}: line {line}: not UTF-8 text ({exc.reason} at byte {exc.start}); a "
                                     ".txt values file holds one UTF-8 value per line") from None
                out.append(b)
    elif ext == ".csv":
        try:
            with open(path, newline="", encoding="utf-8-sig") as f:
                reader = csv.reader(f)
                head = [h.strip() for h in next(reader, [])]
                if not head:
                    raise ValueError(f"{path}: empty file (want a header row naming the column)")
                name = cols[0] if cols else (head[0] if len(head) == 1 else None)
                if name is None:
                    raise ValueError(f"{path}: {len(head)} columns ({', '.join(head)}): name the strings' with --column")
                if name not in head:
                    raise ValueError(f"{path}: no column {name!r}; the columns are {', '.join(head)}")
                i = head.index(name)
                out = []
                for line, row in enumerate(reader, start=2):
                    if i >= len(row):
                        raise ValueError(f"{path}: line {line}: {len(row)} cells, the header has {len(head)}")
                    out.append(row[i].encode("utf-8"))
        except UnicodeDecodeError as exc:
            raise _not_text(path, exc, " (a .csv values file is text: a header row, then one device per line)") from None
    elif ext in (".parquet", ".pq"):
        _pyarrow()
        import pyarrow.parquet as pq
        table = pq.read_table(path, columns=cols or None)
        if table.num_columns != 1:
            raise ValueError(f"{path}: {table.num_columns} columns ({', '.join(table.column_names)}): name the "
                             "strings' with --column")
        out = [v if isinstance(v, bytes) else (v.encode("utf-8") if isinstance(v, str) else v)
               for v in table.column(0).to_pylist()]
        bad = next((i for i, v in enumerate(out) if not isinstance(v, bytes)), None)
        if bad is not None:
            raise ValueError(f"{path}: row {bad}: {type(out[bad]).__name__}, not a string (a null or a number)")
    else:
        raise ValueError(f"{path}: string values must be a .txt, .csv or .parquet file")
    if not out:
        raise ValueError(f"{path}: no values")
    empty = next((i for i, v in enumerate(out) if not v), None)
    if empty is not None:
        where = f"line {empty + 1}" if ext == ".txt" else (f"line {empty + 2}" if ext == ".csv" else f"row {empty}")
        raise ValueError(f"{path}: {where}: an empty value (a device's string is 1 or more bytes)")
    return out


def _table_values(path, table):
    names = list(table.column_names)
    cols = [table.column(c).to_numpy(zero_copy_only=False) for c in names]
    _same_kind(path, names, [c.dtype.kind == "b" for c in cols])
    return cols[0] if len(cols) == 1 else np.column_stack(cols)


ROW_RANGE_FORMATS = (".npy", ".parquet", ".pq")


def value_rows(path):
    """The number of rows (devices) of a .npy or Parquet values file, from its header or metadata."""
    path = check_file(path, "values file")
    ext = path.suffix.lower()
    if ext == ".npy":
        return int(np.load(path, mmap_mode="r", allow_pickle=False).shape[0])
    if ext in (".parquet", ".pq"):
        _pyarrow()
        import pyarrow.parquet as pq
        return int(pq.ParquetFile(path).metadata.num_rows)
    raise ValueError(f"{path}: rows are read by range from .npy and .parquet values files only, got {ext or 'no extension'}")


def read_value_rows(path, columns, lo, hi):
    """Rows lo..hi-1 of a values file, what load_values(path, columns)[lo:hi] holds, reading only
    them where the format allows: a .npy file through a memory map, a Parquet file's row groups
    that overlap the range (a cluster partition reads its own rows: fxdp.dask_engine)."""
    from .validate import check_int
    path = check_file(path, "values file")
    n = value_rows(path)
    lo = check_int("lo (first row)", lo, 0, n)
    hi = check_int("hi (end row)", hi, lo, n)
    if path.suffix.lower() == ".npy":
        if columns:
            raise ValueError("--column applies to CSV and Parquet files, not .npy")
        arr = np.array(np.load(path, mmap_mode="r", allow_pickle=False)[lo:hi])
    else:
        import pyarrow.parquet as pq
        f = pq.ParquetFile(path)
        md, groups, first, start = f.metadata, [], None, 0
        for g in range(md.num_row_groups):
            rows = md.row_group(g).num_rows
            if start < hi and start + rows > lo:
                groups.append(g)
                first = start if first is None else first
            start += rows
        cols = list(columns) if columns else None
        if not groups:                               # an empty range
            table = f.read_row_group(0, columns=cols).slice(0, 0)
        else:
            table = f.read_row_groups(groups, columns=cols).slice(lo - first, hi - lo)
        arr = _table_values(path, table)
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{path}: values must be integers or booleans (device form), got {arr.dtype}")
    return arr


def _load_npy(path):
    with open(path, "rb") as f:
        magic = f.read(6)
    if magic != b"\x93NUMPY":
        raise ValueError(f"{path}: not a valid .npy file (it does not start with the .npy magic b'\\x93NUMPY'; "
                         "numpy.save writes one)")
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise ValueError(f"{path}: the .npy file holds Python objects (pickled data), which fxdp does not "
                             "load: save an integer or boolean array") from None
        raise ValueError(f"{path}: not a valid .npy file ({exc})") from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"{path}: not a valid .npy file ({exc})") from None


def _same_kind(path, names, is_bool):
    """A file's columns must all be true/false or all integers (one device form, one dtype)."""
    if any(is_bool) and not all(is_bool):
        b = [n for n, x in zip(names, is_bool) if x]
        i = [n for n, x in zip(names, is_bool) if not x]
        raise ValueError(f"{path}: column(s) {', '.join(b)} hold true/false but {', '.join(i)} hold integers: "
                         "the columns of one input must all be booleans or all integers")


def _load_csv_values(path, columns):
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        head = next(reader, None)
        if head is None:
            raise ValueError(f"{path}: empty file (want a header row naming the columns)")
        head = [h.strip() for h in head]
        names = list(columns) if columns else head
        missing = [c for c in names if c not in head]
        if missing:
            raise ValueError(f"{path}: no column {missing[0]!r}; the columns are {', '.join(head)}")
        idx = [head.index(c) for c in names]
        rows, kinds = [], None
        for line, row in enumerate(reader, start=2):
            try:
                cells = [_cell(row[i]) for i in idx]
            except IndexError:
                raise ValueError(f"{path}: line {line}: {len(row)} cells, the header has {len(head)}") from None
            except ValueError as exc:
                raise ValueError(f"{path}: line {line}: {exc}") from None
            k = [isinstance(v, bool) for v in cells]
            if kinds is None:
                kinds = k
                _same_kind(path, names, kinds)
            elif k != kinds:
                j = next(j for j in range(len(k)) if k[j] != kinds[j])
                raise ValueError(f"{path}: line {line}: column {names[j]} holds "
                                 + ("true/false" if k[j] else "an integer")
                                 + f", line 2 {'an integer' if k[j] else 'true/false'}: a column holds booleans or "
                                 "integers, not both")
            rows.append(cells)
    arr = np.array(rows, dtype=bool if kinds and all(kinds) else np.int64)
    arr = arr.reshape(len(rows), len(names))
    return arr.reshape(-1) if len(names) == 1 else arr


class Population(tuple):
    """(values, truth), what fxdp.fleet.simulate_fleet takes as its population; ``clamped``: how many
    values population_from_values(clamp=True) clamped into the mechanism's input range."""

    def __new__(cls, values, truth, clamped=0):
        self = super().__new__(cls, (values, truth))
        self.clamped = int(clamped)
        return self

    values = property(lambda self: self[0])
    truth = property(lambda self: self[1])


def _fmt(v):
    from fractions import Fraction
    if isinstance(v, Fraction) and v.denominator == 1:
        return str(v.numerator)
    return str(v)


def check_value_range(m, values, clamp=False, source="values"):
    """(values, clamped): the true values checked against m.input_range() (the protocol: the range
    a release uses a value in as it is, and clamps it into otherwise).  Outside it: a ValueError with
    the count, the first offending row (index and value) and the range; clamp=True clamps them
    instead and returns how many values it clamped.  Booleans are refused by a kind with a numeric
    range (booleans are not readings)."""
    check_mechanism(m, "check_value_range")
    r = m.input_range()
    arr = np.asarray(values)
    if r is None:
        return arr, 0
    lo_v, hi_v = r.lo, r.hi
    per_column = isinstance(lo_v, (list, tuple))
    text = (f"[{_fmt(lo_v)}, {_fmt(hi_v)}]" if not per_column else
            "per column " + ", ".join(f"[{_fmt(a)}, {_fmt(b)}]" for a, b in zip(lo_v, hi_v)))
    if arr.dtype == bool:
        raise ValueError(f"{source}: true/false values, but {m.kind} takes numbers in {text} ({r.parameter}); "
                         "booleans are not readings: give the numbers themselves")
    if arr.dtype.kind not in "iuf":
        return arr, 0                          # the mechanism's own checks name what is wrong
    los = list(lo_v) if per_column else [lo_v]
    his = list(hi_v) if per_column else [hi_v]
    if arr.dtype.kind in "iu":                 # exact: an integer v < lo iff v < ceil(lo)
        i64 = (-(1 << 63), (1 << 63) - 1)
        lo_c = np.array([min(max(math.ceil(v), i64[0]), i64[1]) for v in los], dtype=np.int64)
        hi_c = np.array([min(max(math.floor(v), i64[0]), i64[1]) for v in his], dtype=np.int64)
    else:
        lo_c = np.array([float(v) for v in los])
        hi_c = np.array([float(v) for v in his])
    if not per_column:
        lo_c, hi_c = lo_c[0], hi_c[0]
    bad = (arr < lo_c) | (arr > hi_c)
    count = int(bad.sum())
    if count == 0:
        return arr, 0
    if not clamp:
        rows = bad if bad.ndim == 1 else bad.any(axis=tuple(range(1, bad.ndim)))
        i = int(np.argmax(rows))
        v = arr[i].tolist()
        raise ValueError(f"{source}: {count:,} of {arr.size:,} values lie outside {text}, the input range of "
                         f"{m.kind} ({r.parameter}); the first is row {i}: {v}.  A release clamps such a value "
                         "into the range, so the estimate would not estimate these values: correct them, or "
                         "clamp them (fxdp simulate --clamp; clamp=True) and compare with the clamped truth")
    exact = all(v == math.floor(v) for v in los + his) and arr.dtype.kind in "iu"
    lo_f = lo_c if exact else np.asarray([float(v) for v in los]) if per_column else float(los[0])
    hi_f = hi_c if exact else np.asarray([float(v) for v in his]) if per_column else float(his[0])
    out = np.clip(arr if exact else arr.astype(np.float64), lo_f, hi_f)
    return out, count


def population_from_values(m, values, clamp=False, source="values"):
    """A Population (values, truth) for fxdp.fleet.simulate_fleet: the given true values and
    m.true_statistic of them (ValueError, before any draw, if m refuses them).  Values outside
    m.input_range() are refused (check_value_range), or with clamp=True clamped, the truth computed
    on the clamped values (what the estimate estimates) and their count in ``.clamped``."""
    check_mechanism(m, "population_from_values")
    values, clamped = check_value_range(m, values, clamp, source)
    try:
        truth = m.true_statistic(values)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    return Population(values, truth, clamped)

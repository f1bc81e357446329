"""Layer 5: report files and the streaming estimate (``fxdp estimate``, ``fxdp simulate
--write-reports``), and the user's true values (``fxdp simulate --values``).

Formats (docs/wire.md):

* ``bin``: the wire format, one or more report batches (``m.encode_reports``); the header's
  fingerprint ties the file to the configuration;
* ``csv``: a header row naming the layout's columns (``y``, or ``bits[0]``, ``bits[1]``, ...),
  then one report per line, decimal integers;
* ``parquet``: the same columns as int64 (pyarrow, the ``parquet`` extra).

CSV and Parquet carry no fingerprint: only the values' ranges are checked.  Every format is read
in chunks into the mechanism's mergeable sufficient statistic (``m.report_statistic()``), so a
file is never held in memory whole; nothing is estimated unless every file reads completely.
"""
from __future__ import annotations

import csv
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
    layout = m.report_layout()
    cols = layout.columns()
    with open(path, newline="") as f:
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


def iter_reports(m, path, fmt=None, chunk=CHUNK):
    """Yield (first index, reports chunk) of one report file, in the form m.simulate returns."""
    check_mechanism(m, "iter_reports")
    fmt = guess_format(path, fmt)
    if fmt == "bin":
        return m.iter_report_chunks(path, chunk)
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
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
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


def estimate_files(m, paths, fmt=None, truth=None, progress=None, chunk=CHUNK):
    """The mechanism's estimate over every report in the files, streamed in chunks through
    m.report_statistic().  Returns {"reports", "files", "format", "fingerprint", "seconds",
    "estimates"}; raises (nothing estimated) if any file fails to read whole."""
    check_mechanism(m, "estimate_files")
    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("give at least one report file")
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"report file not found: {p}")
    t0 = time.perf_counter()
    stat = m.report_statistic()
    sizes = [p.stat().st_size for p in paths]
    bar = _Progress(sum(sizes), progress)
    done_bytes = 0
    try:
        for p, size in zip(paths, sizes):
            n_file = 0
            for _, reports in iter_reports(m, p, fmt, chunk):
                stat.add(reports)
                n_file += len(reports)
                bar.update(done_bytes + size * min(1.0, n_file * m.report_layout().record_bytes / max(size, 1)),
                           stat.n)
            if n_file == 0:
                raise ValueError(f"{p}: no reports in the file")
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
        return int(t)
    except ValueError:
        raise ValueError(f"not an integer or true/false: {t[:40]!r}") from None


def load_values(path, columns=None):
    """True values from a file: .npy (the array as saved), .csv or .parquet (the named columns,
    default every column; one column gives shape (n,), several (n, c)).  CSV cells are integers
    or true/false.  ValueError naming the file, line and column on anything else."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"values file not found: {path}")
    ext = path.suffix.lower()
    if ext == ".npy":
        arr = np.load(path, allow_pickle=False)
        if columns:
            raise ValueError("--column applies to CSV and Parquet files, not .npy")
    elif ext == ".csv":
        with open(path, newline="") as f:
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
            rows = []
            for line, row in enumerate(reader, start=2):
                try:
                    rows.append([_cell(row[i]) for i in idx])
                except IndexError:
                    raise ValueError(f"{path}: line {line}: {len(row)} cells, the header has {len(head)}") from None
                except ValueError as exc:
                    raise ValueError(f"{path}: line {line}: {exc}") from None
        arr = np.array(rows, dtype=bool if rows and all(isinstance(v, bool) for v in rows[0]) else np.int64)
        arr = arr.reshape(len(rows), len(names))
        if len(names) == 1:
            arr = arr.reshape(-1)
    elif ext in (".parquet", ".pq"):
        _pyarrow()
        import pyarrow.parquet as pq
        table = pq.read_table(path, columns=list(columns) if columns else None)
        cols = [table.column(c).to_numpy(zero_copy_only=False) for c in table.column_names]
        arr = cols[0] if len(cols) == 1 else np.column_stack(cols)
    else:
        raise ValueError(f"{path}: values must be a .npy, .csv or .parquet file")
    if arr.shape[0] == 0:
        raise ValueError(f"{path}: no values")
    if arr.dtype.kind not in "iub":
        raise ValueError(f"{path}: values must be integers or booleans (device form), got {arr.dtype}")
    return arr


def population_from_values(m, values):
    """(values, truth) for fxdp.fleet.simulate_fleet: the given true values and
    m.true_statistic of them (ValueError, before any draw, if m refuses them)."""
    check_mechanism(m, "population_from_values")
    return values, m.true_statistic(values)

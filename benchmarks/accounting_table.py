"""docs/accounting.md table: certified central epsilon after shuffling (fxdp.shuffled_epsilon, FMT 2021 numerical
bound, certified upward) for epsilon0 in {1, 2, 4, 8}, n in {1e4, 1e6, 1e8}, delta = 1e-8.

    python benchmarks/accounting_table.py          # prints the Markdown table and the time of each cell

"-" marks no amplification (the bound is not below epsilon0).  tests/test_readme.py checks that
docs/accounting.md holds exactly this table."""
import time

from fxdp.accounting import shuffled_epsilon

EPS0 = (1, 2, 4, 8)
SIZES = (10**4, 10**6, 10**8)
DELTA = 1e-8


def cell(eps0, n):
    try:
        return f"{shuffled_epsilon(eps0, n, DELTA).certified:.4g}"
    except ValueError:
        return "-"


def table():
    lines = ["| epsilon0 | " + " | ".join(f"n = 10^{len(str(n)) - 1}" for n in SIZES) + " |",
             "|---|" + "---|" * len(SIZES)]
    for e in EPS0:
        lines.append(f"| {e} | " + " | ".join(cell(e, n) for n in SIZES) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    t0 = time.perf_counter()
    print(table())
    print(f"\n({time.perf_counter() - t0:.2f} s for {len(EPS0) * len(SIZES)} cells)")

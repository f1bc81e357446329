"""The Square Wave mechanism (SW) for a bounded reading (Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić,
Li, "Estimating Numerical Distributions under Local Differential Privacy", SIGMOD 2020), exact on a
grid, with the paper's EMS distribution estimate.

Continuous SW.  A reading v in [0, 1] is reported as v~ in [-b, 1 + b] with density
p = e^eps / (2 b e^eps + 1) on the window |v~ - v| <= b and q = p e^(-eps) elsewhere; the paper's
optimal b (it maximizes an upper bound on the mutual information of v and v~) is
b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps)), from 1/2 at eps -> 0 down to 0.

Grid form.  The reading is the grid index i in [0, N], N = 2^bits (``fxdp.mechanisms.readings._numeric``),
v = i / N.  The output is a cell j of L = N + w cells of width 1/N; cell j stands for the output
value v~_j = (j + 1/2 - w/2) / N, so the cells tile [-b_grid, 1 + b_grid], b_grid = w / (2 N).  The
window of input i is the w cells [i, i + w), centred exactly on v = i / N; each has probability
A / 2^k, every other cell (2^k - w A) / 2^(k + bits) (k = prob_bits).  This is the grid Piecewise
mechanism's shape (``fxdp.mechanisms.readings.piecewise``) with SW's window width, so the release, the
privacy rounding, the exact audit and the unbiased mean are Piecewise's; the window width and
the server side (EMS) are SW's own.

* The window width w = max(1, min(N, round(2 b N))): the nearest integer to the paper's 2 b N.
  w is not a privacy parameter (any w is private at the realized A: the privacy ratio is
  A 2^bits / (2^k - w A) whatever w), so it is rounded to the nearest, which keeps b_grid within
  1 / (4 N) of the paper's optimum (unless clipped to [1/(2N), 1/2]); ``m.realized()["b"]`` is
  b_grid, ``["b_paper"]`` the paper's.
* A is the largest integer with A 2^bits / (2^k - w A) <= e^eps (a certified lower bound on
  e^eps), so the window probability is rounded *down*: fewer reports in the window can only lower
  the ratio.  The realized epsilon ln(A 2^bits / (2^k - w A)) never exceeds the request
  (``m.epsilon``, rounded up; ``fxdp.audit`` reports it exactly).

Sampling: Piecewise's, bit for bit (lazy: Bernoulli(w A / 2^k), then uniform_below(w) or `bits`
bits; constant time: exactly k + bits bits).

Estimators (post-processing on the server; floats are fine here).

* ``m.estimate(reports)``: the unbiased mean (Piecewise's linear debiasing of the cell position,
  exact for the grid probabilities) with its standard error; ``m.variance(readings)`` its closed
  form, ``m.continuous_variance`` the continuous SW's (derived in the docstring there).
* ``m.estimate_distribution(reports)``: EMS, expectation maximization with smoothing (the paper's
  Algorithm 1): a histogram of the readings over ``bins`` equal-width bins of [lo, hi], from the
  transition matrix of the realized grid probabilities (``m.transition_matrix``: exact integer
  counts and Fractions, turned into floats only there).
* ``m.estimate_rows(reports, truth)``: the mean, then the histogram (``fxdp simulate --json``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...conservative import log_up
from ...reports import Estimate, reports_array
from .._device import SRC_RNG, _ct_text, _init, u8, u32, u64
from ._numeric import MAX_PROB_BITS, check_bits
from ..base import CConfig
from .piecewise import Piecewise, realize_a

SRC_SQUARE_WAVE = SRC_RNG + ["fxdp_uniform.c", "fxdp_bernoulli.c", "fxdp_mech_piecewise.c", "fxdp_mech_square_wave.c"]

DEFAULT_BINS = 16
MAX_BINS = 4096
EMS_FINE_BINS = 256         # EMS estimates this many input bins (the paper's d), summed into `bins`
EMS_MAX_CELLS = 1024        # and groups consecutive output cells into at most this many (the paper's d~)
EMS_TOL = 1e-6              # stop when the log-likelihood gains less than this per report
EMS_MAX_ITER = 10_000
BOOTSTRAP_REPLICATES = 10   # parametric bootstrap of the EMS standard errors
BOOTSTRAP_SEED = 0x5157     # the bootstrap's fixed seed: estimate_rows is a function of the reports


def paper_b(epsilon):
    """The paper's optimal half-width b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps))
    (float; not a privacy parameter), evaluated with expm1 so that small epsilon keeps its digits."""
    e = float(epsilon)
    if e < 1e-4:                       # both sides ~ e^2/2 (1 + O(e)): the limit b -> 1/2 - e/6
        return 0.5 - e / 6
    em1 = math.expm1(e)
    return (e * (em1 + 1) - em1) / (2 * (em1 + 1) * (em1 - e))


def window_width(n_steps, epsilon):
    """w = round(2 b N), at least 1 and at most N: the paper's window on the grid (nearest)."""
    return max(1, min(n_steps, int(round(2 * paper_b(epsilon) * n_steps))))


def _bin_edges_idx(n_steps, bins):
    """Grid indices [s_r, e_r) of each histogram bin r: level i is in bin min(bins - 1,
    floor(i bins / N)) (equal-width bins of [lo, hi], the last one closed)."""
    s = np.array([-(-r * n_steps // bins) for r in range(bins)], dtype=np.int64)      # ceil(r N / B)
    e = np.append(s[1:], n_steps + 1)
    return s, e


def _window_prefix(x, w):
    """F(x) = sum_{u <= x} clamp(u, 0, w), elementwise on int64 x (exact)."""
    x = np.asarray(x, dtype=np.int64)
    inside = x * (x + 1) // 2
    beyond = w * (w + 1) // 2 + (x - w) * w
    return np.where(x < 0, 0, np.where(x <= w, inside, beyond))


def _smooth(theta):
    """The paper's binomial smoothing (1, 2, 1)/4; at each end the kernel's inside part,
    renormalized ((2, 1)/3), as the authors' code does; then renormalized to sum 1."""
    if theta.shape[0] < 2:
        return theta
    out = np.empty_like(theta)
    out[1:-1] = (theta[:-2] + 2 * theta[1:-1] + theta[2:]) / 4
    out[0] = (2 * theta[0] + theta[1]) / 3
    out[-1] = (theta[-2] + 2 * theta[-1]) / 3
    return out / out.sum()


def ems(matrix, counts, smooth=True, tol=EMS_TOL, max_iter=EMS_MAX_ITER):
    """Expectation maximization with smoothing (Li et al. 2020, Algorithm 1) for the input
    distribution theta (sum 1) given report counts over the output groups and the column-stochastic
    transition matrix (matrix[g, r] = P(report in group g | reading in bin r)).  Starts uniform;
    each round: theta <- theta * M^T (counts / (M theta)) / n (E and M steps), then the binomial
    smoothing (if smooth); stops when the log-likelihood sum_g counts_g ln((M theta)_g) gains less
    than tol per report (the paper stops on a small log-likelihood gain; per report, the rule does
    not depend on n), or after max_iter rounds.  Returns (theta, rounds)."""
    mat = np.asarray(matrix, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    n = float(c.sum())
    if n <= 0:
        raise ValueError("reports: no reports to estimate from")
    theta = np.full(mat.shape[1], 1.0 / mat.shape[1])
    nz = c > 0
    mat_nz, c_nz = mat[nz], c[nz]
    old = -math.inf
    for rounds in range(1, max_iter + 1):
        pred = mat_nz @ theta
        theta = theta * (mat_nz.T @ (c_nz / pred)) / n
        if smooth:
            theta = _smooth(theta)
        else:
            theta = theta / theta.sum()
        ll = float(c_nz @ np.log(mat_nz @ theta))
        if abs(ll - old) < tol * n:
            break
        old = ll
    return theta, rounds


@dataclass
class MeanAndHistogram:
    """What SW's server estimates: the unbiased mean, and the EMS histogram over ``edges``
    (bins + 1 readings).  ``as_rows(truth)``: rows {name, true, estimate, stderr}, the mean first
    ("mean") then "histogram[r]" for bin r; truth is [mean, share_0, ..., share_{bins-1}] or None."""
    mean: Estimate
    histogram: Estimate
    edges: np.ndarray

    def as_rows(self, truth=None):
        t = [None] * (1 + len(self.histogram.estimate)) if truth is None else list(np.atleast_1d(truth))
        return self.mean.as_rows(t[0]) + self.histogram.as_rows(None if truth is None else t[1:])


class SquareWave(Piecewise):
    """The Square Wave mechanism on a grid (see the module docstring).  A Piecewise subclass for
    the shared release, audit, pmf and mean estimator; __init__ sets every attribute those use
    (w, a, L, band_num, q, _ratio, _eps, kappa, alpha, w_bits, q_bits) with SW's window width."""
    kind = "square_wave"
    report_dtype = "int64"         # decoded reports as simulate returns them (output cells)

    def __init__(self, lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS, bins=DEFAULT_BINS):
        self._check_args(lo, hi, epsilon, bits, constant_time, prob_bits)
        self.bins = check_bits("bins", bins, 1, min(MAX_BINS, self.N))
        self.fine_bins = self.bins * max(1, min(EMS_FINE_BINS // self.bins, self.N // self.bins))
        if self.bins != DEFAULT_BINS:
            self._args["bins"] = self.bins
        k = self.prob_bits
        self.w = window_width(self.N, self.epsilon_requested)
        self.a = realize_a(self.epsilon_requested, self.bits, k, self.w)
        self.L = self.N + self.w
        self.band_num = self.w * self.a                         # window probability q = band_num / 2^k
        self.q = Fraction(self.band_num, 1 << k)
        self._ratio = Fraction(self.a << self.bits, (1 << k) - self.band_num)
        self._eps = log_up(self._ratio)
        self.kappa = self.q - (1 - self.q) * Fraction(self.w, self.N)
        self.alpha = 2 / (self.N * self.kappa)
        self.w_bits = (self.w - 1).bit_length()
        self.q_bits = self.w.bit_length()
        self.b = Fraction(self.w, 2 * self.N)                   # b_grid, in units of hi - lo
        self._matrix = None

    @property
    def output_domain(self):
        return f"AtomDomain(cell index in [0, {self.L}): output value (j + 1/2 - w/2)/2^bits in [-b, 1 + b])"

    def realized(self):
        return {"w": self.w, "A": self.a, "prob_bits": self.prob_bits, "bits": self.bits, "L": self.L,
                "window_probability": self.q, "b": self.b, "b_paper": paper_b(self.epsilon_requested),
                "bins": self.bins, "epsilon": self._eps}

    def simulate(self, values, seed, device_ids=None):
        """Fleet simulation (Numba): values are n readings in [lo, hi]; returns n int64 cell
        indices, bit-identical to the C library; raises (nothing returned) on failure."""
        return super().simulate(values, seed, device_ids)

    def run_fleet(self, key, ids, first_block, x, status, bits):
        from ._kernels_square_wave import fleet_square_wave
        out = np.zeros(x.shape[0], dtype=np.int64)
        fleet_square_wave(key, ids, first_block, np.uint64(self.a), np.uint64(self.w), np.uint64(self.prob_bits),
                          np.uint64(self.bits), bool(self.constant_time), x, out, status, bits)
        return out

    def output_values(self, cells):
        """The reading each output cell j stands for: lo + (hi - lo) (j + 1/2 - w/2) / 2^bits
        (float64; in [lo - b (hi - lo), hi + b (hi - lo)])."""
        j = np.asarray(cells, dtype=np.float64)
        return float(self.lo) + float(self.hi - self.lo) * (j + 0.5 - self.w / 2) / self.N

    def plot_values(self, syms):
        """Square Wave's outputs drawn at the value each cell stands for (``output_values``, in the
        reading's units): input i's window is centred on its reading, not at Piecewise's
        unbiased positions."""
        return (self.output_values(syms),
                f"reported value v~ (reading units; readings in [{self.lo}, {self.hi}], "
                f"reports in [{float(self.lo - self.b * (self.hi - self.lo)):g}, "
                f"{float(self.hi + self.b * (self.hi - self.lo)):g}])")

    # --- the continuous mechanism's mean, for comparison
    def continuous_variance(self, readings):
        """The continuous SW at the requested epsilon and the paper's b, debiased for the mean:
        E[v~ | v] = q (1 + 2b)/2 + 2b (p - q) v, so v^ = (v~ - q (1 + 2b)/2) / (2b (p - q)) is
        unbiased with Var = (E[v~^2 | v] - E[v~ | v]^2) / (2b (p - q))^2, where
        E[v~^2 | v] = q ((1 + b)^3 + b^3)/3 + (p - q)(6 b v^2 + 2 b^3)/3; scaled by (hi - lo)^2 / n."""
        i = self.grid_indices(readings)
        v = i / self.N
        e = math.exp(float(self.epsilon_requested))
        b = paper_b(self.epsilon_requested)
        p, q = e / (2 * b * e + 1), 1 / (2 * b * e + 1)
        m1 = q * (1 + 2 * b) / 2 + 2 * b * (p - q) * v
        m2 = q * ((1 + b) ** 3 + b ** 3) / 3 + (p - q) * (6 * b * v * v + 2 * b ** 3) / 3
        per = (m2 - m1 * m1) / (2 * b * (p - q)) ** 2
        width = float(self.hi - self.lo)
        return width * width * float(per.mean()) / i.shape[0]

    # --- the distribution (EMS)
    @property
    def bin_edges(self):
        """The bins + 1 reading edges of the histogram (float64, equal width over [lo, hi])."""
        return np.linspace(self._lo_f, self._hi_f, self.bins + 1)

    def bin_of(self, indices):
        """Histogram bin of grid indices: min(bins - 1, floor(i bins / 2^bits)) (exact)."""
        i = np.asarray(indices, dtype=np.int64)
        return np.minimum(self.bins - 1, (i * self.bins) >> self.bits)

    def histogram(self, values):
        """The exact shares of readings (numbers in [lo, hi]) in each bin (float64, sum 1)."""
        i = self.grid_indices(values)
        if i.size == 0:
            raise ValueError("readings must not be empty")
        return np.bincount(self.bin_of(i), minlength=self.bins) / i.shape[0]

    def cell_groups(self):
        """EMS's output groups: consecutive cells g * size ... (g + 1) * size - 1, size =
        ceil(L / EMS_MAX_CELLS); returns (size, number of groups)."""
        size = -(-self.L // EMS_MAX_CELLS)
        return size, -(-self.L // size)

    def transition_counts(self):
        """The exact transition matrix over EMS's fine bins (``fine_bins`` equal-width bins, each
        histogram bin the sum of fine_bins / bins consecutive ones) as integers: (count, n_levels,
        size) with P(report in group g | reading uniform on fine bin r's levels)
          = p_out |group g| + (p_in - p_out) count[g, r] / n_levels[r],
        count[g, r] = sum over bin r's levels i of |[i, i + w) & group g| (closed form)."""
        size, groups = self.cell_groups()
        s, e = _bin_edges_idx(self.N, self.fine_bins)
        m = np.minimum(np.arange(groups + 1, dtype=np.int64) * size, self.L)[:, None]   # group boundaries
        # C_r(m) = sum_{j < m} |{i in [s_r, e_r): i <= j < i + w}| = sum_i clamp(m - i, 0, w)
        #        = F(m - s_r) - F(m - e_r)
        cum = _window_prefix(m - s[None, :], self.w) - _window_prefix(m - e[None, :], self.w)
        return np.diff(cum, axis=0), e - s, np.diff(m[:, 0])

    def transition_matrix(self):
        """P(report in group g | reading in fine bin r), float64 [groups, fine_bins], from the exact
        counts and the realized probabilities p_in = A / 2^k, p_out = (2^k - w A) / 2^(k + bits)
        (Fractions; the float conversion is the estimator's, post-processing).  Columns sum to 1."""
        if self._matrix is None:
            count, levels, sizes = self.transition_counts()
            p_in = Fraction(self.a, 1 << self.prob_bits)
            p_out = Fraction((1 << self.prob_bits) - self.band_num, 1 << (self.prob_bits + self.bits))
            self._matrix = (float(p_out) * sizes[:, None].astype(np.float64)
                            + float(p_in - p_out) * count.astype(np.float64) / levels[None, :].astype(np.float64))
        return self._matrix

    def _cell_counts(self, cells, counts=None):
        j = np.asarray(cells).reshape(-1)
        if j.size and (j.min() < 0 or j.max() >= self.L):
            raise ValueError(f"reports must be cell indices in [0, {self.L})")
        size, groups = self.cell_groups()
        return np.bincount(j.astype(np.int64) // size, weights=counts, minlength=groups)

    def estimate_distribution(self, reports, smooth=True, tol=EMS_TOL, max_iter=EMS_MAX_ITER,
                              replicates=BOOTSTRAP_REPLICATES, counts=None):
        """EMS histogram of the readings over ``bin_edges`` (an Estimate "histogram" of bins shares,
        summing to 1).  The standard error is a parametric bootstrap: ``replicates`` report
        histograms drawn from the fitted report distribution (numpy, fixed seed: post-processing),
        each run through EMS; it measures the noise, not the smoothing's bias, and is shrunk where
        EMS stops near its uniform start (0: not computed).  With ``counts``, ``reports`` are the
        distinct cell indices and ``counts`` their multiplicities (the streaming statistic)."""
        c = self._cell_counts(reports_array(reports) if counts is None else reports, counts)
        mat = self.transition_matrix()
        fine, _ = ems(mat, c, smooth, tol, max_iter)
        coarse = lambda th: th.reshape(self.bins, -1).sum(axis=1)     # noqa: E731  fine -> histogram bins
        se = np.zeros(self.bins)
        if replicates > 0:
            rng = np.random.default_rng(BOOTSTRAP_SEED)
            pred = mat @ fine
            n = int(round(c.sum()))
            reps = np.array([coarse(ems(mat, rng.multinomial(n, pred / pred.sum()), smooth, tol, max_iter)[0])
                             for _ in range(replicates)])
            se = reps.std(axis=0, ddof=1)
        return Estimate("histogram", coarse(fine), se)

    def estimate_rows(self, reports, truth=None):
        """Rows {name, true, estimate, stderr}: the unbiased mean, then the EMS histogram's bins
        (truth: [mean, share per bin] as synthetic_population gives)."""
        return MeanAndHistogram(self.estimate(reports), self.estimate_distribution(reports),
                                self.bin_edges).as_rows(truth)

    def estimate_from_multiset(self, rows, counts):
        """The mean and the EMS histogram on distinct reports with their counts (O(distinct)):
        ``as_rows`` as estimate_rows."""
        mean = super().estimate_from_multiset(rows, counts)
        hist = self.estimate_distribution(np.asarray(rows).reshape(-1), counts=np.asarray(counts, dtype=np.float64))
        return MeanAndHistogram(mean, hist, self.bin_edges)

    def true_statistic(self, values):
        """[mean, share per bin]: the mean of the clamped readings (``GridNumeric.true_statistic``,
        what the unbiased mean estimates under randomized rounding), the bins of their nearest
        grid levels."""
        i = self.grid_indices(values)
        if i.size == 0:
            raise ValueError("readings must not be empty")
        mean = super().true_statistic(values)
        return np.concatenate([[mean], np.bincount(self.bin_of(i), minlength=self.bins) / i.shape[0]])

    def synthetic_population(self, devices, seed):
        """Beta(2, 5)-distributed readings on the grid; the truth is [mean, share per bin]."""
        readings, _ = self.population(devices, seed, "skewed")
        return readings, self.true_statistic(readings)

    # --- device form
    def device_spec(self, dim=None):
        """The C device form (keys: see fxdp.mechanisms.base): grid index in, cell index out."""
        ct = self.constant_time
        f = self._cfg_fields()
        return {
            "c_function": "fxdp_square_wave_ct" if ct else "fxdp_square_wave",
            "cfg_type": "fxdp_square_wave_cfg",
            "cfg_init": _init([("a", u64(f["a"])), ("w", u32(f["w"])), ("prob_bits", u8(f["prob_bits"])),
                               ("bits", u8(f["bits"]))]),
            "tables": [],
            "input": {"ctype": "uint32_t", "count": 1},
            "output": {"ctype": "uint32_t", "count": 1, "min": 0, "max": self.L - 1},
            "sources": list(SRC_SQUARE_WAVE),
            "summary": (f"Square Wave mechanism on [{self.lo}, {self.hi}], grid index in [0, {self.N}], output cell "
                        f"in [0, {self.L}): window of w = {self.w} cells (b = {self.w}/2^{self.bits + 1}) w.p. "
                        f"{self.band_num}/2^{self.prob_bits} (~{float(self.q):.6g}); epsilon <= {self.epsilon!r}; "
                        + (_ct_text(ct, self.prob_bits + self.bits) if ct else _ct_text(False, 0))),
        }

    def c_config(self, dim=None):
        from ... import native
        cfg = native.ffi.new("fxdp_square_wave_cfg *", self._cfg_fields())
        return CConfig(cfg, [], "fxdp_square_wave" + ("_ct" if self.constant_time else ""), self.constant_time,
                       "uint32_t", np.uint32)

    def exact_audit(self, d_in=1):
        """Piecewise's closed form (window cell over outside cell), with this mechanism's name."""
        rep = super().exact_audit(d_in)
        if d_in == 1:
            rep.method = "exact (closed form: window cell / outside cell)"
        return rep


def make_square_wave(lo, hi, epsilon, bits=12, constant_time=False, prob_bits=MAX_PROB_BITS, bins=DEFAULT_BINS):
    """The Square Wave mechanism for readings in [lo, hi] (lo < hi) on a grid of 2^bits + 1 levels
    (1 <= bits <= 24): output one of 2^bits + w cells (w = round(2 b 2^bits), the paper's optimal
    b); window probability w A / 2^prob_bits with A rounded down so the realized epsilon
    (``m.epsilon``) never exceeds the request.  ``m.estimate(reports)`` is the unbiased mean,
    ``m.estimate_distribution(reports)`` the EMS histogram over ``bins`` (1 <= bins <= min(4096,
    2^bits)) equal-width bins."""
    return SquareWave(lo, hi, epsilon, bits, constant_time, prob_bits, bins)

# README's kind table: (paper, example [mechanism] keys) per kind (tools/gen_readme_kinds.py).
README_ROWS = {
    'square_wave': ('Li et al. 2020 (with EMS)',
        '`lo = 0`, `hi = 40`, `epsilon = 2`, `bits = 12`, `constant_time = true` (readings in [lo, hi]; output one of 2^bits + w cells, w = round(2 b 2^bits); `bins = 16` for the EMS histogram)'),
}

# The export tests' configurations (tests/export_fake/cases.py); EXPORT_VARIANTS skip the AVR.
EXPORT_CASES = {
    # Square Wave mechanism on a grid (grid index in, cell index out; Piecewise's sampler with SW's
    # window): the CT case reads exactly prob_bits + bits = 40 bits; the lazy case at bits = 4,
    # prob_bits = 8, epsilon 1.5 (w = 6: rejection-sampled window cell) varies.
    'square_wave_ct': lambda: make_square_wave(0, 40, 2, bits=8, constant_time=True),
    'square_wave_lazy': lambda: make_square_wave(0, 1, '3/2', bits=4, prob_bits=8),
}
EXPORT_VARIANTS: set[str] = set()

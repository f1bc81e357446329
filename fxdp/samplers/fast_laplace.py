"""Layer 2, reference implementation: ``discrete_laplace_fast``, an exact discrete Laplace
that reads few bits (issue 12, item 2).  Plain Python, integers and Fractions only.

Same distribution as ``reference.discrete_laplace``: P(Z = z) proportional to
q^|z| with q = exp(-s/t), s, t in [1, 2^32 - 1].  Different bits: it is a new
sampler name, for simulation and servers; the CKS form stays the bit stream of
existing configs.  NOT constant time: the bits read depend on the value drawn.

Algorithm (lazy inversion of the geometric survival function, exact tail)
-----------------------------------------------------------------------
Y ~ Geometric(q) (P(Y = y) = (1-q) q^y) is the number of boundaries q^j,
j >= 1, that lie above a uniform U in [0, 1): Y = y iff q^(y+1) <= U < q^y.
U is read lazily, one bit at a time: after d bits U lies in the dyadic cell
[lo/2^d, (lo+1)/2^d), and with F_j = floor(2^d q^j)

    U < q^j   is certain iff  lo + 1 <= F_j,
    U >= q^j  is certain iff  lo > F_j          (q^j is irrational, so 2^d q^j
                                                 is never an integer).

F_j is non-increasing in j, so the certain-below boundaries are j = 1..a and
the certain-above ones j = b..n; reading stops when a + 1 = b.  The table
holds B_j = floor(2^64 q^j) for j = 1..n (n = TABLE_LEN = 64; 512 bytes as
uint64), so for d <= 64, F_j = B_j >> (64 - d).  Past 64 bits (probability
below n 2^-64 per draw) F_j is computed exactly with Python integers
(``scaled_floor``, certified by ``fxdp.conservative.exp_interval``), so no
precision limit is ever reached: the comparison is exact.

If a = n (U < q^n: Y >= n, probability q^n), the tail is n + Y' with Y' an
independent Geometric(q) (memoryless), drawn with CKS's exact geometric
(``geometric_cks``: the U + tV step of ``reference.discrete_laplace``), so a
large scale costs what CKS costs rather than scale/n table passes.

Z: Y, then a sign bit B; (B = 1, Y = 0) restarts, else Z = -Y if B else Y
(the wrapper of CKS Alg. 2), so P(Z = z) = (1-q)/(1+q) q^|z| exactly.

Bits: at scale t/s = 10 about 8.0 per sample (entropy 5.76); CKS reads 19.7.
Implementations: this reference, the Numba kernels (``_nb_fast_laplace``) and
C (csrc/fxdp_dlap_fast.c, the caller passes the 512-byte table), bit for bit;
past 64 inversion bits C returns FXDP_ERR_RANGE instead (no big integers).
Every table entry is an exact integer (no float anywhere); ``boundary_table``
is cached per (s, t).
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from ..conservative import exp_interval
from . import reference as ref

TABLE_BITS = 64          # bits of each boundary kept in the table
TABLE_LEN = 64           # boundaries q^1 .. q^64 (64 uint64 words: 512 bytes)
LOOKAHEAD_BITS = 12      # prefix length of the host-side lookahead (Numba)

# e^-x < 2^-(P+1) whenever x >= (P+1) * 0.6932 (ln 2 < 0.6932): floor(2^P e^-x) = 0
_LN2_ABOVE = Fraction(6932, 10000)


def _exp_neg_iv(x, prec):
    """(lo, hi) Fractions with lo <= exp(-x) <= hi, for a rational x >= 0."""
    if x <= (1 << 20):
        return exp_interval(-x, prec)
    lo, hi = _exp_neg_iv(x / 2, prec + 2)        # exp(-x) = exp(-x/2)^2, outward rounded
    scale = 1 << (prec + 2)
    return (Fraction((lo * lo * scale).__floor__(), scale),
            Fraction((hi * hi * scale).__ceil__(), scale))


def scaled_floor(j, s, t, nbits):
    """floor(2^nbits * exp(-j s / t)), exactly, for j >= 1, s, t >= 1, nbits >= 0.

    exp(-j s/t) is irrational, so a certified enclosure narrow enough to put both
    ends in the same integer cell always exists; the precision doubles until it does."""
    x = Fraction(j * s, t)
    if x >= (nbits + 1) * _LN2_ABOVE:
        return 0
    prec = nbits + 32
    while True:
        lo, hi = _exp_neg_iv(x, prec)
        f_lo, f_hi = (lo * (1 << nbits)).__floor__(), (hi * (1 << nbits)).__floor__()
        if f_lo == f_hi:
            return f_lo
        prec *= 2


@lru_cache(maxsize=64)
def boundary_table(s, t):
    """(B_1, ..., B_n), B_j = floor(2^64 exp(-j s/t)), n = TABLE_LEN: exact integers < 2^64."""
    return tuple(scaled_floor(j, s, t, TABLE_BITS) for j in range(1, TABLE_LEN + 1))


def invert_step(lo, d, a, b, table, s, t):
    """Narrow (a, b) for the cell [lo/2^d, (lo+1)/2^d): returns the new (a, b).

    a: U < q^j is certain for j <= a; b: U >= q^j is certain for j >= b
    (1 <= a + 1 <= b <= n + 1)."""
    n = len(table)
    if d <= TABLE_BITS:
        sh = TABLE_BITS - d
        while a < n and lo + 1 <= table[a] >> sh:
            a += 1
        while b > 1 and lo > table[b - 2] >> sh:
            b -= 1
    else:
        while a < n and lo + 1 <= scaled_floor(a + 1, s, t, d):
            a += 1
        while b > 1 and lo > scaled_floor(b - 1, s, t, d):
            b -= 1
    return a, b


def invert(src, s, t, table, lo=0, d=0, a=0, b=None):
    """The lazy inversion: reads bits until a + 1 = b; returns a (= Y, or n for the tail).

    (lo, d, a, b) is where a draw stands; the default is its start.  The Numba
    kernel hands a draw that reaches 64 bits over to this function."""
    if b is None:
        b = len(table) + 1
    while a + 1 < b:
        lo = 2 * lo + src.bits(1)
        d += 1
        a, b = invert_step(lo, d, a, b, table, s, t)
    return a


def geometric_cks(src, s, t):
    """Geometric(exp(-s/t)) by CKS's exact steps: U = uniform_below(t) kept with
    probability exp(-U/t), V = number of successes of bernoulli_exp(1, 1) before
    the first failure, Y = (U + t V) // s.  Bits: those calls, in this order."""
    while True:
        u = ref.uniform_below(src, t)
        if ref.bernoulli_exp(src, u, t):
            break
    v = 0
    while ref.bernoulli_exp(src, 1, 1):
        v += 1
    return (u + t * v) // s


def finish(src, s, t, table, a):
    """Y from the inversion's result a (a = n: tail), then the sign bit.

    Returns Z, or None when (B = 1, Y = 0) asks for a restart."""
    y = a if a < len(table) else len(table) + geometric_cks(src, s, t)
    sign = src.bits(1)
    if sign == 1 and y == 0:
        return None
    return -y if sign else y


def discrete_laplace_fast(src, s, t):
    """Integer Z with P(Z = z) proportional to exp(-|z| s / t).  s, t in [1, 2^32 - 1].

    Exact; lazy inversion against ``boundary_table(s, t)`` (module docstring),
    exact tail; not constant time.  Bits: those of ``invert``, then (tail only)
    ``geometric_cks``, then one sign bit; (sign 1, Y = 0) starts over.
    |Z| < 2^63 is assumed (the kernels return ERR_RANGE past it; probability
    below exp(-2^31))."""
    table = boundary_table(s, t)
    while True:
        z = finish(src, s, t, table, invert(src, s, t, table))
        if z is not None:
            return z


def lookahead_table(s, t, width=LOOKAHEAD_BITS):
    """T[x] for every width-bit string x: (bits used << 8) | a when ``invert`` ends
    within the first bits of x (a = n: tail), else -1.  A list of ints; host-side
    speed-up of the Numba kernel, built by walking the inversion's prefix tree."""
    table = boundary_table(s, t)
    n = len(table)
    out = [-1] * (1 << width)
    todo = [(0, 0, 0, n + 1)]            # (lo, d, a, b) of undecided cells
    while todo:
        lo, d, a, b = todo.pop()
        if a + 1 == b:
            shift = width - d
            out[lo << shift:(lo + 1) << shift] = [(d << 8) | a] * (1 << shift)
            continue
        if d == width:
            continue
        for bit in (0, 1):
            lo2 = 2 * lo + bit
            a2, b2 = invert_step(lo2, d + 1, a, b, table, s, t)
            todo.append((lo2, d + 1, a2, b2))
    return out

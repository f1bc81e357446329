"""Layer 2, reference implementation: exact samplers, plain Python, the test oracle.

Every function takes a ``BitSource`` (``fxdp.bitsource``) and integer
parameters, uses integers only, and states its contract: the distribution it
returns, its preconditions and exactly which bits it reads.  The Numba kernels
and the C library read the same bits in the same order; the parity tests hold
them to it.  Parameter ranges are those of the C library (uint32/uint64), so
all three implementations accept the same inputs.

Validation lives in ``fxdp.samplers`` (the public wrappers); these functions
assume valid parameters.
"""
from __future__ import annotations

U32 = (1 << 32) - 1
U64 = (1 << 64) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def uniform_below(src, n):
    """Uniform on {0, ..., n-1}.  n in [1, 2^64 - 1].

    Bits: with k = bit_length(n - 1) (so 2^(k-1) < n <= 2^k), each try reads k
    bits as an integer x (MSB first) and accepts x < n; tries repeat until
    accepted (< 2 tries on average).  n = 1 reads nothing.
    """
    k = (n - 1).bit_length()
    while True:
        x = src.bits64(k)
        if x < n:
            return x


UNIFORM_CT_ROUNDS = 4    # R: the budget of uniform_below_ct (csrc FXDP_UNIFORM_CT_ROUNDS)


def uniform_below_ct(src, n):
    """Uniform on {0, ..., n-1} in constant time with a fixed budget.  n in [1, 2^32 - 1].

    Bits: exactly 32 R (R = UNIFORM_CT_ROUNDS = 4), whatever n and whatever the words drawn.
    Round i reads one 32-bit word w_i; m = w_i n (64 bits); the round accepts iff
    (m mod 2^32) >= t, with t = 2^32 mod n, and then proposes m >> 32 (Lemire's
    multiply-and-reject: each value in {0..n-1} has exactly floor(2^32 / n) accepted words,
    so an accepted proposal is exactly uniform).  Every round runs; the result is the first
    accepted proposal (C and Numba select it with masks, no branch).  If no round accepts,
    the draw fails (``fxdp.errors.RangeError``; FXDP_ERR_RANGE in C and Numba, for that call
    only: the 32 R bits stay consumed and the source stays usable) with probability exactly
    (t / 2^32)^R < (n / 2^32)^R, which depends on n alone: at most 2^-64 for n <= 2^16,
    and 0 when n is a power of two.  Conditioned on success the output is exactly uniform.
    """
    from ..errors import RangeError
    v = uniform_below_ct_or_none(src, n)
    if v is not None:
        return v
    t = (1 << 32) % n
    raise RangeError(f"uniform_below_ct({n}): no round of {UNIFORM_CT_ROUNDS} accepted "
                     f"(probability ({t}/2^32)^{UNIFORM_CT_ROUNDS}); nothing was released")


def uniform_below_ct_or_none(src, n):
    """uniform_below_ct's draw (the same 32 R bits), None when no round accepted: a mechanism
    that makes several draws keeps drawing and fails once, after all of them, as C does."""
    t = (1 << 32) % n
    products = [src.bits(32) * n for _ in range(UNIFORM_CT_ROUNDS)]
    for m in products:
        if m & U32 >= t:
            return m >> 32
    return None


def bernoulli_dyadic(src, a, k):
    """True with probability a / 2^k exactly (lazy).  k in [0, 63], a in [0, 2^k].

    Bits: compares a uniform U = 0.u1 u2 ... with p = a/2^k one bit at a time
    and stops at the first difference.  a = 0 and a = 2^k read nothing.  Let
    z = trailing zeros of a, k' = k - z, a' = a >> z (odd): at most k' bits,
    2 on average.  NOT constant time: the number of bits read depends on U
    and reveals the outcome; use ``bernoulli_dyadic_ct`` where timing or bit
    use is observable.
    """
    if a == 0:
        return False
    if a == 1 << k:
        return True
    z = (a & -a).bit_length() - 1
    kk, aa = k - z, a >> z
    for i in range(kk - 1, -1, -1):
        ai = (aa >> i) & 1
        if src.bits(1) != ai:
            return ai == 1          # u_i = 0 < a_i = 1 means U < p
    return False                    # U agrees with p on every digit: U >= p


def bernoulli_dyadic_ct(src, a, k):
    """True with probability a / 2^k exactly, constant time.  k in [0, 63], a in [0, 2^k].

    Bits: always exactly k bits, read as x (``bits64(k)``); returns x < a.
    The C version compares without branching.
    """
    return src.bits64(k) < a


BLOCK_MAX_LANES = 32      # lanes of one bernoulli_block (csrc FXDP_BLOCK_MAX_LANES): one 32-bit word


def _block_planes(lanes, a_one, a_zero, k, mask):
    """(one, zero, result, undecided): the lanes of each threshold as bit masks (lane l is bit
    lanes - 1 - l), and the lanes a threshold of 2^k decides before any bit is read."""
    full = (1 << lanes) - 1
    one, zero = mask & full, full & ~mask
    result = (one if a_one == 1 << k else 0) | (zero if a_zero == 1 << k else 0)
    return one, zero, result, full & ~result


def _block_plane(one, zero, a_one, a_zero, bit):
    """The lanes whose threshold has a 1 at binary digit `bit`."""
    return (one if (a_one >> bit) & 1 else 0) | (zero if (a_zero >> bit) & 1 else 0)


def bernoulli_block(src, lanes, a_one, a_zero, k, mask):
    """`lanes` independent Bernoulli draws at once, bit-sliced (lazy).  lanes in [1, 32], k in [0, 63],
    a_one and a_zero in [0, 2^k], mask in [0, 2^lanes).

    Lane l (l = 0..lanes-1) is bit lanes-1-l of the mask and of the result: it is 1 with probability
    a_l / 2^k exactly, a_l = a_one if the lane's mask bit is 1, else a_zero.  Each lane compares its
    own uniform U_l = 0.u1 u2 ... with a_l / 2^k digit by digit, as ``bernoulli_dyadic`` does, but all
    lanes read their digit of a plane together: plane i is one ``bits(lanes)`` read (lane l's digit
    u_(i+1) is bit lanes-1-l of it).  A lane is decided at its first digit that differs from its
    threshold's (U_l < a_l / 2^k iff that threshold digit is 1), or, before a plane, when its threshold
    has no 1 digit left (then U_l >= a_l / 2^k: 0); a threshold of 0 or 2^k decides before any read.

    Bits: `lanes` per plane, for planes 1, 2, ... while some lane is undecided, i.e. as many planes as
    the slowest lane needs, at most k - (trailing zero digits of a) for the thresholds in use (the
    digits ``bernoulli_dyadic`` reads at most).  With lanes = 1 these are exactly the bits of
    ``bernoulli_dyadic(a, k)`` (a the lane's threshold).  Lanes are independent: each outcome is a
    function of its own digits, and the digits of different lanes are different bits of the stream.
    NOT constant time: the number of planes depends on the digits and on the mask.
    """
    one, zero, result, und = _block_planes(lanes, a_one, a_zero, k, mask)
    for i in range(k):
        bit = k - 1 - i
        live = (one if a_one & ((2 << bit) - 1) else 0) | (zero if a_zero & ((2 << bit) - 1) else 0)
        und &= live                         # no 1 digit left at or below this plane: U >= a, 0
        if und == 0:
            break
        w = src.bits(lanes)
        a = _block_plane(one, zero, a_one, a_zero, bit)
        result |= und & ~w & a              # first difference, u = 0 < a = 1: U < a
        und &= ~(w ^ a)                     # equal digits: still undecided
    return result


def bernoulli_block_ct(src, lanes, a_one, a_zero, k, mask):
    """``bernoulli_block``'s distribution in constant time: always exactly k planes (k * lanes bits),
    whatever the digits and the mask.  With lanes = 1 these are the bits of ``bernoulli_dyadic_ct``.
    The C version selects every plane with masks: no branch on the mask or on a digit."""
    one, zero, result, und = _block_planes(lanes, a_one, a_zero, k, mask)
    for i in range(k):
        bit = k - 1 - i
        w = src.bits(lanes)
        a = _block_plane(one, zero, a_one, a_zero, bit)
        result |= und & ~w & a
        und &= ~(w ^ a)
    return result


def bernoulli_rational(src, n, d):
    """True with probability n / d exactly.  d in [1, 2^64 - 1], n in [0, d].

    Bits: lazy comparison of a uniform U with the binary expansion of n/d,
    one bit per digit, digits by long division (r <- 2r mod d).  n = 0 and
    n = d read nothing; stops at the first differing digit or when the
    expansion terminates (remainder 0: U >= p).  2 bits on average.
    """
    if n == 0:
        return False
    if n == d:
        return True
    r = n
    while True:
        # next digit of n/d: 2r >= d ?  (written as r >= d - r so uint64 cannot overflow)
        if r >= d - r:
            digit, r = 1, r - (d - r)
        else:
            digit, r = 0, r + r
        if src.bits(1) != digit:
            return digit == 1
        if r == 0:
            return False


def bernoulli_exp(src, n, d):
    """True with probability exp(-n/d) exactly.  n in [0, 2^32 - 1], d in [1, 2^32 - 1].

    Canonne, Kamath, Steinke 2020, Algorithm 1, integer-only:
      * for each of floor(n/d) whole units: B ~ bernoulli_exp_le1(1, 1); stop with False on B = 0;
      * then return bernoulli_exp_le1(n mod d, d).
    Bits: those of the bernoulli_rational calls, in this order.
    """
    whole, frac = divmod(n, d)
    for _ in range(whole):
        if not _bernoulli_exp_le1(src, 1, 1):
            return False
    return _bernoulli_exp_le1(src, frac, d)


def _bernoulli_exp_le1(src, n, d):
    """exp(-n/d) for 0 <= n <= d (CKS Alg. 1, gamma in [0, 1]):
    K = 1; while bernoulli_rational(n, d*K): K += 1; return K odd.

    d*K fits in uint64 for d < 2^32 and K < 2^32 (reaching K = 2^32 has
    probability below 1/(2^32)!); the C code checks it anyway.
    """
    k = 1
    while bernoulli_rational(src, n, d * k):
        k += 1
    return k % 2 == 1


def discrete_laplace(src, s, t):
    """Integer Z with P(Z = z) proportional to exp(-|z| s / t).  s, t in [1, 2^32 - 1].

    Canonne, Kamath, Steinke 2020, Algorithm 2 (scale t/s), integer-only:
      loop:
        U = uniform_below(t); D = bernoulli_exp(U, t); if not D: continue
        V = 0; while bernoulli_exp(1, 1): V += 1
        X = U + t V; Y = X // s
        B = bits(1); if B == 1 and Y == 0: continue
        return -Y if B else Y
    Bits: those of the calls above, in this order.  |Z| < 2^63 is assumed
    (exceeding it has probability below exp(-2^31)); C returns FXDP_ERR_RANGE.
    """
    while True:
        u = uniform_below(src, t)
        if not bernoulli_exp(src, u, t):
            continue
        v = 0
        while bernoulli_exp(src, 1, 1):
            v += 1
        y = (u + t * v) // s
        b = src.bits(1)
        if b == 1 and y == 0:
            continue
        return -y if b else y


def clamp(z, lo, hi):
    return lo if z < lo else hi if z > hi else z


def discrete_laplace_censored(src, s, t, lo, hi):
    """discrete_laplace(s, t) saturated to [lo, hi] (lo <= hi, int64): values
    below lo become lo, above hi become hi, as the seed geometric mechanism
    saturates.  Bits: those of discrete_laplace."""
    return clamp(discrete_laplace(src, s, t), lo, hi)


def table_sample_ct(src, thresholds, k):
    """Index j in [0, len(thresholds)] with probability (c[j] - c[j-1]) / 2^k,
    where c = thresholds + [2^k] and c[-1] = 0.

    ``thresholds`` is the strictly increasing cumulative weight table without
    its last entry 2^k (``BoundedLaplaceTable.thresholds``), every entry < 2^k.
    k in [1, 32].  Bits: exactly k, read as x; the index is the number of
    thresholds <= x, counted over the whole table without branching in C
    (constant time: same instructions and bits for every x).
    """
    x = src.bits(k)
    return sum(1 for c in thresholds if c <= x)

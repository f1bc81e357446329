/*
 * fxdp_internal.h -- private helpers shared by the fxdp C files (not part of
 * the public API, not a cffi cdef; firmware need not include it).
 *
 * The fxdp_i_* functions do NOT validate their arguments: callers (the public
 * entry points in fxdp_*.c and the host bulk loops) validate parameters and
 * check fxdp_i_ready() once, then call these.  Every fxdp_i_* function that
 * can fail returns at once on the first failure, writing no output.
 */
#ifndef FXDP_INTERNAL_H
#define FXDP_INTERNAL_H

#include "fxdp.h"

/* Next 32-bit word of r's word source (fxdp_rng.c); on failure sets the sticky
 * r->status = FXDP_ERR_ENTROPY and returns FXDP_ERR_ENTROPY, *w unwritten. */
fxdp_status fxdp_i_refill(fxdp_rng *r, uint32_t *w);

/* Inlining control (GCC, clang; nothing elsewhere) for stack depth: FXDP_I_OUTLINE keeps a
 * function's temporaries off a deeper call chain (a draw that refills: bit reader > refill >
 * ChaCha20 block); FXDP_I_INLINE merges a helper into its only caller (one call level less). */
#if defined(__GNUC__)
#define FXDP_I_OUTLINE __attribute__((__noinline__))
#define FXDP_I_INLINE __attribute__((__always_inline__)) static inline
#else
#define FXDP_I_OUTLINE
#define FXDP_I_INLINE static inline
#endif

/* The wipes write through a volatile pointer so that the compiler keeps them.  Frama-C Eva takes
 * a volatile object to hold any value (a device register), so in the analysed program (Frama-C
 * defines __FRAMAC__) the same zeros go through a plain pointer: the buffers are ordinary memory,
 * and Eva then knows what they hold (issue 18: numeric_multidim's wiped subset array). */
#ifdef __FRAMAC__
#define FXDP_I_WIPE_QUAL
#else
#define FXDP_I_WIPE_QUAL volatile
#endif

/* p[0..n) = 0 through a volatile pointer (not optimised away): a report drawn in place in the
 * caller's buffer is wiped on an entropy failure, so nothing of it is released. */
static inline void fxdp_i_wipe(void *p, size_t n)
{
    FXDP_I_WIPE_QUAL uint8_t *v = (FXDP_I_WIPE_QUAL uint8_t *)p;
    size_t i;

    for (i = 0; i < n; i++) {
        v[i] = 0;
    }
}

/* out[0..16) = ChaCha20 block(key, counter, nonce), computed in place in out with no local
 * array (fxdp_chacha20.c); out must not overlap key or nonce (fxdp_chacha20_block allows it). */
void fxdp_i_chacha20_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3], uint32_t out[16]);

/* FXDP_OK if r can be drawn from: FXDP_ERR_ENTROPY if it has failed before,
 * FXDP_ERR_PARAM if its state is corrupt (bitcount > 31). */
static inline fxdp_status fxdp_i_ready(const fxdp_rng *r)
{
    if (r->status != 0u) {
        return FXDP_ERR_ENTROPY;
    }
    if (r->bitcount > 31u) {
        return FXDP_ERR_PARAM;
    }
    return FXDP_OK;
}

/*
 * ---- bit reader ---------------------------------------------------------
 * The fxdp_i_rd_* functions read the stream from (*buf, *cnt), a copy of
 * (r->bitbuf, r->bitcount) that the caller loads before and stores back
 * after (so a loop keeps them in registers); they touch r only through
 * fxdp_i_refill.  Invariant: *buf < 2^*cnt, *cnt <= 31 between reads.  On a
 * failure *buf and *cnt are as before the failing read (the reference's
 * bits() consumes nothing when its word fetch fails) and nothing is output.
 */

/* Next n (0..32) stream bits, first bit most significant (BitSource.bits). */
static inline fxdp_status fxdp_i_rd_bits(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, unsigned n, uint32_t *out)
{
    uint32_t c = *cnt;
    uint32_t nn = (uint32_t)n;

    if (nn <= c) {
        c -= nn;
        *out = *buf >> c;
        *buf &= (UINT32_C(1) << c) - 1u;
        *cnt = c;
    } else {
        uint32_t w;
        uint32_t need = nn - c;              /* 1..32 */
        if (fxdp_i_refill(r, &w) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        /* (buf << need) without a shift by 32: buf is 0 when need is 32 */
        *out = ((*buf << (need - 1u)) << 1) | (w >> (32u - need));
        c = 32u - need;                      /* 0..31 */
        *buf = w & ((UINT32_C(1) << c) - 1u);
        *cnt = c;
    }
    return FXDP_OK;
}

/* Next n (0..64) bits: bits(n) for n <= 32, else bits(n - 32) then bits(32). */
static inline fxdp_status fxdp_i_rd_bits64(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, unsigned n, uint64_t *out)
{
    uint32_t hi, lo;

    if (n <= 32u) {
        if (fxdp_i_rd_bits(r, buf, cnt, n, &lo) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        *out = lo;
        return FXDP_OK;
    }
    if (fxdp_i_rd_bits(r, buf, cnt, n - 32u, &hi) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    if (fxdp_i_rd_bits(r, buf, cnt, 32u, &lo) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;    /* the high part stays consumed, as in the reference */
    }
    *out = ((uint64_t)hi << 32) | lo;
    return FXDP_OK;
}

/* Next single bit (same stream use as fxdp_i_rd_bits(., 1, .)). */
static inline fxdp_status fxdp_i_rd_bit(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, uint32_t *bit)
{
    uint32_t c = *cnt, b = *buf;

    if (c == 0u) {
        if (fxdp_i_refill(r, &b) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        c = 32u;
    }
    c -= 1u;
    *bit = (b >> c) & 1u;
    *buf = b & ((UINT32_C(1) << c) - 1u);
    *cnt = c;
    return FXDP_OK;
}

/* fxdp_i_bits(r, n, out) (n in 0..32, the same stream bits and the same state after a failure)
 * forced inline, on r's fields in memory: the refill is its only call, with little live across
 * it, so a sampler built on it keeps one small frame on the deepest chain (sampler > refill >
 * ChaCha20 block) instead of adding an out-of-line bit reader's. */
FXDP_I_INLINE fxdp_status fxdp_i_take_bits(fxdp_rng *r, unsigned n, uint32_t *out)
{
    uint32_t c = r->bitcount & 31u, nn = (uint32_t)n, w = 0, need;   /* bitcount <= 31 always: the
                                                                      mask only tells the analysers */

    if (nn <= c) {
        c -= nn;
        *out = r->bitbuf >> c;
        r->bitbuf &= (UINT32_C(1) << c) - 1u;
        r->bitcount = c;
        return FXDP_OK;
    }
    need = nn - c;                           /* 1..32 */
    if (fxdp_i_refill(r, &w) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    *out = ((r->bitbuf << (need - 1u)) << 1) | (w >> (32u - need));
    c = 32u - need;                          /* 0..31 */
    r->bitbuf = w & ((UINT32_C(1) << c) - 1u);
    r->bitcount = c;
    return FXDP_OK;
}

/* The same reads on r's own buffer (load, read, store back).  bitcount <= 31 always (fxdp_i_ready
 * rejects more, every read leaves it <= 31): the & 31u changes no value, it tells the analysers,
 * which lose the bound where a caller's draw loop joins its iterations (as in fxdp_i_take_bits). */
static inline fxdp_status fxdp_i_bits(fxdp_rng *r, unsigned n, uint32_t *out)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount & 31u;
    fxdp_status st = fxdp_i_rd_bits(r, &buf, &cnt, n, out);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

static inline fxdp_status fxdp_i_bits64(fxdp_rng *r, unsigned n, uint64_t *out)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount & 31u;
    fxdp_status st = fxdp_i_rd_bits64(r, &buf, &cnt, n, out);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

static inline fxdp_status fxdp_i_bit(fxdp_rng *r, uint32_t *bit)
{
    uint32_t buf = r->bitbuf, cnt = r->bitcount & 31u;
    fxdp_status st = fxdp_i_rd_bit(r, &buf, &cnt, bit);
    r->bitbuf = buf;
    r->bitcount = cnt;
    return st;
}

/* Constant-time comparisons (no branches; BearSSL style). */
static inline uint32_t fxdp_i_ct_gt32(uint32_t x, uint32_t y)   /* x > y ? 1 : 0 */
{
    uint32_t z = y - x;
    return (z ^ ((x ^ y) & (x ^ z))) >> 31;
}

static inline uint64_t fxdp_i_ct_lt64(uint64_t x, uint64_t y)   /* x < y ? 1 : 0 */
{
    uint64_t z = x - y;
    return (z ^ ((x ^ y) & (y ^ z))) >> 63;
}

/*
 * Constant-time multiplication (BearSSL's ctmul notes, bearssl.org/ctmul.html).
 *
 * No long multiply: UMULL/SMULL/UMLAL/SMLAL take 3 to 5 cycles on the Cortex-M3
 * depending on the operands, the ARMv6-M __aeabi_lmul (Cortex-M0+) branches on a
 * carry, and AVR's libgcc __muldi3/__umulsidi3 do too (__muldi3_6: brcc).  Only
 * 32x32->32 multiplies of 16-bit limbs are used; each operand has bit 31 set, so a
 * multiplier that stops early on small operands (ARM7TDMI, Ibex's "slow"
 * multiplier: MUL takes clog2(op_b) cycles) always takes its longest path.
 * 16-bit int AVR: the products go through libgcc's straight-line __mulsi3.
 */

/* x * y for x, y < 2^16: (x + 2^31)(y + 2^31) = xy + 2^31 (x + y) + 2^62, so mod 2^32
 * it is xy + 2^31 ((x ^ y) & 1), and xy < 2^32. */
static inline uint32_t fxdp_i_mul16_ct(uint32_t x, uint32_t y)
{
    return ((x | UINT32_C(0x80000000)) * (y | UINT32_C(0x80000000))) - (((x ^ y) & 1u) << 31);
}

/* (a * b) >> 32, the high word of the 64-bit product: four 16 x 16 limb products,
 * schoolbook, no branch and no carry test (mid < 3 * 2^16 cannot overflow). */
static inline uint32_t fxdp_i_mulhi32_ct(uint32_t a, uint32_t b)
{
    uint32_t a0 = a & 0xFFFFu, a1 = a >> 16, b0 = b & 0xFFFFu, b1 = b >> 16;
    uint32_t p00 = fxdp_i_mul16_ct(a0, b0), p01 = fxdp_i_mul16_ct(a0, b1);
    uint32_t p10 = fxdp_i_mul16_ct(a1, b0), p11 = fxdp_i_mul16_ct(a1, b1);
    uint32_t mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);

    return p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
}

/* The 64-bit product a * b as (*hi, *lo), from the same four limb products as fxdp_i_mulhi32_ct:
 * no long multiply, no branch, no carry test. */
static inline void fxdp_i_mul32_ct(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint32_t a0 = a & 0xFFFFu, a1 = a >> 16, b0 = b & 0xFFFFu, b1 = b >> 16;
    uint32_t p00 = fxdp_i_mul16_ct(a0, b0), p01 = fxdp_i_mul16_ct(a0, b1);
    uint32_t p10 = fxdp_i_mul16_ct(a1, b0), p11 = fxdp_i_mul16_ct(a1, b1);
    uint32_t mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);

    *hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
    *lo = (mid << 16) | (p00 & 0xFFFFu);
}

/* 2^32 mod n for n >= 1 (the constant-time uniform's acceptance threshold).  On ARMv6-M (no divide
 * instruction; FXDP_SOFT_DIVIDE forces it elsewhere) a 32-step restoring division of 2^32 - n by n,
 * branch-free, in place of libgcc's __udivsi3 (266 B on the Cortex-M0+).  Not on AVR, where libgcc's
 * divide is both smaller and faster than this loop (measured 2026-12-07).  n is public, so either
 * form may take time that depends on it. */
static inline uint32_t fxdp_i_pow32_mod(uint32_t n)
{
#if defined(__ARM_ARCH_6M__) || defined(FXDP_SOFT_DIVIDE)
    uint32_t a = 0u - n, rem = 0, i;

    for (i = 32u; i-- > 0u;) {                          /* rem <= a >> i: the shift never overflows */
        rem = (rem << 1) | ((a >> i) & 1u);
        rem -= n & (0u - (1u - fxdp_i_ct_gt32(n, rem)));
    }
    return rem;
#else
    return (0u - n) % n;
#endif
}

/* Number of significant bits of v (0 for v = 0). */
unsigned fxdp_i_bitlen64(uint64_t v);

/* Number of significant bits of v, v != 0. */
static inline unsigned fxdp_i_bitlen32_nz(uint32_t v)
{
#if defined(__GNUC__) && !defined(FXDP_PORTABLE_BITLEN)
    return (unsigned)(sizeof(unsigned long) * 8u) - (unsigned)__builtin_clzl((unsigned long)v);
#else
    unsigned k = 1;
    if ((v >> 16) != 0u) { k += 16u; v >>= 16; }
    if ((v >> 8) != 0u) { k += 8u; v >>= 8; }
    if ((v >> 4) != 0u) { k += 4u; v >>= 4; }
    if ((v >> 2) != 0u) { k += 2u; v >>= 2; }
    if ((v >> 1) != 0u) { k += 1u; }
    return k;
#endif
}

/* Mask of the low j bits, j in 1..32. */
static inline uint32_t fxdp_i_mask32_nz(uint32_t j)
{
    return UINT32_C(0xFFFFFFFF) >> (32u - j);
}

/* ---- inline sampler cores on the bit reader (the sampler files and the host bulk loops) ---- */

/* Lazy Bernoulli(a / 2^kk) for odd a < 2^kk, 1 <= kk <= 63 (the core of fxdp_i_bernoulli_dyadic).
 *
 * Rather than one bit per step, the j = min(cnt, kk) buffered stream bits are
 * XORed with the next j digits of a; the most significant set bit of the XOR
 * is the first difference, and only the bits up to and including it are
 * consumed: exactly the reference's bits.  A word is fetched only when the
 * buffer is empty and digits remain, as the reference's bits(1) would. */
static inline fxdp_status fxdp_i_rd_dyadic_odd(fxdp_rng *r, uint32_t *pbuf, uint32_t *pcnt, uint64_t a, unsigned kk,
                                               uint8_t *out)
{
    uint32_t buf = *pbuf, cnt = *pcnt, digit;

    for (;;) {
        uint32_t j, ss, ds, sb, db, x;
        if (cnt == 0u) {
            *pbuf = 0;              /* buffer empty: exact state if the refill fails */
            *pcnt = 0;
            if (fxdp_i_refill(r, &buf) != FXDP_OK) {
                return FXDP_ERR_ENTROPY;
            }
            cnt = 32u;
        }
        /* j = min(cnt, kk) (1..32); ss = cnt - j, ds = kk - j, each computed in the branch
         * where it is plainly in range (so the analysers see it too) */
        if (cnt < (uint32_t)kk) {
            j = cnt;
            ss = 0u;
            ds = (uint32_t)kk - cnt;
        } else {
            j = (uint32_t)kk;
            ss = cnt - (uint32_t)kk;
            ds = 0u;
        }
        sb = (buf >> ss) & fxdp_i_mask32_nz(j);                  /* next j stream bits */
        db = (uint32_t)(a >> ds) & fxdp_i_mask32_nz(j);          /* next j digits of p */
        x = sb ^ db;
        if (x != 0u) {
            unsigned lz = fxdp_i_bitlen32_nz(x);                  /* difference at j - lz */
            cnt = (ss + (uint32_t)lz - 1u) & 31u;  /* cnt - (j - lz + 1) <= 31 (lz <= j as x < 2^j):
                                                       & 31u changes no value, it tells Eva */
            digit = (db >> (lz - 1u)) & 1u;      /* digit 1 against bit 0: U < p */
            break;
        }
        cnt = ss;                                /* cnt - j */
        kk -= (unsigned)j;
        if (kk == 0u) {
            digit = 0u;                          /* U agrees with every digit: U >= p */
            break;
        }
    }
    *pbuf = buf & ((UINT32_C(1) << cnt) - 1u);  /* cnt <= 31 here */
    *pcnt = cnt;
    *out = (uint8_t)digit;
    return FXDP_OK;
}

/* Bernoulli(a / 2^k) in constant time: exactly k bits, branch-free compare. */
static inline fxdp_status fxdp_i_rd_dyadic_ct(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, uint64_t a, unsigned k,
                                              uint8_t *out)
{
    uint64_t x;

    if (fxdp_i_rd_bits64(r, buf, cnt, k, &x) != FXDP_OK) {
        return FXDP_ERR_ENTROPY;
    }
    *out = (uint8_t)fxdp_i_ct_lt64(x, a);
    return FXDP_OK;
}

/* Uniform below n with k = bitlen(n - 1) bits per try. */
static inline fxdp_status fxdp_i_rd_uniform64(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, uint64_t n, unsigned k,
                                              uint64_t *out)
{
    uint64_t x;

    for (;;) {
        if (fxdp_i_rd_bits64(r, buf, cnt, k, &x) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        if (x < n) {
            *out = x;
            return FXDP_OK;
        }
    }
}

/* Uniform below n < 2^32 with k = bitlen(n - 1) <= 32 bits per try. */
static inline fxdp_status fxdp_i_rd_uniform32(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, uint32_t n, unsigned k,
                                              uint32_t *out)
{
    uint32_t x;

    for (;;) {
        if (fxdp_i_rd_bits(r, buf, cnt, k, &x) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        if (x < n) {
            *out = x;
            return FXDP_OK;
        }
    }
}

/* Bernoulli(n / d), 1 <= d, n <= d: lazy comparison with the digits of n/d by long division. */
static inline fxdp_status fxdp_i_rd_rational(fxdp_rng *r, uint32_t *buf, uint32_t *cnt, uint64_t n, uint64_t d,
                                             uint8_t *out)
{
    uint64_t rem = n;
    uint32_t bit, digit;

    if (n == 0u) {
        *out = 0;
        return FXDP_OK;
    }
    if (n == d) {
        *out = 1;
        return FXDP_OK;
    }
    for (;;) {
        /* next digit of n/d: 2 rem >= d, written so that nothing overflows */
        if (rem >= d - rem) {
            digit = 1u;
            rem -= d - rem;
        } else {
            digit = 0u;
            rem += rem;
        }
        if (fxdp_i_rd_bit(r, buf, cnt, &bit) != FXDP_OK) {
            return FXDP_ERR_ENTROPY;
        }
        if (bit != digit) {
            *out = (uint8_t)digit;
            return FXDP_OK;
        }
        if (rem == 0u) {
            *out = 0;               /* the expansion ended: U >= p */
            return FXDP_OK;
        }
    }
}

/*
 * ---- constant tables in program memory ----------------------------------
 * On AVR, const data lives in the data address space (avr-gcc copies it to
 * RAM at start-up) unless it is placed in program memory, which plain loads
 * cannot read.  The *_rom entry points (fxdp.h) read their cfg's tables with
 * fxdp_i_rom_u32 and fxdp_i_table_count_gt_rom: LPM loads on AVR (GCC; the
 * exporter places the tables with __attribute__((__progmem__)) under the same
 * condition), plain loads everywhere else.  LPM takes the same cycles for
 * every address, so a full table scan stays constant time.  The Z pointer
 * reaches the first 64 KiB of flash, where avr-gcc's linker scripts put
 * .progmem data.
 */
#if defined(__AVR__) && defined(__GNUC__) && !defined(__AVR_TINY__)
#define FXDP_I_PROGMEM 1

/* *p from program memory */
static inline uint32_t fxdp_i_rom_u32(const uint32_t *p)
{
    uint32_t v;
    __asm__("lpm %A0, Z+\n\tlpm %B0, Z+\n\tlpm %C0, Z+\n\tlpm %D0, Z+" : "=&r"(v), "+z"(p));
    return v;
}

/* #{i < n : p[i] > x}, n >= 1, the table in program memory (rom != 0: LPM) or in RAM (LD): one
 * fixed instruction sequence per entry (4 loads and a CP/CPC chain whose borrow is added: no
 * branch on the data), 22 cycles an entry.  avr-gcc spills the portable form's temporaries. */
#define FXDP_I_AVR_COUNT_GT(LD)                                                                  \
    __asm__("1:\n\t"                                                                            \
            LD " __tmp_reg__, Z+\n\tcp %A[x], __tmp_reg__\n\t"                                   \
            LD " __tmp_reg__, Z+\n\tcpc %B[x], __tmp_reg__\n\t"                                  \
            LD " __tmp_reg__, Z+\n\tcpc %C[x], __tmp_reg__\n\t"                                  \
            LD " __tmp_reg__, Z+\n\tcpc %D[x], __tmp_reg__\n\t"                                  \
            "adc %A[b], __zero_reg__\n\tadc %B[b], __zero_reg__\n\t"                             \
            "adc %C[b], __zero_reg__\n\tadc %D[b], __zero_reg__\n\t"                             \
            "subi %A[n], 1\n\tsbci %B[n], 0\n\tsbci %C[n], 0\n\tsbci %D[n], 0\n\t"               \
            "brne 1b"                                                                            \
            : [b] "+r"(below), [n] "+d"(n), "+z"(p)                                              \
            : [x] "r"(x) : "memory")
static inline uint32_t fxdp_i_avr_count_gt(const uint32_t *p, uint32_t n, uint32_t x, int rom)
{
    uint32_t below = 0;

    if (rom) {
        FXDP_I_AVR_COUNT_GT("lpm");
    } else {
        FXDP_I_AVR_COUNT_GT("ld");
    }
    return below;
}

/* n - #{i < n : p[i] + c > x} + #{i < n : p[i] > y}, 1 <= n <= 65535 (a 16-bit count), c in {0, 1},
 * p[i] + c < 2^32: the two-sided scan of the half geometric table (csrc/fxdp_mech_geometric.c), one
 * pass, each entry loaded once and compared with x (CP sets the carry to c, then a CPC chain: the
 * exact borrow of x - p[i] - c) and with y (CP/CPC); the borrows are subtracted and added (SBC/ADC
 * with __zero_reg__): one fixed instruction sequence per entry (29 cycles), no branch on the data. */
#define FXDP_I_AVR_COUNT_GT2(LD)                                                                 \
    __asm__("1:\n\t"                                                                          \
            LD " %A[t], Z+\n\t" LD " %B[t], Z+\n\t" LD " %C[t], Z+\n\t" LD " %D[t], Z+\n\t"      \
            "cp __zero_reg__, %[c]\n\t"                                                        \
            "cpc %A[x], %A[t]\n\tcpc %B[x], %B[t]\n\tcpc %C[x], %C[t]\n\tcpc %D[x], %D[t]\n\t"   \
            "sbc %A[a], __zero_reg__\n\tsbc %B[a], __zero_reg__\n\t"                             \
            "cp %A[y], %A[t]\n\tcpc %B[y], %B[t]\n\tcpc %C[y], %C[t]\n\tcpc %D[y], %D[t]\n\t"    \
            "adc %A[a], __zero_reg__\n\tadc %B[a], __zero_reg__\n\t"                             \
            "subi %A[n], 1\n\tsbci %B[n], 0\n\t"                                                 \
            "brne 1b"                                                                            \
            : [a] "+r"(acc), [n] "+d"(n), "+z"(p), [t] "=&r"(t)                                  \
            : [x] "r"(x), [y] "r"(y), [c] "r"(c) : "memory")
static inline uint16_t fxdp_i_avr_count_gt2(const uint32_t *p, uint16_t n, uint32_t x, uint32_t y, uint8_t c,
                                            int rom)
{
    uint16_t acc = n;
    uint32_t t;

    if (rom) {
        FXDP_I_AVR_COUNT_GT2("lpm");
    } else {
        FXDP_I_AVR_COUNT_GT2("ld");
    }
    return acc;
}
#else
#define FXDP_I_PROGMEM 0

static inline uint32_t fxdp_i_rom_u32(const uint32_t *p)
{
    return *p;
}
#endif

/* popcount(v) & 1 by xor folding (no branch, no table): the Hadamard entries' sign. */
static inline uint32_t fxdp_i_parity32(uint32_t v)
{
    v ^= v >> 16;
    v ^= v >> 8;
    v ^= v >> 4;
    v ^= v >> 2;
    v ^= v >> 1;
    return v & 1u;
}

/* Unvalidated samplers (preconditions as the public versions). */
fxdp_status fxdp_i_uniform_below_u32(fxdp_rng *r, uint32_t n, uint32_t *out);
fxdp_status fxdp_i_uniform_below_u64(fxdp_rng *r, uint64_t n, uint64_t *out);
/* fxdp_uniform_below_ct_u32 without checks (n >= 1, r ready): FXDP_OK or FXDP_ERR_ENTROPY (then *out, *ok partial: scratch); on FXDP_OK
 * *ok = 0xFFFFFFFF if a round accepted (*out the value), 0 if the budget ran out (*out = 0). */
fxdp_status fxdp_i_uniform_below_ct_u32(fxdp_rng *r, uint32_t n, uint32_t *out, uint32_t *ok);
/* fxdp_bernoulli_block (ct = 0) or _ct (ct = 1) without checks (parameters valid, r ready). */
fxdp_status fxdp_i_bernoulli_block(fxdp_rng *r, unsigned lanes, uint64_t a_one, uint64_t a_zero, unsigned k,
                                   uint32_t mask, uint32_t *out, int ct);
fxdp_status fxdp_i_bernoulli_dyadic(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
fxdp_status fxdp_i_bernoulli_dyadic_ct(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out);
/* Lazy draws into out[lo..hi), 0 < a < 2^k, 1 <= k <= 32: the bits, outputs and state of fxdp_i_bernoulli_dyadic for each. */
fxdp_status fxdp_i_bernoulli_dyadic_run(fxdp_rng *r, uint64_t a, unsigned k, uint8_t *out, uint32_t lo, uint32_t hi);

fxdp_status fxdp_i_bernoulli_rational(fxdp_rng *r, uint64_t n, uint64_t d, uint8_t *out);
/* fxdp_strhash32 with block[i] also read as 0 for i >= valid (valid <= 256; fxdp_strhash.c). */
fxdp_status fxdp_i_strhash32(const uint32_t key[8], uint32_t j, const uint8_t *block, uint32_t len, uint32_t valid,
                             uint32_t max_len, uint32_t *out);
fxdp_status fxdp_i_bernoulli_exp(fxdp_rng *r, uint32_t n, uint32_t d, uint8_t *out);
fxdp_status fxdp_i_discrete_laplace(fxdp_rng *r, uint32_t s, uint32_t t, int64_t *out);
/* CKS's geometric step (fxdp_laplace.c): U = uniform_below(t) until bernoulli_exp(U, t), V = count of
 * bernoulli_exp(1, 1) successes, *y = floor((U + t V) / s); FXDP_ERR_RANGE if U + t V passes 2^64 - 1. */
fxdp_status fxdp_i_geometric_cks(fxdp_rng *r, uint32_t s, uint32_t t, uint64_t *y);
fxdp_status fxdp_i_table_sample_ct(fxdp_rng *r, const uint32_t *thresholds, uint32_t n_thresholds,
                                   unsigned k, uint32_t *index);
/* #{i < n : thresholds[i] > x}, constant time (full scan): n - the count is table_sample_ct's
 * index for the draw x.  _rom: the table is in program memory (the same function off AVR). */
uint32_t fxdp_i_table_count_gt(const uint32_t *thresholds, uint32_t n, uint32_t x);
#if FXDP_I_PROGMEM
uint32_t fxdp_i_table_count_gt_rom(const uint32_t *thresholds, uint32_t n, uint32_t x);
#else
#define fxdp_i_table_count_gt_rom fxdp_i_table_count_gt
#endif

/* ---- scratch wiping, branch-free selection and the device's sibling stream (the memoized oracles:
 * fxdp_mech_longitudinal.c, fxdp_mech_dbitflip.c, fxdp_mech_rappor_full.c; their group's own helpers
 * are in fxdp_memoized.h) ---- */

/* p[0..n) = 0 as fxdp_i_wipe, for a local buffer or a workspace of constant size n: the annotation
 * has Frama-C Eva unroll the loop (a strong update per byte), a comment to the compiler. */
static inline void fxdp_i_wipe_local(void *p, size_t n)
{
    volatile uint8_t *v = (volatile uint8_t *)p;
    size_t i;

    /*@ loop unroll n; */
    for (i = 0; i < n; i++) {
        v[i] = 0;
    }
}

/* All ones when i == x, else zero, without a branch. */
static inline uint64_t fxdp_i_eq_mask64(uint32_t i, uint32_t x)
{
    uint32_t v = i ^ x;
    uint32_t nz = (v | (0u - v)) >> 31;
    return (uint64_t)nz - UINT64_C(1);
}

/* The rng a memoized oracle's export release provisions its device from: r's sibling stream (r's
 * key, nonce words 0 and 1, word 2 = 1, r's stream version), keyed into *scratch, when r is a keyed
 * ChaCha20 stream; else r itself (a fresh device).  r ready.  Out of line (fxdp_rng.c): its nonce
 * is not on the stack of the caller's later draws. */
fxdp_rng *fxdp_i_device_source(fxdp_rng *r, fxdp_rng *scratch);

#endif /* FXDP_INTERNAL_H */

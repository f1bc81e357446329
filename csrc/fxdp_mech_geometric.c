/*
 * fxdp_mech_geometric.c -- the geometric mechanism (seed 004): two-sided
 * geometric (discrete Laplace) noise saturating at [lo, hi], on cfg->n
 * values per release (n = 1: scalar, absolute metric; n > 1: vector, L1).
 *
 * Definition and bit use: fxdp/mechanisms/additive/geometric.py (Geometric.release_one
 * per value, values in order); the Numba twin is fxdp/mechanisms/additive/_kernels_geometric.py.
 *   lazy:          y = clamp(x + discrete_laplace(s, t), lo, hi), computed
 *                  without overflow (CKS 2020, exact; not constant time);
 *   constant time: xc = clamp(x, lo, hi); J = table_sample_ct(thresholds,
 *                  2 width, k) - width; y = clamp(xc + J, lo, hi), with
 *                  branch-free clamps: the same instructions, memory reads
 *                  and bits (exactly k per value) for every input and draw.
 *                  cfg->half = 1 + c: only width entries s[i] = t[i] - c
 *                  are stored (the proved table is symmetric, t[2w-1-i] =
 *                  2^k - t[i] + c = 2^k - s[i]) and one full pass compares
 *                  each with the draw u and with 2^k - 1 - u (geo_index).
 *
 * All or nothing: the lazy form draws the n outputs straight into out (no
 * stack copy: the CKS loops are deep) and wipes out[0..n) to zeros on an
 * entropy failure; the constant-time form keeps the n table indices (uint16,
 * 32 bytes) and computes the outputs from them and x after the last draw
 * (out untouched on a failure).  The index buffer is wiped before returning.
 *
 * The constant-time form computes in 32-bit words: the checked cfg has lo, hi
 * within int32 and width < 2^15, so every value after the first clamp is an
 * int32 (no 64-bit helper calls on 8- and 16-bit CPUs); fxdp_geometric_ct_rom
 * reads the table from program memory (AVR).
 */
#include "fxdp_internal.h"

#define SIGN32 UINT32_C(0x80000000)

/* ---- one value, lazy ------------------------------------------------------------ */

/* y = clamp(x + z, lo, hi) without overflow: an overflowing sum is beyond the int64 bounds.
 * Out of line (GCC): run after the draw, its 64-bit temporaries are
 * not on the stack during the CKS loops. */
static FXDP_I_OUTLINE void geo_lazy_add(const fxdp_geometric_cfg *cfg, const int64_t *px, const int64_t *pz,
                                        int64_t *y)
{
    int64_t x = *px, z = *pz;

    if (z > 0 && x > INT64_MAX - z) {
        *y = cfg->hi;
    } else if (z < 0 && x < INT64_MIN - z) {
        *y = cfg->lo;
    } else {
        int64_t v = x + z;
        *y = v < cfg->lo ? cfg->lo : v > cfg->hi ? cfg->hi : v;
    }
}

/* ---- constant time: branch-free 32-bit word helpers ------------------------------ */

/* Out of line (GCC): 8-bit AVR spills 32-bit temporaries when these are inlined, and handles
 * int64 values poorly (hence pointers); noclone keeps GCC from turning a pointer back into a value. */
#if defined(__GNUC__) && !defined(__clang__)
#define GEO_OUTLINE __attribute__((__noinline__, __noclone__))
#elif defined(__GNUC__)
#define GEO_OUTLINE __attribute__((__noinline__))
#else
#define GEO_OUTLINE
#endif

/* Inlined into both entry points (each links only its own copy): one call level less stack. */
#if defined(__GNUC__)
#define GEO_INLINE __attribute__((__always_inline__)) static inline
#else
#define GEO_INLINE static inline
#endif

/* The k-bit draw of table_sample_ct.  AVR: through the library's fxdp_bits, so the bit reader is in
 * flash once (avr-gcc makes it ~400 bytes); elsewhere the inline reader (it is small there, and it
 * saves the two call levels of fxdp_bits on the stack). */
#if FXDP_I_PROGMEM
#define GEO_DRAW(r, k, v) fxdp_bits((r), (k), (v))
#else
#define GEO_DRAW(r, k, v) fxdp_i_bits((r), (k), (v))
#endif

#if FXDP_I_PROGMEM
/* AVR: the CP/CPC chain's borrow (a < b) becomes a byte mask (SBC m, m), then b ^ ((a ^ b) & m);
 * straight-line, 17 cycles (avr-gcc spills the portable form's temporaries: 118 bytes). */
GEO_OUTLINE
static uint32_t ct_min32(uint32_t a, uint32_t b)     /* min(a, b), unsigned */
{
    uint8_t m;

    __asm__("cp %A[a], %A[b]\n\tcpc %B[a], %B[b]\n\tcpc %C[a], %C[b]\n\tcpc %D[a], %D[b]\n\t"
            "sbc %[m], %[m]\n\t"
            "eor %A[a], %A[b]\n\tand %A[a], %[m]\n\teor %A[a], %A[b]\n\t"
            "eor %B[a], %B[b]\n\tand %B[a], %[m]\n\teor %B[a], %B[b]\n\t"
            "eor %C[a], %C[b]\n\tand %C[a], %[m]\n\teor %C[a], %C[b]\n\t"
            "eor %D[a], %D[b]\n\tand %D[a], %[m]\n\teor %D[a], %D[b]"
            : [a] "+r"(a), [m] "=&r"(m) : [b] "r"(b));
    return a;
}
#else
GEO_OUTLINE
static uint32_t ct_min32(uint32_t a, uint32_t b)     /* min(a, b), unsigned */
{
    uint32_t m = 0u - fxdp_i_ct_gt32(a, b);
    return a ^ ((a ^ b) & m);
}
#endif

static uint32_t ct_max32(uint32_t a, uint32_t b)     /* max(a, b) = a + b - min(a, b) mod 2^32 */
{
    return a + b - ct_min32(a, b);
}

/* The high word of *v's two's complement.  AVR (little endian): bytes 4..7 of its representation,
 * which saves avr-gcc's 64-bit shift helper. */
GEO_OUTLINE
static uint32_t hi32(const int64_t *v)
{
#if FXDP_I_PROGMEM
    const uint8_t *b = (const uint8_t *)v + 4;
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
#else
    return (uint32_t)((uint64_t)*v >> 32);
#endif
}

/* clamp(v, lo, hi), unsigned, lo <= hi */
GEO_OUTLINE
static uint32_t ct_clamp32(uint32_t v, uint32_t lo, uint32_t hi)
{
    return ct_min32(ct_max32(v, lo), hi);
}

/* out = clamp(clamp(x, lo, hi) + idx - w, lo, hi) for a checked cfg: lo <= hi within int32,
 * w = width < 2^15, 0 <= idx <= 2w.  On biased words (v + 2^31: signed order is unsigned order):
 * x is saturated to int32, then with xc = clamp(x, lo, hi), clamp(xc + J, lo, hi) = xc +
 * clamp(J, lo - xc, hi - xc), and as |J| <= w the noise bounds can be capped at w: everything
 * fits 32-bit words. */
GEO_OUTLINE
static void geo_ct_value(const fxdp_geometric_cfg *cfg, const int64_t *x, uint32_t idx, int64_t *out)
{
    uint32_t lob = (uint32_t)cfg->lo ^ SIGN32, hib = (uint32_t)cfg->hi ^ SIGN32, w = cfg->width;
    uint32_t xl = (uint32_t)*x, xh = hi32(x);
    uint32_t d = xh + (xl >> 31);                           /* 0 iff x is within int32 */
    uint32_t m = 0u - ((d | (0u - d)) >> 31);               /* all ones iff x is not */
    uint32_t sat = 0u - ((xh >> 31) ^ 1u);                  /* x saturated to int32, biased */
    uint32_t xc = ct_clamp32((sat & m) | ((xl ^ SIGN32) & ~m), lob, hib);    /* lo <= xc <= hi */

    xc += ct_clamp32(idx, w - ct_min32(xc - lob, w), w + ct_min32(hib - xc, w)) - w;  /* + J clamped */
    *out = (int64_t)xc - INT64_C(2147483648);
}

/* ---- release ------------------------------------------------------------------ */

/* Out of line: its 64-bit comparisons stay off the lazy form's draw chain. */
static FXDP_I_OUTLINE fxdp_status geo_check(const fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x,
                                            const int64_t *out)
{
    if (r == NULL || cfg == NULL || x == NULL || out == NULL) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->n < 1u || cfg->n > FXDP_GEOMETRIC_MAX_N || cfg->lo > cfg->hi) {
        return FXDP_ERR_PARAM;
    }
    if (cfg->s == 0u || cfg->t == 0u) {
        return FXDP_ERR_PARAM;      /* scale 0 (no noise) is not a device mechanism */
    }
    return fxdp_i_ready(r);
}

/* 0 iff *v is within int32: its high word is the sign extension of its low word. */
GEO_OUTLINE
static uint32_t not_int32(const int64_t *v)
{
    return hi32(v) + ((uint32_t)*v >> 31);
}

/* The same checks for the constant-time form, on 32-bit words, plus the proved table's:
 * bounds within int32, 2 width + 1 <= 2^16 entries, k in 1..32, half in 0..2, last stored
 * threshold < 2^k. */
GEO_OUTLINE
static fxdp_status geo_ct_check(const fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x,
                                const int64_t *out, int rom)
{
    const uint32_t *last;
    uint32_t v, w;
    unsigned k;

    if (r == NULL || cfg == NULL || x == NULL || out == NULL || cfg->thresholds == NULL) {
        return FXDP_ERR_PARAM;
    }
    w = cfg->width;
    k = cfg->k;
    if (cfg->n - 1u >= FXDP_GEOMETRIC_MAX_N || k - 1u >= 32u || w - 1u >= 32767u || cfg->half > 2u ||
        not_int32(&cfg->lo) != 0u || not_int32(&cfg->hi) != 0u ||
        ((uint32_t)cfg->lo ^ SIGN32) > ((uint32_t)cfg->hi ^ SIGN32)) {
        return FXDP_ERR_PARAM;
    }
    last = cfg->thresholds + (size_t)((cfg->half != 0u ? w : 2u * w) - 1u);
    v = (FXDP_I_PROGMEM && rom) ? fxdp_i_rom_u32(last) : *last;
    if (k < 32u && (v >> k) != 0u) {
        return FXDP_ERR_PARAM;
    }
    return fxdp_i_ready(r);
}

fxdp_status fxdp_geometric(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out)
{
    uint32_t i;
    fxdp_status st = geo_check(r, cfg, x, out);

    if (st != FXDP_OK) {
        return st;
    }
    /* drawn straight into out[0..n) (x[i] is read before out[i] is written); wiped on a failure */
    for (i = 0; i < cfg->n; i++) {
        int64_t z = 0;
        st = fxdp_i_discrete_laplace(r, cfg->s, cfg->t, &z);
        if (st != FXDP_OK) {
            fxdp_i_wipe(out, (size_t)cfg->n * sizeof out[0]);
            return st;
        }
        geo_lazy_add(cfg, &x[i], &z, &out[i]);  /* x[i] read after the draw: not live across it */
    }
    return FXDP_OK;
}

/* table_sample_ct's index for the k-bit draw u: #{i < 2w : t[i] <= u}, a full scan.
 *
 * Half table (cfg->half = 1 + c): the w stored entries are s[i] = t[i] - c, i < w, and the
 * symmetry t[2w - 1 - i] = 2^k - t[i] + c = 2^k - s[i] gives the other half, so
 * #{i < 2w : t[i] <= u} = w - #{i < w : s[i] + c > u} + #{i < w : s[i] > 2^k - 1 - u}: one pass
 * over the stored entries, every one read once and compared twice, nothing overflows (s[i] + c =
 * t[i] < 2^k, u < 2^k).  Full table (half = 0): the same pass over the 2w entries t[i] with c = 0
 * and the mirrored bound 2^32 - 1, above every threshold.  cfg->half and k are public parameters.
 * Out of line, after the draw: its temporaries are not on the stack during the refill. */
GEO_INLINE uint32_t geo_index(const fxdp_geometric_cfg *cfg, uint32_t u, int rom)
{
    const uint32_t *t = cfg->thresholds;
    uint32_t um = UINT32_C(0xFFFFFFFF);
    uint8_t c = 0u;
#if FXDP_I_PROGMEM
    uint16_t w = (uint16_t)cfg->width;                      /* 1..32767 */
#else
    uint32_t w = cfg->width, i, acc;
#endif

    if (cfg->half == 0u) {
        w += w;
    } else {
        um = fxdp_i_mask32_nz(cfg->k) - u;
        c = (uint8_t)(cfg->half - 1u);
    }
#if FXDP_I_PROGMEM
    return fxdp_i_avr_count_gt2(t, w, u, um, c, rom);
#else
    (void)rom;
    acc = w;
    for (i = 0; i < w; i++) {
        uint32_t v = t[i];
        acc += fxdp_i_ct_gt32(v, um) - fxdp_i_ct_gt32(v + c, u);
    }
    return acc;
#endif
}

GEO_OUTLINE
static uint32_t geo_index_ram(const fxdp_geometric_cfg *cfg, uint32_t u)
{
    return geo_index(cfg, u, 0);
}

#if FXDP_I_PROGMEM
GEO_OUTLINE
static uint32_t geo_index_rom(const fxdp_geometric_cfg *cfg, uint32_t u)
{
    return geo_index(cfg, u, 1);
}
#else
#define geo_index_rom geo_index_ram
#endif

/* The n table draws first (indices kept in a uint16 buffer: 2 width <= 65534), then, only if
 * every draw succeeded, the n outputs from x and the indices; the buffer is wiped. */
GEO_INLINE fxdp_status geo_ct_release(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out,
                                  int rom)
{
    uint16_t idx[FXDP_GEOMETRIC_MAX_N];
    volatile uint16_t *vi = idx;
    unsigned i, n;
    uint32_t v;
    fxdp_status st = geo_ct_check(r, cfg, x, out, rom);

    if (st != FXDP_OK) {
        return st;
    }
    n = (unsigned)cfg->n;                                   /* 1..16 */
    /* every entry written (a public count), the n draws in order until one fails: the analysers
     * cannot tie "written for i < n" to the reads below (n is from the cfg); one loop, not a
     * zeroing loop before the draws (26 B of AVR flash) */
    for (i = 0; i < FXDP_GEOMETRIC_MAX_N; i++) {
        uint16_t e = 0;
        if (i < n && st == FXDP_OK) {
            /* table_sample_ct: one k-bit draw, then the full scan(s) */
            st = GEO_DRAW(r, cfg->k, &v);
            if (st == FXDP_OK) {
                e = (uint16_t)(rom ? geo_index_rom(cfg, v) : geo_index_ram(cfg, v));
            }
        }
        vi[i] = e;
    }
    for (i = 0; i < n; i++) {
        if (st == FXDP_OK) {
            geo_ct_value(cfg, &x[i], vi[i], &out[i]);
        }
        vi[i] = 0;
    }
    return st;
}

fxdp_status fxdp_geometric_ct(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out)
{
    return geo_ct_release(r, cfg, x, out, 0);
}

fxdp_status fxdp_geometric_ct_rom(fxdp_rng *r, const fxdp_geometric_cfg *cfg, const int64_t *x, int64_t *out)
{
    return geo_ct_release(r, cfg, x, out, 1);
}

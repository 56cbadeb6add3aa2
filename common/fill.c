/* The fills (fill.h). */
#include "fill.h"

#include <math.h>
#include <string.h>

static const char *const fill_names[FILL_COUNT] = {"shifted", "random", "ones", "seq", "mod100", "large", "nan", "inf",
                                                   "wide", "cond", "binades"};

int parse_fill(const char *s, Fill *out)
{
    for (int f = 0; s && f < FILL_COUNT; f++)
        if (!strcmp(s, fill_names[f])) {
            *out = (Fill)f;
            return 0;
        }
    return -1;
}

const char *fill_name(Fill f)
{
    return fill_names[f];
}

/* splitmix64's finaliser: a counter-based generator, so element i does not depend on element i-1. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The first half of the cond fill: either sign, magnitude (2^22 + 22 random bits) / 2^23 in [0.5, 1). */
static float cond_value(uint64_t seed, uint64_t i)
{
    uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    float v = (float)((1u << 22) + (uint32_t)(z >> 42)) / (float)(1 << 23);
    return z & 1 ? -v : v;
}

/* The binades fill: a value made as its bits (so every value is exact): its sign and fraction from z's low
 * bits, its exponent field uniform in [0, top] from w's top 32 bits (a multiply and a shift: a bias of at most
 * top / 2^32). Field 0 holds the subnormals. The top is set by what sums of the data may reach: n <= 2^32
 * values below 2^T add up to less than 2^(T + 32) in magnitude, so the exact total and every partial sum, in
 * any order, stay below that.
 * fp32: top field 173, values below 2^47 (174 binades; stage 13's windows hold 2^68 of a tile of 16). Sums
 * stay below 2^79, and sums of squares (a row's variance, stage 09's LayerNorm) below 2^32 (2^47)^2 = 2^126:
 * under FLT_MAX, 2^128, with room for a computed sum's rounding.
 * fp64: top field 2013, values below 2^991 (2014 binades; the windows hold 2^89 of a tile of 8): sums below
 * 2^1023, half of DBL_MAX's 2^1024. */
#define BINADES_TOP_FIELD 173
#define BINADES_TOP_FIELD64 2013
static uint64_t binade_bits(uint64_t z, uint64_t w, unsigned top, int fraction_bits, int sign_bit)
{
    uint64_t field = ((w >> 32) * (uint64_t)(top + 1)) >> 32, fraction = (z >> 1) & ((1ull << fraction_bits) - 1);
    return (z & 1) << sign_bit | field << fraction_bits | fraction;
}

/* A wide value (fill.h) of fraction_bits random bits after the leading 1: exact in fp32 (23) and fp64 (52). */
static double wide_value(uint64_t z, int fraction_bits)
{
    int large = (int)(z & 1), negative = large ? ((z >> 1) & 3) == 0 : (int)((z >> 1) & 1);
    double v = ldexp(1.0 + ldexp((double)(z >> (64 - fraction_bits)), -fraction_bits), large ? 19 : -20);
    return negative ? -v : v;
}

float fill_value(Fill f, uint64_t seed, uint64_t i)
{
    uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    switch (f) {
    case FILL_ONES: return 1.0f;
    case FILL_SEQ: return (float)(i % 16);
    case FILL_MOD100: return (float)(i % 100);
    case FILL_LARGE: return 0.5f + (float)(z >> 41) / (float)(1 << 24);
    case FILL_NAN:
    case FILL_INF:
        if (i == NONFINITE_INDEX) return f == FILL_NAN ? NAN : INFINITY;
        return fill_value(FILL_SHIFTED, seed, i);
    case FILL_WIDE: return (float)wide_value(z, 23); /* 24 bits: exact */
    case FILL_COND: return cond_value(seed, i);
    case FILL_BINADES: {
        uint32_t bits = (uint32_t)binade_bits(z, z, BINADES_TOP_FIELD, 23, 31); /* the field from z's top 32 bits */
        float v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    case FILL_SHIFTED: return fill_value(FILL_RANDOM, seed, i) + 0.5f; /* (m - 2^22) / 2^23: exact */
    default: /* 24 random bits m, value (m - 2^23) / 2^23: exactly representable in fp32 */
        return (float)((int64_t)(z >> 40) - (1 << 23)) / (float)(1 << 23);
    }
}

double fill_value64(Fill f, uint64_t seed, uint64_t i)
{
    uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ull + i);
    switch (f) {
    case FILL_RANDOM: return ldexp((double)(int64_t)(z >> 11) - 4503599627370496.0, -52); /* (m - 2^52) / 2^52 */
    case FILL_SHIFTED: return fill_value64(FILL_RANDOM, seed, i) + 0.5;                 /* exact: 2^-53 grid */
    case FILL_WIDE: return wide_value(z, 52); /* 53 bits: exact */
    case FILL_BINADES: { /* 53 bits of z for the sign and fraction: the field from z mixed again */
        uint64_t bits = binade_bits(z, mix64(z), BINADES_TOP_FIELD64, 52, 63);
        double v;
        memcpy(&v, &bits, sizeof v);
        return v;
    }
    default: return fill_value(f, seed, i);
    }
}

void fill_array(float *x, uint64_t n, Fill f, uint64_t seed)
{
    if (f == FILL_COND) {
        fill_cond(x, n, seed, DEFAULT_COND);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) x[i] = fill_value(f, seed, (uint64_t)i);
}

void fill_cond(float *x, uint64_t n, uint64_t seed, double cond)
{
    uint64_t half = n / 2;
    double abs_half = 0.0; /* exact: at most 2^39 multiples of 2^-23, each below 1 */
    for (uint64_t k = 0; k < half; k++) abs_half += fabs(x[k] = cond_value(seed, k));
    if (n % 2) x[n - 1] = 0.0f;
    if (n == 1) x[0] = cond_value(seed, 0);
    if (half == 0) return;
    /* sum x = J 2^-23 for J = (2 sum|first half|) 2^23 / cond, spread over the second half as evenly as
     * integers allow (element k gets floor((k+1)J/half) - floor(kJ/half)); at most 2^21 each, so that
     * -v + j 2^-23 stays in (0.25, 1.25]: a multiple of 2^-23 there is exact in fp32. */
    double want = nearbyint(2.0 * abs_half * 8388608.0 / (cond < COND_MIN ? COND_MIN : cond));
    double most = (double)half * (double)(1u << 21);
    uint64_t total = want < 1.0 ? 1 : want > most ? (uint64_t)most : (uint64_t)want;
    unsigned __int128 prev = 0;
    for (uint64_t k = 0; k < half; k++) {
        unsigned __int128 next = (unsigned __int128)(k + 1) * total / half;
        x[half + k] = -x[k] + (float)(uint64_t)(next - prev) / 8388608.0f;
        prev = next;
    }
}

/* The references (reference.h). */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
#include "exit_codes.h"

/* Neumaier's compensated addition: s + v, keeping in *c the low-order part that the sum lost. */
static void neumaier_add(double *s, double *c, double v)
{
    double t = *s + v;
    *c += fabs(*s) >= fabs(v) ? (*s - t) + v : (v - t) + *s;
    *s = t;
}

/* Chunks of a fixed size, summed in parallel (OpenMP where the build has it) and combined in order:
 * the same bits whatever the number of threads (a reduction clause adds the threads' sums in the order
 * they finish). */
#define CHUNK (1ull << 20)
#define CHUNKS(n) ((int64_t)(((n) + CHUNK - 1) / CHUNK))

static uint64_t chunk_end(int64_t k, uint64_t n)
{
    return (uint64_t)(k + 1) * CHUNK < n ? (uint64_t)(k + 1) * CHUNK : n;
}

/* The exact sum of fp32 and of fp64 values. A finite fp64 value is an integer q < 2^53 times
 * 2^(e - 1074), 0 <= e < 2046 (e = 0: a subnormal), and every fp32 value is one of them, so it is added as
 * the integer q 2^e counted in units of 2^-1074, in three 32-bit digits held in int64: a digit takes 2^31
 * additions before it could overflow (a chunk is 2^20), and carries are made only where chunks meet.
 * Integer additions are associative: the total is the same for any order and any chunking. 68 digits reach
 * 2^2176: fp64's range with room for 2^78 inputs. */
#define EXACT_DIGITS 68
typedef struct {
    int64_t digit[EXACT_DIGITS];
} ExactSum;

static void exact_add(ExactSum *a, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned field = (unsigned)(bits >> 52 & 0x7ffu), e = field ? field - 1 : 0;
    uint64_t q = (bits & 0xfffffffffffffull) | (field ? 1ull << 52 : 0);
    unsigned __int128 mag = (unsigned __int128)q << (e % 32); /* < 2^85 */
    int sign = bits >> 63 ? -1 : 1;
    for (unsigned k = 0; k < 3; k++, mag >>= 32)
        a->digit[e / 32 + k] += sign * (int64_t)(uint64_t)(mag & 0xffffffffu);
}

/* Every digit but the top one into [0, 2^32); the top one keeps the sign. */
static void exact_carry(ExactSum *a)
{
    for (int k = 0; k + 1 < EXACT_DIGITS; k++) {
        int64_t carry = a->digit[k] >> 32; /* arithmetic shift: floor division by 2^32 */
        a->digit[k] -= carry * 4294967296LL;
        a->digit[k + 1] += carry;
    }
}

/* A carried total, rounded once to a format of p significand bits whose smallest unit is 2^min_exp (fp64:
 * 53, -1074; fp32: 24, -149): to nearest, ties to even, by integer arithmetic on its bits. The top three
 * digits that are not all 0 hold its leading bits (more than p + 1 of them where there are three), a sticky
 * bit whether any digit below them is not 0. The rounded significand q has at most p bits (p + 1 after a
 * carry, which is 2^p) and ldexp(q, unit) is exact, or Inf where it passes the format's largest value, as
 * IEEE rounds. */
static double exact_round(ExactSum a, int p, int min_exp)
{
    int negative = a.digit[EXACT_DIGITS - 1] < 0;
    if (negative) {
        for (int k = 0; k < EXACT_DIGITS; k++) a.digit[k] = -a.digit[k];
        exact_carry(&a);
    }
    int top = EXACT_DIGITS - 1;
    while (top > 0 && a.digit[top] == 0) top--;
    int low = top >= 2 ? top - 2 : 0, sticky = 0;
    unsigned __int128 w = 0; /* digits top down to low: below 2^96, bit 0 worth 2^(32 low - 1074) */
    for (int k = top; k >= low; k--) w = w << 32 | (uint64_t)a.digit[k];
    for (int k = 0; k < low; k++) sticky |= a.digit[k] != 0;
    if (w == 0) return 0.0;
    uint64_t high = (uint64_t)(w >> 64);
    int width = high ? 128 - __builtin_clzll(high) : 64 - __builtin_clzll((uint64_t)w);
    int lead = 32 * low + width - 1 - 1074;                          /* the total's leading bit: 2^lead */
    int unit = lead - (p - 1) > min_exp ? lead - (p - 1) : min_exp;  /* the result's last place */
    int drop = unit + 1074 - 32 * low;                               /* bits of w below it, >= 0 */
    uint64_t q = 0;
    if (drop < 97) { /* else q is 0 and w, below 2^96, less than half of 2^drop */
        q = (uint64_t)(w >> drop);
        if (drop > 0) {
            unsigned half = (unsigned)(w >> (drop - 1) & 1u);
            sticky |= (w & (((unsigned __int128)1 << (drop - 1)) - 1)) != 0;
            q += half && (sticky || (q & 1));
        }
    }
    double r = p < 53 ? (double)ldexpf((float)q, unit) : ldexp((double)q, unit);
    return negative ? -r : r;
}

/* The reference of x32[0..n), or where x32 is NULL of x64[0..n). An fp32 input's exact total of 0 is +0, as
 * fp32 kernels, whose sums start from +0, give it. */
static Reference exact_reference(const float *x32, const double *x64, uint64_t n)
{
    int64_t chunks = CHUNKS(n);
    ExactSum total = {{0}};
    int nonint = 0, nan = 0, plus_inf = 0, minus_inf = 0, not_minus_zero = 0;
    double abs_sum = 0.0, max = -INFINITY, max_abs = 0.0;
#pragma omp parallel for ordered schedule(static, 1) if (chunks > 1) \
    reduction(|| : nonint, nan, plus_inf, minus_inf, not_minus_zero) reduction(max : max, max_abs)
    for (int64_t k = 0; k < chunks; k++) {
        ExactSum part = {{0}};
        double ka = 0.0;
        for (uint64_t i = (uint64_t)k * CHUNK; i < chunk_end(k, n); i++) {
            double v = x32 ? x32[i] : x64[i];
            if (isnan(v)) nan = 1;
            else if (isinf(v)) *(v > 0 ? &plus_inf : &minus_inf) = 1;
            else { exact_add(&part, v); ka += fabs(v); }
            if (!(v == 0.0 && signbit(v))) not_minus_zero = 1;
            if (v != floor(v)) nonint = 1;
            if (v > max) max = v;
            if (fabs(v) > max_abs) max_abs = fabs(v);
        }
        exact_carry(&part);
#pragma omp ordered
        {
            for (int d = 0; d < EXACT_DIGITS; d++) total.digit[d] += part.digit[d];
            exact_carry(&total);
            abs_sum += ka; /* in order: the same bits for any number of threads */
        }
    }
    Reference r = {0.0, abs_sum, !nonint, nan || plus_inf || minus_inf, max, 0.0, max_abs, 0, 0.0f};
    /* IEEE's rules where a NaN or an Inf is read: NaN, or Inf - Inf = NaN, or the infinity */
    if (nan || (plus_inf && minus_inf)) r.sum = NAN;
    else if (plus_inf || minus_inf) r.sum = plus_inf ? INFINITY : -INFINITY;
    else {
        r.sum = exact_round(total, 53, -1074);
        r.sum32 = (float)exact_round(total, 24, -149);
        if (x64 && n && !not_minus_zero) r.sum = -0.0, r.sum32 = -0.0f; /* every input -0 */
    }
    if (r.non_finite) r.sum32 = (float)r.sum;
    return r;
}

Reference reference_sum(const float *x, uint64_t n)
{
    return exact_reference(x, NULL, n);
}

Reference reference_sum_f64(const double *x, uint64_t n)
{
    return exact_reference(NULL, x, n);
}

/* The sum of f(x_i - shift) over x[0..n) in chunks, each compensated, combined in order as in reference_sum:
 * f is exp where arg is not NULL (*arg the sum of exp(t_i) expm1(u |t_i|), t_i = x_i - shift, u = 2^-24), else
 * the square. A term that is 0 in fp64 (x_i = -Inf, or x_i - shift below -745) adds nothing. */
static double ordered_sum(const float *x, uint64_t n, double shift, double *arg)
{
    int64_t chunks = CHUNKS(n);
    double s = 0.0, c = 0.0, a = 0.0, u = unit_roundoff(24);
#pragma omp parallel for ordered schedule(static, 1) if (chunks > 1)
    for (int64_t k = 0; k < chunks; k++) {
        double ks = 0.0, kc = 0.0, ka = 0.0;
        for (uint64_t i = (uint64_t)k * CHUNK; i < chunk_end(k, n); i++) {
            double t = x[i] - shift, e = arg ? exp(t) : t * t;
            if (e == 0.0) continue;
            neumaier_add(&ks, &kc, e);
            if (arg) ka += e * expm1(-t * u);
        }
#pragma omp ordered
        {
            neumaier_add(&s, &c, ks);
            c += kc;
            a += ka;
        }
    }
    if (arg) *arg = a;
    return s + c;
}

double abs_sum_below(const float *x, uint64_t n, double below)
{
    int64_t chunks = CHUNKS(n);
    double sum = 0.0;
#pragma omp parallel for ordered schedule(static, 1) if (chunks > 1)
    for (int64_t k = 0; k < chunks; k++) {
        double part = 0.0;
        for (uint64_t i = (uint64_t)k * CHUNK; i < chunk_end(k, n); i++)
            if (fabsf(x[i]) < below) part += fabsf(x[i]);
#pragma omp ordered
        sum += part;
    }
    return sum;
}

Reference reference_abs_max(const float *x, uint64_t n)
{
    int nan = 0;
    double max_abs = 0.0;
#pragma omp parallel for schedule(static) reduction(|| : nan) reduction(max : max_abs) if (n > CHUNK)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (isnan(x[i])) nan = 1;
        else if (fabs((double)x[i]) > max_abs) max_abs = fabs((double)x[i]);
    }
    return (Reference){.sum = nan ? NAN : max_abs, .abs_sum = max_abs, .non_finite = nan || isinf(max_abs),
                       .max = max_abs, .max_abs = max_abs};
}

Reference reference_sum_squares(const float *x, uint64_t n)
{
    double *squares = (double *)malloc(n * sizeof(double));
    if (!squares) {
        fprintf(stderr, "error: out of host memory for the squares of %llu values\n", (unsigned long long)n);
        exit(EXIT_USAGE);
    }
    for (uint64_t i = 0; i < n; i++) squares[i] = (double)x[i] * (double)x[i];
    Reference r = reference_sum_f64(squares, n);
    free(squares);
    if (!isnan(r.sum) && isinf(r.sum32)) r.sum = INFINITY, r.non_finite = 1;
    r.abs_sum = r.sum;
    return r;
}

Reference reference_logsumexp(const float *x, uint64_t n)
{
    int nan = 0, nonfin = 0;
    double max = -INFINITY;
#pragma omp parallel for schedule(static) reduction(|| : nan, nonfin) reduction(max : max) if (n > CHUNK)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        double v = x[i];
        if (!isfinite(v)) nonfin = 1;
        if (isnan(v)) nan = 1;
        else if (v > max) max = v;
    }
    Reference r = {nan ? NAN : max, 1.0, 0, nonfin, max, 0.0, 0.0, 0, 0.0f};
    if (nan || isinf(max)) return r; /* NaN in, NaN out; else +Inf (or a row of -Inf only) is its own LSE */
    r.abs_sum = ordered_sum(x, n, max, &r.arg_error);
    r.sum = max + log(r.abs_sum);
    return r;
}

Moments reference_moments(const float *x, uint64_t n)
{
    Reference sum = reference_sum(x, n);
    Moments m = {sum.sum / (double)n, NAN, NAN, sum.max_abs, NAN, n};
    if (sum.non_finite) return m;
    double lo = INFINITY; /* the largest value is sum.max */
#pragma omp parallel for schedule(static) reduction(min : lo) if (n > CHUNK)
    for (int64_t i = 0; i < (int64_t)n; i++)
        if (x[i] < lo) lo = x[i];
    m.m2 = ordered_sum(x, n, m.mean, NULL);
    m.var = m.m2 / (double)n;
    m.range = sum.max - lo;
    return m;
}

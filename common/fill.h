/* The data a program sums when it reads no file (fill.c): every fill a pure function of its seed and
 * the index, so any prefix and any machine give the same values. */
#ifndef REDUCE_FILL_H
#define REDUCE_FILL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The data a stage program can sum (--fill). Their names, one table in fill.c, in this order: the order
 * --help and --describe list them in, shifted first (the default and the bench's, data whose sum a check
 * can hold to account). */
typedef enum { FILL_SHIFTED, FILL_RANDOM, FILL_ONES, FILL_SEQ, FILL_MOD100, FILL_LARGE, FILL_NAN, FILL_INF, FILL_WIDE,
               FILL_COND, FILL_BINADES, FILL_COUNT } Fill;
/* A fill's name -> 0 and *out, else -1. */
int parse_fill(const char *s, Fill *out);
const char *fill_name(Fill f);

/* The value of element i. random: uniform in [-1, 1) with 24 significant bits (exact in fp32), mean 0; shifted: the
 * same plus 1/2, uniform in [-1/2, 3/2), mean 1/2, so that the sum grows like N/2 and its condition number
 * sum|x_i| / |sum x_i| stays near 5/4 (the bench's data: a result of 0, or one missing an element, is far from it;
 * random's sum is a random walk of size sqrt(N), tiny beside sum|x_i|); ones: 1; seq: i mod 16 (0, 1, ..., 15, 0,
 * 1, ...); mod100: i mod 100 (the warp shuffle article's data); large: uniform in [0.5, 1), which the harness
 * scales to the largest value of the input type (to show accumulators overflowing); nan, inf: shifted, but element
 * NONFINITE_INDEX is a NaN (+Inf), which the result must show; binades: data without a range, a random sign, a
 * random fraction and an exponent field drawn uniformly from 0 (the subnormals) up to values below 2^47, so that a
 * few neighbouring values span more binades than stage 13's windows hold (its bench data for the digits' path),
 * every value exact and every sum of up to 2^32 of them finite (fill.c says why). */
#define NONFINITE_INDEX 777
float fill_value(Fill f, uint64_t seed, uint64_t i);
/* The same fills in fp64, with fp64's 53 significant bits where fill_value has 24 (random, shifted, wide:
 * the same distributions, every value exact in fp64; binades: fp64's own fields, values below 2^991);
 * the others are fill_value's values. */
double fill_value64(Fill f, uint64_t seed, uint64_t i);
void fill_array(float *x, uint64_t n, Fill f, uint64_t seed);

/* The accuracy fills (course chapter §7.7.4: "values near 1e-6 and 1e6, small ones are lost").
 * wide: half the values are near 1e6 (2^19 to 2^20, three in four positive: large values of both signs
 * cancel, and the sum still grows with N as real data's does), half near 1e-6 (2^-20 to 2^-19, either
 * sign); every value exact in fp32.
 * cond: a sum whose condition number sum|x_i| / |sum x_i| is `cond` (at least COND_MIN): the first
 * half are random values of either sign in [0.5, 1), the second half the same values negated, each
 * plus a small multiple of 2^-23 (exact in fp32), the multiples adding up to what makes the sum
 * sum|x_i| / cond. The halves cancel only when the second is added: every prefix sum of the first half
 * is as large as random data makes it. Unlike the others, element i depends on n (not a prefix of a
 * longer fill). An odd n ends with a 0; n = 1 is one random value (condition number 1). */
#define COND_MIN 10.0
#define DEFAULT_COND 1e8
void fill_cond(float *x, uint64_t n, uint64_t seed, double cond);

#ifdef __cplusplus
}
#endif
#endif

/* fp64 data made to break sums, for stage 13's demo (demo.cu) and the host test of its fp64 arithmetic
 * (tests/test_stage_13.cu), which include this file: the same values from the same kind and seed on every
 * machine. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 64-bit generator (splitmix64). */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* x[0..n) of a kind of data, from seed; a kind not listed here is the caller's mistake (exit 2). */
static void make64(const char *kind, double *x, uint64_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next_random(&s), b;
        double v;
        if (!strcmp(kind, "shifted")) { /* 53 significant bits in [-1/2, 3/2) */
            v = (double)(r >> 11) * 0x1p-52 - 0.5;
        } else if (!strcmp(kind, "cancellation")) { /* 1e300, 1, -1e300, ...: the small values are left */
            static const double cycle[] = {1e300, 1.0, -1e300, 0x1.8p-60, -1e200, 1e200};
            v = cycle[i % 6];
        } else if (!strcmp(kind, "cancellation down to 2^-1000")) { /* the same, 3 and -2^-1000 left too */
            static const double cycle[] = {1e300, 1.0, -1e300, 0x1.8p-60, -1e200, 1e200, 3.0, -0x1p-1000};
            v = cycle[i % 8];
        } else if (!strcmp(kind, "subnormals")) {
            b = r & 0x800fffffffffffffull;
            memcpy(&v, &b, sizeof v);
        } else if (!strcmp(kind, "every exponent")) {
            do b = next_random(&s); while ((b >> 52 & 0x7ffu) == 0x7ffu);
            memcpy(&v, &b, sizeof v);
        } else if (!strcmp(kind, "past DBL_MAX")) { /* partial sums past DBL_MAX: a small total, or Inf */
            static const double cycle[] = {DBL_MAX, DBL_MAX, 0x1p-1074, -DBL_MAX, -DBL_MAX, 1.5};
            v = cycle[i % 6];
        } else if (!strcmp(kind, "total past DBL_MAX")) {
            v = i % 3 ? DBL_MAX / 2 : 0x1p971;
        } else if (!strcmp(kind, "ties")) { /* 1 + 2^-53 (a tie) + tiny values that cancel */
            v = i == 0 ? 1.0 : i == 1 ? 0x1p-53 : i % 2 ? 0x1p-600 : -0x1p-600;
        } else if (!strcmp(kind, "ties, a sticky bit")) { /* the same tie broken by 2^-1074 */
            v = i == 0 ? 1.0 : i == 1 ? 0x1p-53 : i == 2 ? 0x1p-1074 : i % 2 ? 0x1p-600 : -0x1p-600;
        } else if (!strcmp(kind, "fp32 subnormal tie")) { /* 2^-150 + 2^-149: an fp32 tie, to even */
            v = i == 0 ? 0x1p-150 : i == 1 ? 0x1p-149 : i % 2 ? 0x1p-900 : -0x1p-900;
        } else if (!strcmp(kind, "negative below fp32")) { /* -2^-160: -0 in fp32, not in fp64 */
            v = i == 0 ? -0x1p-160 : i % 2 ? 0x1p-300 : -0x1p-300;
        } else if (!strcmp(kind, "wider than the windows")) { /* 2^0 and 2^-120 in every tile */
            v = i % 2 ? 1.0 + (double)(r >> 40) * 0x1p-52 : 0x1p-120 * (1.0 + (double)(r >> 12) * 0x1p-52);
        } else if (!strcmp(kind, "NaN")) {
            v = i == n / 2 ? NAN : 1.0;
        } else if (!strcmp(kind, "+Inf and -Inf")) {
            v = i == n / 3 ? INFINITY : i == n / 2 && n > 1 ? -INFINITY : 1.0;
        } else if (!strcmp(kind, "-Inf")) {
            v = i == n / 2 ? -INFINITY : 1.0;
        } else if (!strcmp(kind, "+Inf among -DBL_MAX")) {
            v = i == n / 2 ? INFINITY : -DBL_MAX;
        } else if (!strcmp(kind, "-Inf among DBL_MAX")) {
            v = i == n / 2 ? -INFINITY : DBL_MAX;
        } else if (!strcmp(kind, "-0")) {
            v = -0.0;
        } else if (!strcmp(kind, "-0 and one +0")) {
            v = i == n - 1 ? 0.0 : -0.0;
        } else if (!strcmp(kind, "zero total")) { /* x, -x: an exact 0, +0 */
            v = i % 2 ? -(double)(i / 2 + 1) * 0.375 : (double)(i / 2 + 1) * 0.375;
        } else {
            fprintf(stderr, "no kind of data %s\n", kind);
            exit(2);
        }
        x[i] = v;
    }
}

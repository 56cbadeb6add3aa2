/* Unit tests of the plain C of common/: size parsing, median, fill determinism, the reference (against an exact
 * oracle) and the tolerance formula, the files --input reads. Prints "ok <name>" or "FAIL <name>" per check
 * (a failed check may add detail lines, "     | ..."), then "done <count> checks" as its last line; exits
 * 1 if any failed. A crash leaves out the last line: tests/test_host_unit.py fails on that too. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_file.h"
#include "bounds.h"
#include "fill.h"
#include "parse.h"
#include "result.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static int checks, failures;

static void check(int cond, const char *name)
{
    printf("%s %s\n", cond ? "ok" : "FAIL", name);
    checks++;
    failures += !cond;
}

static void test_parse_size(void)
{
    static const struct { const char *s; uint64_t v; } good[] = {
        {"1", 1}, {"1000003", 1000003}, {"64K", 65536}, {"16M", 16777216}, {"1G", 1073741824},
        {"16m", 16777216}, {"2^24+1", 16777217}, {"4096x4096", 16777216}, {"1024x2048", 2097152}, {"2^31+17", 2147483665ull}, {"2^10-1", 1023}, {"2^0", 1},
        /* past 32 bits, where a size held in 32 would wrap to 0, 5 and 1000003 */
        {"2^32", 4294967296ull}, {"2^32+5", 4294967301ull}, {"2^33+1000003", 8590934595ull}, {"4G", 4294967296ull},
        {"65536x65537", 4295032832ull}, {"2^40", 1099511627776ull},
    };
    static const char *bad[] = {"", "0", "-5", "abc", "1.5", "16MB", "2^41", "3^4", "2^4-16", "1e6",
                                " 5", "5 ", "99999999999999999999999", "2^", "K", "0K", "2^24+", "0x5", "4096x", "4096x0", "1024x1024x2",
                                "2^64", "2^100", "2^40+18446744073709551615"}; /* a shift or a sum past 64 bits */
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 0;
        char name[96];
        snprintf(name, sizeof name, "parse_size accepts \"%s\"", good[i].s);
        check(parse_size(good[i].s, &v) == 0 && v == good[i].v, name);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 0;
        char name[96];
        snprintf(name, sizeof name, "parse_size rejects \"%s\"", bad[i]);
        check(parse_size(bad[i], &v) == -1, name);
    }
    uint64_t list[4];
    check(parse_size_list("1,31,1M", list, 4) == 3 && list[0] == 1 && list[1] == 31 && list[2] == 1048576,
          "parse_size_list reads a comma-separated list");
    check(parse_size_list("1,,2", list, 4) == -1, "parse_size_list rejects an empty item");
    check(parse_size_list("1,2,", list, 4) == -1, "parse_size_list rejects a trailing comma");
    check(parse_size_list("1,2,3,4,5", list, 4) == -1, "parse_size_list rejects more items than it can hold");
    uint64_t rows, cols;
    check(parse_matrix("2^21x32", &rows, &cols) == 0 && rows == 2097152 && cols == 32,
          "parse_matrix reads ROWSxCOLS with size syntax on both sides");
    check(parse_matrix("1000003", &rows, &cols) == 0 && rows == 1 && cols == 1000003,
          "parse_matrix reads a plain size as one row");
    check(parse_matrix("x5", &rows, &cols) == -1 && parse_matrix("3x", &rows, &cols) == -1 &&
              parse_matrix("0x5", &rows, &cols) == -1 && parse_matrix("2x2x2", &rows, &cols) == -1 &&
              parse_matrix("2^40x2^40", &rows, &cols) == -1,
          "parse_matrix rejects a missing side, a zero side, three sides and an overflowing product");
    long x;
    check(parse_int("20", 1, 100, &x) == 0 && x == 20, "parse_int accepts a number in range");
    check(parse_int("0", 1, 100, &x) == -1, "parse_int rejects a number below range (--reps 0)");
    check(parse_int("7x", 0, 100, &x) == -1, "parse_int rejects junk after the number");
}

static void test_median(void)
{
    double a[] = {5, 1, 4, 2, 3};
    check(median(a, 5) == 3, "median of an odd count is the middle value");
    double b[] = {10, 1, 4, 2};
    check(median(b, 4) == 3, "median of an even count is the mean of the middle two");
    double c[] = {7};
    check(median(c, 1) == 7, "median of one value is that value");
}

static void test_fill(void)
{
    enum { N = 100000 };
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    fill_array(a, N, FILL_RANDOM, 1);
    fill_array(b, N, FILL_RANDOM, 1);
    check(!memcmp(a, b, N * sizeof *a), "random fill is the same for the same seed");
    int prefix = 1;
    for (uint64_t i = 0; i < N; i += 997) prefix &= fill_value(FILL_RANDOM, 1, i) == a[i];
    check(prefix, "random fill of element i does not depend on N (any prefix is the same data)");
    fill_array(b, N, FILL_RANDOM, 2);
    check(memcmp(a, b, N * sizeof *a) != 0, "random fill differs for another seed");
    int in_range = 1, exact = 1, zeros = 0;
    double mean = 0;
    for (int i = 0; i < N; i++) {
        in_range &= a[i] >= -1.0f && a[i] < 1.0f;
        exact &= ldexp(a[i], 23) == floor(ldexp(a[i], 23));
        zeros += a[i] == 0.0f;
        mean += a[i];
    }
    mean /= N;
    check(in_range, "random values lie in [-1, 1)");
    check(exact, "random values are multiples of 2^-23 (exact in fp32)");
    check(fabs(mean) < 0.01 && zeros < 10, "random values are centred on 0 and not zeros");
    check(fill_value(FILL_ONES, 1, 123) == 1.0f, "ones fill is 1");
    check(fill_value(FILL_SEQ, 1, 0) == 0.0f && fill_value(FILL_SEQ, 1, 15) == 15.0f &&
          fill_value(FILL_SEQ, 1, 16) == 0.0f, "seq fill is i mod 16");
    check(fill_value(FILL_MOD100, 1, 99) == 99.0f && fill_value(FILL_MOD100, 1, 100) == 0.0f &&
          fill_value(FILL_MOD100, 1, 1234567) == 67.0f, "mod100 fill is i mod 100");
    double article_sum = 0.0;
    for (uint64_t i = 0; i < (1u << 20); i++) article_sum += fill_value(FILL_MOD100, 1, i);
    check(article_sum == 51903600.0, "mod100 over 2^20 elements sums to the shuffle article's 51903600");
    Fill f;
    check(parse_fill("seq", &f) == 0 && f == FILL_SEQ && parse_fill("mod100", &f) == 0 && f == FILL_MOD100 && parse_fill("zeros", &f) == -1 &&
          parse_fill("wide", &f) == 0 && f == FILL_WIDE && parse_fill("cond", &f) == 0 && f == FILL_COND &&
          !strcmp(fill_name(FILL_WIDE), "wide") && !strcmp(fill_name(FILL_COND), "cond"), "parse_fill");
    free(a);
    free(b);
}

/* The binades fill: every exponent field from 0 (the subnormals) up to the top its sums allow and none
 * above, about as often each, both signs, all of the fraction's bits random, the same element at any N; and
 * what its range is for: 2^32 values of the largest magnitude it makes, and their squares in fp32, add up to
 * a finite sum (in any order, no partial sum is larger). */
static void test_binades_fill(void)
{
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    fill_array(x, N, FILL_BINADES, 3);
    static int fields[256], fields64[2048];
    int negative = 0, negative64 = 0, subnormal = 0, subnormal64 = 0, prefix = 1, seeds = 0;
    uint32_t ones = 0, zeros = 0;
    uint64_t ones64 = 0, zeros64 = 0;
    float largest = 0.0f;
    double largest64 = 0.0;
    for (int i = 0; i < N; i++) {
        double v = fill_value64(FILL_BINADES, 3, (uint64_t)i);
        uint32_t b;
        uint64_t b64;
        memcpy(&b, &x[i], sizeof b);
        memcpy(&b64, &v, sizeof b64);
        fields[b >> 23 & 0xff]++;
        fields64[b64 >> 52 & 0x7ff]++;
        ones |= b, zeros |= ~b, ones64 |= b64, zeros64 |= ~b64;
        negative += signbit(x[i]) != 0;
        negative64 += signbit(v) != 0;
        subnormal += fpclassify(x[i]) == FP_SUBNORMAL;
        subnormal64 += fpclassify(v) == FP_SUBNORMAL;
        largest = fmaxf(largest, fabsf(x[i]));
        largest64 = fmax(largest64, fabs(v));
        if (i % 997 == 0) prefix &= !memcmp(&x[i], &(float){fill_value(FILL_BINADES, 3, (uint64_t)i)}, sizeof b);
        seeds += i < 1000 && fill_value(FILL_BINADES, 4, (uint64_t)i) != x[i];
    }
    int even = 1, even64 = 1, above = 0, above64 = 0;
    for (int f = 0; f < 256; f++) {
        if (f <= 173) even &= abs(fields[f] - N / 174) < N / 174 / 4;
        else above += fields[f];
    }
    for (int f = 0; f < 2048; f++) {
        if (f <= 2013) even64 &= abs(fields64[f] - N / 2014) < N / 2014 / 3;
        else above64 += fields64[f];
    }
    check(even && !above && largest < 0x1p47f && largest >= 0x1p46f,
          "binades fp32: every exponent field from 0 to 173 (values below 2^47) about as often, none above");
    check(even64 && !above64 && largest64 < 0x1p991 && largest64 >= 0x1p990,
          "binades fp64: every exponent field from 0 to 2013 (values below 2^991) about as often, none above");
    check(subnormal > N / 174 / 2 && subnormal64 > N / 2014 / 2, "binades: subnormals among the values, fp32 and fp64");
    check(abs(negative - N / 2) < N / 100 && abs(negative64 - N / 2) < N / 100, "binades: half the values negative");
    check(ones == 0xffffffffu && zeros == 0xffffffffu && ones64 == ~0ull && zeros64 == ~0ull,
          "binades: every bit of the values varies (the whole fraction random, every value exact in its type)");
    check(prefix && seeds > 990, "binades: element i does not depend on N; another seed, other values");
    float sum = largest, squares = largest * largest;
    double sum64 = largest64;
    for (int k = 0; k < 32; k++) sum += sum, squares += squares, sum64 += sum64;
    check(isfinite(sum) && isfinite(squares) && isfinite(sum64) && sum64 <= DBL_MAX / 2,
          "binades: 2^32 values of the largest magnitude add up to a finite sum, in fp32 their squares too");
    free(x);
}

/* The binades data summed as kernels sum: THREADS loops over every THREADS-th value, in the type of x (fp32)
 * or x64 (fp64), then a pairwise tree over the loops' sums (THREADS a power of two); the AddChain that says so.
 * LEAVE_OUT: an index whose value is not added (n: none). */
static double loops_then_tree(const float *x, const double *x64, uint64_t n, uint64_t threads, uint64_t leave_out,
                              AddChain *shape)
{
    float *p = calloc(threads, sizeof *p);
    double *p64 = calloc(threads, sizeof *p64);
    for (uint64_t i = 0; i < n; i++)
        if (i != leave_out) {
            if (x) p[i % threads] += x[i];
            else p64[i % threads] += x64[i];
        }
    AddChain s = {.serial = (double)((n + threads - 1) / threads), .acc_bits = x ? 0 : 53};
    for (uint64_t width = threads / 2; width > 0; width /= 2, s.tree++)
        for (uint64_t t = 0; t < width; t++) p[t] += p[t + width], p64[t] += p64[t + width];
    double sum = x ? p[0] : p64[0];
    free(p);
    free(p64);
    *shape = s;
    return sum;
}

/* The bounds on the binades data: correct sums within them, in fp32 and in fp64 (whose data, like a file's,
 * take the worst case alone), from one long loop to short loops and a tree; and a sum that lacks the largest
 * value outside them where the chains are short, so that the check can fail there. */
static void test_binades_bounds(void)
{
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    double *x64 = malloc(N * sizeof *x64);
    fill_array(x, N, FILL_BINADES, 7);
    for (uint64_t i = 0; i < N; i++) x64[i] = fill_value64(FILL_BINADES, 7, i);
    struct { uint64_t n, threads; } shapes[] = {{N, 1}, {N, 1024}, {N, 65536}, {4096, 256}, {1000, 32}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        uint64_t n = shapes[k].n, largest = 0, largest64 = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (fabsf(x[i]) > fabsf(x[largest])) largest = i;
            if (fabs(x64[i]) > fabs(x64[largest64])) largest64 = i;
        }
        Reference ref = reference_sum(x, n), ref64 = reference_sum_f64(x64, n);
        ref64.structured = 1; /* as the harness reads fp64 data */
        AddChain s, s64;
        double sum = loops_then_tree(x, NULL, n, shapes[k].threads, n, &s);
        double sum64 = loops_then_tree(NULL, x64, n, shapes[k].threads, n, &s64);
        double tol = sum_tolerance(s, &ref, x, n), tol64 = sum_tolerance(s64, &ref64, NULL, n);
        char name[160];
        char loops[48] = "one loop";
        if (shapes[k].threads > 1) snprintf(loops, sizeof loops, "%llu loops and a tree", (unsigned long long)shapes[k].threads);
        snprintf(name, sizeof name, "binades, N = %llu: %s in fp32 and in fp64 within their bounds", (unsigned long long)n, loops);
        check(result_passes(sum, &ref, tol) && result_passes(sum64, &ref64, tol64), name);
        if (s.serial > 64.0) continue;
        snprintf(name, sizeof name, "binades, N = %llu, %s: a sum without the largest value fails, fp32 and fp64",
                 (unsigned long long)n, loops);
        check(!result_passes(loops_then_tree(x, NULL, n, shapes[k].threads, largest, &s), &ref, tol) &&
                  !result_passes(loops_then_tree(NULL, x64, n, shapes[k].threads, largest64, &s64), &ref64, tol64),
              name);
    }
    free(x);
    free(x64);
}

/* The accuracy fills: exact values, the ranges and signs they promise, the condition number asked for,
 * and the property the Kahan exercise rests on: on wide data a plain fp32 loop misses the compensated
 * loop's bound, Kahan's loop meets it. */
static void test_accuracy_fills(void)
{
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    fill_array(x, N, FILL_WIDE, 3);
    int exact = 1, in_range = 1, large = 0, large_negative = 0, small_negative = 0, prefix = 1;
    for (int i = 0; i < N; i++) {
        float a = fabsf(x[i]);
        int big = a >= 0x1p19f;
        in_range &= big ? a < 0x1p20f : a >= 0x1p-20f && a < 0x1p-19f;
        exact &= ldexpf(a, big ? 4 : 43) == floorf(ldexpf(a, big ? 4 : 43));
        large += big;
        large_negative += big && x[i] < 0;
        small_negative += !big && x[i] < 0;
        if (i % 997 == 0) prefix &= fill_value(FILL_WIDE, 3, (uint64_t)i) == x[i];
    }
    check(in_range && exact, "wide values lie in [2^19, 2^20) or [2^-20, 2^-19) in magnitude, 24 bits each");
    check(abs(large - N / 2) < N / 100 && abs(large_negative - large / 4) < N / 100 && abs(small_negative - (N - large) / 2) < N / 100,
          "wide: half the values large (one in four negative), half small (either sign)");
    check(prefix, "wide fill of element i does not depend on N");
    /* The exercise's data: seed 1 at its two largest check sizes. */
    float *w = malloc(((1u << 24) + 1) * sizeof *w);
    uint64_t exercise_sizes[] = {1000003, (1u << 24) + 1};
    int kahan_ok = 1, plain_misses = 0;
    for (int e = 0; e < 2; e++) {
        uint64_t n = exercise_sizes[e];
        fill_array(w, n, FILL_WIDE, 1);
        Reference ref = reference_sum(w, n);
        float plain = 0.0f, s = 0.0f, c = 0.0f;
        for (uint64_t i = 0; i < n; i++) {
            plain += w[i];
            float y = w[i] - c, t = s + y; /* Kahan, as stage 10's exercise writes it */
            c = (t - s) - y;
            s = t;
        }
        AddChain kahan = {3, 0, 0, 0, 0, 0, 0, 0, 0};
        double tol = sum_tolerance(kahan, &ref, w, n);
        kahan_ok &= fabs((double)(s - c) - ref.sum) <= tol;
        plain_misses += fabs((double)plain - ref.sum) > 3 * tol;
    }
    free(w);
    check(kahan_ok && plain_misses > 0, "wide, seed 1, N = 1000003 and 2^24+1: a Kahan loop meets its bound (3 additions), "
                                        "a plain fp32 loop misses it by more than 3x");

    double conds[] = {10, 1e4, 1e8, 1e12};
    uint64_t sizes[] = {N, N - 1, 4096};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 3; b++) {
            fill_cond(x, sizes[b], 5, conds[a]);
            Reference r = reference_sum(x, sizes[b]);
            double got = r.abs_sum / fabs(r.sum), plain_sum = 0.0;
            for (uint64_t i = 0; i < sizes[b]; i++) plain_sum += x[i]; /* multiples of 2^-23 below 2: exact */
            char what[160];
            snprintf(what, sizeof what, "cond fill, N = %llu, condition number %g: got %.4g, the fp64 sum exact",
                     (unsigned long long)sizes[b], conds[a], got);
            double most = 0.75 * (double)sizes[b] * 8388608.0; /* J = 1: the largest a size allows */
            double rounding = 0.5 * conds[a] / most;               /* of J to an integer */
            check(plain_sum == r.sum && fabs(got / fmin(conds[a], most) - 1.0) < 0.01 + 1.05 * rounding, what);
        }
    fill_cond(x, 1, 5, 1e8);
    check(x[0] != 0.0f, "cond fill of one element is one random value");
    free(x);
}

/* The tolerance must hold for correct summation orders and reject wrong sums. */
static void test_tolerance(void)
{
    enum { N = 1 << 20 };
    float *x = malloc(N * sizeof *x);
    fill_array(x, N, FILL_RANDOM, 7);
    Reference ref = reference_sum(x, N);

    float serial = 0.0f; /* one thread, one long chain */
    for (int i = 0; i < N; i++) serial += x[i];
    AddChain chain = {(double)N, 0, 0, 0, 0, 0, 0, 0, 0};
    double tol_chain = sum_tolerance(chain, &ref, x, N);
#ifdef _OPENMP
    int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    Reference one = reference_sum(x, N);
    omp_set_num_threads(threads > 1 ? threads : 4);
    Reference many = reference_sum(x, N);
    omp_set_num_threads(threads);
    check(!memcmp(&one.sum, &many.sum, sizeof one.sum) && one.abs_sum == many.abs_sum,
          "the reference is the same bits with 1 thread and with many");
    /* The bound's sum of the inputs that may stagnate, over several chunks: the same bits too. */
    uint64_t m = 16 * (uint64_t)N + 5;
    float *w = malloc(m * sizeof *w);
    fill_array(w, m, FILL_WIDE, 3); /* its sum|x| makes the bound count values near 1e6 too */
    Reference wref = reference_sum(w, m);
    AddChain atomics = {0, 0, (double)m, 0, 0, 0, 0, 0, 0}; /* every input joins the running total */
    omp_set_num_threads(1);
    double bound_one = sum_tolerance(atomics, &wref, w, m);
    int same_bound = 1;
    for (int t = 2; t <= 8; t++) {
        omp_set_num_threads(t);
        same_bound &= sum_tolerance(atomics, &wref, w, m) == bound_one;
    }
    omp_set_num_threads(threads);
    check(same_bound, "the bound is the same bits with 1 thread and with 2 to 8");
    free(w);
#endif
    check(fabs(serial - ref.sum) <= tol_chain, "a serial fp32 sum of 2^20 random values is within its bound");

    /* Stagnation: 2^25, then 2^20 values of 3/4, each below half a unit in the last place of the sum: a serial fp32
     * loop loses every one of them, the same way each time. The bound counts the inputs below 2u sum|x|
     * in full; without them (no inputs given) the probabilistic bound alone would reject a correct loop. */
    float *stag = malloc((N + 1) * sizeof *stag);
    stag[0] = 33554432.0f;
    for (int i = 1; i <= N; i++) stag[i] = 0.75f; /* not integers: the probabilistic bound applies to them */
    Reference stag_ref = reference_sum(stag, N + 1);
    float stag_sum = 0.0f;
    for (int i = 0; i <= N; i++) stag_sum += stag[i];
    AddChain stag_chain = {(double)N + 1, 0, 0, 0, 0, 0, 0, 0, 0};
    check(stag_sum == 33554432.0f && fabs(stag_sum - stag_ref.sum) <= sum_tolerance(stag_chain, &stag_ref, stag, N + 1) &&
              fabs(stag_sum - stag_ref.sum) > sum_tolerance(stag_chain, &stag_ref, NULL, N + 1),
          "a serial loop that stagnates (2^25, then 2^20 values of 3/4, all lost) is within its bound, not within the probabilistic one");
    free(stag);

    float *t = malloc(N * sizeof *t); /* pairwise tree, depth 20 */
    memcpy(t, x, N * sizeof *t);
    for (int len = N; len > 1; len /= 2)
        for (int i = 0; i < len / 2; i++) t[i] = t[i] + t[i + len / 2];
    AddChain tree = {0, 20, 0, 0, 0, 0, 0, 0, 0};
    double tol_tree = sum_tolerance(tree, &ref, x, N);
    check(fabs(t[0] - ref.sum) <= tol_tree, "a pairwise fp32 tree over 2^20 random values is within its bound");
    check(tol_tree < tol_chain, "a tree of depth 20 gets a tighter bound than a chain of 2^20");
    /* A known answer: 256 values of 1.5 through a tree of depth 8 may lose gamma_8 * 384 at most, 384 * 2^-21 /
     * (1 - 2^-21) = 1.8310555606e-4 (Higham's gamma_d = d u / (1 - d u), u = 2^-24), plus the fp64 reference's
     * own error, below 1e-13; the probabilistic bound is no tighter for so short a chain. */
    float halves[256];
    for (int i = 0; i < 256; i++) halves[i] = 1.5f;
    Reference halves_ref = reference_sum(halves, 256);
    AddChain small = {0, 8, 0, 0, 0, 0, 0, 0, 0};
    check(fabs(sum_tolerance(small, &halves_ref, halves, 256) - 1.8310555606e-4) < 1e-13,
          "a short tree takes the worst-case bound gamma_d * sum|x| (256 values of 1.5, depth 8: 1.8310555606e-4)");
    /* The bounds against errors that fp32 actually makes: 1 and then values of 2^-24, half a unit in the
     * last place of 1, each lost whole (a tie, rounded to the even 1). A pairwise tree of depth 20 that
     * meets one of them at each level, and a loop over 2^20 - 1 of them, return exactly 1: the error is
     * 20 and 2^20 - 1 times 2^-24, and the bound must cover it by no more than 2% (a looser bound fails). */
    float *worst = calloc(N, sizeof *worst);
    worst[0] = 1.0f;
    for (int k = 1; k <= 20; k++) worst[N >> k] = 0x1p-24f;
    Reference worst_ref = reference_sum(worst, N);
    for (int len = N; len > 1; len /= 2)
        for (int i = 0; i < len / 2; i++) worst[i] = worst[i] + worst[i + len / 2];
    double tree_error = fabs(worst[0] - worst_ref.sum), tree_bound = sum_tolerance(tree, &worst_ref, NULL, N);
    check(worst[0] == 1.0f && tree_error == 20 * 0x1p-24 && tree_bound >= tree_error && tree_bound <= 1.02 * tree_error,
          "a pairwise fp32 tree of depth 20 that loses 2^-24 at every level: its bound covers the error, within 2%");
    for (int i = 0; i < N; i++) worst[i] = i ? 0x1p-24f : 1.0f;
    Reference lost_ref = reference_sum(worst, N);
    float lost_sum = 0.0f;
    for (int i = 0; i < N; i++) lost_sum += worst[i];
    double chain_error = fabs(lost_sum - lost_ref.sum), chain_bound = sum_tolerance(chain, &lost_ref, worst, N);
    check(lost_sum == 1.0f && chain_error == (N - 1) * 0x1p-24 && chain_bound >= chain_error && chain_bound <= 1.02 * chain_error,
          "a serial fp32 loop over 1 and 2^20 - 1 values of 2^-24 (each lost): its bound covers the error, within 2%");
    free(worst);

    Reference ones = reference_sum((float[]){1, 1, 1, 1, 1}, 5);
    check(ones.all_integers && sum_tolerance(tree, &ones, NULL, 5) == 0.0, "integer inputs summing below 2^24 must be exact");
    check(!result_passes(4.0, &ones, 0.0), "ones: N - 1 fails (a lost element)");
    check(result_passes(5.0, &ones, 0.0), "ones: exactly N passes");
    Reference big = {16777217.0, 16777217.0, 1, 0, 1.0, 0.0, 1.0, 0, 0.0f};
    check(sum_tolerance(tree, &big, NULL, 16777217) > 0.0, "integers past 2^24 are no longer exact in fp32");

    /* A half-precision tree (11 bits) then fp32 atomics. */
    AddChain half_tree = {0, 10, 4, 11, 1024, 0, 0, 0, 0};
    check(sum_tolerance(half_tree, &ref, x, N) > sum_tolerance((AddChain){0, 10, 4, 0, 0, 0, 0, 0, 0}, &ref, x, N),
          "an fp16 accumulator gets a looser bound than fp32");
    /* An fp16 pack then an fp32 tree: the fp32 additions after the narrow part count, at fp32's
     * unit roundoff: more than without them, far less than if they were done in fp16. */
    AddChain pair = {1, 0, 4, 11, 2, 10, 0, 0, 0}, pair_no_wide = {1, 0, 4, 11, 2, 0, 0, 0, 0}, pair_all_fp16 = {1, 10, 4, 11, 2, 0, 0, 0, 0};
    double tol_pair = sum_tolerance(pair, &ref, x, N);
    check(tol_pair > sum_tolerance(pair_no_wide, &ref, x, N) && tol_pair < sum_tolerance(pair_all_fp16, &ref, x, N),
          "fp32 additions after a narrow accumulator (AddChain.wide) count at fp32's unit roundoff");
    check(fabs(sum_tolerance((AddChain){0, 10, 4, 0, 0, 6, 0, 0, 0}, &ref, x, N) - sum_tolerance((AddChain){0, 16, 4, 0, 0, 0, 0, 0, 0}, &ref, x, N)) <
              1e-12 * ref.abs_sum,
          "with an fp32 accumulator, wide additions count as tree levels");
    AddChain exact = {0, 10, 4, ACC_EXACT, 0, 0, 0, 0, 0};
    check(sum_tolerance(exact, &ref, x, N) == 0.0, "integer accumulators must be exact");
    /* The bench's data (shifted): a result of 0 and one that lost an element of average size both fail
     * where the shape lets them; the old mean-zero data let 0 pass a long chain's bound. */
    enum { M = 4096 };
    float *shifted = malloc(M * sizeof *shifted);
    fill_array(shifted, M, FILL_SHIFTED, 1);
    check(fill_value(FILL_SHIFTED, 1, 9) == fill_value(FILL_RANDOM, 1, 9) + 0.5f, "shifted is random plus 1/2");
    Reference sref = reference_sum(shifted, M);
    check(sref.abs_sum / sref.sum > 1.1 && sref.abs_sum / sref.sum < 1.4, "shifted data: condition number near 5/4");
    AddChain block_atomics = {0, 8, M / 256, 0, 0, 0, 0, 0, 0}, per_element = {0, 0, M, 0, 0, 0, 0, 0, 0};
    double lost = sref.sum / M; /* one element of average size */
    check(!result_passes(0.0, &sref, sum_tolerance(block_atomics, &sref, shifted, M)) &&
              !result_passes(sref.sum - lost, &sref, sum_tolerance(block_atomics, &sref, shifted, M)),
          "shifted data, fp32 tree then atomics: 0 and a lost element both fail");
    check(!result_passes(0.0, &sref, sum_tolerance(per_element, &sref, shifted, M)),
          "shifted data, an atomic per element: 0 fails");
    /* 2^28 inputs, a block of 256 then an atomic per block: mean-zero data's sum is a random walk of
     * size sqrt(N / 3), which the bound (it scales with sum|x|) exceeds; the shifted data's is N / 2. */
    double N28 = 268435456.0;
    Reference walk = {sqrt(N28 / 3.0), N28 / 2.0, 0, 0, 1.0, 0.0, 1.0, 0, 0.0f}, half = {N28 / 2.0, N28 * 0.625, 0, 0, 1.5, 0.0, 1.5, 0, 0.0f};
    AddChain blocks28 = {0, 8, N28 / 256, 0, 0, 0, 0, 0, 0};
    check(result_passes(0.0, &walk, sum_tolerance(blocks28, &walk, NULL, (uint64_t)N28)) &&
              !result_passes(0.0, &half, sum_tolerance(blocks28, &half, NULL, (uint64_t)N28)),
          "at 2^28, a result of 0 passes the bound on mean-zero data and fails it on shifted data");
    check(sum_tolerance(block_atomics, &sref, shifted, M) < 1e-4 * sref.sum, "a tree's inputs meet partial sums of two: no stagnation term");
    Reference big_shifted = {0.5 * 1073741824.0, 0.625 * 1073741824.0, 0, 0, 1.5, 0.0, 1.5, 0, 0.0f};
    AddChain cub = chain_cub_reduce(1u << 30, 132);
    check(cub.serial < 1e4 && cub.tree == 24 && sum_tolerance(cub, &big_shifted, NULL, 1u << 30) < 1e-4 * big_shifted.sum,
          "CUB's documented shape at 2^30 on 132 SMs: a short path, a bound far below 1e-3");
    check(chain_cub_reduce(1000, 132).tree == 12 && chain_cub_reduce(1000, 132).serial == 16, "CUB under one tile: one block, no second pass");
    free(shifted);
    /* Values on a grid of 1/8 repeating every 97 (a file's data, not a fill's): one fp32 loop of 10^6 of them
     * errs past the probabilistic bound, which needs random rounding errors; the worst case holds. */
    enum { G = 1000003 };
    float *grid = malloc(G * sizeof *grid), loop = 0.0f;
    for (int i = 0; i < G; i++) loop += grid[i] = (float)(i % 97) / 8.0f - 3.0f;
    Reference gref = reference_sum(grid, G);
    AddChain one_loop = {G, 0, 0, 0, 0, 0, 0, 0, 0};
    double prob_tol = sum_tolerance(one_loop, &gref, grid, G);
    gref.structured = 1;
    check(!result_passes(loop, &gref, prob_tol) && result_passes(loop, &gref, sum_tolerance(one_loop, &gref, grid, G)),
          "a loop over repeating grid values breaks the probabilistic bound; structured data take the worst case, which holds");
    free(grid);
    float chunk[6] = {1, -2, 3, -4, 5, -6};
    check(max_chunk_abs_sum(chunk, 6, 2) == 11.0 && max_chunk_abs_sum(chunk, 6, 0) == 21.0,
          "max_chunk_abs_sum over chunks and over the whole array");
    float with_inf[4] = {1, INFINITY, -2, NAN};
    check(max_chunk_abs_sum(with_inf, 4, 0) == 3.0, "max_chunk_abs_sum leaves NaN and Inf out (what the accumulator holds besides)");
    check(fill_value(FILL_LARGE, 3, 5) >= 0.5f && fill_value(FILL_LARGE, 3, 5) < 1.0f, "large fill lies in [0.5, 1)");

    Reference nan_ref = {NAN, NAN, 0, 1, NAN, 0.0, NAN, 0, NAN}, inf_ref = {INFINITY, INFINITY, 0, 1, INFINITY, 0.0, INFINITY, 0, INFINITY};
    check(result_passes(NAN, &nan_ref, 0) && !result_passes(1.0, &nan_ref, 1e30), "NaN reference: only NaN passes");
    check(result_passes(INFINITY, &inf_ref, 0) && !result_passes(-INFINITY, &inf_ref, 0), "Inf reference: only +Inf passes");
    check(!result_passes(NAN, &ref, INFINITY), "a NaN result never passes a finite reference");
    float with_nan[3] = {1.0f, NAN, 2.0f};
    check(reference_sum(with_nan, 3).non_finite && isnan(reference_sum(with_nan, 3).sum), "reference of data with a NaN is NaN");
    check(reference_sum((float[]){-3, 7.5f, 2}, 3).max == 7.5, "reference keeps the largest value");
    check(reference_sum((float[]){1, INFINITY, 2}, 3).sum == INFINITY, "reference of data with a +Inf is +Inf");
    check(reference_sum((float[]){1, INFINITY, -2, NAN}, 4).abs_sum == 3.0 &&
              reference_sum_f64((double[]){-INFINITY, DBL_MAX, DBL_MAX}, 3).abs_sum == INFINITY,
          "the reference's sum of |x| leaves NaN and Inf out (what the other values' sums can overflow to)");
    float *chunks = malloc((3u << 20) * sizeof *chunks); /* several chunks, an Inf in the second */
    fill_array(chunks, 3u << 20, FILL_RANDOM, 3);
    chunks[(1u << 20) + 5] = INFINITY;
    check(reference_sum(chunks, 3u << 20).sum == INFINITY, "an Inf in one chunk of many gives +Inf");
    chunks[7] = -INFINITY;
    check(isnan(reference_sum(chunks, 3u << 20).sum), "+Inf and -Inf in different chunks give NaN");
    free(chunks);
    check(relative_error(1.5, 1.0) == 0.5 && relative_error(0.25, 0.0) == 0.25, "relative_error");
    free(x);
    free(t);
}

/* A log-sum-exp as the row kernels compute it, in fp32 on one thread: two passes (the max, then the
 * sum of expf(x - max)), or one pass of the online (m, l) merge, an element being the pair (x, 1). */
static float lse_two_pass(const float *x, int n)
{
    float m = -INFINITY, l = 0.0f;
    for (int i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (int i = 0; i < n; i++) l += expf(x[i] - m);
    return m + logf(l);
}

static float lse_online(const float *x, int n)
{
    float m = -INFINITY, l = 0.0f;
    for (int i = 0; i < n; i++) {
        int up = x[i] > m;
        float hi = up ? x[i] : m, lo = up ? m : x[i], l_hi = up ? 1.0f : l, l_lo = up ? l : 1.0f;
        l = l_hi + l_lo * (lo == hi ? 1.0f : expf(lo - hi));
        m = hi;
    }
    return isinf(m) && !isnan(l) ? m : m + logf(l);
}

/* The log-sum-exp reference and its bound: exact cases, non-finite inputs, and fp32 computations of
 * the two kernels' kinds (random data, a wide spread, a rising row that rescales at every element). */
static void test_logsumexp(void)
{
    AddChain one_pass = {1, 7, 0, 0, 0, 0, 1, 0, 0};
    Reference single = reference_logsumexp((float[]){2.5f}, 1);
    check(single.sum == 2.5 && single.abs_sum == 1.0 && single.arg_error == 0.0, "log-sum-exp of one element is that element");
    double tol_single = logsumexp_tolerance(one_pass, &single, 1);
    check(tol_single > 0.0 && tol_single < 1e-5 && lse_two_pass((float[]){2.5f}, 1) == 2.5f &&
              lse_online((float[]){2.5f}, 1) == 2.5f,
          "log-sum-exp of one element: fp32 gives it exactly, the bound is a few units of 2^-24");
    float ones[1000];
    for (int i = 0; i < 1000; i++) ones[i] = 1.0f;
    check(fabs(reference_logsumexp(ones, 1000).sum - (1.0 + log(1000.0))) < 1e-12, "log-sum-exp of 1000 ones is 1 + log 1000");
    Reference nan_lse = reference_logsumexp((float[]){1, NAN, 2}, 3), inf_lse = reference_logsumexp((float[]){1, INFINITY, 2}, 3);
    check(isnan(nan_lse.sum) && nan_lse.non_finite && logsumexp_tolerance(one_pass, &nan_lse, 3) == 0.0,
          "log-sum-exp with a NaN is NaN");
    check(inf_lse.sum == INFINITY && lse_online((float[]){1, INFINITY, 2}, 3) == INFINITY, "log-sum-exp with a +Inf is +Inf");
    check(reference_logsumexp((float[]){-INFINITY, -INFINITY}, 2).sum == -INFINITY &&
              lse_online((float[]){-INFINITY, -INFINITY}, 2) == -INFINITY,
          "log-sum-exp of -Inf only is -Inf");
    Reference minus_inf = reference_logsumexp((float[]){1, -INFINITY}, 2);
    check(minus_inf.sum == 1.0 && minus_inf.abs_sum == 1.0 && minus_inf.arg_error == 0.0, "a -Inf element adds nothing");

    /* The bound by hand, to first order in u = 2^-24, for four ones (every term exactly 1: S = 4, no error
     * in x_i - max; LSE = 1 + ln 4) summed in one loop of 4: the sum's k roundings, (4 + exps - 1) u, and
     * exps expf results of 4u each; 2u ln 4 for logf; u (1 + ln 4) for the final addition. Two passes
     * (exps = 1): u (9 + 3 ln 4); online (exps = 1 + 4): u (29 + 3 ln 4). */
    Reference four = reference_logsumexp((float[]){1, 1, 1, 1}, 4);
    double by_hand_two = 0x1p-24 * (9 + 3 * log(4.0)), by_hand_online = 0x1p-24 * (29 + 3 * log(4.0));
    check(fabs(logsumexp_tolerance((AddChain){4, 0, 0, 0, 0, 0, 1, 0, 0}, &four, 4) / by_hand_two - 1) < 1e-4 &&
              fabs(logsumexp_tolerance((AddChain){4, 0, 0, 0, 0, 0, 5, 0, 0}, &four, 4) / by_hand_online - 1) < 1e-4,
          "log-sum-exp of four ones: the two-pass and online bounds are u (9 + 3 ln 4) and u (29 + 3 ln 4), as derived by hand");

    enum { N = 1 << 18 };
    float *x = malloc(N * sizeof *x);
    fill_array(x, N, FILL_RANDOM, 11);
    AddChain two = {N, 0, 0, 0, 0, 0, 1, 0, 0}, online = {N, 0, 0, 0, 0, 0, 1 + N, 0, 0};
    for (int spread = 1; spread <= 100; spread *= 100) {
        for (int i = 0; i < N; i++) x[i] = fill_value(FILL_RANDOM, 11, i) * spread;
        Reference ref = reference_logsumexp(x, N);
        double tol_two = logsumexp_tolerance(two, &ref, N), tol_online = logsumexp_tolerance(online, &ref, N);
        char name[128];
        snprintf(name, sizeof name, "fp32 log-sum-exp of 2^18 values in [-%d, %d): two passes and online within their bounds", spread, spread);
        check(fabs(lse_two_pass(x, N) - ref.sum) <= tol_two && fabs(lse_online(x, N) - ref.sum) <= tol_online, name);
        snprintf(name, sizeof name, "log-sum-exp of 2^18 values in [-%d, %d): the online bound is the looser", spread, spread);
        check(tol_two < tol_online, name);
    }
    for (int i = 0; i < N; i++) x[i] = (float)i / 1024.0f; /* the running max grows at every element */
    Reference rising = reference_logsumexp(x, N);
    check(fabs(lse_online(x, N) - rising.sum) <= logsumexp_tolerance(online, &rising, N),
          "online log-sum-exp of a rising row (a rescale at every element) within its bound");
    free(x);
}

/* rows_rms_sum_squares's arithmetic in fp32 on the host (stages/09_rows/reduce.cu): 128 threads, thread t
 * forming t, t + 128, ... with fmaf, then a pairwise tree over the threads' sums (the kernel's butterflies
 * add in another order, with as many levels). drop: leave the row's last element out, the defect the
 * bound must see. */
static float sum_squares_block(const float *x, int n, int drop)
{
    float s[128] = {0};
    for (int i = 0; i < n - drop; i++) s[i % 128] = fmaf(x[i], x[i], s[i % 128]);
    for (int width = 64; width > 0; width /= 2)
        for (int t = 0; t < width; t++) s[t] += s[t + width];
    return s[0];
}

static void test_row_references(void)
{
    Reference m = reference_abs_max((float[]){1.0f, -3.5f, 2.0f}, 3);
    check(m.sum == 3.5 && !m.non_finite, "abs-max of 1, -3.5, 2 is 3.5: a negative value's magnitude counts");
    check(isnan(reference_abs_max((float[]){1.0f, NAN, -7.0f}, 3).sum), "abs-max of a group holding a NaN is NaN");
    Reference inf = reference_abs_max((float[]){1.0f, -INFINITY}, 2);
    check(inf.sum == INFINITY && inf.non_finite, "abs-max of a group holding -Inf is +Inf");

    Reference small = reference_sum_squares((float[]){1.0f, -2.0f, 3.0f}, 3);
    AddChain row = {1, 7, 0, 0, 0, 0, 0, 0, 0};
    check(small.sum == 14.0 && sum_squares_tolerance(row, &small, 3) == 0.0,
          "sum of squares of 1, -2, 3 is 14, and integers below 2^24 are exact: bound 0");
    check(reference_sum_squares((float[]){0x1p100f, 0x1p100f}, 2).sum == INFINITY,
          "sum of squares past fp32's largest value is +Inf, as an fp32 kernel's must be");
    check(isnan(reference_sum_squares((float[]){1.0f, NAN}, 2).sum), "sum of squares with a NaN is NaN");

    enum { N = 1000 };
    float x[N];
    for (int i = 0; i < N; i++) x[i] = fill_value(FILL_SHIFTED, 5, i);
    Reference ref = reference_sum_squares(x, N);
    AddChain block = {(N + 127) / 128, 7, 0, 0, 0, 0, 0, 0, 0};
    double tol = sum_squares_tolerance(block, &ref, N);
    check(fabs(sum_squares_block(x, N, 0) - ref.sum) <= tol, "fp32 sum of squares of a row of 1000 within its bound");
    check(fabs(sum_squares_block(x, N, 1) - ref.sum) > tol, "the same row without its last element is outside the bound");
    for (int i = 0; i < N; i++) x[i] = fill_value(FILL_SHIFTED, 5, i) * 0x1p-70f; /* squares below 2^-126 */
    Reference tiny = reference_sum_squares(x, N);
    check(fabs(sum_squares_block(x, N, 0) - tiny.sum) <= sum_squares_tolerance(block, &tiny, N),
          "a row whose squares fall in fp32's subnormal range within its bound (the absolute term)");
}

/* rows_welford's arithmetic in fp32 on the host (stages/09_rows/reduce.cu): the state (count, mean, M2) and
 * Chan et al.'s merge, and a block of 128 threads per row: each thread merges its elements t, t + 128, ...,
 * then each warp's xor butterfly, then one over the 4 warps' states; thread 0's state gives the mean and
 * M2 / n (NaN where the mean is not finite). The merge can go wrong on purpose, to show the bound sees it:
 * the mean's weight na / n for nb / n, or M2's term d^2 nb w for d^2 na w. */
typedef struct {
    float n, mean, m2;
} Welford;
enum { MERGE_RIGHT, MERGE_MEAN_WEIGHT, MERGE_M2_WEIGHT };

static Welford welford_merge(Welford a, Welford b, int how)
{
    float n = a.n + b.n, w = n > 0.0f ? b.n / n : 0.0f, d = b.mean - a.mean;
    float w_mean = how == MERGE_MEAN_WEIGHT && n > 0.0f ? a.n / n : w;
    float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : a.mean + d * w_mean;
    return (Welford){n, mean, a.m2 + b.m2 + d * d * (how == MERGE_M2_WEIGHT ? b.n : a.n) * w};
}

enum { ROW_THREADS = 128 };
static AddChain welford_shape_of(uint64_t cols)
{
    return (AddChain){(double)((cols + ROW_THREADS - 1) / ROW_THREADS), 7, 0, 0, 0, 0, 0, 1, 0};
}

static void welford_row(const float *x, uint64_t cols, int how, float *mean, float *var)
{
    Welford t[ROW_THREADS], next[ROW_THREADS];
    for (int i = 0; i < ROW_THREADS; i++) {
        t[i] = (Welford){0.0f, 0.0f, 0.0f};
        for (uint64_t j = (uint64_t)i; j < cols; j += ROW_THREADS) t[i] = welford_merge(t[i], (Welford){1.0f, x[j], 0.0f}, how);
    }
    for (int mask = 16; mask > 0; mask /= 2) { /* every lane merges its partner's state into its own */
        for (int i = 0; i < ROW_THREADS; i++) next[i] = welford_merge(t[i], t[i ^ mask], how);
        memcpy(t, next, sizeof t);
    }
    Welford warps[4] = {t[0], t[32], t[64], t[96]}, merged[4];
    for (int mask = 2; mask > 0; mask /= 2) {
        for (int i = 0; i < 4; i++) merged[i] = welford_merge(warps[i], warps[i ^ mask], how);
        memcpy(warps, merged, sizeof warps);
    }
    *mean = warps[0].mean;
    *var = isfinite(warps[0].mean) ? warps[0].m2 / warps[0].n : NAN;
}

/* The one-pass sum and sum of squares on the same block, in fp32: E[x^2] - E[x]^2. */
static float naive_variance_row(const float *x, uint64_t cols)
{
    float s[ROW_THREADS], q[ROW_THREADS];
    for (int i = 0; i < ROW_THREADS; i++) {
        s[i] = q[i] = 0.0f;
        for (uint64_t j = (uint64_t)i; j < cols; j += ROW_THREADS) {
            s[i] += x[j];
            q[i] += x[j] * x[j];
        }
    }
    float sum = 0.0f, squares = 0.0f;
    for (int i = 0; i < ROW_THREADS; i++) {
        sum += s[i];
        squares += q[i];
    }
    float mean = sum / (float)cols;
    return squares / (float)cols - mean * mean;
}

/* Do the emulated kernel's mean and variance of x[0..cols) pass against reference_moments within
 * moments_tolerance? */
static int welford_passes(const float *x, uint64_t cols, int how)
{
    float mean, var;
    welford_row(x, cols, how, &mean, &var);
    Moments ref = reference_moments(x, cols);
    MomentsTolerance tol = moments_tolerance(welford_shape_of(cols), &ref);
    return value_passes(mean, ref.mean, tol.mean) && value_passes(var, ref.var, tol.var);
}

/* LayerNorm's moments: the reference on exact cases and against a long double oracle, non-finite inputs,
 * and rows_welford's arithmetic within its bound on shifted data and on a large mean with a small spread
 * (where the one-pass sum of squares is not), and outside it with a wrong weight in the merge. */
static void test_moments(void)
{
    Moments four = reference_moments((float[]){1, 2, 3, 4}, 4);
    check(four.mean == 2.5 && four.m2 == 5.0 && four.var == 1.25 && four.range == 3.0 && four.max_abs == 4.0,
          "moments of 1, 2, 3, 4: mean 2.5, M2 5, population variance 1.25");
    Moments one = reference_moments((float[]){-3.5f}, 1);
    float mean, var;
    welford_row((float[]){-3.5f}, 1, MERGE_RIGHT, &mean, &var);
    check(one.mean == -3.5 && one.var == 0.0 && mean == -3.5f && var == 0.0f,
          "moments of one element: the element and 0, exactly, from the reference and from fp32 merges");
    Moments nan = reference_moments((float[]){1, NAN, 2}, 3), inf = reference_moments((float[]){1, INFINITY, 2}, 3);
    MomentsTolerance none = moments_tolerance(welford_shape_of(3), &inf);
    check(isnan(nan.mean) && isnan(nan.var) && inf.mean == INFINITY && isnan(inf.var) && none.mean == 0.0 && none.var == 0.0,
          "moments with a NaN are NaN; with a +Inf the mean is +Inf, the variance NaN (tolerance 0: the same value)");
    Moments long_row = four;
    long_row.n = (1u << 24) + 1;
    MomentsTolerance unbounded = moments_tolerance(welford_shape_of(long_row.n), &long_row);
    check(unbounded.mean == INFINITY && unbounded.var == INFINITY && isfinite(moments_tolerance(welford_shape_of(4), &four).var),
          "no moments bound past 2^24 elements in a row (fp32 counts stop being exact integers)");

    enum { COLS = 4097 };
    float *x = malloc(COLS * sizeof *x);
    /* a +Inf at every position of a thread's loop and of the butterfly: the mean +Inf, the variance NaN */
    int inf_right = 1;
    for (int at = 0; at < 300; at++) {
        for (int i = 0; i < 300; i++) x[i] = fill_value(FILL_SHIFTED, 3, (uint64_t)i);
        x[at] = INFINITY;
        welford_row(x, 300, MERGE_RIGHT, &mean, &var);
        inf_right &= mean == INFINITY && isnan(var);
    }
    check(inf_right, "fp32 merges of a row of 300 with a +Inf anywhere: mean +Inf, variance NaN");

    long double oracle_mean = 0.0L, oracle_m2 = 0.0L;
    for (int i = 0; i < COLS; i++) x[i] = 1000.0f + fill_value(FILL_RANDOM, 4, (uint64_t)i);
    for (int i = 0; i < COLS; i++) oracle_mean += x[i];
    oracle_mean /= COLS;
    for (int i = 0; i < COLS; i++) oracle_m2 += (x[i] - oracle_mean) * (x[i] - oracle_mean);
    Moments big = reference_moments(x, COLS);
    check(fabsl(big.mean - oracle_mean) <= 1e-15L * oracle_mean && fabsl(big.m2 - oracle_m2) <= 1e-13L * oracle_m2,
          "moments of 1000 + [-1, 1): the reference agrees with a long double two-pass oracle");

    static const uint64_t lengths[] = {1, 2, 3, 31, 128, 129, 1000, COLS};
    int shifted = 1;
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            for (uint64_t i = 0; i < lengths[l]; i++) x[i] = fill_value(FILL_SHIFTED, seed, i);
            shifted &= welford_passes(x, lengths[l], MERGE_RIGHT);
        }
    check(shifted, "fp32 merges of shifted rows of 1 to 4097 elements (20 seeds each) within the moments bound");
    float tiny[2] = {0x1p-80f, 0x1.8p-80f}; /* variance 2^-164: fp32 holds it as 0 */
    Moments under = reference_moments(tiny, 2);
    MomentsTolerance under_tol = moments_tolerance(welford_shape_of(2), &under);
    check(under.var == 0x1p-164 && welford_passes(tiny, 2, MERGE_RIGHT) && !value_passes(0x1p-140, under.var, under_tol.var),
          "a row of 2^-80 and 1.5 2^-80: the variance 2^-164, under fp32's subnormals, 0 within the bound, 2^-140 outside");
    int binades = 1;
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
        for (uint64_t seed = 1; seed <= 20; seed++) {
            for (uint64_t i = 0; i < lengths[l]; i++) x[i] = fill_value(FILL_BINADES, seed, i);
            welford_row(x, lengths[l], MERGE_RIGHT, &mean, &var);
            binades &= isfinite(var) && welford_passes(x, lengths[l], MERGE_RIGHT);
        }
    check(binades, "fp32 merges of binades rows of 1 to 4097 elements (20 seeds each): the variance finite, within the bound");
    for (int i = 0; i < COLS; i++) x[i] = 1.0f;
    welford_row(x, COLS, MERGE_RIGHT, &mean, &var);
    check(mean == 1.0f && var == 0.0f && welford_passes(x, COLS, MERGE_RIGHT), "fp32 merges of 4097 ones: mean 1 and variance 0 exactly");

    /* A large mean, a small spread: the variance's condition number sqrt(1 + mean^2 n / M2) near 1.7 mean. */
    for (float offset = 100.0f; offset <= 10000.0f; offset *= 10.0f) {
        for (int i = 0; i < COLS; i++) x[i] = offset + fill_value(FILL_RANDOM, 5, (uint64_t)i);
        Moments ref = reference_moments(x, COLS);
        MomentsTolerance tol = moments_tolerance(welford_shape_of(COLS), &ref);
        char name[160];
        snprintf(name, sizeof name, "a row of %g + [-1, 1): fp32 merges within the bound (%.1e of the variance)", offset,
                 tol.var / ref.var);
        check(welford_passes(x, COLS, MERGE_RIGHT), name);
        snprintf(name, sizeof name, "a row of %g + [-1, 1): the fp32 sum and sum of squares outside it (error %.1e of the variance)",
                 offset, fabs(naive_variance_row(x, COLS) - ref.var) / ref.var);
        check(!value_passes(naive_variance_row(x, COLS), ref.var, tol.var), name);
    }
    for (int i = 0; i < COLS; i++) x[i] = fill_value(FILL_SHIFTED, 6, (uint64_t)i);
    check(!welford_passes(x, COLS, MERGE_MEAN_WEIGHT), "a merge with the mean's weight na / n for nb / n fails the bound");
    check(!welford_passes(x, COLS, MERGE_M2_WEIGHT), "a merge with M2's term d^2 nb w for d^2 na w fails the bound");
    free(x);
}

/* A .npy file of format MAJOR.0: the magic, the header's length (2 bytes in format 1, 4 in formats 2 and
 * 3), the header dict HEADER padded to a multiple of 64 bytes, then LEN data bytes. */
static void write_npy_format(const char *path, int major, const char *header, const void *data, size_t len)
{
    char padded[256];
    int start = major == 1 ? 10 : 12;
    int n = snprintf(padded, sizeof padded, "%s", header), total = (start + n + 1 + 63) / 64 * 64;
    while (start + n + 1 < total) padded[n++] = ' ';
    padded[n++] = '\n';
    FILE *f = fopen(path, "wb");
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(major, f);
    fputc(0, f);
    for (int b = 0; b < start - 8; b++) fputc(n >> (8 * b) & 255, f);
    fwrite(padded, 1, (size_t)n, f);
    fwrite(data, 1, len, f);
    fclose(f);
}

/* The same of format 2.0 or 3.0 with a header of header_len bytes (past what format 1 can say), spaces
 * after the dict. */
static void write_npy_long_header(const char *path, int major, const char *header, uint32_t header_len,
                                  const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite("\x93NUMPY", 1, 6, f);
    fputc(major, f);
    fputc(0, f);
    for (int b = 0; b < 4; b++) fputc(header_len >> (8 * b) & 255, f);
    size_t n = strlen(header);
    fwrite(header, 1, n, f);
    for (; n + 1 < header_len; n++) fputc(' ', f);
    fputc('\n', f);
    fwrite(data, 1, len, f);
    fclose(f);
}

static void write_npy(const char *path, const char *header, const void *data, size_t len)
{
    write_npy_format(path, 1, header, data, len);
}

/* --input: every kind of file read whole or refused with its reason, never half read. */
static void test_array_file(void)
{
    char path[] = "/tmp/reduce_test_XXXXXX", err[256];
    int fd = mkstemp(path);
    check(fd >= 0, "array file: a scratch file");
    if (fd < 0) return;
    close(fd);
    float f32[3] = {1.5f, -2.0f, 0.25f};
    uint16_t f16[6] = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600}; /* 1 2 3 4 5 6 */
    ArrayFile a;
    write_npy(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f32, sizeof f32);
    check(!read_array_file(path, NULL, &a, err, sizeof err) && a.count == 3 && a.rows == 0 && a.cols == 3 &&
              !strcmp(dtypes[a.type].name, "f32") && !memcmp(a.bytes, f32, sizeof f32),
          "array file: a 1-D float32 .npy");
    free(a.bytes);
    write_npy(path, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", f16, sizeof f16);
    check(!read_array_file(path, "f16", &a, err, sizeof err) && a.count == 6 && a.rows == 2 && a.cols == 3 &&
              !strcmp(dtypes[a.type].name, "f16"),
          "array file: a 2-D float16 .npy (rows), --dtype agreeing");
    free(a.bytes);
    /* write_array_file's files read back whole: a vector, and rows of fp64. */
    const double rows64[6] = {0.1, -0.0, 1e308, 5e-324, -3.0, 1.0 / 3.0};
    check(!write_array_file(path, DT_F32, f32, 3, 0, err, sizeof err) && !read_array_file(path, NULL, &a, err, sizeof err) &&
              a.count == 3 && a.rows == 0 && a.cols == 3 && a.type == DT_F32 && !memcmp(a.bytes, f32, sizeof f32),
          "array file: write_array_file's float32 vector reads back");
    free(a.bytes);
    { /* NumPy's layout: the header padded with spaces to a multiple of 64 bytes from the file's start, a newline last */
        unsigned char lead[10], last = 0;
        FILE *f = fopen(path, "rb");
        int read = f && fread(lead, 1, sizeof lead, f) == sizeof lead;
        unsigned len = read ? lead[8] | (unsigned)lead[9] << 8 : 0;
        read = read && !fseek(f, (long)(10 + len - 1), SEEK_SET) && fread(&last, 1, 1, f) == 1;
        if (f) fclose(f);
        check(read && (10 + len) % 64 == 0 && last == '\n', "array file: write_array_file's header is NumPy's: 64-byte aligned, a newline last");
    }
    check(!write_array_file(path, DT_F64, rows64, 2, 3, err, sizeof err) && !read_array_file(path, NULL, &a, err, sizeof err) &&
              a.count == 6 && a.rows == 2 && a.cols == 3 && a.type == DT_F64 && !memcmp(a.bytes, rows64, sizeof rows64),
          "array file: write_array_file's 2 rows of 3 float64 read back");
    free(a.bytes);
    check(write_array_file("/nonexistent/x.npy", DT_F32, f32, 3, 0, err, sizeof err) == -1 && strstr(err, "cannot write"),
          "array file: write_array_file refuses a path it cannot write, saying so");
    check(write_array_file(path, DT_BF16, f16, 3, 0, err, sizeof err) == -1 && strstr(err, "no .npy type"),
          "array file: write_array_file refuses a type .npy has none of (bf16)");
    for (int major = 2; major <= 3; major++) { /* numpy writes these when a header passes 65535 bytes or names unicode */
        char name[128];
        snprintf(name, sizeof name, "array file: a float32 .npy of format %d.0 (a 4-byte header length)", major);
        write_npy_format(path, major, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f32, sizeof f32);
        check(!read_array_file(path, NULL, &a, err, sizeof err) && a.count == 3 && !memcmp(a.bytes, f32, sizeof f32), name);
        free(a.bytes);
        /* All four bytes of the length read: 65600 bytes is 64 in its low two, where the dict fits. */
        snprintf(name, sizeof name, "array file: a .npy of format %d.0 with a 65600-byte header is refused, naming it", major);
        write_npy_long_header(path, major, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 65600, f32,
                              sizeof f32);
        int refused = read_array_file(path, NULL, &a, err, sizeof err) == -1 && strstr(err, "65600 bytes") && !a.bytes;
        check(refused, name);
        if (!refused) printf("     | %s\n", err);
    }
    double f64[3] = {0.1, -0x1p-1074, 1e300};
    write_npy(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f64, sizeof f64);
    check(!read_array_file(path, NULL, &a, err, sizeof err) && a.count == 3 && !strcmp(dtypes[a.type].name, "f64") &&
              !memcmp(a.bytes, f64, sizeof f64),
          "array file: a float64 .npy is read as f64, its bytes as they are");
    free(a.bytes);
    int32_t i32[3] = {7, -1, 1 << 30};
    int8_t i8[4] = {-128, 0, 5, 127};
    write_npy(path, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", i32, sizeof i32);
    check(!read_array_file(path, NULL, &a, err, sizeof err) && a.count == 3 && !strcmp(dtypes[a.type].name, "i32") &&
              !memcmp(a.bytes, i32, sizeof i32),
          "array file: an int32 .npy is read as i32, its values whole");
    free(a.bytes);
    write_npy(path, "{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }", i8, sizeof i8);
    check(!read_array_file(path, NULL, &a, err, sizeof err) && a.count == 4 && !strcmp(dtypes[a.type].name, "i8") &&
              !memcmp(a.bytes, i8, sizeof i8),
          "array file: an int8 .npy is read as i8, its values whole");
    free(a.bytes);
    /* The other integers, each as many elements as 32 bytes hold, in two rows: what make sum takes or refuses. */
    const unsigned char ints[32] = {255, 0, 1, 128, 127, 254, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                                    13, 14, 15, 16, 17, 18, 19, 200, 201, 202, 203, 204, 205, 206, 207, 208};
    static const struct { const char *descr, *name; int bytes; } integers[] = {
        {"|u1", "u8", 1}, {"<u1", "u8", 1}, {"<i2", "i16", 2}, {"<u2", "u16", 2}, {"<u4", "u32", 4}, {"<i8", "i64", 8}, {"<u8", "u64", 8},
    };
    for (size_t i = 0; i < sizeof integers / sizeof integers[0]; i++) {
        char header[128], name[128];
        uint64_t count = sizeof ints / (uint64_t)integers[i].bytes;
        snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (2, %llu), }", integers[i].descr,
                 (unsigned long long)count / 2);
        write_npy(path, header, ints, sizeof ints);
        snprintf(name, sizeof name, "array file: a 2-D .npy of '%s' is read as %s, %llu elements, its bytes as they are",
                 integers[i].descr, integers[i].name, (unsigned long long)count);
        int ok = !read_array_file(path, NULL, &a, err, sizeof err) && a.count == count && a.rows == 2 &&
                 a.cols == count / 2 && !strcmp(dtypes[a.type].name, integers[i].name) && dtypes[a.type].integer &&
                 !memcmp(a.bytes, ints, sizeof ints);
        check(ok, name);
        if (!ok) printf("     | %s\n", err);
        free(a.bytes);
    }
    struct { const char *header; size_t len; const char *raw, *reason, *name; } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 12, NULL, "truncated", "fewer bytes than its shape"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 12, NULL, "bytes after the array", "more bytes than its shape"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }", 12, NULL, "dtype '>f4'", "big-endian"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", 24, NULL, "dtype '<c8'", "complex64"},
        {"{'descr': '>i2', 'fortran_order': False, 'shape': (6,), }", 12, NULL, "dtype '>i2'", "big-endian int16"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }", 12, NULL, "Fortran order", "Fortran order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 3), }", 12, NULL, "3 dimensions", "three dimensions"},
        {"{'descr': '<f4', 'shape': (3,), }", 12, NULL, "malformed", "no fortran_order"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0, NULL, "no elements", "empty"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 12, "f16", "--dtype says f16", "--dtype contradicting it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[128];
        write_npy(path, bad[i].header, f32, bad[i].len);
        snprintf(name, sizeof name, "array file: a .npy with %s is refused, saying so", bad[i].name);
        int refused = read_array_file(path, bad[i].raw, &a, err, sizeof err) == -1 && strstr(err, bad[i].reason) && !a.bytes;
        check(refused, name);
        if (!refused) printf("     | %s\n", err);
    }
    FILE *f = fopen(path, "wb");
    fwrite(f16, 1, 5, f); /* raw: 5 bytes */
    fclose(f);
    check(read_array_file(path, NULL, &a, err, sizeof err) == -1 && strstr(err, "--dtype"), "array file: raw bytes without --dtype are refused");
    check(read_array_file(path, "bf16", &a, err, sizeof err) == -1 && strstr(err, "not a whole number"),
          "array file: raw bytes that are not a whole number of elements are refused");
    check(read_array_file(path, "f128", &a, err, sizeof err) == -1 && strstr(err, "give one of"), "array file: an unknown --dtype is refused");
    check(!read_array_file(path, "fp8_e4m3", &a, err, sizeof err) && a.count == 5 && a.rows == 0 && a.cols == 5,
          "array file: raw fp8 bytes with --dtype, one dimension of 5");
    free(a.bytes);
    remove(path);
    check(read_array_file(path, "f32", &a, err, sizeof err) == -1 && strstr(err, "cannot read"), "array file: a missing file is refused");
}

/* The exact sum of finite fp32 or fp64 values (x32, else x64), as an oracle: each value is m 2^e with
 * |m| < 2^53 and e >= -1074, added as an integer count of 2^-1074 into 32-bit digits held in int64 (room for
 * 2^31 additions without carrying), then carried and read from the top digits in long double (64 significant
 * bits: the fp64 references' one rounding is 2^11 times coarser). 70 digits reach 2^1166: fp64's range and
 * room for the carries. Written apart from reference.c's, with frexp. */
#define EXACT_DIGITS 70
static long double exact_sum_of(const float *x32, const double *x64, uint64_t n)
{
    int64_t digit[EXACT_DIGITS] = {0};
    for (uint64_t i = 0; i < n; i++) {
        int e;
        double m = frexp(x32 ? (double)x32[i] : x64[i], &e); /* x = m 2^e, 0.5 <= |m| < 1 */
        if (m == 0.0) continue;
        int64_t sign = m < 0.0 ? -1 : 1;
        uint64_t q = (uint64_t)ldexp(fabs(m), 53); /* |x| = q 2^(e - 53), exactly */
        int shift = e - 53 + 1074;
        if (shift < 0) { /* a subnormal: q is a multiple of 2^-shift */
            q >>= -shift;
            shift = 0;
        }
        int k = shift / 32, r = shift % 32;
        unsigned __int128 mag = (unsigned __int128)q << r; /* < 2^85: three digits at most */
        for (int d = 0; d < 3; d++) digit[k + d] += sign * (int64_t)(uint64_t)(mag >> (32 * d) & 0xffffffffu);
    }
    for (int k = 0; k + 1 < EXACT_DIGITS; k++) { /* carry: every digit but the top one into [0, 2^32) */
        int64_t carry = digit[k] >> 32; /* arithmetic shift: floor division */
        digit[k] -= carry * 4294967296LL;
        digit[k + 1] += carry;
    }
    long double sign = 1.0L, sum = 0.0L;
    if (digit[EXACT_DIGITS - 1] < 0) { /* read a negative total as minus a positive one: no cancellation */
        sign = -1.0L;
        for (int k = 0; k < EXACT_DIGITS; k++) digit[k] = -digit[k];
        for (int k = 0; k + 1 < EXACT_DIGITS; k++) {
            int64_t carry = digit[k] >> 32;
            digit[k] -= carry * 4294967296LL;
            digit[k + 1] += carry;
        }
    }
    for (int k = EXACT_DIGITS - 1; k >= 0; k--) sum += ldexpl((long double)digit[k], 32 * k - 1074);
    return sign * sum;
}

static long double exact_sum(const float *x, uint64_t n) { return exact_sum_of(x, NULL, n); }

/* The reference against the exact sum, on data that stress it: within reference_error (its one rounding),
 * which every bound adds; sums whose rounding can be stated; order and non-finite inputs. */
static void test_reference_exact(void)
{
    float tiny[3] = {0x1p-149f, 0x1p127f, -0x1p127f};
    check(exact_sum(tiny, 3) == ldexpl(1.0L, -149), "exact oracle: a subnormal survives 2^127 - 2^127");
    check(reference_sum(tiny, 3).sum == 0x1p-149, "reference: a subnormal survives 2^127 - 2^127");
    check(reference_sum((float[]){1.0f, 0x1p-53f}, 2).sum == 1.0, "reference: a tie rounds to even (1 + 2^-53 is 1)");
    check(reference_sum((float[]){1.0f, 0x1p-53f, 0x1p-90f}, 3).sum == 1.0 + 0x1p-52,
          "reference: a bit far below the tie rounds it up (1 + 2^-53 + 2^-90)");
    check(reference_sum((float[]){-1.0f, -0x1p-53f, -0x1p-90f}, 3).sum == -1.0 - 0x1p-52, "reference: the same, negative");
    check(reference_sum((float[]){1.0f, 0x1p-52f, 0x1p-53f}, 3).sum == 1.0 + 0x1p-51,
          "reference: a tie rounds to even (up, from an odd last bit)");
    check(reference_sum((float[]){FLT_MAX, FLT_MAX, 0x1p-149f}, 3).sum == 2.0 * (double)FLT_MAX,
          "reference: a sum past FLT_MAX is finite in fp64, rounded once");
    check(reference_sum((float[]){1e30f, 1.0f, -1e30f, 0x1p-140f}, 4).sum == 1.0 + 0x1p-140,
          "reference: 1e30 + 1 - 1e30 + 2^-140 is exact, 1 + 2^-140");
    check(isnan(reference_sum((float[]){INFINITY, 1.0f, -INFINITY}, 3).sum) &&
              reference_sum((float[]){INFINITY, 1.0f, 3.0f}, 3).sum == INFINITY &&
              isnan(reference_sum((float[]){NAN, 1.0f}, 2).sum) && reference_sum((float[]){-INFINITY, 1.0f}, 2).sum == -INFINITY,
          "reference: Inf - Inf and NaN give NaN, an Inf gives that Inf");
    check(reference_sum((float[]){1.0f, 0x1p-24f, 0x1p-60f}, 3).sum32 == 1.0f + 0x1p-23f &&
              (float)reference_sum((float[]){1.0f, 0x1p-24f, 0x1p-60f}, 3).sum == 1.0f,
          "reference: rounded once to fp32, 1 + 2^-24 + 2^-60 is 1 + 2^-23 (through fp64 it would be 1)");
    check(reference_sum((float[]){1.0f, 0x1p-24f}, 2).sum32 == 1.0f && reference_sum((float[]){-1.0f, -0x1p-24f, -0x1p-70f}, 3).sum32 == -1.0f - 0x1p-23f,
          "reference: an fp32 tie rounds to even; a bit below it rounds it away, negative too");
    check(reference_sum((float[]){FLT_MAX, 0x1p103f}, 2).sum32 == INFINITY && reference_sum((float[]){FLT_MAX, 0x1p102f}, 2).sum32 == FLT_MAX &&
              reference_sum((float[]){-FLT_MAX, -FLT_MAX}, 2).sum32 == -INFINITY,
          "reference: in fp32, FLT_MAX + half its last place is Inf (a tie, to even), less stays FLT_MAX");
    check(reference_sum((float[]){0x1p-149f, 0x1p-149f, 0x1.8p-130f}, 3).sum32 == 0x1p-148f + 0x1.8p-130f,
          "reference: subnormal sums are exact in fp32");
    enum { M = 1 << 20 };
    float *x = malloc(M * sizeof *x);
    struct { Fill fill; double cond; } data[] = {{FILL_SHIFTED, 0}, {FILL_RANDOM, 0}, {FILL_WIDE, 0}, {FILL_COND, 1e8}, {FILL_COND, 1e13},
                                                 {FILL_BINADES, 0}};
    for (size_t d = 0; d < sizeof data / sizeof data[0]; d++) {
        if (data[d].fill == FILL_COND) fill_cond(x, M, 5, data[d].cond);
        else fill_array(x, M, data[d].fill, 5);
        Reference ref = reference_sum(x, M);
        long double exact = exact_sum(x, M);
        char name[128];
        snprintf(name, sizeof name, "the reference is within its one rounding of the exact sum (%s%s, 2^20)",
                 fill_name(data[d].fill), data[d].fill == FILL_COND ? (data[d].cond > 1e10 ? " 1e13" : " 1e8") : "");
        check(fabsl((long double)ref.sum - exact) <= (long double)reference_error(&ref), name);
        if (data[d].fill == FILL_WIDE || data[d].fill == FILL_BINADES) { /* the check can fail: a plain fp64 loop is outside it */
            double plain = 0.0;
            for (int i = 0; i < M; i++) plain += x[i];
            snprintf(name, sizeof name, "a plain fp64 loop over the %s data is not within reference_error (the oracle can tell)",
                     fill_name(data[d].fill));
            check(fabsl((long double)plain - exact) > (long double)reference_error(&ref), name);
        }
    }
    /* Several chunks, and the same values reversed: the same bits (an integer sum has no order). */
    enum { L = 3 * (1 << 20) + 5 };
    float *w = malloc(L * sizeof *w), *back = malloc(L * sizeof *back);
    fill_array(w, L, FILL_WIDE, 3);
    for (int i = 0; i < L; i++) back[i] = w[L - 1 - i];
    double forward = reference_sum(w, L).sum, reversed = reference_sum(back, L).sum;
    check(forward == reversed && fabsl((long double)forward - exact_sum(w, L)) <= (long double)unit_roundoff(53) * fabs(forward),
          "reference: 3 x 2^20 + 5 wide values and the same reversed give the same bits, within one rounding of exact");
    free(w);
    free(back);
    free(x);
}

/* reference_sum_f64 against known answers (each chosen so that a wrong rounding, a lost bit or a wrong
 * sign gives another value), and against an oracle of its own: __float128 sums, exact for data whose
 * partial sums fit 113 bits (the fills below, at 2^20), rounded once to fp64 by the conversion. */
static void test_reference_f64(void)
{
    struct { double x[5]; int n; double sum; float sum32; const char *name; } known[] = {
        {{1e308, 1e308, -1e308, -1e308, 0.5}, 5, 0.5, 0.5f, "partial sums past DBL_MAX, an exact small total"},
        {{DBL_MAX, DBL_MAX}, 2, INFINITY, INFINITY, "DBL_MAX + DBL_MAX is Inf"},
        {{DBL_MAX, 0x1p970}, 2, INFINITY, INFINITY, "DBL_MAX + half its last place is Inf (a tie, to even)"},
        {{DBL_MAX, 0x1p969}, 2, DBL_MAX, INFINITY, "DBL_MAX + a quarter of its last place stays DBL_MAX"},
        {{0x1p-1074, 0x1p-1074, 0x1p-1074}, 3, 0x1.8p-1073, 0.0f, "subnormals add exactly; in fp32 they are 0"},
        {{1.0, 0x1p-53}, 2, 1.0, 1.0f, "a tie rounds to even (1 + 2^-53 is 1)"},
        {{1.0, 0x1p-53, 0x1p-1074}, 3, 1.0 + 0x1p-52, 1.0f, "a sticky bit 2^-1074 far below the tie rounds it up"},
        {{1.0, 0x1p-52, 0x1p-53}, 3, 1.0 + 0x1p-51, 1.0f, "a tie from an odd last bit rounds up"},
        {{-1.0, -0x1p-53, -0x1p-1074}, 3, -1.0 - 0x1p-52, -1.0f, "the same, negative"},
        {{1.0, 0x1p-24, 0x1p-1000}, 3, 1.0 + 0x1p-24, 1.0f + 0x1p-23f, "rounded once to fp32: a bit far below the tie"},
        {{1.0, 0x1p-24}, 2, 1.0 + 0x1p-24, 1.0f, "an fp32 tie rounds to even"},
        {{0x1p-149, 0x1p-151}, 2, 0x1p-149 + 0x1p-151, 0x1p-149f, "fp32 subnormal: 2^-149 + 2^-151 is 2^-149"},
        {{0x1p-150, 0x1p-1074}, 2, 0x1p-150 + 0x1p-1074, 0x1p-149f, "fp32 subnormal: above half of 2^-149 rounds up"},
        {{-0.0, -0.0}, 2, -0.0, -0.0f, "-0 + -0 is -0"},
        {{-0.0, 0.0}, 2, 0.0, 0.0f, "-0 + 0 is +0"},
        {{1.5, -1.5}, 2, 0.0, 0.0f, "x - x is +0"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        Reference r = reference_sum_f64(known[i].x, (uint64_t)known[i].n);
        char name[160];
        snprintf(name, sizeof name, "reference f64: %s", known[i].name);
        int ok = r.sum == known[i].sum && !signbit(r.sum) == !signbit(known[i].sum) && r.sum32 == known[i].sum32 &&
                 !signbit(r.sum32) == !signbit(known[i].sum32);
        check(ok, name);
        if (!ok) printf("     | sum %a (want %a), sum32 %a (want %a)\n", r.sum, known[i].sum, r.sum32, known[i].sum32);
    }
    check(isnan(reference_sum_f64((double[]){INFINITY, 1.0, -INFINITY}, 3).sum) &&
              isnan(reference_sum_f64((double[]){1.0, NAN}, 2).sum) &&
              reference_sum_f64((double[]){-INFINITY, DBL_MAX, DBL_MAX}, 3).sum == -INFINITY,
          "reference f64: Inf - Inf and NaN give NaN, an Inf gives that Inf");
    enum { M = 1 << 20 };
    double *x = malloc((size_t)3 * M * sizeof *x);
    Fill fills[] = {FILL_SHIFTED, FILL_RANDOM, FILL_WIDE};
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        __float128 exact = 0;
        for (int i = 0; i < M; i++) exact += (x[i] = fill_value64(fills[f], 9, (uint64_t)i));
        char name[128];
        snprintf(name, sizeof name, "reference f64: the exact sum rounded once, as a __float128 oracle gives (%s, 2^20)",
                 fill_name(fills[f]));
        Reference r = reference_sum_f64(x, M);
        check(r.sum == (double)exact && r.sum32 == (float)(double)exact, name);
        if (fills[f] == FILL_WIDE) { /* the oracle can tell: a plain fp64 loop is off */
            double plain = 0.0;
            for (int i = 0; i < M; i++) plain += x[i];
            check(plain != (double)exact, "reference f64: a plain fp64 loop over the wide data misses the oracle's sum");
        }
    }
    /* The binades data, from subnormals to 2^991: beyond __float128, against the digits' oracle. */
    for (int i = 0; i < M; i++) x[i] = fill_value64(FILL_BINADES, 9, (uint64_t)i);
    Reference binades = reference_sum_f64(x, M);
    long double exact = exact_sum_of(NULL, x, M);
    double plain = 0.0;
    for (int i = 0; i < M; i++) plain += x[i];
    check(fabsl((long double)binades.sum - exact) <= (long double)reference_error(&binades) &&
              binades.sum32 == (binades.sum > 0.0 ? INFINITY : -INFINITY) &&
              fabsl((long double)plain - exact) > (long double)reference_error(&binades),
          "reference f64: the binades data's exact sum rounded once (within reference_error of the digits' oracle, "
          "which a plain fp64 loop is not), past FLT_MAX in fp32");
    /* Several chunks, and reversed: the same bits. */
    for (int i = 0; i < 3 * M; i++) x[i] = fill_value64(FILL_WIDE, 4, (uint64_t)i) * (i % 7 == 0 ? 0x1p900 : 1.0);
    double forward = reference_sum_f64(x, 3 * M).sum;
    for (int i = 0; i < 3 * M / 2; i++) {
        double t = x[i];
        x[i] = x[3 * M - 1 - i];
        x[3 * M - 1 - i] = t;
    }
    check(forward == reference_sum_f64(x, 3 * M).sum, "reference f64: 3 x 2^20 values over 2^960 and reversed give the same bits");
    free(x);
}

/* Does text read back to exactly v in type t (the sign of a zero too)? */
static int reads_back(const char *text, double v, ResultType t)
{
    char *end;
    double back = t == RESULT_F32 ? (double)strtof(text, &end) : strtod(text, &end);
    return *text && !*end && back == v && signbit(back) == signbit(v);
}

/* The significant digits of a decimal in %g's form. */
static int significant_digits(const char *text)
{
    int digits = 0, leading = 1;
    for (const char *c = text; *c && *c != 'e'; c++) {
        if (*c < '0' || *c > '9') continue;
        if (*c != '0') leading = 0;
        digits += !leading;
    }
    return digits;
}

static void test_result_text(void)
{
    static const struct { double v; ResultType t; const char *decimal, *bits; } known[] = {
        {0.1, RESULT_F64, "0.1", "0x3fb999999999999a"},
        {(double)0.1f, RESULT_F32, "0.1", "0x3dcccccd"},
        {(double)0.1f, RESULT_F64, "0.10000000149011612", "0x3fb99999a0000000"},
        {5000035.76601307, RESULT_F64, "5000035.76601307", "0x415312d8f1065baf"},
        {1.0 / 3.0, RESULT_F64, "0.3333333333333333", "0x3fd5555555555555"},
        {DBL_MAX, RESULT_F64, "1.7976931348623157e+308", "0x7fefffffffffffff"},
        {FLT_MAX, RESULT_F32, "3.4028235e+38", "0x7f7fffff"},
        {0x1p-1074, RESULT_F64, "5e-324", "0x0000000000000001"},
        {0x1p-149, RESULT_F32, "1e-45", "0x00000001"},
        {-0.0, RESULT_F64, "-0", "0x8000000000000000"},
        {-0.0, RESULT_F32, "-0", "0x80000000"},
        {INFINITY, RESULT_F64, "inf", "0x7ff0000000000000"},
        {-INFINITY, RESULT_F32, "-inf", "0xff800000"},
        {2147483647.0, RESULT_I32, "2147483647", "0x7fffffff"},
        {-1.0, RESULT_I32, "-1", "0xffffffff"},
        {1.0, RESULT_NONE, "", ""},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char decimal[40], bits[24], name[128];
        result_decimal(decimal, sizeof decimal, known[i].v, known[i].t);
        result_bits(bits, sizeof bits, known[i].v, known[i].t);
        snprintf(name, sizeof name, "result %s (type %d) shows as %s, bits %s", known[i].decimal, (int)known[i].t,
                 known[i].decimal, known[i].bits);
        check(!strcmp(decimal, known[i].decimal) && !strcmp(bits, known[i].bits), name);
        if (strcmp(decimal, known[i].decimal) || strcmp(bits, known[i].bits)) printf("     | got %s %s\n", decimal, bits);
    }
    char text[40];
    check(!strncmp(result_decimal(text, sizeof text, NAN, RESULT_F64), "nan", 3), "a NaN result shows as nan");
    /* The round trip of random bit patterns: every decimal reads back to its value in its type, with no more
     * digits than the type needs, and one digit fewer would not. */
    uint64_t state = 20261202;
    int wrong[2] = {0, 0}, longest[2] = {0, 0};
    for (int i = 0; i < 400000; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        ResultType t = i % 2 ? RESULT_F32 : RESULT_F64;
        double v;
        if (t == RESULT_F64) {
            uint64_t bits = state ^ (state >> 29);
            memcpy(&v, &bits, sizeof v);
        } else {
            uint32_t bits = (uint32_t)(state >> 32);
            float f;
            memcpy(&f, &bits, sizeof f);
            v = f;
        }
        if (!isfinite(v)) continue;
        result_decimal(text, sizeof text, v, t);
        int digits = significant_digits(text);
        char shorter[320];
        snprintf(shorter, sizeof shorter, "%.*g", digits - 1, v);
        int ok = reads_back(text, v, t) && (digits <= 1 || !reads_back(shorter, v, t));
        if (!ok && wrong[i % 2]++ < 3) printf("     | %a shows as %s (%s)\n", v, text, t == RESULT_F32 ? "fp32" : "fp64");
        if (digits > longest[i % 2]) longest[i % 2] = digits;
    }
    check(!wrong[0] && longest[0] <= 17, "200000 random fp64 results read back from the fewest digits, 17 at most");
    check(!wrong[1] && longest[1] <= 9, "200000 random fp32 results read back from the fewest digits, 9 at most");
    /* The round trip holds the decimal to account: 9 digits of an fp64 sum do not read back to it. */
    check(!reads_back("5000035.77", 5000035.76601307, RESULT_F64) && !reads_back("0.1", (double)0.1f, RESULT_F64),
          "the round trip rejects a decimal too short for the result's type");
}

/* fp16 and bf16 from their bits, as the compiler's _Float16 and fp32's top half read them (not as result.c does). */
static double half_value(unsigned bits, ResultType t)
{
    if (t == RESULT_F16) {
        uint16_t b = (uint16_t)bits;
        _Float16 h;
        memcpy(&h, &b, sizeof h);
        return (double)h;
    }
    uint32_t b = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Whether text reads back to the fp16 or bf16 value v: the compiler's rounding of its nearest double to
 * _Float16; for bf16, its nearest fp32 rounded to nearest even at the top half, done on the bits. */
static int half_reads_back(const char *text, double v, ResultType t)
{
    char *end;
    double d = strtod(text, &end);
    if (!*text || *end) return 0;
    if (t == RESULT_F16) return (double)(_Float16)d == v && signbit(d) == signbit(v);
    float f = (float)d;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return half_value((b + 0x7fffu + (b >> 16 & 1u)) >> 16, t) == v && signbit(d) == signbit(v);
}

static void test_half_text(void)
{
    static const struct { double v; ResultType t; const char *decimal, *bits; } known[] = {
        {65504.0, RESULT_F16, "6.55e+04", "0x7bff"},
        {0.0999755859375, RESULT_F16, "0.1", "0x2e66"},
        {0.333251953125, RESULT_F16, "0.3333", "0x3555"},
        {0x1p-24, RESULT_F16, "6e-08", "0x0001"},
        {-0.0, RESULT_F16, "-0", "0x8000"},
        {-INFINITY, RESULT_F16, "-inf", "0xfc00"},
        {0.10009765625, RESULT_BF16, "0.1", "0x3dcd"},
        {3.140625, RESULT_BF16, "3.14", "0x4049"},
        {3.3895313892515355e38, RESULT_BF16, "3.39e+38", "0x7f7f"},
        {0x1p-133, RESULT_BF16, "9e-41", "0x0001"},
        {INFINITY, RESULT_BF16, "inf", "0x7f80"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char decimal[40], bits[24], name[128];
        result_decimal(decimal, sizeof decimal, known[i].v, known[i].t);
        result_bits(bits, sizeof bits, known[i].v, known[i].t);
        snprintf(name, sizeof name, "%s result %s shows as %s, bits %s", known[i].t == RESULT_F16 ? "fp16" : "bf16",
                 known[i].decimal, known[i].decimal, known[i].bits);
        check(!strcmp(decimal, known[i].decimal) && !strcmp(bits, known[i].bits), name);
        if (strcmp(decimal, known[i].decimal) || strcmp(bits, known[i].bits)) printf("     | got %s %s\n", decimal, bits);
    }
    /* Every finite value of each: its decimal reads back to it, one digit fewer would not, the longest has the
     * type's 5 or 4 digits (so that one fewer at most would lose values), and its bits are its own. */
    for (int k = 0; k < 2; k++) {
        ResultType t = k ? RESULT_BF16 : RESULT_F16;
        int wrong = 0, longest = 0, values = 0;
        for (unsigned bits = 0; bits < 65536; bits++) {
            double v = half_value(bits, t);
            if (!isfinite(v)) continue;
            char text[40], shorter[320], hex[24], want[24];
            result_decimal(text, sizeof text, v, t);
            int digits = significant_digits(text);
            snprintf(shorter, sizeof shorter, "%.*g", digits - 1, v);
            snprintf(want, sizeof want, "0x%04x", bits);
            int ok = half_reads_back(text, v, t) && (digits <= 1 || !half_reads_back(shorter, v, t)) &&
                     !strcmp(result_bits(hex, sizeof hex, v, t), want);
            if (!ok && wrong++ < 3) printf("     | %s %a shows as %s (%s)\n", want, v, text, hex);
            if (digits > longest) longest = digits;
            values++;
        }
        char name[160];
        snprintf(name, sizeof name, "every finite %s result (%d) reads back from the fewest digits, %d at most, and shows its bits",
                 k ? "bf16" : "fp16", values, k ? 4 : 5);
        check(!wrong && longest == (k ? 4 : 5), name);
        if (longest != (k ? 4 : 5)) printf("     | the longest has %d digits\n", longest);
    }
    /* result_round against the compiler's fp16 and the bits' bf16 (to nearest even at the top half): on random
     * fp32 values, half of them within fp16's range, and on every tie of the two (a value's midpoint with the
     * next), both signs. */
    uint64_t state = 16;
    int wrong16 = 0, wrong_bf16 = 0;
    for (int i = 0; i < 200000; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t b = (uint32_t)(state >> 32);
        if (i % 2) b = (b & 0x80000000u) | ((b >> 23 & 0x1fu) + 100u) << 23 | (b & 0x7fffffu);
        float f;
        memcpy(&f, &b, sizeof f);
        if (isnan(f)) continue;
        wrong16 += result_round(f, RESULT_F16) != (double)(_Float16)f;
        wrong_bf16 += result_round(f, RESULT_BF16) != half_value((b + 0x7fffu + (b >> 16 & 1u)) >> 16, RESULT_BF16);
    }
    for (unsigned h = 0; h < 0x7f7f; h++)
        for (int sign = -1; sign <= 1; sign += 2) {
            double mid16 = sign * (half_value(h, RESULT_F16) + half_value(h + 1, RESULT_F16)) / 2;
            double mid_bf16 = sign * (half_value(h, RESULT_BF16) + half_value(h + 1, RESULT_BF16)) / 2;
            wrong16 += h < 0x7bff && result_round(mid16, RESULT_F16) != (double)(_Float16)mid16;
            wrong_bf16 += result_round(mid_bf16, RESULT_BF16) != sign * half_value((h + 1) & ~1u, RESULT_BF16);
        }
    wrong16 += result_round(65519.99, RESULT_F16) != 65504.0 || !isinf(result_round(-65520.0, RESULT_F16));
    check(!wrong16 && !wrong_bf16, "result_round gives the compiler's fp16 and the bits' bf16, ties to even, and overflow");
    if (wrong16 || wrong_bf16) printf("     | %d fp16 and %d bf16 differ\n", wrong16, wrong_bf16);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out before a crash could lose it */
    test_parse_size();
    test_median();
    test_fill();
    test_accuracy_fills();
    test_binades_fill();
    test_tolerance();
    test_binades_bounds();
    test_logsumexp();
    test_moments();
    test_row_references();
    test_array_file();
    test_reference_exact();
    test_reference_f64();
    test_result_text();
    test_half_text();
    printf("done %d checks\n", checks);
    return failures ? 1 : 0;
}

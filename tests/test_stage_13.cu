/* The arithmetic of stage 13's fp64 sum (windows_f64), run on the host: its per-tile and per-value functions
 * (__host__ __device__ in stages/13_exact/reduce.cu) drive one or more threads' windows over data made to
 * break them, into digits held here, and the total is rounded by the kernel's own rounding; the results
 * must be the host's exact sum (reference_sum_f64, common/reference.c, a method of its own) in fp64 and in fp32,
 * bit for bit. Like tests/test_host.c it prints "ok NAME" or "FAIL NAME" a check (detail lines under a
 * failure start "     | "), then "done N checks", and exits 1 where a check failed.
 * With --sum FILE it prints instead the fp64 and fp32 bits of the sum of FILE's values (one a line, as
 * strtod reads them: hexadecimal floats, inf, nan), for tests/test_stage_13.py's oracle of fractions. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "fill.h"
#include "reference.h"

#include "../stages/13_exact/reduce.cu"
#include "../stages/13_exact/adversarial.cu" /* make64: the demo's data */

static int checks, failed;

static void check(int ok, const char *name)
{
    checks++;
    failed += !ok;
    printf("%s %s\n", ok ? "ok" : "FAIL", name);
}

/* The host's digits and flags, as the functions of reduce.cu add to them (the kernel's: shared-memory
 * atomics). */
struct HostAdd {
    long long *d;
    __host__ __device__ void operator()(int k, long long part) const { d[k] += part; }
};
struct HostFlag {
    unsigned *flags;
    __host__ __device__ void operator()(unsigned seen) const { *flags |= seen; }
};

/* The digits rounded as the kernel's warp rounds them (round_lanes64), one digit after another: carried
 * (negated if negative, and carried again), the top nonzero digit and the two below it, and whether any
 * digit under those is nonzero, into the kernel's round_top64. */
static double round_digits64(long long *d, unsigned flags, float *narrow)
{
    bool negative = false;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k + 1 < DIGITS64; k++) {
            const long long carry = d[k] >> 32; /* arithmetic shift: floor division by 2^32 */
            d[k] -= carry * 4294967296LL;
            d[k + 1] += carry;
        }
        if (pass || d[DIGITS64 - 1] >= 0) break;
        negative = true;
        for (int k = 0; k < DIGITS64; k++) d[k] = -d[k];
    }
    int top = DIGITS64 - 1;
    while (top >= 0 && d[top] == 0) top--;
    bool sticky = false;
    for (int k = 0; k + 2 < top; k++) sticky |= d[k] != 0;
    const unsigned long long hi = top >= 0 ? d[top] : 0, mid = top >= 1 ? d[top - 1] : 0, lo = top >= 2 ? d[top - 2] : 0;
    return round_top64(top, hi, mid, lo, sticky, negative, flags, narrow);
}

/* What a sum of the windows did: tiles the windows took, tiles they did not. */
typedef struct {
    uint64_t fast, slow;
} Paths;

/* The sum of x[0..n) as THREADS threads of one block of window_sum_f64 make it: tile k of 8 values goes to
 * thread k % THREADS, each thread's windows open at the largest finite field of the block's first tiles, a
 * tile they cannot take goes to the digits value by value where no windows take it whole, else through
 * take_tile64 (the kernel's loop); the totals are flushed every 4096 tiles; the values past the
 * last whole tile go one by one. At the end a thread whose windows opened elsewhere flushes its totals, and
 * the block adds the sums of its threads' pieces at the block's binade. The digits and the flags are
 * the block's; the total is rounded by round_digits64. */
static double windows_sum(const double *x, uint64_t n, int threads, float *narrow, Paths *paths)
{
    static long long d[DIGITS64];
    memset(d, 0, sizeof d);
    unsigned flags = 0;
    const HostAdd add = {d};
    const HostFlag flag = {&flags};
    const uint64_t tiles = n / 8;
    uint4 *tile = (uint4 *)malloc((tiles + 1) * UNROLL * sizeof(uint4));
    for (uint64_t i = 0; i < tiles * UNROLL; i++) memcpy(&tile[i], &x[2 * i], sizeof(uint4));
    unsigned largest = 0;
    for (uint64_t i = 0; i < tiles * 8 && i < (uint64_t)threads * 8; i++) {
        unsigned field = field64(double_bits(x[i]));
        if (field != 0x7ff && field > largest) largest = field;
    }
    paths->fast = paths->slow = 0;
    const int block_a = Windows64::binade(largest);
    int block_pieces[12] = {0};
    for (int t = 0; t < threads; t++) {
        Windows64 w;
        w.open(largest);
        bool not_minus_zero = false;
        unsigned since_flush = 0;
        for (uint64_t k = t; k < tiles; k += threads) {
            const uint4 *r = &tile[k * UNROLL];
            if (split_tile64(w, r, &not_minus_zero)) {
                paths->fast++;
            } else {
                const TileRange64 g = tile_range64(r);
                if (!g.nonfinite && !w.elsewhere_take(g.largest, g.least)) {
                    not_minus_zero |= g.not_minus_zero;
                    tile_to_digits64(r, add);
                } else {
                    w = take_tile64(w, add, flag, r[0], r[1], r[2], r[3]);
                }
                paths->slow++;
            }
            if (++since_flush % 4096 == 0) w.flush(add);
        }
        if (w.a != block_a) w.flush(add);
        for (int j = 0; j < 12; j++) block_pieces[j] += w.piece(j);
        if (not_minus_zero) flags |= SAW_NOT_MINUS_ZERO;
    }
    for (int j = 0; j < 12; j++) add_integer(block_pieces[j], Windows64::piece_bit(j, block_a), add);
    for (uint64_t i = tiles * 8; i < n; i++) take_value64(double_bits(x[i]), add, &flags);
    free(tile);
    return round_digits64(d, flags, narrow);
}

/* The windows' sum at several thread counts against the exact reference, fp64 and fp32, bit for bit. */
static void check_kind(const char *kind, uint64_t n, Paths *at_256)
{
    double *x = (double *)malloc(n * sizeof(double));
    if (!strcmp(kind, "binades fill")) /* the bench's data for the digits: every binade up to 2^991 */
        for (uint64_t i = 0; i < n; i++) x[i] = fill_value64(FILL_BINADES, 5 + n, i);
    else
        make64(kind, x, n, 5 + n);
    Reference ref = reference_sum_f64(x, n);
    const int thread_counts[] = {1, 3, 256};
    int ok = 1;
    char detail[512] = "";
    for (int c = 0; c < 3; c++) {
        float narrow;
        Paths paths;
        double sum = windows_sum(x, n, thread_counts[c], &narrow, &paths);
        if (thread_counts[c] == 256 && at_256) *at_256 = paths;
        if (double_bits(sum) != double_bits(ref.sum) || float_bits(narrow) != float_bits(ref.sum32)) {
            if (ok) snprintf(detail, sizeof detail, "     | %d threads: %a / %a, exact %a / %a", thread_counts[c], sum,
                             (double)narrow, ref.sum, (double)ref.sum32);
            ok = 0;
        }
    }
    char name[160];
    snprintf(name, sizeof name, "windows_f64 %s N=%llu: the exact sum in fp64 and fp32 at 1, 3, 256 threads", kind,
             (unsigned long long)n);
    check(ok, name);
    if (!ok) printf("%s\n", detail);
    free(x);
}

/* 8 values as a tile's 4 vectors (copied: a vector read through a double's address is not defined C++). */
static const uint4 *tile_of(const double *v, uint4 *r)
{
    memcpy(r, v, UNROLL * sizeof(uint4));
    return r;
}

static int sum_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    uint64_t n = 0, room = 1024;
    double *x = (double *)malloc(room * sizeof(double));
    char line[128];
    while (fgets(line, sizeof line, f)) {
        if (n == room) x = (double *)realloc(x, (room *= 2) * sizeof(double));
        x[n++] = strtod(line, NULL);
    }
    fclose(f);
    float narrow;
    Paths paths;
    double sum = windows_sum(x, n, 3, &narrow, &paths);
    printf("fp64 %016llx fp32 %08x\n", (unsigned long long)double_bits(sum), float_bits(narrow));
    free(x);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--sum")) return sum_file(argv[2]);
    const char *kinds[] = {"shifted", "cancellation", "cancellation down to 2^-1000", "subnormals",
                           "every exponent", "past DBL_MAX", "total past DBL_MAX", "ties", "ties, a sticky bit",
                           "fp32 subnormal tie", "negative below fp32", "wider than the windows", "binades fill",
                           "NaN", "+Inf and -Inf", "-Inf", "+Inf among -DBL_MAX", "-Inf among DBL_MAX", "-0",
                           "-0 and one +0", "zero total"};
    const uint64_t sizes[] = {1, 2, 7, 8, 9, 1000, 100003};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) check_kind(kinds[k], sizes[z], NULL);

    /* The paths: data with a range go through the windows, data wider than they are through the digits. */
    Paths shifted, wide;
    check_kind("shifted", 1u << 20, &shifted);
    check(shifted.slow == 0 && shifted.fast == (1u << 17), "windows_f64: every tile of shifted data in the windows");
    check_kind("wider than the windows", 1u << 16, &wide);
    check(wide.fast == 0 && wide.slow == (1u << 13), "windows_f64: every tile spanning 2^120 through the digits");
    Paths binades;
    check_kind("binades fill", 1u << 16, &binades);
    check(binades.slow + binades.fast == (1u << 13) && binades.slow >= (1u << 13) / 100 * 99,
          "windows_f64: 99% of the binades fill's tiles or more through the digits");
    /* windows_f32 (device code alone): a tile of 16 whose fields span 68 or more, wider than any windows' range
     * (fields F + 8 down to F - 59), cannot be taken whole; the binades fill's tiles nearly all do. */
    uint64_t wider = 0;
    for (uint64_t t = 0; t < (1u << 12); t++) {
        unsigned lo = 255, hi = 0;
        for (uint64_t j = 0; j < 16; j++) {
            float v = fill_value(FILL_BINADES, 1, 16 * t + j);
            uint32_t b;
            memcpy(&b, &v, sizeof b);
            unsigned field = b >> 23 & 0xffu ? b >> 23 & 0xffu : 1; /* a subnormal's last bit is field 1's */
            if (v == 0.0f) continue;
            lo = field < lo ? field : lo;
            hi = field > hi ? field : hi;
        }
        wider += hi >= lo + 68;
    }
    check(wider >= (1u << 12) / 100 * 99, "windows_f32: 99% of the binades fill's tiles of 16 or more span 2^68 or more");

    /* The flushes: more than 4096 tiles a thread, values whose windows' totals are near their largest. */
    check_kind("shifted", 3 * 4096 * 8 + 5, NULL);

    /* The windows' range: fields F + 8 down to F - 80 in the windows for the largest field F. */
    Windows64 w;
    uint4 r[UNROLL];
    w.open(1023); /* 1.0's field */
    double in_range[8] = {1.0, 0x1p8 * 0.99, 0x1p-80, -0x1p-80, 3.0, -0.0, 0.0, 0x1.fffffffffffffp-80};
    bool nz = false;
    check(split_tile64(w, tile_of(in_range, r), &nz) && nz, "split_tile64 takes fields F + 8 down to F - 80");
    double below_range[8] = {1.0, 0x1.0000000000001p-81, 0, 0, 0, 0, 0, 0};
    w.open(1023);
    check(!split_tile64(w, tile_of(below_range, r), &nz), "split_tile64 refuses a last bit below 2^(A - 146)");
    double tiny_subnormal[8] = {1.0, 0x1p-1074, 0, 0, 0, 0, 0, 0};
    w.open(1023);
    check(!split_tile64(w, tile_of(tiny_subnormal, r), &nz), "split_tile64 refuses a subnormal whose high word is 0");
    double over_limit[8] = {0x1p9, 0x1p9, 0x1p9, 0x1p9, 0x1p9, 0x1p9, 0x1p9, 0x1p9};
    w.open(1023);
    check(!split_tile64(w, tile_of(over_limit, r), &nz), "split_tile64 refuses a tile at its limit, 2^(A - 2)");
    double minus_zeros[8] = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
    nz = false;
    w.open(1023);
    check(split_tile64(w, tile_of(minus_zeros, r), &nz) && !nz, "split_tile64: a tile of -0 is not flagged");
    check(Windows64::binade(0) == -928 && Windows64::binade(2046) == 1023,
          "the windows' binade stays in [-928, 1023]");

    /* shared_add64's two 32-bit words: parts of every size and sign, added to the low word and, through
     * high_addend, to the high word, in two orders, leave the 64-bit sum modulo 2^64. */
    int words_exact = 1;
    for (int order = 0; order < 2; order++) {
        unsigned low = 0, high = 0;
        unsigned long long sum = 0, z = 12345;
        for (int i = 0; i < 100000; i++) {
            z = z * 6364136223846793005ull + 1442695040888963407ull;
            const int j = order ? 99999 - i : i;
            long long part = (long long)(z >> (j % 40)) * (j % 3 ? 1 : -1); /* 24 to 64 bits, either sign */
            if (j % 1000 == 0) part = j % 2000 ? LLONG_MIN : -1;
            const unsigned found = low;
            low += (unsigned)part;
            high += high_addend(found, part);
            sum += (unsigned long long)part;
        }
        words_exact &= ((unsigned long long)high << 32 | low) == sum;
    }
    check(words_exact, "shared_add64: a low word's carry and the high words give the 64-bit sum modulo 2^64");
    /* windows_f32's buckets: each takes 2^12 values of its largest magnitude, of either sign, and one of
     * its least last bit, exactly: its distance from its start, in units of its last bit, is their sum. */
    int buckets_exact = 1;
    for (int b = 0; b < BUCKETS; b++)
        for (int sign = 0; sign < 2; sign++) {
            const unsigned top = 16 * b + 15 < 254 ? 16 * b + 15 : 254, least = bucket_least_field(b);
            const uint32_t big_bits = (uint32_t)sign << 31 | top << 23 | 0x7fffffu;
            const uint32_t small_bits = b ? least << 23 | 1u : 1u; /* (2^23 + 1) or 1 units of 2^(least - 150) */
            float big, small;
            memcpy(&big, &big_bits, sizeof big);
            memcpy(&small, &small_bits, sizeof small);
            double acc = bucket_base(b);
            for (int i = 0; i < 4095; i++) acc += (double)big;
            acc += (double)small;
            const long long units = 4095 * (long long)(0xffffffu) * (sign ? -1 : 1) * (1ll << (top - least)) + (b ? 0x800001 : 1);
            buckets_exact &= bucket_of(big_bits) == (unsigned)b && bucket_of(small_bits) == (unsigned)b &&
                             (long long)(double_bits(acc) - double_bits(bucket_base(b))) == units;
        }
    check(buckets_exact, "windows_f32's buckets: each takes 2^12 of its largest values and its least bit exactly");

    printf("done %d checks\n", checks);
    return failed ? 1 : 0;
}

/* Checks of the exact-sum library (lib/exact_sum.h), as tests/test_host.c prints its own: "ok <name>" or
 * "FAIL <name>" a check, "done <count> checks" last, exit 1 if any failed. Its arguments refused come first
 * and need no GPU; then, where a GPU can be used, every type's sums of the harness's fills at odd sizes and
 * starts, bit for bit against the host's exact reference (reference.c). tests/test_lib.py builds it with build/lib/libexactsum.a and runs it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "exact_sum.h"
#include "fill.h"
#include "reference.h"

static int checks, failures;

static void check(int cond, const char *name)
{
    printf("%s %s\n", cond ? "ok" : "FAIL", name);
    checks++;
    failures += !cond;
}

static int same_bits(double a, double b) { return !memcmp(&a, &b, sizeof a) || (isnan(a) && isnan(b)); }

static void refused_arguments(void)
{
    double sum = 1.0, in_type = 1.0;
    static const double x_host[1] = {1.0};
    check(exact_sum((const void *)0x1000, 4, EXACT_SUM_F32, NULL, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "a NULL fp64 result is refused");
    check(exact_sum((const void *)0x1000, 4, (ExactSumType)4, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "an unknown type is refused");
    check(exact_sum(NULL, 4, EXACT_SUM_F64, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT, "a NULL array is refused");
    check(exact_sum((const void *)0x1004, 4, EXACT_SUM_F64, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum((const void *)0x1001, 4, EXACT_SUM_F16, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "an array misaligned for its type is refused (fp64 at 4 bytes, fp16 at 1)");
    check(sum == 1.0, "a refused call leaves the result alone");
    check(exact_sum_launch((const void *)0x1000, 4, (ExactSumType)4, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_launch(NULL, 4, EXACT_SUM_F32, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_launch((const void *)0x1002, 4, EXACT_SUM_F32, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_result(EXACT_SUM_F32, NULL, &in_type, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_result((ExactSumType)4, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT && sum == 1.0,
          "the two halves: a launch refuses an unknown type, a NULL and a misaligned array; a read-back a NULL fp64 "
          "result and an unknown type");
    check(exact_sum(NULL, 0, EXACT_SUM_F32, &sum, &in_type, 0) == EXACT_SUM_OK && same_bits(sum, 0.0) &&
              same_bits(in_type, 0.0),
          "no values sum to +0");
    check(exact_sum_host(x_host, 1, EXACT_SUM_F64, NULL, NULL) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_host(x_host, 1, (ExactSumType)4, &sum, NULL) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_host(NULL, 1, EXACT_SUM_F32, &sum, NULL) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum_host(x_host, UINT64_MAX / 4, EXACT_SUM_F64, &sum, NULL) == EXACT_SUM_BAD_ARGUMENT && sum == 0.0,
          "from host memory: a NULL result, an unknown type, a NULL array and more bytes than size_t counts are refused");
    sum = in_type = 1.0;
    check(exact_sum_host(NULL, 0, EXACT_SUM_BF16, &sum, &in_type) == EXACT_SUM_OK && same_bits(sum, 0.0) &&
              same_bits(in_type, 0.0),
          "from host memory: no values sum to +0");
    int distinct = 1;
    for (int a = 0; a <= EXACT_SUM_NO_MEMORY + 1; a++)
        for (int b = 0; b < a; b++) distinct &= strcmp(exact_sum_status(a), exact_sum_status(b)) != 0;
    check(distinct, "each status has words of its own");
    static const struct { const char *name; int code; } codes[] = {
        {"EXACT_SUM_F64", EXACT_SUM_F64}, {"EXACT_SUM_F32", EXACT_SUM_F32}, {"EXACT_SUM_F16", EXACT_SUM_F16},
        {"EXACT_SUM_BF16", EXACT_SUM_BF16}, {"EXACT_SUM_OK", EXACT_SUM_OK}, {"EXACT_SUM_BAD_ARGUMENT", EXACT_SUM_BAD_ARGUMENT},
        {"EXACT_SUM_TOO_LARGE", EXACT_SUM_TOO_LARGE}, {"EXACT_SUM_CUDA_ERROR", EXACT_SUM_CUDA_ERROR},
        {"EXACT_SUM_NO_MEMORY", EXACT_SUM_NO_MEMORY}, {"EXACT_SUM_F128", -1}, {"exact_sum_f32", -1}, {"", -1}, {NULL, -1},
    };
    int named = 1;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) named &= exact_sum_code(codes[i].name) == codes[i].code;
    check(named, "exact_sum_code gives each name of the header its number, and -1 to any other name or NULL");
}

/* The exact sum of v[0..n) (doubles, n + 1 of room) rounded once to fp16 or bf16, from its fp64 rounding sum64
 * and the sign of what that left out (the exact sum of the values and -sum64): sum64 rounded to odd, the
 * neighbour toward the rest where sum64's last bit is 0, rounds to nearest as the exact sum does. */
static double one_rounding(double *v, uint64_t n, double sum64, ExactSumType t)
{
    double odd = sum64;
    if (isfinite(sum64) && sum64 != 0.0) {
        v[n] = -sum64;
        double rest = reference_sum_f64(v, n + 1).sum;
        uint64_t bits;
        memcpy(&bits, &sum64, sizeof bits);
        if (rest != 0.0 && !(bits & 1)) odd = nextafter(sum64, rest > 0 ? INFINITY : -INFINITY);
    }
    return t == EXACT_SUM_F16 ? (double)__half2float(__double2half(odd)) : (double)__bfloat162float(__double2bfloat16(odd));
}

/* n values of fill f of type t from element `start` of a device buffer (an odd start: an unaligned head),
 * against the reference of the same values. */
static void sums_of(Fill f, uint64_t n, uint64_t start, ExactSumType t, void *dev)
{
    static const size_t sizes[] = {8, 4, 2, 2};
    static const char *names[] = {"fp64", "fp32", "fp16", "bf16"};
    size_t size = sizes[t];
    unsigned char *bytes = (unsigned char *)malloc(n * size);
    float *values = (float *)malloc(n * sizeof(float));
    double *values64 = (double *)malloc((n + 1) * sizeof(double));
    for (uint64_t i = 0; i < n; i++) {
        if (t == EXACT_SUM_F64) values64[i] = fill_value64(f, 7, i);
        float v = fill_value(f, 7, i);
        if (t == EXACT_SUM_F16) v = __half2float(__float2half_rn(v));
        if (t == EXACT_SUM_BF16) v = __bfloat162float(__float2bfloat16_rn(v));
        values[i] = v;
        if (t != EXACT_SUM_F64) values64[i] = v;
        if (t == EXACT_SUM_F64) memcpy(bytes + i * size, &values64[i], size);
        else if (t == EXACT_SUM_F32) memcpy(bytes + i * size, &v, size);
        else if (t == EXACT_SUM_F16) { __half h = __float2half_rn(v); memcpy(bytes + i * size, &h, size); }
        else { __nv_bfloat16 h = __float2bfloat16_rn(v); memcpy(bytes + i * size, &h, size); }
    }
    Reference ref = t == EXACT_SUM_F64 ? reference_sum_f64(values64, n) : reference_sum(values, n);
    double want = t == EXACT_SUM_F64 ? ref.sum : t == EXACT_SUM_F32 ? (double)ref.sum32 : one_rounding(values64, n, ref.sum, t);
    void *x = (unsigned char *)dev + start * size;
    double sum = NAN, in_type = NAN;
    int status = cudaMemcpy(x, bytes, n * size, cudaMemcpyHostToDevice) == cudaSuccess
               ? exact_sum(x, n, t, &sum, &in_type, 0) : -1;
    char name[160];
    snprintf(name, sizeof name, "%s, fill %s, N = %llu from element %llu: the exact sum rounded once to fp64 and to %s, from device and host memory and in two halves",
             names[t], fill_name(f), (unsigned long long)n, (unsigned long long)start, names[t]);
    double host_sum = NAN, host_in_type = NAN; /* the same values from host memory (exact_sum_host) */
    int host_status = exact_sum_host(bytes, n, t, &host_sum, &host_in_type);
    double half_sum = NAN, half_in_type = NAN; /* and in the two halves, launch then read-back */
    int half_status = exact_sum_launch(x, n, t, 0);
    if (half_status == EXACT_SUM_OK) half_status = exact_sum_result(t, &half_sum, &half_in_type, 0);
    int ok = status == EXACT_SUM_OK && same_bits(sum, ref.sum) && same_bits(in_type, want) &&
             host_status == EXACT_SUM_OK && same_bits(host_sum, sum) && same_bits(host_in_type, in_type) &&
             half_status == EXACT_SUM_OK && same_bits(half_sum, sum) && same_bits(half_in_type, in_type);
    check(ok, name);
    if (!ok)
        printf("     | status %d: %a and %a (from host memory: status %d, %a and %a; in halves: status %d, %a and %a), "
               "wanted %a and %a\n", status, sum, in_type, host_status, host_sum, host_in_type, half_status, half_sum,
               half_in_type, ref.sum, want);
    free(bytes);
    free(values);
    free(values64);
}

/* bf16 sums just off a tie of bf16, by less than fp64 holds: 1 + 2^-8 + 2^-70 rounds in fp64 to 1 + 2^-8, halfway
 * between 1 and 1 + 2^-7, which rounds to even, 1; the sum itself is above the tie: 1 + 2^-7. And the same
 * below a tie whose even side is up (1 + 2^-7 + 2^-8 - 2^-70: 1 + 2^-7, not 1 + 2^-6), and negated. */
static const struct {
    float values[3];
    double want;
    const char *name;
} ties[] = {
    {{1.0f, 0x1p-8f, 0x1p-70f}, 1.0 + 0x1p-7, "bf16: 1 + 2^-8 + 2^-70 is 1 + 2^-7, not the tie's even 1"},
    {{1.0f + 0x1p-7f, 0x1p-8f, -0x1p-70f}, 1.0 + 0x1p-7, "bf16: 1 + 2^-7 + 2^-8 - 2^-70 is 1 + 2^-7, not 1 + 2^-6"},
    {{-1.0f, -0x1p-8f, -0x1p-70f}, -1.0 - 0x1p-7, "bf16: -1 - 2^-8 - 2^-70 is -1 - 2^-7"},
};
enum { TIES = sizeof ties / sizeof ties[0] };

/* The host's reference of them (no GPU): one rounding, where the fp64 result rounded again is the tie's even. */
static void reference_rounds_ties_once(void)
{
    int once = 1;
    for (int c = 0; c < TIES; c++) {
        double v[4] = {ties[c].values[0], ties[c].values[1], ties[c].values[2]};
        double sum64 = reference_sum_f64(v, 3).sum;
        once &= one_rounding(v, 3, sum64, EXACT_SUM_BF16) == ties[c].want &&
                (double)__bfloat162float(__double2bfloat16(sum64)) != ties[c].want;
    }
    check(once, "the reference rounds bf16 sums just off a tie once, where rounding fp64's again would not");
}

/* ... and the library's, against it. */
static void ties_rounded_once(void *dev)
{
    for (int c = 0; c < TIES; c++) {
        __nv_bfloat16 h[3];
        for (int i = 0; i < 3; i++) h[i] = __float2bfloat16_rn(ties[c].values[i]);
        double sum = NAN, in_type = NAN;
        int status = cudaMemcpy(dev, h, sizeof h, cudaMemcpyHostToDevice) == cudaSuccess
                   ? exact_sum(dev, 3, EXACT_SUM_BF16, &sum, &in_type, 0) : -1;
        check(status == EXACT_SUM_OK && in_type == ties[c].want, ties[c].name);
        if (in_type != ties[c].want) printf("     | status %d: %a, wanted %a\n", status, in_type, ties[c].want);
    }
}

/* A launch of no values after one of some: the read-back gives +0, not the earlier launch's sums. */
static void empty_launch_after_another(void *dev)
{
    static const double ones[4] = {1.0, 1.0, 1.0, 1.0};
    double sum = NAN, in_type = NAN, first = NAN;
    int ok = cudaMemcpy(dev, ones, sizeof ones, cudaMemcpyHostToDevice) == cudaSuccess &&
             exact_sum(dev, 4, EXACT_SUM_F64, &first, NULL, 0) == EXACT_SUM_OK && first == 4.0 &&
             exact_sum_launch(NULL, 0, EXACT_SUM_BF16, 0) == EXACT_SUM_OK &&
             exact_sum_result(EXACT_SUM_BF16, &sum, &in_type, 0) == EXACT_SUM_OK;
    check(ok && same_bits(sum, 0.0) && same_bits(in_type, 0.0),
          "the two halves: a launch of no values after one of four ones reads back +0");
}

/* From host memory, more values than the GPU has room for: EXACT_SUM_NO_MEMORY (no bytes are read), with no CUDA
 * error left behind for the next call. */
static void out_of_memory(void)
{
    static const float x_host[1] = {1.0f};
    double sum = 1.0;
    check(exact_sum_host(x_host, 1ull << 50, EXACT_SUM_F32, &sum, NULL) == EXACT_SUM_NO_MEMORY && sum == 1.0 &&
              cudaGetLastError() == cudaSuccess,
          "from host memory: 2^50 values, more than the GPU holds, are out of memory, the error cleared");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    refused_arguments();
    reference_rounds_ties_once();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        const uint64_t largest = (1u << 22) + 9;
        void *dev;
        if (cudaMalloc(&dev, (largest + 1) * 8) != cudaSuccess) {
            check(0, "room on the GPU for the data");
        } else {
            ties_rounded_once(dev);
            empty_launch_after_another(dev);
            out_of_memory();
            static const Fill fills[] = {FILL_SHIFTED, FILL_RANDOM, FILL_WIDE, FILL_BINADES, FILL_NAN, FILL_INF};
            static const uint64_t sizes[] = {1, 31, 1000003, largest};
            for (int t = EXACT_SUM_F64; t <= EXACT_SUM_BF16; t++)
                for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++)
                    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                        sums_of(fills[f], sizes[s], s % 2, (ExactSumType)t, dev);
            cudaFree(dev);
        }
    }
    printf("done %d checks\n", checks);
    return failures ? 1 : 0;
}

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
    check(exact_sum((const void *)0x1000, 4, EXACT_SUM_F32, NULL, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "a NULL fp64 result is refused");
    check(exact_sum((const void *)0x1000, 4, (ExactSumType)4, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "an unknown type is refused");
    check(exact_sum(NULL, 4, EXACT_SUM_F64, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT, "a NULL array is refused");
    check(exact_sum((const void *)0x1004, 4, EXACT_SUM_F64, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT &&
              exact_sum((const void *)0x1001, 4, EXACT_SUM_F16, &sum, NULL, 0) == EXACT_SUM_BAD_ARGUMENT,
          "an array misaligned for its type is refused (fp64 at 4 bytes, fp16 at 1)");
    check(sum == 1.0, "a refused call leaves the result alone");
    check(exact_sum(NULL, 0, EXACT_SUM_F32, &sum, &in_type, 0) == EXACT_SUM_OK && same_bits(sum, 0.0) &&
              same_bits(in_type, 0.0),
          "no values sum to +0");
    int distinct = 1;
    for (int a = 0; a <= EXACT_SUM_CUDA_ERROR + 1; a++)
        for (int b = 0; b < a; b++) distinct &= strcmp(exact_sum_status(a), exact_sum_status(b)) != 0;
    check(distinct, "each status has words of its own");
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
    double *values64 = (double *)malloc(n * sizeof(double));
    for (uint64_t i = 0; i < n; i++) {
        if (t == EXACT_SUM_F64) values64[i] = fill_value64(f, 7, i);
        float v = fill_value(f, 7, i);
        if (t == EXACT_SUM_F16) v = __half2float(__float2half_rn(v));
        if (t == EXACT_SUM_BF16) v = __bfloat162float(__float2bfloat16_rn(v));
        values[i] = v;
        if (t == EXACT_SUM_F64) memcpy(bytes + i * size, &values64[i], size);
        else if (t == EXACT_SUM_F32) memcpy(bytes + i * size, &v, size);
        else if (t == EXACT_SUM_F16) { __half h = __float2half_rn(v); memcpy(bytes + i * size, &h, size); }
        else { __nv_bfloat16 h = __float2bfloat16_rn(v); memcpy(bytes + i * size, &h, size); }
    }
    Reference ref = t == EXACT_SUM_F64 ? reference_sum_f64(values64, n) : reference_sum(values, n);
    double want = t == EXACT_SUM_F64 ? ref.sum : t == EXACT_SUM_F32 ? (double)ref.sum32
                : t == EXACT_SUM_F16 ? (double)__half2float(__double2half(ref.sum))
                                     : (double)__bfloat162float(__double2bfloat16(ref.sum));
    void *x = (unsigned char *)dev + start * size;
    double sum = NAN, in_type = NAN;
    int status = cudaMemcpy(x, bytes, n * size, cudaMemcpyHostToDevice) == cudaSuccess
               ? exact_sum(x, n, t, &sum, &in_type, 0) : -1;
    char name[160];
    snprintf(name, sizeof name, "%s, fill %s, N = %llu from element %llu: the exact sum rounded once to fp64 and to %s",
             names[t], fill_name(f), (unsigned long long)n, (unsigned long long)start, names[t]);
    int ok = status == EXACT_SUM_OK && same_bits(sum, ref.sum) && same_bits(in_type, want);
    check(ok, name);
    if (!ok) printf("     | status %d: %a and %a, wanted %a and %a\n", status, sum, in_type, ref.sum, want);
    free(bytes);
    free(values);
    free(values64);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    refused_arguments();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        const uint64_t largest = (1u << 22) + 9;
        void *dev;
        if (cudaMalloc(&dev, (largest + 1) * 8) != cudaSuccess) {
            check(0, "room on the GPU for the data");
        } else {
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

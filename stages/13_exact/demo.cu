/* Stage 13's demonstration, on the stage's own kernels (reduce.cu, included): the bits of an fp32 sum
 * change with the grid and with the order of the data, the exact sum's do not; the exact sum against
 * the host's (common/reference.c, integers of its own) on data made to break sums: cancellation, subnormals
 * only, every exponent at once, sums past FLT_MAX, NaN and Inf, ties, at sizes from 1 up, from an
 * unaligned start, in several grids, at two block sizes and shuffled; then the same of fp64 input
 * (windows_f64, against reference_sum_f64), with -0 and data wider than its windows. Its "bits:" lines are
 * the same on every GPU (a test compares the reference GPUs'). Exit 0 when every exact result is the host's
 * in both fp32 and fp64. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "reference.h"
#include "reduce.cu"

/* The window kernels' other block size (a template argument), checked for its bits: half the table's (a
 * thread's column of step 4 is 144 bytes of shared memory, and a block's static shared memory stays under 48 KiB). */
#define OTHER_BLOCK (BLOCK / 2)
#include "adversarial.cu" /* make64, next_random */

static float *d_in, *d_out;
static double *d_wide, *d_in64;
static int sm_count, failures, checks;

static int same(double a, double b) { return a == b || (a != a && b != b); }

/* The exact kernels of step 3 and 4 at a launch shape (blocks 0: the launcher's), from element `offset`. */
enum { DIGITS_KERNEL, WINDOWS_KERNEL };
typedef struct {
    unsigned blocks, threads;
} LaunchShape;
static float exact_on_gpu(int which, const float *x, uint64_t n, uint64_t offset, LaunchShape at, double *wide)
{
    CUDA_CHECK(cudaMemcpy(d_in + offset, x, n * sizeof(float), cudaMemcpyHostToDevice));
    if (at.blocks == 0) {
        Run r = {};
        r.in = d_in + offset, r.data = d_in + offset, r.n = n, r.out = d_out, r.sm_count = sm_count;
        r.partials = (float *)d_wide;
        (which == DIGITS_KERNEL ? run_digits : run_windows<float>)(&r);
    } else if (which == DIGITS_KERNEL) {
        digits_sum<<<at.blocks, BLOCK>>>(d_in + offset, n, d_out, d_wide);
    } else if (at.threads == BLOCK) {
        window_sum<float, BLOCK><<<at.blocks, BLOCK>>>(d_in + offset, n, d_out, d_wide);
    } else {
        window_sum<float, OTHER_BLOCK><<<at.blocks, OTHER_BLOCK>>>(d_in + offset, n, d_out, d_wide);
    }
    LAUNCH_CHECK("exact sum");
    float f;
    CUDA_CHECK(cudaMemcpy(&f, d_out, sizeof f, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(wide, d_wide, sizeof *wide, cudaMemcpyDeviceToHost));
    return f;
}

/* Both exact kernels at every grid of BLOCK threads, windows_f32 also at blocks of OTHER_BLOCK threads and from
 * an unaligned start (digits refuses one), against the host's exact sum; the bits printed once. */
static void check_exact(const char *name, const float *x, uint64_t n)
{
    Reference ref = reference_sum(x, n);
    const LaunchShape shapes[] = {{0, BLOCK}, {1, BLOCK}, {(unsigned)(sm_count / 3 ? sm_count / 3 : 1), BLOCK},
                            {(unsigned)sm_count * 16, BLOCK}, {(unsigned)sm_count * 2, OTHER_BLOCK}};
    int bad = 0;
    for (int which = DIGITS_KERNEL; which <= WINDOWS_KERNEL; which++)
        for (unsigned g = 0; g < sizeof shapes / sizeof shapes[0]; g++)
            for (uint64_t offset = 0; offset < (which == WINDOWS_KERNEL ? 2u : 1u); offset++) {
                if (which == DIGITS_KERNEL && shapes[g].threads != BLOCK) continue;
                double wide;
                float f = exact_on_gpu(which, x, n, offset, shapes[g], &wide);
                checks++;
                if (!same(f, ref.sum32) || !same(wide, ref.sum)) {
                    bad++;
                    printf("  FAIL %s N=%llu %s %u blocks of %u offset %llu: %a / %a, exact %a / %a\n", name,
                           (unsigned long long)n, which == DIGITS_KERNEL ? "digits" : "windows", shapes[g].blocks,
                           shapes[g].threads, (unsigned long long)offset, f, wide, ref.sum32, ref.sum);
                }
            }
    failures += bad;
    printf("bits: %-28s N = %-9llu fp32 %08x  fp64 %016llx  %s\n", name, (unsigned long long)n,
           float_bits(ref.sum32), (unsigned long long)double_bits(ref.sum),
           bad ? "FAIL" : "exact, every shape and start");
}

/* windows_f64 at a launch shape (blocks 0: the launcher's), from element `offset`: the fp64 result, and the
 * fp32 rounding of the same total in *narrow. */
static double exact64_on_gpu(const double *x, uint64_t n, uint64_t offset, LaunchShape at, float *narrow)
{
    CUDA_CHECK(cudaMemcpy(d_in64 + offset, x, n * sizeof(double), cudaMemcpyHostToDevice));
    if (at.blocks == 0) {
        Run r = {};
        r.data = d_in64 + offset, r.n = n, r.out = (float *)d_wide, r.sm_count = sm_count, r.partials = d_out;
        run_windows_f64(&r);
        if (r.refuse) {
            printf("  FAIL windows_f64 refused N=%llu: %s\n", (unsigned long long)n, r.refuse);
            *narrow = NAN;
            return NAN;
        }
    } else if (at.threads == BLOCK) {
        window_sum_f64<BLOCK><<<at.blocks, BLOCK>>>(d_in64 + offset, n, d_wide, d_out);
    } else {
        window_sum_f64<OTHER_BLOCK><<<at.blocks, OTHER_BLOCK>>>(d_in64 + offset, n, d_wide, d_out);
    }
    LAUNCH_CHECK("exact fp64 sum");
    double wide;
    CUDA_CHECK(cudaMemcpy(narrow, d_out, sizeof *narrow, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&wide, d_wide, sizeof wide, cudaMemcpyDeviceToHost));
    return wide;
}

/* Bit for bit, the sign of a zero included (any NaN is a NaN). */
static int same_bits(double a, double b) { return double_bits(a) == double_bits(b) || (a != a && b != b); }
static int same_bits32(float a, float b) { return float_bits(a) == float_bits(b) || (a != a && b != b); }

/* windows_f64 at every shape of check_exact and from two starts (8 bytes apart: one of them not on a 16-byte
 * boundary), against the host's exact sum of fp64, both roundings; the bits printed once. */
static void check_exact64(const char *name, const double *x, uint64_t n)
{
    Reference ref = reference_sum_f64(x, n);
    const LaunchShape shapes[] = {{0, BLOCK}, {1, BLOCK}, {(unsigned)(sm_count / 3 ? sm_count / 3 : 1), BLOCK},
                                  {(unsigned)sm_count * 16, BLOCK}, {(unsigned)sm_count * 2, OTHER_BLOCK}};
    int bad = 0;
    for (unsigned g = 0; g < sizeof shapes / sizeof shapes[0]; g++)
        for (uint64_t offset = 0; offset < 2; offset++) {
            float narrow;
            double wide = exact64_on_gpu(x, n, offset, shapes[g], &narrow);
            checks++;
            if (!same_bits(wide, ref.sum) || !same_bits32(narrow, ref.sum32)) {
                bad++;
                printf("  FAIL fp64 %s N=%llu %u blocks of %u offset %llu: %a / %a, exact %a / %a\n", name,
                       (unsigned long long)n, shapes[g].blocks, shapes[g].threads, (unsigned long long)offset, wide,
                       narrow, ref.sum, ref.sum32);
            }
        }
    failures += bad;
    printf("bits: fp64 %-23s N = %-9llu fp32 %08x  fp64 %016llx  %s\n", name, (unsigned long long)n,
           float_bits(ref.sum32), (unsigned long long)double_bits(ref.sum),
           bad ? "FAIL" : "exact, every shape and start");
}

static float random_finite(uint64_t *s)
{
    uint32_t b;
    do b = (uint32_t)next_random(s); while ((b >> 23 & 0xffu) == 0xffu);
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Data made to break sums, value i of N (the same on every machine). */
static void make(const char *kind, float *x, uint64_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next_random(&s);
        float v;
        if (!strcmp(kind, "cancellation")) { /* 1e30, 1, -1e30, ...: the 1s are all that is left */
            static const float cycle[] = {1e30f, 1.0f, -1e30f, 3.5f, -1e20f, 1e20f};
            v = cycle[i % 6];
        } else if (!strcmp(kind, "subnormals")) {
            uint32_t b = (uint32_t)r & 0x807fffffu;
            memcpy(&v, &b, sizeof v);
        } else if (!strcmp(kind, "every exponent")) {
            v = random_finite(&s);
        } else if (!strcmp(kind, "past FLT_MAX")) { /* finite in fp64, Inf in fp32 */
            v = r % 4 ? 3e38f : -1e38f;
        } else if (!strcmp(kind, "ties")) { /* 1 + 2^-24 (a tie) + tiny values that break it */
            v = i == 0 ? 1.0f : i == 1 ? 0x1p-24f : i % 2 ? 0x1p-100f : -0x1p-100f;
        } else if (!strcmp(kind, "NaN")) {
            v = i == n / 2 ? NAN : 1.0f;
        } else if (!strcmp(kind, "+Inf and -Inf")) {
            v = i == n / 3 ? INFINITY : i == n / 2 && n > 1 ? -INFINITY : 1.0f;
        } else if (!strcmp(kind, "-Inf")) {
            v = i == n / 2 ? -INFINITY : 1.0f;
        } else { /* shifted: the bench's data */
            v = (float)(r >> 40) * 0x1p-23f - 0.5f;
        }
        x[i] = v;
    }
}

/* Fisher-Yates, drawing from the generator's state *s. */
template <typename T>
static void shuffle(T *x, uint64_t n, uint64_t *s)
{
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = next_random(s) % (i + 1);
        T t = x[i];
        x[i] = x[j], x[j] = t;
    }
}

/* The exact sum of x[0..n) at the launcher's shape (windows_f32, windows_f64), and whether it is ref's: fp32
 * input's as check_exact compares it, fp64 input's as check_exact64 does. */
static int launcher_is_exact(const float *x, uint64_t n, const Reference &ref)
{
    double wide;
    float f = exact_on_gpu(WINDOWS_KERNEL, x, n, 0, LaunchShape{0, BLOCK}, &wide);
    return same(f, ref.sum32) && same(wide, ref.sum);
}
static int launcher_is_exact(const double *x, uint64_t n, const Reference &ref)
{
    float narrow;
    double wide = exact64_on_gpu(x, n, 0, LaunchShape{0, BLOCK}, &narrow);
    return same_bits(wide, ref.sum) && same_bits32(narrow, ref.sum32);
}

/* Ten shuffles of x[0..n), whose exact sum is ref's, each summed at the launcher's shape: 1 where every sum
 * was ref's. */
template <typename T>
static int ten_shuffles(T *x, uint64_t n, const Reference &ref, uint64_t *s)
{
    int all_exact = 1;
    for (int p = 0; p < 10; p++) {
        shuffle(x, n, s);
        int exact = launcher_is_exact(x, n, ref);
        checks++;
        if (!exact) all_exact = 0, failures++;
    }
    return all_exact;
}

int main(void)
{
    require_gpu();
    GpuInfo gpu;
    open_gpu(&gpu);
    sm_count = gpu.sm_count;
    const uint64_t big = (1u << 24) + 1;
    float *x = (float *)malloc(big * sizeof(float)), *shuffled = (float *)malloc(big * sizeof(float));
    d_in = (float *)device_alloc((big + 4) * sizeof(float), "the input");
    d_out = (float *)device_alloc(sizeof(float), "the result");
    d_wide = (double *)device_alloc(PARTIALS_CAPACITY(big) * sizeof(float), "the fp64 result and the float sums' partials");
    d_in64 = (double *)device_alloc((big + 2) * sizeof(double), "the fp64 input");
    double *x64 = (double *)malloc(big * sizeof(double));
    printf("%s, %d SMs\n\n", gpu.name, gpu.sm_count);

    /* 1. Order matters. */
    const uint64_t n = 1u << 24;
    make("shifted", x, n, 1);
    memcpy(shuffled, x, n * sizeof(float));
    uint64_t s = 7;
    shuffle(shuffled, n, &s);
    Reference ref = reference_sum(x, n);
    printf("1. Order matters: 2^24 values of the bench's data; the exact sum, rounded once: %.9g (fp32 %08x)\n",
           ref.sum32, float_bits(ref.sum32));
    printf("   %-44s %-16s %s\n", "", "fp32 result", "bits");
    unsigned grids[] = {1, (unsigned)sm_count, 8u * sm_count};
    const char *names[] = {"float_one_block", "float_block_per_sm", "float_8_blocks_per_sm"};
    for (int copy = 0; copy < 2; copy++)
        for (int g = 0; g < 3; g++) {
            CUDA_CHECK(cudaMemcpy(d_in, copy ? shuffled : x, n * sizeof(float), cudaMemcpyHostToDevice));
            float_sum<<<grids[g], BLOCK>>>(d_in, n, d_out, (float *)d_wide);
            LAUNCH_CHECK("float_sum");
            float f;
            CUDA_CHECK(cudaMemcpy(&f, d_out, sizeof f, cudaMemcpyDeviceToHost));
            printf("   %-22s %-21s %-16.9g %08x\n", names[g], copy ? "(the data shuffled)" : "", f,
                   float_bits(f));
        }
    for (int copy = 0; copy < 2; copy++)
        for (unsigned g = 0; g < 3; g++) {
            double wide;
            float f = exact_on_gpu(WINDOWS_KERNEL, copy ? shuffled : x, n, 0, LaunchShape{grids[g], BLOCK}, &wide);
            printf("   windows_f32, %-8u blocks %-21s %-16.9g %08x%s\n", grids[g], copy ? "(the data shuffled)" : "", f,
                   float_bits(f), same(f, ref.sum32) ? "" : "  FAIL: not the exact sum");
            failures += !same(f, ref.sum32);
        }

    /* 2. The exact sum on data made to break sums. */
    printf("\n2. The exact kernels against the host's exact sum, fp32 and fp64: digits at 4 grids of %d threads, "
           "windows_f32 at those and %u blocks of %d, from 2 starts\n", BLOCK, 2u * sm_count, OTHER_BLOCK);
    const char *kinds[] = {"shifted", "cancellation", "subnormals", "every exponent", "past FLT_MAX", "ties", "NaN",
                           "+Inf and -Inf", "-Inf"};
    uint64_t sizes[] = {1, 31, 33, 1000003, big};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            make(kinds[k], x, sizes[z], 11 + k);
            check_exact(kinds[k], x, sizes[z]);
        }

    /* 3. Ten shuffles of values of every exponent. */
    const uint64_t m = 1000003;
    make("every exponent", x, m, 99);
    ref = reference_sum(x, m);
    int same_bits_all = ten_shuffles(x, m, ref, &s);
    printf("\n3. Ten shuffles of 10^6 values of every exponent: %s (fp32 %08x, fp64 %016llx)\n",
           same_bits_all ? "the same bits every time, the exact sum" : "FAIL", float_bits(ref.sum32),
           (unsigned long long)double_bits(ref.sum));

    /* 4. fp64 input. */
    printf("\n4. windows_f64 against the host's exact sum of fp64, rounded once to fp64 and to fp32: at the shapes "
           "of 2., from 2 starts\n");
    const char *kinds64[] = {"shifted", "cancellation", "subnormals", "every exponent", "past DBL_MAX", "ties",
                             "ties, a sticky bit", "wider than the windows", "NaN", "+Inf and -Inf", "-Inf", "-0",
                             "-0 and one +0"};
    for (size_t k = 0; k < sizeof kinds64 / sizeof kinds64[0]; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            make64(kinds64[k], x64, sizes[z], 31 + k);
            check_exact64(kinds64[k], x64, sizes[z]);
        }
    make64("every exponent", x64, m, 99);
    ref = reference_sum_f64(x64, m);
    same_bits_all = ten_shuffles(x64, m, ref, &s);
    printf("bits: fp64 ten shuffles of 10^6 values of every exponent: %s (fp32 %08x, fp64 %016llx)\n",
           same_bits_all ? "the same bits every time, the exact sum" : "FAIL", float_bits(ref.sum32),
           (unsigned long long)double_bits(ref.sum));

    printf("\n%d exact results checked, %d not the host's exact sum\n", checks, failures);
    free(x64);
    free(x);
    free(shuffled);
    return failures ? 1 : 0;
}

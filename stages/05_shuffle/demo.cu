/* Two demos. What each warp shuffle returns, lane by lane (warp shuffle article §1-3): every lane
 * offers its own lane id, so the table shows which lane each lane read from, and every value is checked
 * against the rule the CUDA programming guide gives for it. Then a float maximum built from atomicCAS
 * (course chapter §7.4), every block on one address, checked against the host's maximum, with the
 * compare-and-swaps it made and how many of them failed and were retried. Exits 1 if a value differs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exit_codes.h"
#include "gpu.h"
#include "stage.h"

#define FULL_MASK 0xffffffffu
#define CASES 11

static const char *case_names[CASES] = {
    "__shfl_sync(srcLane 5)",           "__shfl_sync(srcLane 5, width 16)",
    "__shfl_sync(srcLane 17, width 16)", "__shfl_up_sync(delta 2, width 16)",
    "__shfl_down_sync(delta 2, width 16)", "__shfl_xor_sync(laneMask 1)",
    "__shfl_xor_sync(laneMask 3)",       "__shfl_xor_sync(laneMask 16)",
    "__shfl_down_sync(delta 16)",        "__shfl_xor_sync(laneMask 16, width 16)",
    "__shfl_xor_sync(laneMask 8, width 8)",
};

__global__ void shuffle_demo(int *out)
{
    int lane = threadIdx.x;
    int v = lane;
    out[0 * 32 + lane] = __shfl_sync(FULL_MASK, v, 5);
    out[1 * 32 + lane] = __shfl_sync(FULL_MASK, v, 5, 16);
    out[2 * 32 + lane] = __shfl_sync(FULL_MASK, v, 17, 16);
    out[3 * 32 + lane] = __shfl_up_sync(FULL_MASK, v, 2, 16);
    out[4 * 32 + lane] = __shfl_down_sync(FULL_MASK, v, 2, 16);
    out[5 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 1);
    out[6 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 3);
    out[7 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 16);
    out[8 * 32 + lane] = __shfl_down_sync(FULL_MASK, v, 16);
    out[9 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 16, 16);
    out[10 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 8, 8);
}

/* xor with width < 32, the programming guide's rule (the warp shuffle article's §3 words it wrongly:
 * see the README): a lane may read a lane of its own group or of an earlier group; a source in a later
 * group gives the lane back its own value. */
static int xor_in_groups(int lane, int mask, int width)
{
    int source = lane ^ mask;
    return source < (lane / width + 1) * width ? source : lane;
}

/* The source lane of each case, as the programming guide defines it. A lane whose source would fall
 * outside its group of `width` lanes keeps its own value (up/down). */
static int expected(int c, int lane)
{
    int group = lane / 16 * 16, in_group = lane % 16;
    switch (c) {
    case 0: return 5;
    case 1: return group + 5;
    case 2: return group + 17 % 16;
    case 3: return in_group >= 2 ? lane - 2 : lane;
    case 4: return in_group + 2 < 16 ? lane + 2 : lane;
    case 5: return lane ^ 1;
    case 6: return lane ^ 3;
    case 7: return lane ^ 16;
    case 8: return lane + 16 < 32 ? lane + 16 : lane;
    case 9: return xor_in_groups(lane, 16, 16);
    default: return xor_in_groups(lane, 8, 8);
    }
}

/* Course chapter §7.4 calls atomicCAS the general optimistic-lock primitive: read the word, compute
 * the new value, and swap it in only if the word still holds what was read; if another thread changed
 * it in between, the CAS fails and returns the value now there, and the loop tries again against that.
 * CUDA has no float atomicMax, so the maximum is built that way. Its order: a NaN never beats anything
 * (skipped, as fmaxf skips it) and +0 beats -0, so the result does not depend on which thread gets
 * there first. */
__device__ bool beats(float v, float current)
{
    return !isnan(v) && (isnan(current) || v > current ||
                         (v == 0.0f && current == 0.0f && signbit(current) && !signbit(v)));
}

/* *calls counts the CAS operations made, *retries those that found the word changed. */
__device__ void atomic_max_float_cas(float *address, float v, unsigned *calls, unsigned *retries)
{
    unsigned *word = (unsigned *)address;
    unsigned seen = *(volatile unsigned *)word;
    while (beats(v, __uint_as_float(seen))) { /* a value that does not beat the word's makes no CAS */
        unsigned before = atomicCAS(word, seen, __float_as_uint(v));
        ++*calls;
        if (before == seen) return;
        seen = before;
        ++*retries;
    }
}

#define MAX_BLOCK 256
#define MAX_N (1u << 20)

/* The warp's totals of calls and retries, added by lane 0 (every lane of the warp gets here). */
__device__ void add_counts(unsigned long long *counts, unsigned calls, unsigned retries)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        calls += __shfl_down_sync(FULL_MASK, calls, offset);
        retries += __shfl_down_sync(FULL_MASK, retries, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&counts[0], (unsigned long long)calls);
        atomicAdd(&counts[1], (unsigned long long)retries);
    }
}

/* Every element straight onto the one address: a CAS loop per thread. */
__global__ void max_cas_per_thread(const float *x, uint64_t n, float *out, unsigned long long *counts)
{
    uint64_t i = (uint64_t)blockIdx.x * MAX_BLOCK + threadIdx.x;
    unsigned calls = 0, retries = 0;
    if (i < n) atomic_max_float_cas(out, x[i], &calls, &retries);
    add_counts(counts, calls, retries);
}

__device__ float warp_max(float v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        float other = __shfl_down_sync(FULL_MASK, v, offset);
        if (beats(other, v)) v = other;
    }
    return v;
}

/* The block's maximum first (shuffles, the warps' maxima through shared memory, as this stage's sums),
 * then one CAS loop per block. */
__global__ void max_cas_per_block(const float *x, uint64_t n, float *out, unsigned long long *counts)
{
    __shared__ float warp_maxima[MAX_BLOCK / 32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * MAX_BLOCK + tid;
    unsigned calls = 0, retries = 0;
    float v = warp_max(i < n ? x[i] : -INFINITY);
    if (lane == 0) warp_maxima[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_max(lane < MAX_BLOCK / 32 ? warp_maxima[lane] : -INFINITY);
        if (lane == 0) atomic_max_float_cas(out, v, &calls, &retries);
    }
    add_counts(counts, calls, retries);
}

/* The host's maximum, by the same rule written another way: the largest non-NaN value in fp64, then
 * +0 where there is one and the largest is a zero; -inf where every value is NaN. */
static float host_max(const float *x, uint64_t n)
{
    double m = -INFINITY;
    int plus_zero = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (isnan(x[i])) continue;
        m = fmax(m, x[i]);
        plus_zero |= x[i] == 0.0f && !signbit(x[i]);
    }
    return m == 0.0 ? (plus_zero ? 0.0f : -0.0f) : (float)m;
}

/* Uniform in [lo, hi) from a 32-bit xorshift state. */
static float uniform(unsigned *state, float lo, float hi)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return lo + (hi - lo) * (float)(*state >> 8) / 16777216.0f;
}

#define MAX_CASES 7
static const char *max_case_names[MAX_CASES] = {
    "ascending, -n/2 .. n/2 - 1", "descending, n/2 - 1 .. -n/2", "random in [-1, 1), NaN every 1000th",
    "random in [-2, -1), NaN every 1000th", "negative, some -0, one +0", "negative, some -0",
    "NaN only",
};

static void fill_max_case(int c, float *x, uint64_t n)
{
    unsigned state = 2463534242u;
    float half = (float)(n / 2);
    for (uint64_t i = 0; i < n; i++) {
        switch (c) {
        case 0: x[i] = (float)i - half; break;
        case 1: x[i] = half - 1.0f - (float)i; break;
        case 2: x[i] = i % 1000 == 999 ? NAN : uniform(&state, -1.0f, 1.0f); break;
        case 3: x[i] = i % 1000 == 999 ? NAN : uniform(&state, -2.0f, -1.0f); break;
        case 4: x[i] = i == n / 3 ? 0.0f : i % 97 == 0 ? -0.0f : uniform(&state, -2.0f, -1.0f); break;
        case 5: x[i] = i % 97 == 0 ? -0.0f : uniform(&state, -2.0f, -1.0f); break;
        default: x[i] = NAN;
        }
    }
}

/* One kernel on one case: its result's bits against the host's; its counts printed. */
static int run_max(void (*kernel)(const float *, uint64_t, float *, unsigned long long *), const char *name,
                   const float *d_x, uint64_t n, float expect, float *d_out, unsigned long long *d_counts)
{
    static const float minus_inf = -INFINITY;
    unsigned long long counts[2];
    float got;
    CUDA_CHECK(cudaMemcpy(d_out, &minus_inf, sizeof minus_inf, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_counts, 0, sizeof counts));
    kernel<<<(unsigned)((n + MAX_BLOCK - 1) / MAX_BLOCK), MAX_BLOCK>>>(d_x, n, d_out, d_counts);
    LAUNCH_CHECK(name);
    CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    int ok = memcmp(&got, &expect, sizeof got) == 0;
    printf("  %12llu %10llu%s", counts[0], counts[1], ok ? "" : "!");
    if (!ok) printf(" (%s gave %g)", name, got);
    return ok;
}

/* The maximum of each case by both kernels; returns how many results differ from the host's. */
static int max_demo(void)
{
    static float x[MAX_N];
    float *d_x = (float *)device_alloc(sizeof x, "the maximum's data");
    float *d_out = (float *)device_alloc(sizeof(float), "the maximum");
    unsigned long long *d_counts = (unsigned long long *)device_alloc(2 * sizeof(unsigned long long), "the counts");
    printf("\nA float maximum from atomicCAS (course chapter §7.4), every block on one address. NaN is skipped\n"
           "(as fmaxf skips it), +0 beats -0, the maximum of no value is -inf; a CAS that finds the word\n"
           "changed since it was read fails and is retried.\n\n"
           "%-38s %10s%-25s%s\n", "", "", "  a CAS loop per thread", "  one per block of 256");
    char data[64];
    snprintf(data, sizeof data, "data (n = %u)", MAX_N);
    printf("%-38s %10s  %12s %10s  %12s %10s\n", data, "max", "CAS calls", "retries", "CAS calls", "retries");
    int wrong = 0;
    for (int c = 0; c < MAX_CASES; c++) {
        fill_max_case(c, x, MAX_N);
        float expect = host_max(x, MAX_N);
        CUDA_CHECK(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
        printf("%-38s %10g", max_case_names[c], expect);
        wrong += !run_max(max_cas_per_thread, "max_cas_per_thread", d_x, MAX_N, expect, d_out, d_counts);
        wrong += !run_max(max_cas_per_block, "max_cas_per_block", d_x, MAX_N, expect, d_out, d_counts);
        printf("\n");
    }
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_counts));
    if (wrong) printf("%d maxima differ from the host's (marked !)\n", wrong);
    else printf("all %d maxima match the host's, bit for bit, in both kernels\n", 2 * MAX_CASES);
    return wrong;
}

int main(void)
{
    require_gpu();
    int *d_out, h_out[CASES * 32];
    CUDA_CHECK(cudaMalloc(&d_out, sizeof h_out));
    shuffle_demo<<<1, 32>>>(d_out);
    LAUNCH_CHECK("shuffle_demo");
    CUDA_CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));

    printf("Each lane offers its lane id; a row shows what lanes 0..31 get back.\n\n%-40s", "lane");
    for (int lane = 0; lane < 32; lane++) printf("%3d", lane);
    printf("\n");
    int wrong = 0;
    for (int c = 0; c < CASES; c++) {
        printf("%-40s", case_names[c]);
        for (int lane = 0; lane < 32; lane++) {
            int ok = h_out[c * 32 + lane] == expected(c, lane);
            wrong += !ok;
            printf("%3d%s", h_out[c * 32 + lane], ok ? "" : "!");
        }
        printf("\n");
    }
    printf("\nsrcLane >= width reads lane srcLane %% width of the group; up/down leave a lane unchanged when\n"
           "its source is outside its group of width lanes; xor swaps lanes whose ids differ in laneMask's bits,\n"
           "and with width < 32 a lane whose partner is in a later group keeps its own value.\n");
    if (wrong) printf("%d values differ from the programming guide's rule (marked !)\n", wrong);
    else printf("all %d values match the programming guide's rules\n", CASES * 32);
    wrong += max_demo();
    return wrong ? EXIT_VERIFY : EXIT_OK;
}

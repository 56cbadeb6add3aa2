/* The chapter's §7.5, question 1: is a warp shuffle about twice as fast as shared memory? The same
 * reductions done both ways, a warp's sum and a 256-thread block's sum, each repeated many times on
 * values held in registers, so that no load from DRAM is timed, only the reduction. Each repetition
 * waits for the one before, so with one block per SM the time of a repetition is the latency of one
 * reduction; with as many blocks as fit on an SM, the SM runs that many at once and the time is set
 * by how fast it works through them. The values are small integers, every sum is exact, and the
 * program checks both ways' results against the exact sum: exit 1 if one differs. */
#include <stdio.h>

#include "common.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define REPS 4096 /* repetitions per launch: milliseconds per launch, far above the launch's own cost */
#define RUNS 5    /* timed launches, the median reported */

/* A warp's sum by the xor butterfly: in each of its 5 steps every lane adds the value of the lane
 * whose id differs in one bit. SHUFFLE: that value comes through __shfl_xor_sync, register to
 * register; otherwise through the warp's 32 floats of shared memory: a store, __syncwarp, the load,
 * and __syncwarp again before the next store overwrites a value a partner has yet to read. The same
 * additions in the same order, and every lane ends with the sum either way. */
template <bool SHUFFLE>
__device__ __forceinline__ float warp_sum(float v, float *mine)
{
    unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
        if (SHUFFLE) {
            v += __shfl_xor_sync(FULL_MASK, v, m);
        } else {
            mine[lane] = v;
            __syncwarp();
            v += mine[lane ^ m];
            __syncwarp();
        }
    }
    return v;
}

/* A block's sum as stage 08's block_sum forms it: each warp's sum, the 8 warp sums through shared
 * memory and a barrier, then each warp adds them the same way (so every thread has the block's sum),
 * and a second barrier before the warp sums are written again. Only warp_sum differs. */
template <bool SHUFFLE>
__device__ __forceinline__ float block_sum(float v, float *scratch, float *warp_sums)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum<SHUFFLE>(v, scratch + warp * 32);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = warp_sum<SHUFFLE>(lane < WARPS ? warp_sums[lane] : 0.0f, scratch + warp * 32);
    __syncthreads();
    return v;
}

/* REPS reductions of the values 0, 1, 2, 3, 0, 1, ... (thread id mod 4); each block's total to out.
 * x + s * 0 makes the next reduction wait for this one; the compiler may not drop it, since s * 0 is
 * not 0 for every float s (Inf, NaN). */
template <bool SHUFFLE, bool WHOLE_BLOCK>
__global__ void __launch_bounds__(BLOCK) repeated_sums(float *out)
{
    __shared__ float scratch[BLOCK];
    __shared__ float warp_sums[WARPS];
    float x = (float)(threadIdx.x % 4), total = 0.0f;
    for (int r = 0; r < REPS; r++) {
        float s = WHOLE_BLOCK ? block_sum<SHUFFLE>(x, scratch, warp_sums)
                              : warp_sum<SHUFFLE>(x, scratch + threadIdx.x / 32 * 32);
        total += s;
        x = fmaf(s, 0.0f, x);
    }
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

typedef void (*RepeatFn)(float *);

/* The median time of one repetition of kernel on blocks blocks, in ns, after one untimed launch; wrong
 * counts the blocks whose total is not REPS times the exact sum. */
static double time_repetition(RepeatFn kernel, unsigned blocks, float exact, float *d_out, float *h_out, int *wrong)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double ns[RUNS];
    for (int run = -1; run < RUNS; run++) {
        CUDA_CHECK(cudaEventRecord(start));
        kernel<<<blocks, BLOCK>>>(d_out);
        LAUNCH_CHECK("repeated_sums");
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (run >= 0) ns[run] = ms * 1e6 / REPS;
    }
    CUDA_CHECK(cudaMemcpy(h_out, d_out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < blocks; b++) *wrong += h_out[b] != exact * REPS;
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median(ns, RUNS);
}

static unsigned blocks_per_sm(RepeatFn kernel)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
    return (unsigned)per_sm;
}

int main(void)
{
    GpuInfo gpu;
    open_gpu(&gpu);
    const struct {
        const char *level;
        RepeatFn shuffle, shared;
        float exact; /* the sum of 0, 1, 2, 3, ... over a warp or a block */
    } levels[] = {
        {"warp (32 values)", repeated_sums<true, false>, repeated_sums<false, false>, 32 / 4 * 6.0f},
        {"block (256 values)", repeated_sums<true, true>, repeated_sums<false, true>, BLOCK / 4 * 6.0f},
    };
    unsigned full = blocks_per_sm(levels[0].shuffle);
    for (int l = 0; l < 2; l++) {
        if (blocks_per_sm(levels[l].shuffle) < full) full = blocks_per_sm(levels[l].shuffle);
        if (blocks_per_sm(levels[l].shared) < full) full = blocks_per_sm(levels[l].shared);
    }
    float *d_out, *h_out;
    CUDA_CHECK(cudaMalloc(&d_out, (size_t)gpu.sm_count * full * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, (size_t)gpu.sm_count * full * sizeof(float)));

    printf("The chapter's §7.5, question 1: a warp's and a block's sum by shuffles and by shared memory, on\n"
           "%s (%d SMs); %d reductions in a row on values in registers, median of %d launches.\n"
           "ns: the time of one repetition, all blocks each doing one reduction; with 1 block per SM that is\n"
           "one reduction's latency, with %u the SM works through %u at once.\n\n",
           gpu.name, gpu.sm_count, REPS, RUNS, full, full);
    printf("%-20s %14s %14s %20s %18s\n", "reduction", "blocks per SM", "shuffles (ns)", "shared memory (ns)",
           "shared / shuffles");
    int wrong = 0;
    for (int l = 0; l < 2; l++) {
        unsigned per_sm[2] = {1, full};
        for (int c = 0; c < 2; c++) {
            unsigned blocks = (unsigned)gpu.sm_count * per_sm[c];
            double shuffle = time_repetition(levels[l].shuffle, blocks, levels[l].exact, d_out, h_out, &wrong);
            double shared = time_repetition(levels[l].shared, blocks, levels[l].exact, d_out, h_out, &wrong);
            printf("%-20s %14u %14.1f %20.1f %17.2fx\n", levels[l].level, per_sm[c], shuffle, shared, shared / shuffle);
        }
    }
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_out));
    if (wrong) {
        printf("\n%d block totals differ from the exact sum\n", wrong);
        return EXIT_VERIFY;
    }
    printf("\nevery block's total is the exact sum, by shuffles and by shared memory\n");
    return EXIT_OK;
}

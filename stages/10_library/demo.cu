/* 1. The chapter's §7.5, question 1: is a warp shuffle about twice as fast as shared memory? The same
 * reductions done both ways, a warp's sum and a 256-thread block's sum, each repeated many times on
 * values held in registers, so that no load from DRAM is timed, only the reduction. Each repetition
 * waits for the one before, so with one block per SM the time of a repetition is the latency of one
 * reduction; with as many blocks as fit on an SM, the SM runs that many at once and the time is set
 * by how fast it works through them.
 * 2. The chapter's §7.8.5, cg::labeled_partition: a sum per label, the threads of a warp grouped by a
 * label read at run time, against an atomic per element and against __match_any_sync by hand.
 * The values of both are small integers, every sum is exact, and the program checks every result
 * against the exact sum: exit 1 if one differs. */
#include <stdio.h>

#include "exit_codes.h"
#include "gpu.h"
#include "result.h"
#include "stage.h"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

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

/* Part 1: the §7.5 table; the number of block totals that are not the exact sum. */
static int shuffles_against_shared_memory(const GpuInfo *gpu)
{
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
    CUDA_CHECK(cudaMalloc(&d_out, (size_t)gpu->sm_count * full * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_out, (size_t)gpu->sm_count * full * sizeof(float)));

    printf("The chapter's §7.5, question 1: a warp's and a block's sum by shuffles and by shared memory, on\n"
           "%s (%d SMs); %d reductions in a row on values in registers, median of %d launches.\n"
           "ns: the time of one repetition, all blocks each doing one reduction; with 1 block per SM that is\n"
           "one reduction's latency, with %u the SM works through %u at once.\n\n",
           gpu->name, gpu->sm_count, REPS, RUNS, full, full);
    printf("%-20s %14s %14s %20s %18s\n", "reduction", "blocks per SM", "shuffles (ns)", "shared memory (ns)",
           "shared / shuffles");
    int wrong = 0;
    for (int l = 0; l < 2; l++) {
        unsigned per_sm[2] = {1, full};
        for (int c = 0; c < 2; c++) {
            unsigned blocks = (unsigned)gpu->sm_count * per_sm[c];
            double shuffle = time_repetition(levels[l].shuffle, blocks, levels[l].exact, d_out, h_out, &wrong);
            double shared = time_repetition(levels[l].shared, blocks, levels[l].exact, d_out, h_out, &wrong);
            printf("%-20s %14u %14.1f %20.1f %17.2fx\n", levels[l].level, per_sm[c], shuffle, shared, shared / shuffle);
        }
    }
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFreeHost(h_out));
    if (wrong)
        printf("\n%d block totals differ from the exact sum\n", wrong);
    else
        printf("\nevery block's total is the exact sum, by shuffles and by shared memory\n");
    return wrong;
}

/* ---- 2. §7.8.5: a sum per label, threads grouped by cg::labeled_partition ---------------------- */

#define LABELED_N (1u << 22) /* values 0 to 3: every label's sum, and every partial sum, below 2^24 */
#define MAX_LABELS 1024

/* The sum of v over this lane's group (the lanes of peers, this one among them), in the group's lowest
 * lane, written by hand on __match_any_sync's mask. Each round the group's live lanes pair up in order:
 * a lane at an even position takes the value of the next live lane above it, and the lanes at odd
 * positions drop out, so ceil(log2(group size)) rounds of one shuffle and one ballot. Every lane of the
 * warp takes part in every round (the shuffles name the whole warp); a dropped lane reads its own value. */
__device__ __forceinline__ float sum_over_peers(unsigned peers, float v)
{
    unsigned lane = threadIdx.x % 32;
    unsigned above = peers & ~((2u << lane) - 1u);        /* the group's lanes above this one */
    unsigned position = __popc(peers & ((1u << lane) - 1u)); /* this lane's rank in its group */
    unsigned live = FULL_MASK;                            /* lanes that still hold a partial sum */
    while (__any_sync(FULL_MASK, (above & live) != 0)) {
        int partner = __ffs(above & live) - 1; /* the next live lane of the group above this one, or -1 */
        float theirs = __shfl_sync(FULL_MASK, v, partner < 0 ? (int)lane : partner);
        bool keeps = (live >> lane & 1u) && position % 2 == 0;
        if (keeps && partner >= 0) v += theirs;
        live = __ballot_sync(FULL_MASK, keeps);
        position /= 2;
    }
    return v;
}

enum { PER_ELEMENT, MATCH_BY_HAND, LABELED_PARTITION };

/* sums[label[i]] += x[i] for every i, each warp taking 32 consecutive elements at a time, a grid apart.
 * The loop runs the same steps in every lane (base is the warp's), so that the whole warp takes part in
 * every match and shuffle; a lane past n holds the label `labels`, no label of the data, and the value 0,
 * and adds nothing. PER_ELEMENT: one atomicAdd per element. MATCH_BY_HAND: __match_any_sync, the tree of
 * sum_over_peers, one atomicAdd per group. LABELED_PARTITION: the same with cooperative groups. */
template <int METHOD>
__global__ void __launch_bounds__(BLOCK) sums_per_label(const float *x, const int *label, uint64_t n, int labels,
                                                        float *sums)
{
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    uint64_t step = (uint64_t)gridDim.x * BLOCK;
    for (uint64_t base = (uint64_t)blockIdx.x * BLOCK + warp.meta_group_rank() * 32; base < n; base += step) {
        uint64_t i = base + warp.thread_rank();
        float v = i < n ? x[i] : 0.0f;
        int key = i < n ? label[i] : labels;
        if (METHOD == PER_ELEMENT) {
            if (key < labels) atomicAdd(&sums[key], v);
        } else if (METHOD == MATCH_BY_HAND) {
            unsigned peers = __match_any_sync(FULL_MASK, key);
            v = sum_over_peers(peers, v);
            if (key < labels && (int)warp.thread_rank() == __ffs(peers) - 1) atomicAdd(&sums[key], v);
        } else {
            cg::coalesced_group group = cg::labeled_partition(warp, key); /* the warp's lanes with this key */
            v = cg::reduce(group, v, cg::plus<float>());
            if (key < labels && group.thread_rank() == 0) atomicAdd(&sums[key], v);
        }
    }
}

typedef void (*LabelFn)(const float *, const int *, uint64_t, int, float *);

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The median time of kernel over the input, in us, after one untimed launch; sums zeroed before every
 * launch, outside the timed region. wrong counts the labels whose sum is not the exact one. */
static double time_per_label(LabelFn kernel, const GpuInfo *gpu, const float *x, const int *label, int labels,
                             float *sums, float *h_sums, const double *exact, int *wrong)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
    unsigned blocks = (unsigned)gpu->sm_count * (unsigned)per_sm, needed = (LABELED_N + BLOCK - 1) / BLOCK;
    if (blocks > needed) blocks = needed;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double us[RUNS];
    for (int run = -1; run < RUNS; run++) {
        CUDA_CHECK(cudaMemsetAsync(sums, 0, labels * sizeof(float)));
        CUDA_CHECK(cudaEventRecord(start));
        kernel<<<blocks, BLOCK>>>(x, label, LABELED_N, labels, sums);
        LAUNCH_CHECK("sums_per_label");
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (run >= 0) us[run] = ms * 1e3;
    }
    CUDA_CHECK(cudaMemcpy(h_sums, sums, labels * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < labels; k++) *wrong += h_sums[k] != exact[k];
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median(us, RUNS);
}

/* Part 2: a sum per label on four patterns of labels; the number of label sums that are not exact. */
static int sums_per_label_table(const GpuInfo *gpu)
{
    const struct {
        const char *name;
        int labels, run; /* label of element i: a hash of i / run, mod labels */
    } patterns[] = {
        {"4 labels, at random", 4, 1},
        {"4 labels, runs of 32", 4, 32},
        {"32 labels, at random", 32, 1},
        {"1024 labels, at random", MAX_LABELS, 1},
    };
    float *x, *sums, *h_x, *h_sums;
    int *label, *h_label;
    double exact[MAX_LABELS]; /* each label's sum, on the host: exact (integers below 2^24) */
    CUDA_CHECK(cudaMalloc(&x, LABELED_N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&label, LABELED_N * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&sums, MAX_LABELS * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_x, LABELED_N * sizeof(float)));
    CUDA_CHECK(cudaMallocHost(&h_label, LABELED_N * sizeof(int)));
    CUDA_CHECK(cudaMallocHost(&h_sums, MAX_LABELS * sizeof(float)));
    for (uint64_t i = 0; i < LABELED_N; i++) h_x[i] = (float)(mix(i) % 4);
    CUDA_CHECK(cudaMemcpy(x, h_x, LABELED_N * sizeof(float), cudaMemcpyHostToDevice));

    printf("\nThe chapter's §7.8.5, cg::labeled_partition: a sum per label, 2^22 values (0 to 3) and their labels\n"
           "(int32) read from memory, L2 not flushed between launches; us: median of %d launches.\n"
           "groups: distinct labels per 32 elements, on average (the atomics per warp of the last two columns).\n\n",
           RUNS);
    printf("%-24s %7s %24s %24s %32s\n", "labels", "groups", "atomic per element (us)", "match_any by hand (us)",
           "labeled_partition + reduce (us)");
    int wrong = 0;
    for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
        int labels = patterns[p].labels;
        for (int k = 0; k < labels; k++) exact[k] = 0.0;
        uint64_t groups = 0;
        for (uint64_t i = 0; i < LABELED_N; i++) {
            h_label[i] = (int)(mix(i / patterns[p].run + 0x5bd1e995ull) % (uint64_t)labels);
            exact[h_label[i]] += h_x[i];
            int seen = 0; /* this label already among the earlier elements of the warp's 32? */
            for (uint64_t j = i - i % 32; j < i && !seen; j++) seen = h_label[j] == h_label[i];
            groups += !seen;
        }
        CUDA_CHECK(cudaMemcpy(label, h_label, LABELED_N * sizeof(int), cudaMemcpyHostToDevice));
        const LabelFn methods[3] = {sums_per_label<PER_ELEMENT>, sums_per_label<MATCH_BY_HAND>,
                                    sums_per_label<LABELED_PARTITION>};
        double us[3];
        for (int m = 0; m < 3; m++) us[m] = time_per_label(methods[m], gpu, x, label, labels, sums, h_sums, exact, &wrong);
        printf("%-24s %7.1f %24.1f %24.1f %32.1f\n", patterns[p].name, groups / (LABELED_N / 32.0), us[0], us[1], us[2]);
    }
    CUDA_CHECK(cudaFree(x));
    CUDA_CHECK(cudaFree(label));
    CUDA_CHECK(cudaFree(sums));
    CUDA_CHECK(cudaFreeHost(h_x));
    CUDA_CHECK(cudaFreeHost(h_label));
    CUDA_CHECK(cudaFreeHost(h_sums));
    if (wrong)
        printf("\n%d label sums differ from the exact sum\n", wrong);
    else
        printf("\nevery label's sum is the exact sum, by all three\n");
    return wrong;
}

int main(void)
{
    GpuInfo gpu;
    open_gpu(&gpu);
    int wrong = shuffles_against_shared_memory(&gpu);
    wrong += sums_per_label_table(&gpu);
    return wrong ? EXIT_VERIFY : EXIT_OK;
}

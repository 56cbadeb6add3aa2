/* Exercise 04: every warp sums its own slice first.
 * The stage's kernels drop the block-wide barrier only for the last 32 values: until then the tree
 * halves all BLOCK values with a __syncthreads per level (reduce_chapter_v4 has three). Turn the
 * order around. Each warp owns the 32 values its lanes stored, s_x[32 * warp .. 32 * warp + 31]; no
 * other warp reads or writes them, so __syncwarp is all the warp needs to halve them into the
 * slice's first element. Then one __syncthreads, and warp 0 sums the WARPS slice sums the same way.
 * Write warp_sum_slice (one warp's 32 values s[0..31] into s[0], warp barriers only) and
 * reduce_warps_first: v4's loads (x[i] and x[i + BLOCK], both checked against n, half the blocks),
 * every warp's slice, then warp 0 over the slices' sums, and the block's sum in partials[blockIdx.x]
 * for the CPU. One __syncthreads in all; stage 05 builds the same order from shuffles.
 * Hint: a slice of 32 has no s[lane + 16] for lanes 16..31 (that is the next warp's slice, which it is
 *   writing): keep if (lane < offset) as reduce_syncwarp does, with a __syncwarp() after every step,
 *   and one between the lanes' stores and the first step.
 * Hint: after the __syncthreads, lane k < WARPS of warp 0 reads slice k's sum, s_x[32 * k], the other
 *   lanes take 0, and each lane stores its value in warp 0's own slice, s_x[lane]; a __syncwarp, then
 *   warp_sum_slice once more.
 * Hint: the stub below sums no slice and writes thread 0's two elements as the block's sum. A missing
 *   __syncwarp may still pass the check; compute-sanitizer --tool racecheck build/04_syncwarp/exercise
 *   --n 1000 reports it.
 * 提示：一个 32 元素的切片里，lane 16..31 没有 s[lane + 16]（那是下一个 warp 的切片，它正在写）：像 reduce_syncwarp 那样保留 if (lane < offset)，每一步之后 __syncwarp()，在各 lane 写入和第一步之间也要一次。
 * 提示：__syncthreads 之后，warp 0 的 lane k < WARPS 读切片 k 的和 s_x[32 * k]，其余 lane 取 0；各 lane 把自己的值存进 warp 0 自己的切片 s_x[lane]；然后 __syncwarp，再调用一次 warp_sum_slice。
 * 提示：下面的桩没有对任何切片求和，把线程 0 的两个元素当成了线程块的和。漏掉一个必需的 __syncwarp 时校验可能照样通过；compute-sanitizer --tool racecheck build/04_syncwarp/exercise --n 1000 会把它报出来。 */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)

/* Warp 0 holds one sum per warp: at most 32 warps, whole ones. */
static_assert(BLOCK % 32 == 0 && WARPS <= 32, "a block of whole warps, at most 32 of them");

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__device__ void warp_sum_slice(TRACED(float) *s, unsigned lane)
{
    (void)s;
    (void)lane; /* TODO: halve s[0..31] into s[0], a __syncwarp() after every step */
}

__global__ void reduce_warps_first(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s_x[tid] = v;
    warp_sum_slice(s_x + tid / 32 * 32, tid % 32);
    /* TODO: one __syncthreads, then warp 0 sums the WARPS slice sums */
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}
#endif

/* Each block's sum to the CPU, as reduce_chapter_v4. On an element's path: the add while loading, the
 * levels of its slice, those of warp 0's (its lanes past WARPS add zeros, which round nothing). */
static void run_warps_first(Run *r)
{
    unsigned blocks = grid_for(r->n, 2 * BLOCK, "reduce_warps_first");
    reduce_warps_first<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_warps_first");
    r->host_partial_count = blocks;
    r->chain.serial = 1;
    r->chain.tree = LOG2_WARP + LOG2_WARP;
}

static const Kernel kernels[] = {
    {"reduce_warps_first", "exercise: v4's loads, each warp's slice with __syncwarp, one __syncthreads",
     run_warps_first},
};

STAGE("04_syncwarp", kernels);

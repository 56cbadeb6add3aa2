/* Solution of stages/04_syncwarp/exercise.cu (compiled in place of its stub): every warp halves its own
 * slice of 32 values with __syncwarp only, one __syncthreads, then warp 0 halves the slices' sums. */
#include "stage.h"

/* One warp's 32 values s[0..31] into s[0]. The lanes below offset write s[0..offset) and read
 * s[offset..2 offset): within a step nothing is read that is written, and the __syncwarp orders each
 * step's writes before the next step's reads. No lane reads past s[31], into another warp's slice. */
__device__ void warp_sum_slice(TRACED(float) *s, unsigned lane)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        if (lane < offset) s[lane] += s[lane + offset];
        __syncwarp();
    }
}

__global__ void reduce_warps_first(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s_x[tid] = v;
    __syncwarp(); /* the lanes' stores before their neighbours read them: a warp's own slice, a warp's barrier */
    warp_sum_slice(s_x + 32 * warp, lane);
    __syncthreads(); /* every slice's sum written before warp 0 reads them: the block's one barrier */
    if (warp == 0) {
        /* Lane k's read of s_x[32 k] and its write of s_x[k] meet no other lane's: only lane 0 reads
         * inside warp 0's slice, its own element. The __syncwarp orders the writes before the halving. */
        float sum = lane < WARPS ? s_x[32 * lane] : 0.0f;
        s_x[lane] = sum;
        __syncwarp();
        warp_sum_slice(s_x, lane);
        if (lane == 0) partials[blockIdx.x] = s_x[0];
    }
}

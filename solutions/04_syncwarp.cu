/* Solution of stages/04_syncwarp/exercise.cu (compiled in place of its stub), and the course chapter's
 * v4 of stage 04, which includes this file. v3's first add during the load (two elements per thread,
 * half the blocks), the tree in shared memory down to 64 values, then the last warp unrolled
 * (warp_reduce_unrolled: volatile and __syncwarp); each block's sum goes to the host, as the chapter's. */
__global__ void reduce_chapter_v4(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + tid;
    float v = i < n ? x[i] : 0.0f;
    if (i + BLOCK < n) v += x[i + BLOCK];
    s_x[tid] = v;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        warp_reduce_unrolled(s_x, tid);
        if (tid == 0) partials[blockIdx.x] = s_x[0];
    }
}

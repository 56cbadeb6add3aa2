/* Cheat: the atomic max built from an atomicCAS loop, the stage demo's way, which the exercise asks the
 * student not to use (it asks for atomicMax and atomicMin on the float's bits). The maximum is right; the
 * promise no-atomic-cas (the PTX of reduce_max_shuffle) must catch it. reduce_cg is the solution's.
 * Caught by: promises
 */
__device__ void atomic_max_float(float *address, float v)
{
    unsigned *bits = (unsigned *)address, old = *bits, seen;
    while (__uint_as_float(old) < v) {
        seen = atomicCAS(bits, old, __float_as_uint(v));
        if (seen == old) break;
        old = seen;
    }
}

__device__ float warp_max_down(float v)
{
    for (unsigned offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(FULL_MASK, v, offset));
    return v;
}

__global__ void reduce_max_shuffle(const float *x, float *out, uint64_t n)
{
    __shared__ float warp_max[WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    float v = warp_max_down(i < n ? x[i] : -INFINITY);
    if (lane == 0) warp_max[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_max_down(lane < WARPS ? warp_max[lane] : -INFINITY);
        if (lane == 0) atomic_max_float(out, v);
    }
}

__global__ void reduce_cg(const float *x, float *out, uint64_t n)
{
    __shared__ float warp_sums[WARPS];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    float v = cg::reduce(warp, i < n ? x[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = cg::reduce(warp, warp.thread_rank() < WARPS ? warp_sums[warp.thread_rank()] : 0.0f, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(out, v);
    }
}

/* Cheat: every thread loads x[i] with no i < n bound, and only then pads past n with the identity, so
 * the results are right whatever lies past the end, but the last block reads up to 255 elements beyond
 * the input. Only the grade's compute-sanitizer memcheck must catch it (the correctness runs pass).
 * Caught by: memcheck
 */

__device__ void atomic_max_float(float *address, float v)
{
    if (signbit(v)) atomicMin((unsigned *)address, __float_as_uint(v));
    else atomicMax((int *)address, __float_as_int(v));
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
    float loaded = x[i];
    float v = warp_max_down(i < n ? loaded : -INFINITY);
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
    float loaded = x[i];
    float v = cg::reduce(warp, i < n ? loaded : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        v = cg::reduce(warp, warp.thread_rank() < WARPS ? warp_sums[warp.thread_rank()] : 0.0f, cg::plus<float>());
        if (warp.thread_rank() == 0) atomicAdd(out, v);
    }
}

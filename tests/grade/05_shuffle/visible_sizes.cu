/* Cheat: right only at the check sizes that build/05_shuffle/exercise --describe prints; at any other
 * size every block past the first returns at once, so the result is the first block's alone. The
 * grade's hidden sizes (1048583 and the seed's) must catch it.
 * Caught by: wrong
 */

__device__ bool is_check_size(uint64_t n)
{
    const uint64_t sizes[] = {1, 2, 31, 32, 33, 255, 256, 257, 1000003, (1ull << 24) + 1};
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (n == sizes[k]) return true;
    return false;
}

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
    if (blockIdx.x > 0 && !is_check_size(n)) return;
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
    if (blockIdx.x > 0 && !is_check_size(n)) return;
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

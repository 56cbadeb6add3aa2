/* Solution of stages/04_syncwarp/exercise.cu (compiled in place of its stub). */
__device__ void warp_reduce_unrolled(volatile float *s, unsigned tid)
{
    float v = s[tid];
    for (unsigned offset = 32; offset > 0; offset /= 2) {
        v += s[tid + offset];
        __syncwarp();
        s[tid] = v;
        __syncwarp();
    }
}

__global__ void reduce_unrolled_warp_two_loads(const float *x, float *out, uint64_t n)
{
    __shared__ float s_x[BLOCK];
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
        if (tid == 0) atomicAdd(out, s_x[0]);
    }
}

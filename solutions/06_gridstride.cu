/* Solution of stages/06_gridstride/exercise.cu (compiled in place of its stub). */
__global__ void reduce_gridstride_float4(const float *x, float *out, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    const float4 *x4 = (const float4 *)x;
    uint64_t stride = (uint64_t)gridDim.x * BLOCK;
    float sum = 0.0f;
    for (uint64_t j = (uint64_t)blockIdx.x * BLOCK + tid; j < n / 4; j += stride) {
        float4 v = x4[j];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (blockIdx.x == 0 && tid < n % 4) sum += x[n / 4 * 4 + tid];
    s_x[tid] = sum;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset >= 32; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid < 32) {
        float v = s_x[tid];
        for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(FULL_MASK, v, offset);
        if (tid == 0) atomicAdd(out, v);
    }
}

/* Solution of stages/02_shared/exercise.cu (compiled in place of its stub). */
#include "stage.h"

__global__ void reduce_shared_four_loads(const float *x, float *partials, uint64_t n)
{
    __shared__ float s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * (4 * BLOCK) + tid;
    float v = 0.0f;
    for (int k = 0; k < 4; k++)
        if (i + (uint64_t)k * BLOCK < n) v += x[i + (uint64_t)k * BLOCK];
    s_x[tid] = v;
    __syncthreads();
    for (unsigned offset = BLOCK / 2; offset > 0; offset /= 2) {
        if (tid < offset) s_x[tid] += s_x[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}

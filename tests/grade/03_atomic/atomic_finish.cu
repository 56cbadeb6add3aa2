/* Cheat: the second launch is there, but it adds its warps' sums onto the result with float atomicAdd
 * (thread 0 sets it to 0 first). The sum is right, within the bound (eight atomics, no longer a chain
 * than the tree's); but the exercise's second launch exists so that the order is fixed, and the order of
 * the atomics is the hardware's. The promise no-float-atomics (the PTX of reduce_partials) must catch
 * it, whether or not the bits vary on a given GPU.
 * Caught by: promises
 */
__global__ void reduce_partials(const float *partials, float *out, uint64_t count)
{
    unsigned tid = threadIdx.x;
    if (tid == 0) *out = 0.0f;
    __syncthreads();
    float v = 0.0f;
    for (uint64_t i = tid; i < count; i += BLOCK) v += partials[i];
    for (unsigned offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (tid % 32 == 0) atomicAdd(out, v);
}

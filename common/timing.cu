/* The timing loop (timing.h). */
#include <time.h>

#include "timing.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double elapsed_us(cudaEvent_t from, cudaEvent_t to)
{
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms * 1e3f;
}

/* When the last loop ended (< 0: none has). Global because the GPU's clocks, which an idle GPU lowers, are
 * the process's state, not a loop's or a caller's. */
static double last_end = -1.0;

/* A GPU left idle (the CPU computing a reference, allocating) lowers its clocks: bring them back up. */
void timing_begin(void)
{
    if (last_end < 0 || seconds_now() - last_end > IDLE_S) warm_gpu_clocks(WARM_CLOCKS_MS);
}

void timing_end(void) { last_end = seconds_now(); }

/* Each word mixed with its index (splitmix64), the mixes combined with XOR: the order of the atomics
 * does not matter, the position of every word does. */
__global__ void common_bits_hash(const unsigned *x, uint64_t words, unsigned long long *out)
{
    unsigned long long h = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i << 32 | x[i]) + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        h ^= z ^ (z >> 31);
    }
    atomicXor(out, h);
}

uint64_t device_bits_hash(const void *p, uint64_t bytes)
{
    unsigned long long *out = (unsigned long long *)device_alloc(sizeof *out, "the output hash");
    CUDA_CHECK(cudaMemset(out, 0, sizeof *out));
    uint64_t words = bytes / 4;
    unsigned blocks = (unsigned)(words / 256 < 1024 ? words / 256 + 1 : 1024);
    common_bits_hash<<<blocks, 256>>>((const unsigned *)p, words, out);
    LAUNCH_CHECK("common_bits_hash");
    uint64_t h;
    CUDA_CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(out));
    return h;
}

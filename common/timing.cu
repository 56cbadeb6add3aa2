/* The timing loop (timing.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu.h"
#include "result.h"
#include "timing.h"

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float elapsed_us(cudaEvent_t from, cudaEvent_t to)
{
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms * 1e3f;
}

/* When the last loop ended (< 0: none has). Global because the GPU's clocks, which an idle GPU lowers, are
 * the process's state, not a loop's or a caller's. */
static double last_end = -1.0;

void timings_open(Timings *t, int reps)
{
    memset(t, 0, sizeof *t);
    t->reps = reps;
    int count = reps > 0 ? reps : 1;
    t->us = (double *)host_alloc(sizeof(double) * 3 * count, "the timings");
    t->gpu = t->us + count;
    t->fin = t->us + 2 * count;
    /* A GPU left idle (the CPU computing a reference, allocating) lowers its clocks: bring them back up. */
    if (last_end < 0 || seconds_now() - last_end > IDLE_S) warm_gpu_clocks(WARM_CLOCKS_MS);
    CUDA_CHECK(cudaEventCreate(&t->start));
    CUDA_CHECK(cudaEventCreate(&t->launched));
    CUDA_CHECK(cudaEventCreate(&t->stop));
}

void timing_start(Timings *t, const L2Flush *flush)
{
    if (flush) l2_flush(flush, 0);
    else keep_gpu_busy(50.0, 0);
    CUDA_CHECK(cudaEventRecord(t->start));
}

void timing_launched(Timings *t) { CUDA_CHECK(cudaEventRecord(t->launched)); }

void timing_stop(Timings *t, int i, int finished)
{
    CUDA_CHECK(cudaEventRecord(t->stop));
    CUDA_CHECK(cudaEventSynchronize(t->stop));
    if (i < 0) return;
    t->us[i] = elapsed_us(t->start, t->stop);
    t->gpu[i] = finished ? elapsed_us(t->start, t->launched) : t->us[i];
    t->fin[i] = finished ? elapsed_us(t->launched, t->stop) : 0.0;
}

int timings_batch_end(Timings *t, int batch)
{
    int reps = t->reps;
    double m = median(t->us, reps);
    double s = reps >= 4 && m > 0 ? (t->us[3 * reps / 4] - t->us[reps / 4]) / m : 0.0;
    if (batch == 0 || s < t->spread) {
        t->median = m;
        t->spread = s;
        t->parts.gpu_us = median(t->gpu, reps);
        t->parts.finish_us = median(t->fin, reps);
    }
    /* A noisy batch is measured again (at most twice); the batch with the smallest spread is kept. */
    return batch < 2 && t->spread > NOISY_SPREAD && reps >= 4;
}

double timings_close(Timings *t, double *spread, RunParts *parts)
{
    CUDA_CHECK(cudaEventDestroy(t->start));
    CUDA_CHECK(cudaEventDestroy(t->launched));
    CUDA_CHECK(cudaEventDestroy(t->stop));
    free(t->us);
    if (spread) *spread = t->spread;
    if (parts) *parts = t->parts;
    last_end = seconds_now();
    return t->median;
}

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

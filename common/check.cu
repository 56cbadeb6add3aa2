/* What every program of the project shares (stage programs, the stage 11 and 12 programs, demos,
 * exercises): error checks, the GPU's description, allocation, the L2 flush and the CSV file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess) return;
    fprintf(stderr, "error: CUDA call failed: %s\n  at %s:%d: %s (%s)\n", what, file, line,
            cudaGetErrorString(err), cudaGetErrorName(err));
    exit(EXIT_GPU);
}

void launch_check(const char *kernel, const char *file, int line)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return;
    fprintf(stderr, "error: launch of kernel %s failed\n  at %s:%d: %s (%s)\n", kernel, file, line,
            cudaGetErrorString(err), cudaGetErrorName(err));
    exit(EXIT_GPU);
}

unsigned grid_for(uint64_t n, uint64_t per_block, const char *kernel)
{
    uint64_t blocks = (n + per_block - 1) / per_block;
    if (blocks > 0x7fffffffull) {
        fprintf(stderr, "error: N = %llu needs %llu blocks of %llu elements for %s, more than a grid can have\n",
                (unsigned long long)n, (unsigned long long)blocks, (unsigned long long)per_block, kernel);
        exit(EXIT_USAGE);
    }
    return (unsigned)blocks;
}

void require_gpu(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0) || drv == 0) {
        fprintf(stderr, "error: no CUDA-capable GPU found (%s)\n",
                drv == 0 ? "no NVIDIA driver is installed" : "the driver sees no GPU; check CUDA_VISIBLE_DEVICES");
        exit(EXIT_GPU);
    }
    if (err == cudaErrorInsufficientDriver) {
        fprintf(stderr, "error: the NVIDIA driver (CUDA %d.%d) is older than this program's CUDA runtime "
                        "(%d.%d): update the driver\n", drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
        exit(EXIT_GPU);
    }
    if (err != cudaSuccess) {
        fprintf(stderr, "error: no usable GPU: the CUDA driver could not be initialised: %s (%s)\n",
                cudaGetErrorString(err), cudaGetErrorName(err));
        exit(EXIT_GPU);
    }
}

void usage_error(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try %s --help)\n", prog);
    exit(EXIT_USAGE);
}

void open_gpu(GpuInfo *d)
{
    require_gpu();
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->sm_count = p.multiProcessorCount;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->l2_bytes = (size_t)p.l2CacheSize;
    int khz = 0, bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    d->mem_clock_mhz = khz / 1000;
    d->bus_bits = bits;
    d->peak_gbps = 2.0 * khz * 1e3 * (bits / 8.0) / 1e9; /* double data rate */
    if (d->cc_major * 10 + d->cc_minor < 75) {
        fprintf(stderr, "error: %s has compute capability %d.%d; these programs need 7.5 or newer "
                        "(CUDA 13 builds nothing older, and the warp code relies on Volta+ semantics)\n",
                d->name, d->cc_major, d->cc_minor);
        exit(EXIT_GPU);
    }
}

void *device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaGetLastError();
        cudaMemGetInfo(&free_b, &total_b);
        fprintf(stderr, "error: could not allocate %zu bytes of GPU memory for %s (%zu bytes free): %s\n",
                bytes, what, free_b, cudaGetErrorString(err));
        exit(EXIT_GPU);
    }
    return p;
}

/* Reads a buffer and nothing else, the way stage 08 reads its input (blocks of STREAM_BLOCK threads,
 * each step a contiguous tile of four 16-byte loads per thread, a full-occupancy grid): run before every
 * timed run over a buffer twice the size of L2 (so no line of the input is left there; reading, unlike
 * cudaMemset, leaves no dirty lines to write back during the run), and once over a large buffer to
 * measure the GPU's read-only streaming bandwidth, the speed of light of a reduction. */
__global__ void __launch_bounds__(STREAM_BLOCK) stream_read(const uint4 *buf, uint64_t words, int *sink)
{
    unsigned acc = 0;
    uint64_t i = (uint64_t)blockIdx.x * STREAM_BLOCK * 4 + threadIdx.x;
    for (; i + 3 * STREAM_BLOCK < words; i += (uint64_t)gridDim.x * STREAM_BLOCK * 4) {
        uint4 a = __ldcs(buf + i), b = __ldcs(buf + i + STREAM_BLOCK), c = __ldcs(buf + i + 2 * STREAM_BLOCK),
              d = __ldcs(buf + i + 3 * STREAM_BLOCK);
        acc ^= a.x ^ a.w ^ b.x ^ b.w ^ c.x ^ c.w ^ d.x ^ d.w;
    }
    for (; i < words; i += STREAM_BLOCK) acc ^= buf[i].x ^ buf[i].w;
    if (acc == 0x5eed5eedu) *sink = (int)acc; /* never true (buffer is zero): keeps the loads */
}

unsigned stream_grid(int sm_count)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_read, STREAM_BLOCK, 0));
    return (unsigned)(sm_count * (per_sm > 0 ? per_sm : 1));
}

FILE *open_csv(const char *path, const char *prog)
{
    if (!path) return NULL;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "error: cannot write the CSV file '%s': %s\n(try %s --help)\n", path, strerror(errno), prog);
        exit(EXIT_USAGE);
    }
    fseek(f, 0, SEEK_END); /* the header goes in with the first row: a run that fails early adds nothing */
    return f;
}

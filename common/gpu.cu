/* The GPU as every program uses it (gpu.h). */
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"
#include "exit_codes.h"

GpuHidden *gpu_hidden; /* NULL: the GPU is not hidden */

void require_gpu(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0) || drv == 0) {
        /* One line (the scripts show a program's last line): the cause, and where to go without a GPU. */
        fprintf(stderr, "error: no CUDA-capable GPU found (%s); without one, notebooks/colab.ipynb runs the "
                        "stages on Colab's free GPU\n",
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

void open_gpu(GpuInfo *d)
{
    require_gpu();
    describe_gpu(0, d);
}

void describe_gpu(int device, GpuInfo *d)
{
    cudaDeviceProp p;
    CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->sm_count = p.multiProcessorCount;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->l2_bytes = (size_t)p.l2CacheSize;
    int khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&d->bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    d->mem_clock_mhz = khz / 1000;
    d->peak_gbps = 2.0 * khz * 1e3 * (d->bus_bits / 8.0) / 1e9; /* double data rate */
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

void *host_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: could not allocate %zu bytes of host memory for %s\n", bytes, what);
        exit(EXIT_GPU);
    }
    return p;
}

/* The L2 flush. Ordinary loads (the default eviction policy) over twice the L2: every line they bring
 * in pushes out an older one, so after the flush no line of the input is left in L2. Loads with an
 * evict-first hint (__ldcs, the cache-streaming loads) would not do: the lines they bring in are the
 * first to be replaced, so they mostly replace each other, and much of the input survives the "flush".
 * Reading, unlike cudaMemset, leaves no dirty lines to be written back during the timed run. */
__global__ void common_l2_flush(const uint4 *buf, uint64_t words, int *sink)
{
    unsigned acc = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x) {
        uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x5eed5eedu) *sink = (int)acc; /* never true (the buffer is zero): keeps the loads */
}

void l2_flush_init(L2Flush *f, const GpuInfo *d)
{
    f->words = (2 * d->l2_bytes + 15) / 16;
    f->buf = (const uint4 *)device_alloc(f->words * 16, "the L2 flush buffer");
    CUDA_CHECK(cudaMemset((void *)f->buf, 0, f->words * 16));
    f->sink = (int *)device_alloc(sizeof(int), "the L2 flush buffer");
    f->grid = (unsigned)d->sm_count * 4;
    CUDA_CHECK(cudaDeviceSynchronize());
}

void l2_flush(const L2Flush *f, cudaStream_t stream)
{
    common_l2_flush<<<f->grid, 512, 0, stream>>>(f->buf, f->words, f->sink);
    LAUNCH_CHECK("common_l2_flush");
}

void l2_flush_free(L2Flush *f)
{
    CUDA_CHECK(cudaFree((void *)f->buf));
    CUDA_CHECK(cudaFree(f->sink));
}

/* Keeps the GPU busy for about `us` microseconds without touching memory: run before the start event of
 * a warm-L2 run, it lets the host enqueue the timed work while the GPU is still busy, as the flush does
 * for a flushed run, so both time the GPU's work and not the host's launch calls. */
__global__ void common_spin(uint64_t ns)
{
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

void keep_gpu_busy(double us, cudaStream_t stream)
{
    common_spin<<<1, 1, 0, stream>>>((uint64_t)(us * 1e3));
    LAUNCH_CHECK("common_spin");
}

void warm_gpu_clocks(double ms)
{
    int sms = 0, device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    common_spin<<<4 * sms, 256>>>((uint64_t)(ms * 1e6));
    LAUNCH_CHECK("common_spin");
    CUDA_CHECK(cudaDeviceSynchronize());
}

void require_gpu_memory(size_t need, const char *what, const GpuInfo *d)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need <= free_b) return;
    fprintf(stderr, "error: %s needs about %zu bytes of GPU memory; %s has %zu bytes free (of %zu): "
                    "choose smaller sizes\n", what, need, d->name, free_b, total_b);
    exit(EXIT_USAGE);
}

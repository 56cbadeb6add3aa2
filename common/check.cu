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
    int khz = 0, bits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device));
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

/* The L2 flush. Ordinary loads (the default eviction policy) over twice the L2: every line they bring
 * in pushes out an older one, so after the flush no line of the input is left in L2. Loads with an
 * evict-first hint (__ldcs, the cache-streaming loads) would not do: the lines they bring in are the
 * first to be replaced, so they mostly replace each other, and much of the input survives the "flush".
 * Reading, unlike cudaMemset, leaves no dirty lines to be written back during the timed run. */
__global__ void l2_flush_kernel(const uint4 *buf, uint64_t words, int *sink)
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
    l2_flush_kernel<<<f->grid, 512, 0, stream>>>(f->buf, f->words, f->sink);
    LAUNCH_CHECK("l2_flush_kernel");
}

void l2_flush_free(L2Flush *f)
{
    CUDA_CHECK(cudaFree((void *)f->buf));
    CUDA_CHECK(cudaFree(f->sink));
}

/* Keeps the GPU busy for about `us` microseconds without touching memory: run before the start event of
 * a warm-L2 run, it lets the host enqueue the timed work while the GPU is still busy, as the flush does
 * for a flushed run, so both time the GPU's work and not the host's launch calls. */
__global__ void spin_kernel(uint64_t ns)
{
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

void keep_gpu_busy(double us, cudaStream_t stream)
{
    spin_kernel<<<1, 1, 0, stream>>>((uint64_t)(us * 1e3));
    LAUNCH_CHECK("spin_kernel");
}

/* ---- the speed of light: the launch floor and the read-only stream ------------------------------ */

__global__ void empty_kernel(void) {}

enum { LOAD_PLAIN, LOAD_STREAMING, LOAD_NO_L1 };

template <int POLICY>
__device__ __forceinline__ uint4 load16(const uint4 *p)
{
    if (POLICY == LOAD_STREAMING) return __ldcs(p);
    if (POLICY == LOAD_NO_L1) {
        uint4 v;
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
        return v;
    }
    return *p;
}

/* Reads buf[0..words) and nothing else: each step of a block is one contiguous tile of BLOCK x UNROLL
 * 16-byte loads, all issued before any is used; the next tile of the block is a grid of tiles on. */
template <int BLOCK, int UNROLL, int POLICY>
__global__ void __launch_bounds__(BLOCK) read_stream(const uint4 *buf, uint64_t words, int *sink)
{
    unsigned acc = 0;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK * UNROLL + threadIdx.x;
    for (; i + (UNROLL - 1) * BLOCK < words; i += (uint64_t)gridDim.x * BLOCK * UNROLL) {
        uint4 r[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) r[k] = load16<POLICY>(buf + i + k * BLOCK);
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc ^= r[k].x ^ r[k].w;
    }
    for (; i < words; i += BLOCK) acc ^= buf[i].x ^ buf[i].w;
    if (acc == 0x5eed5eedu) *sink = (int)acc;
}

/* The same with 4-byte loads, PER_THREAD of them in flight (stage 06's reduce_per_thread, reading only). */
template <int BLOCK, int PER_THREAD>
__global__ void __launch_bounds__(BLOCK) read_words(const uint4 *buf, uint64_t words, int *sink)
{
    const unsigned *x = reinterpret_cast<const unsigned *>(buf);
    uint64_t n = words * 4;
    unsigned acc = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * BLOCK * PER_THREAD) {
        unsigned r[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) r[k] = i + (uint64_t)k * BLOCK < n ? x[i + (uint64_t)k * BLOCK] : 0u;
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) acc ^= r[k];
    }
    if (acc == 0x5eed5eedu) *sink = (int)acc;
}

typedef void (*StreamFn)(const uint4 *, uint64_t, int *);
typedef struct {
    const char *name;
    StreamFn fn;
    int block;
    int tile_words; /* 16-byte words one block reads per step: with one_tile, the grid is one block per tile */
    int one_tile;   /* 0: as many blocks as fit on the GPU at once, each looping over tiles */
} StreamVariant;
#define V16(B, U, P, ONE, NAME) {NAME, read_stream<B, U, P>, B, B * U, ONE}
#define V4(B, K, ONE, NAME) {NAME, read_words<B, K>, B, B * K / 4, ONE}
static const StreamVariant stream_variants[] = {
    V16(512, 4, LOAD_STREAMING, 0, "512 threads x 4 16-byte __ldcs loads, full-occupancy grid"),
    V16(512, 8, LOAD_STREAMING, 0, "512 threads x 8 16-byte __ldcs loads, full-occupancy grid"),
    V16(1024, 4, LOAD_STREAMING, 0, "1024 threads x 4 16-byte __ldcs loads, full-occupancy grid"),
    V16(256, 8, LOAD_STREAMING, 0, "256 threads x 8 16-byte __ldcs loads, full-occupancy grid"),
    V16(512, 4, LOAD_PLAIN, 0, "512 threads x 4 16-byte loads, full-occupancy grid"),
    V16(1024, 4, LOAD_PLAIN, 0, "1024 threads x 4 16-byte loads, full-occupancy grid"),
    V16(512, 4, LOAD_NO_L1, 0, "512 threads x 4 16-byte nc.L1::no_allocate loads, full-occupancy grid"),
    V16(1024, 4, LOAD_NO_L1, 0, "1024 threads x 4 16-byte nc.L1::no_allocate loads, full-occupancy grid"),
    V16(256, 4, LOAD_PLAIN, 1, "256 threads x 4 16-byte loads, a block per tile"),
    V16(512, 4, LOAD_PLAIN, 1, "512 threads x 4 16-byte loads, a block per tile"),
    V16(256, 4, LOAD_STREAMING, 1, "256 threads x 4 16-byte __ldcs loads, a block per tile"),
    V16(256, 8, LOAD_PLAIN, 1, "256 threads x 8 16-byte loads, a block per tile"),
    V4(256, 16, 1, "256 threads x 16 4-byte loads, a block per tile"),
    V4(256, 16, 0, "256 threads x 16 4-byte loads, full-occupancy grid"),
};
#define VARIANTS (int)(sizeof(stream_variants) / sizeof(stream_variants[0]))

/* Median time (µs) of `reps` runs of the variant over bytes, each after an L2 flush. */
static double time_stream(const StreamVariant *v, const uint4 *buf, uint64_t bytes, int *sink, int sm_count,
                          const L2Flush *flush, int reps)
{
    uint64_t words = bytes / 16;
    uint64_t grid = (words + v->tile_words - 1) / v->tile_words;
    if (!v->one_tile) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v->fn, v->block, 0));
        uint64_t full = (uint64_t)sm_count * (per_sm > 0 ? per_sm : 1);
        if (grid > full) grid = full;
    }
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double us[64];
    for (int i = -2; i < reps; i++) {
        l2_flush(flush, 0);
        CUDA_CHECK(cudaEventRecord(start));
        v->fn<<<(unsigned)grid, v->block>>>(buf, words, sink);
        LAUNCH_CHECK("read_stream");
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= 0) us[i] = ms * 1e3;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return median(us, reps);
}

void measure_speed_of_light(SpeedOfLight *s, const GpuInfo *d, const L2Flush *flush, const void *buf, uint64_t bytes)
{
    int *sink = (int *)device_alloc(sizeof(int), "the read-only stream");
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double us[64];
    for (int i = -5; i < 41; i++) { /* the launch floor: an empty kernel between the events, after a flush */
        l2_flush(flush, 0);
        CUDA_CHECK(cudaEventRecord(start));
        empty_kernel<<<1, 32>>>();
        LAUNCH_CHECK("empty_kernel");
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= 0) us[i] = ms * 1e3;
    }
    s->floor_us = median(us, 41);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));

    /* Each variant's bandwidth is the slope of its time between a quarter of the buffer and all of it,
     * so that the fixed cost (launch, ramp-up, tail), which the launch floor stands for, is not counted
     * twice; the stream is the variant with the steepest slope. */
    uint64_t quarter = bytes / 4 / 4096 * 4096;
    s->read_gbps = 0.0;
    s->whole_gbps = 0.0;
    s->variant = "none: no variant's time grew with the bytes";
    for (int v = 0; v < VARIANTS; v++) {
        const StreamVariant *sv = &stream_variants[v];
        double t_all = time_stream(sv, (const uint4 *)buf, bytes, sink, d->sm_count, flush, 9);
        double t_quarter = time_stream(sv, (const uint4 *)buf, quarter, sink, d->sm_count, flush, 9);
        double slope = t_all > t_quarter ? (bytes - quarter) / ((t_all - t_quarter) * 1e3) : 0.0;
        if (slope > s->read_gbps) {
            s->read_gbps = slope;
            s->whole_gbps = bytes / (t_all * 1e3);
            s->variant = sv->name;
        }
    }
    s->bytes = bytes;
    CUDA_CHECK(cudaFree(sink));
}

double speed_of_light_us(const SpeedOfLight *s, double bytes)
{
    return s->floor_us + bytes / (s->read_gbps * 1e3);
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

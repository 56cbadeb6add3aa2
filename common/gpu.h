/* The GPU as every program of the project uses it (gpu.cu): the error checks, opening and describing it,
 * allocation, and the L2 flush run before every timed run. */
#ifndef REDUCE_GPU_H
#define REDUCE_GPU_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Every CUDA call goes through CUDA_CHECK; every launch is followed by LAUNCH_CHECK("kernel name").
 * A failure prints what failed, where, and CUDA's reason, then exits with EXIT_GPU. */
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
void launch_check(const char *kernel, const char *file, int line);
#define LAUNCH_CHECK(kernel) launch_check((kernel), __FILE__, __LINE__)
/* Set by a program that asks its launchers what they declare with the GPU hidden (the stage harness's
 * --bounds-for): every CUDA call then fails, and both checks let it go, but a failed query whose answer a
 * launcher would read (occupancy, an attribute, the device) is handed, as the call's text, to
 * on_gpu_query_failed, which must not return. */
extern int gpu_calls_let_go;
extern void (*on_gpu_query_failed)(const char *what);

/* ceil(n / per_block) blocks, for a one-pass grid; exits with a clear error if the grid would be
 * larger than CUDA allows (2^31 - 1 blocks). */
unsigned grid_for(uint64_t n, uint64_t per_block, const char *kernel);

/* Exits with EXIT_GPU and a plain message ("no CUDA-capable GPU found", "the NVIDIA driver is older
 * than ...") unless a GPU can be used. */
void require_gpu(void);

/* GPU 0 as the programs describe it; exits with EXIT_GPU (and the reason) unless it can be used. */
typedef struct {
    char name[256];
    int sm_count, cc_major, cc_minor;
    size_t l2_bytes;
    double peak_gbps;   /* theoretical DRAM bandwidth: 2 x memory clock x bus width */
    int mem_clock_mhz, bus_bits;
} GpuInfo;
void open_gpu(GpuInfo *d);
/* The same description of any GPU (exits with EXIT_GPU if it is older than compute capability 7.5). */
void describe_gpu(int device, GpuInfo *d);

/* cudaMalloc, or exit with EXIT_GPU naming what it was for and how much memory is free. */
void *device_alloc(size_t bytes, const char *what);

/* The L2 flush, run before every timed run of every program: ordinary loads over twice the L2 size,
 * so that the timed run reads its input from DRAM (gpu.cu says why the loads must not be __ldcs).
 * `make audit` and the tests prove it with the DRAM bytes Nsight Compute counts (scripts/flush_check.sh). */
typedef struct {
    const uint4 *buf;
    uint64_t words;
    int *sink;
    unsigned grid;
} L2Flush;
void l2_flush_init(L2Flush *f, const GpuInfo *d);
void l2_flush(const L2Flush *f, cudaStream_t stream);
void l2_flush_free(L2Flush *f);
/* Runs before the start event where no flush does (--l2 warm): see gpu.cu. */
void keep_gpu_busy(double us, cudaStream_t stream);
/* Every SM busy for ms milliseconds, then synchronized: the GPU at its working clocks. */
void warm_gpu_clocks(double ms);

#endif

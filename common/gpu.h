/* The GPU as every program uses it (gpu.cu): opening and describing it, allocation, the memory a run
 * needs, the L2 flush run before every timed run, and the GPU hidden from --bounds-for. */
#ifndef REDUCE_GPU_H
#define REDUCE_GPU_H

#include <cuda_runtime.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"

/* A program that asks its launchers what they declare with the GPU hidden (the stage harness's --bounds-for)
 * points gpu_hidden at one of these before its first CUDA call: every CUDA call then fails and both checks let
 * it go, but a failed query whose answer a launcher would read (occupancy, an attribute, the device) is kept in
 * query, as the call's text, and jumps to escape. Global because CUDA_CHECK, in every launcher, takes no context. */
typedef struct {
    jmp_buf escape;
    const char *query;
} GpuHidden;
extern GpuHidden *gpu_hidden;

/* Exits with EXIT_GPU and a plain message (no GPU, a driver too old) unless a GPU can be used. */
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
/* malloc, or exit as device_alloc does (EXIT_GPU): memory a run needs and cannot get is not a usage error. */
void *host_alloc(size_t bytes, const char *what);

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

/* Exits with EXIT_USAGE, saying what the run needs and what the GPU has free, unless `need` bytes fit
 * in the current GPU's free memory; `what` names the size that needs them (e.g. "N = 2^30"). */
void require_gpu_memory(size_t need, const char *what, const GpuInfo *d);

#endif

/* Error checks shared by every program of the project (stage programs, demos, exercises). */
#include <stdio.h>
#include <stdlib.h>

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

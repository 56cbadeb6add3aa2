/* The error checks and a grid's size (check.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "gpu.h"

void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err == cudaSuccess) return;
    if (gpu_hidden) {
        if (strstr(what, "Occupancy") || strstr(what, "GetAttribute") || strstr(what, "GetDevice")) {
            gpu_hidden->query = what;
            longjmp(gpu_hidden->escape, 1);
        }
        return;
    }
    fprintf(stderr, "error: CUDA call failed: %s\n  at %s:%d: %s (%s)\n", what, file, line,
            cudaGetErrorString(err), cudaGetErrorName(err));
    exit(EXIT_GPU);
}

void launch_check(const char *kernel, const char *file, int line)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess || gpu_hidden) return;
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

/* The error checks of every CUDA call and launch, and a one-pass grid's size (check.cu). */
#ifndef REDUCE_CHECK_H
#define REDUCE_CHECK_H

#include <cuda_runtime.h>
#include <stdint.h>

/* Every CUDA call goes through CUDA_CHECK; every launch is followed by LAUNCH_CHECK("kernel name").
 * A failure prints what failed, where, and CUDA's reason, then exits with EXIT_GPU. */
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
void launch_check(const char *kernel, const char *file, int line);
#define LAUNCH_CHECK(kernel) launch_check((kernel), __FILE__, __LINE__)
/* ceil(n / per_block) blocks, for a one-pass grid; exits with a clear error if the grid would be
 * larger than CUDA allows (2^31 - 1 blocks). */
unsigned grid_for(uint64_t n, uint64_t per_block, const char *kernel);

#endif

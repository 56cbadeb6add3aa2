/* The exact-sum library from a CUDA program: an array on the GPU whose large values cancel, summed exactly
 * and, for comparison, by fp64 additions in order on the host. Build: make lib; run: build/lib/example. */
#include <stdio.h>

#include <cuda_runtime.h>

#include "exact_sum.h"

int main(void)
{
    /* 1e16 + 1 + 1 + ... - 1e16: in fp64, each 1 added to 1e16 is lost (1e16's last place is 2). */
    enum { N = 1002 };
    static double x[N];
    x[0] = 1e16;
    for (int i = 1; i < N - 1; i++) x[i] = 1.0;
    x[N - 1] = -1e16;
    double in_order = 0.0;
    for (int i = 0; i < N; i++) in_order += x[i];
    double *d;
    if (cudaMalloc((void **)&d, sizeof x) != cudaSuccess || cudaMemcpy(d, x, sizeof x, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "error: no usable GPU: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 3;
    }
    double sum;
    int status = exact_sum(d, N, EXACT_SUM_F64, &sum, NULL, 0);
    cudaFree(d);
    if (status != EXACT_SUM_OK) {
        fprintf(stderr, "error: exact_sum: %s\n", exact_sum_status(status));
        return 3;
    }
    printf("1e16, 1000 ones, -1e16: the exact sum %.17g; fp64 additions in order %.17g\n", sum, in_order);
    return sum == 1000.0 ? 0 : 1;
}

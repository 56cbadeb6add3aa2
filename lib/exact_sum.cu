/* The exact-sum library (exact_sum.h): stage 13's kernels, launched as its program launches them. */
#include <cuda_runtime.h>
#include <string.h>

#include "exact_sum.cuh"
#include "exact_sum.h"

/* Where the kernels leave the two roundings, on each device (a __device__ variable is one per device). */
struct Rounded {
    double wide;
    float narrow;
};
__device__ Rounded rounded;

/* The blocks per SM of each kernel, per device, asked once: the query is host time on every call. */
#define MAX_DEVICES 64
static int per_sm[MAX_DEVICES][4];

template <typename KernelFn>
static cudaError_t launch_grid(KernelFn kernel, int slot, uint64_t vectors, unsigned *blocks)
{
    int device, sm_count;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) return e;
    int *cached = device < MAX_DEVICES ? &per_sm[device][slot] : NULL, queried = 0;
    if (!cached || !*cached) {
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&queried, kernel, BLOCK, 0);
        if (e != cudaSuccess) return e;
        if (cached) *cached = queried;
    }
    *blocks = exact_grid(cached ? *cached : queried, sm_count, vectors, UNROLL);
    return cudaSuccess;
}

template <typename T>
static cudaError_t launch_windows(const void *x, uint64_t n, Rounded *r, int slot, cudaStream_t stream)
{
    unsigned blocks;
    cudaError_t e = launch_grid(window_sum<T, BLOCK>, slot, n * sizeof(T) / 16 + 1, &blocks);
    if (e != cudaSuccess) return e;
    window_sum<T, BLOCK><<<blocks, BLOCK, 0, stream>>>((const T *)x, n, &r->narrow, &r->wide);
    return cudaGetLastError();
}

/* The bytes of an element of each ExactSumType. */
static const size_t type_bytes[] = {sizeof(double), sizeof(float), sizeof(__half), sizeof(__nv_bfloat16)};

extern "C" int exact_sum_launch(const void *x, uint64_t n, ExactSumType t, cudaStream_t stream)
{
    if ((unsigned)t > EXACT_SUM_BF16 || (n && (!x || (uintptr_t)x % type_bytes[t]))) return EXACT_SUM_BAD_ARGUMENT;
    Rounded *r;
    cudaError_t e = cudaGetSymbolAddress((void **)&r, rounded);
    if (e != cudaSuccess) return EXACT_SUM_CUDA_ERROR;
    if (n == 0) { /* no kernel: the roundings left +0 (all bits 0), which exact_sum_result reads as the sum */
        e = cudaMemsetAsync(r, 0, sizeof *r, stream);
    } else if (t == EXACT_SUM_F64) {
        unsigned blocks;
        e = launch_grid(window_sum_f64<BLOCK>, t, n / 2 + 1, &blocks);
        if (e == cudaSuccess && n >= (uint64_t)blocks * VALUES_PER_BLOCK64) return EXACT_SUM_TOO_LARGE;
        if (e == cudaSuccess) {
            window_sum_f64<BLOCK><<<blocks, BLOCK, 0, stream>>>((const double *)x, n, &r->wide, &r->narrow);
            e = cudaGetLastError();
        }
    } else if (t == EXACT_SUM_F32) {
        e = launch_windows<float>(x, n, r, t, stream);
    } else if (t == EXACT_SUM_F16) {
        e = launch_windows<__half>(x, n, r, t, stream);
    } else {
        e = launch_windows<__nv_bfloat16>(x, n, r, t, stream);
    }
    return e == cudaSuccess ? EXACT_SUM_OK : EXACT_SUM_CUDA_ERROR;
}

extern "C" int exact_sum_result(ExactSumType t, double *sum64, double *in_type, cudaStream_t stream)
{
    if (!sum64 || (unsigned)t > EXACT_SUM_BF16) return EXACT_SUM_BAD_ARGUMENT;
    Rounded *r, got;
    double odd = 0.0, *odd_at;
    const bool narrow16 = t == EXACT_SUM_F16 || t == EXACT_SUM_BF16;
    cudaError_t e = cudaGetSymbolAddress((void **)&r, rounded);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&got, r, sizeof got, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess && narrow16 && in_type) e = cudaGetSymbolAddress((void **)&odd_at, total_to_odd);
    if (e == cudaSuccess && narrow16 && in_type) e = cudaMemcpyAsync(&odd, odd_at, sizeof odd, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return EXACT_SUM_CUDA_ERROR;
    *sum64 = got.wide;
    /* fp16 and bf16 from the total rounded to odd (exact_sum.cuh's total_to_odd): one rounding of the exact
     * sum, where rounding the fp64 result would be two (a total just off a tie, rounded to the tie in fp64,
     * then to even). A NaN, Inf or 0 total is its fp64 result exactly. */
    const double narrow_from = isfinite(got.wide) && got.wide != 0.0 ? odd : got.wide;
    if (in_type)
        *in_type = t == EXACT_SUM_F64 ? got.wide : t == EXACT_SUM_F32 ? (double)got.narrow
                 : t == EXACT_SUM_F16 ? (double)__half2float(__double2half(narrow_from))
                                      : (double)__bfloat162float(__double2bfloat16(narrow_from));
    return EXACT_SUM_OK;
}

extern "C" int exact_sum(const void *x, uint64_t n, ExactSumType t, double *sum64, double *in_type, cudaStream_t stream)
{
    if (!sum64 || (unsigned)t > EXACT_SUM_BF16) return EXACT_SUM_BAD_ARGUMENT;
    if (n == 0) { /* no GPU needed */
        *sum64 = 0.0;
        if (in_type) *in_type = 0.0;
        return EXACT_SUM_OK;
    }
    const int status = exact_sum_launch(x, n, t, stream);
    return status == EXACT_SUM_OK ? exact_sum_result(t, sum64, in_type, stream) : status;
}

extern "C" int exact_sum_host(const void *x, uint64_t n, ExactSumType t, double *sum64, double *in_type)
{
    if (!sum64 || (unsigned)t > EXACT_SUM_BF16 || (n && !x) || n > SIZE_MAX / type_bytes[t]) return EXACT_SUM_BAD_ARGUMENT;
    if (n == 0) return exact_sum(NULL, 0, t, sum64, in_type, 0);
    const size_t bytes = n * type_bytes[t];
    void *dev;
    cudaError_t e = cudaMalloc(&dev, bytes);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); /* cleared: the next call should not see it */
        return EXACT_SUM_NO_MEMORY;
    }
    if (e != cudaSuccess) return EXACT_SUM_CUDA_ERROR;
    int status = cudaMemcpy(dev, x, bytes, cudaMemcpyHostToDevice) == cudaSuccess ? exact_sum(dev, n, t, sum64, in_type, 0)
                                                                                 : EXACT_SUM_CUDA_ERROR;
    return cudaFree(dev) == cudaSuccess ? status : EXACT_SUM_CUDA_ERROR;
}

extern "C" const char *exact_sum_status(int code)
{
    switch (code) {
    case EXACT_SUM_OK: return "ok";
    case EXACT_SUM_BAD_ARGUMENT: return "bad argument: a NULL result pointer, an unknown type, or a NULL or misaligned array";
    case EXACT_SUM_TOO_LARGE: return "too large: more than 2^29 fp64 values for each block the GPU holds at once";
    case EXACT_SUM_CUDA_ERROR: return "a CUDA error (cudaGetLastError says which)";
    case EXACT_SUM_NO_MEMORY: return "out of GPU memory for the copy of the values";
    default: return "not a status of exact_sum";
    }
}

extern "C" int exact_sum_code(const char *name)
{
#define NAMED(code) {#code, code}
    static const struct {
        const char *name;
        int code;
    } codes[] = {NAMED(EXACT_SUM_F64), NAMED(EXACT_SUM_F32), NAMED(EXACT_SUM_F16), NAMED(EXACT_SUM_BF16),
                 NAMED(EXACT_SUM_OK), NAMED(EXACT_SUM_BAD_ARGUMENT), NAMED(EXACT_SUM_TOO_LARGE),
                 NAMED(EXACT_SUM_CUDA_ERROR), NAMED(EXACT_SUM_NO_MEMORY)};
#undef NAMED
    for (size_t i = 0; name && i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(name, codes[i].name)) return codes[i].code;
    return -1;
}

/* CUB's rows (cub.h). */
#include <cub/device/device_reduce.cuh> /* the two headers of what it calls: all of cub.cuh takes longer to compile */
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cub.h"

Acc cub_acc(Dtype t) { return dtypes[t].integer ? ACC_I32 : t == DT_F64 ? ACC_F64 : ACC_F32; }

struct ToFloat {
    __device__ float operator()(__half x) const { return __half2float(x); }
    __device__ float operator()(__nv_bfloat16 x) const { return __bfloat162float(x); }
    __device__ float operator()(__nv_fp8_e4m3 x) const { return (float)x; }
    __device__ float operator()(__nv_fp8_e5m2 x) const { return (float)x; }
};
template <typename A>
struct WidenTo { /* into int32, u32 values past int32's largest wrap, as an int32 sum past it does */
    template <typename T>
    __device__ A operator()(T x) const { return (A)x; }
};

template <typename T>
static cudaError_t cub_to_float(void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    return cub::DeviceReduce::TransformReduce(temp, bytes, (const T *)in, (float *)out, (int64_t)n,
                                              cuda::std::plus<float>(), ToFloat(), 0.0f);
}

template <typename T, typename A>
static cudaError_t widened_sum(void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    return cub::DeviceReduce::TransformReduce(temp, bytes, (const T *)in, (A *)out, (int64_t)n,
                                              cuda::std::plus<A>(), WidenTo<A>(), (A)0);
}

/* The sum in A of n integers of type t (i8 to u32), each widened to A first: the one map of their C types. */
template <typename A>
static cudaError_t integer_sum(Dtype t, void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    switch (t) {
    case DT_I8: return widened_sum<int8_t, A>(temp, bytes, in, out, n);
    case DT_U8: return widened_sum<uint8_t, A>(temp, bytes, in, out, n);
    case DT_I16: return widened_sum<int16_t, A>(temp, bytes, in, out, n);
    case DT_U16: return widened_sum<uint16_t, A>(temp, bytes, in, out, n);
    case DT_I32: return widened_sum<int32_t, A>(temp, bytes, in, out, n);
    default: return widened_sum<uint32_t, A>(temp, bytes, in, out, n);
    }
}

cudaError_t cub_reduce(Dtype t, void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    switch (t) {
    case DT_F16: return cub_to_float<__half>(temp, bytes, in, out, n);
    case DT_BF16: return cub_to_float<__nv_bfloat16>(temp, bytes, in, out, n);
    case DT_FP8_E4M3: return cub_to_float<__nv_fp8_e4m3>(temp, bytes, in, out, n);
    case DT_FP8_E5M2: return cub_to_float<__nv_fp8_e5m2>(temp, bytes, in, out, n);
    case DT_I8: case DT_U8: case DT_I16: case DT_U16: case DT_U32: return integer_sum<int>(t, temp, bytes, in, out, n);
    case DT_I32: return cub::DeviceReduce::Sum(temp, bytes, (const int *)in, (int *)out, (int64_t)n);
    case DT_F64: return cub::DeviceReduce::Sum(temp, bytes, (const double *)in, (double *)out, (int64_t)n);
    default: return cub::DeviceReduce::Sum(temp, bytes, (const float *)in, (float *)out, (int64_t)n);
    }
}

cudaError_t cub_int64_sum(Dtype t, void *temp, size_t &bytes, const void *in, long long *out, uint64_t n)
{
    return integer_sum<long long>(t, temp, bytes, in, out, n);
}

size_t cub_temp_bytes(Dtype t, uint64_t n)
{
    size_t bytes = 0;
    CUDA_CHECK(cub_reduce(t, NULL, bytes, NULL, NULL, n));
    return bytes;
}

size_t cub_rows_temp_bytes(uint64_t rows)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(NULL, bytes, (const float *)NULL, (float *)NULL, (int64_t)rows,
                                               (const int64_t *)NULL, (const int64_t *)NULL));
    return bytes;
}

/* CUB's sum of the input of type T, in the harness's scratch. */
template <Dtype T>
static void launch_cub(Run *r)
{
    size_t bytes = r->scratch_bytes;
    CUDA_CHECK(cub_reduce(T, r->scratch, bytes, r->data, r->out, r->n));
    r->chain = chain_cub_reduce(r->n, r->sm_count);
    if (T == DT_F64) { /* every addition in fp64; tiles of 8 items a thread, twice as many */
        r->chain.acc_bits = 53;
        r->chain.serial += 8.0; /* ceil(2 t / G) 8 <= ceil(t / G) 16 + 8 */
    }
}

/* A launcher for each kernel's input type, in Dtype's order (the file types after f64 have no kernel). */
static const LaunchFn cub_launchers[DT_COUNT] = {launch_cub<DT_F32>, launch_cub<DT_F16>, launch_cub<DT_BF16>,
                                                 launch_cub<DT_FP8_E4M3>, launch_cub<DT_FP8_E5M2>, launch_cub<DT_I8>,
                                                 launch_cub<DT_I32>, launch_cub<DT_F64>};

static void launch_cub_rows(Run *r)
{
    size_t bytes = r->scratch_bytes;
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(r->scratch, bytes, r->in, r->row_sums, (int64_t)r->rows,
                                               r->row_offsets, r->row_offsets + 1));
    r->chain = chain_cub_reduce(r->cols, 0);
}

Kernel cub_kernel(Dtype t, int rows)
{
    return {"cub", "cub::DeviceReduce", rows ? launch_cub_rows : cub_launchers[t], 0, 0, t, cub_acc(t)};
}

/* Packed loads: several elements read with one load instruction, up to 16 bytes, the widest a thread can
 * issue. Why 16 bytes: a warp's 32 loads of 16 bytes read 512 consecutive bytes, four whole 128-byte lines,
 * in one instruction, where 4-byte loads take four instructions for the same bytes (and 1-byte elements
 * sixteen). DRAM is kept busy by the bytes in flight (bandwidth x latency, Little's law), and a thread has
 * only so many loads in flight: four times the bytes per load is four times the bytes in flight. A 16-byte
 * load needs an address on a 16-byte boundary, so an input that does not start on one is read as a head of
 * single elements, the whole 16-byte vectors (uint4), then a tail of single elements. */
#ifndef REDUCE_PACKED_H
#define REDUCE_PACKED_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>

/* N values of T that move as one aligned load of N x sizeof(T) bytes (Packed<float, 4>: 16 bytes). */
template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};

/* The elements of x[0..n) before its first 16-byte boundary (all n when none falls inside). */
template <typename T>
__device__ __forceinline__ uint64_t unaligned_head(const T *x, uint64_t n)
{
    uint64_t head = ((16 - (uintptr_t)x % 16) % 16) / sizeof(T);
    if (head > n) head = n;
    return head;
}

/* The sum of one 16-byte vector of each input type, in the accumulator (fp32, int32 for int8, fp64 for
 * fp64); the second argument, the input's pointer, picks the type. */
__device__ __forceinline__ float sum16(uint4 v, const float *)
{
    float4 f = *reinterpret_cast<float4 *>(&v);
    return (f.x + f.y) + (f.z + f.w);
}
__device__ __forceinline__ double sum16(uint4 v, const double *)
{
    double2 f = *reinterpret_cast<double2 *>(&v);
    return f.x + f.y;
}
/* fp16 and bf16: four pairs, each converted to two floats in one instruction. */
__device__ __forceinline__ float2 to_float2(__half2 h) { return __half22float2(h); }
__device__ __forceinline__ float2 to_float2(__nv_bfloat162 h) { return __bfloat1622float2(h); }
template <typename Pair>
__device__ __forceinline__ float sum16_pairs(uint4 v)
{
    const Pair *h = reinterpret_cast<const Pair *>(&v);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        float2 f = to_float2(h[k]);
        s += f.x + f.y;
    }
    return s;
}
__device__ __forceinline__ float sum16(uint4 v, const __half *) { return sum16_pairs<__half2>(v); }
__device__ __forceinline__ float sum16(uint4 v, const __nv_bfloat16 *) { return sum16_pairs<__nv_bfloat162>(v); }
template <__nv_fp8_interpretation_t KIND>
__device__ __forceinline__ float sum16_fp8(uint4 v)
{
    const __nv_fp8x2_storage_t *p = reinterpret_cast<const __nv_fp8x2_storage_t *>(&v);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; k++) { /* two fp8 values to two halves in one instruction (sm_89+) */
        float2 f = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(p[k], KIND)));
        s += f.x + f.y;
    }
    return s;
}
__device__ __forceinline__ float sum16(uint4 v, const __nv_fp8_e4m3 *) { return sum16_fp8<__NV_E4M3>(v); }
__device__ __forceinline__ float sum16(uint4 v, const __nv_fp8_e5m2 *) { return sum16_fp8<__NV_E5M2>(v); }
__device__ __forceinline__ int sum16(uint4 v, const int8_t *)
{
    /* __dp4a(a, 0x01010101, c): the four signed bytes of a, added to c, in one instruction. */
    return __dp4a((int)v.w, 0x01010101, __dp4a((int)v.z, 0x01010101, __dp4a((int)v.y, 0x01010101, __dp4a((int)v.x, 0x01010101, 0))));
}

#endif

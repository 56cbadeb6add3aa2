/* Stage 13: a sum every GPU agrees on. An fp32 sum's bits depend on the order of its additions, and the
 * order on the grid; integer additions do not. Every finite fp32 value is an integer count of 2^-149
 * (the smallest subnormal) below 2^277, so the exact sum is an integer sum, the same for any order,
 * any grid and any GPU, rounded once at the end. The steps, each a row of the table:
 *   1. order matters: one fp32 kernel, three grids, three results;
 *   2. integers are associative: a fixed-point sum, exact for data on a known grid (and only those);
 *   3. the general method: every value into 32-bit digits of 2^-149 (a superaccumulator);
 *   4. the fast one: the same digits, filled 16 values at a time by exact fp64 additions. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/atomic>
#include <stdint.h>
#include <string.h>
#if __has_include(<cuda/execution.determinism.h>) /* a CCCL newer than CUDA 13.0's: CUB's determinism (below) */
#include <cub/device/device_reduce.cuh>
#include <cuda/execution.determinism.h>
#include <cuda/execution.require.h>
#define CUB_DETERMINISM 1
#endif

#include "common.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define UNROLL 4 /* 16-byte loads in flight per thread, as in stage 08 */
#define FULL_MASK 0xffffffffu

/* ---- the last block, as stage 08 finishes ----------------------------------------------------- */

__device__ unsigned blocks_done; /* 0 before every launch: the last block resets it */

__device__ __forceinline__ bool last_block_to_finish()
{
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(blocks_done);
        last = count.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
        if (last) count.store(0u, cuda::memory_order_relaxed);
    }
    __syncthreads();
    return last;
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL_MASK, v, m);
    return v;
}

/* A block's sum, in thread 0. */
template <typename T>
__device__ __forceinline__ T block_sum(T v)
{
    __shared__ TRACED(T) warp_sums[WARPS];
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < WARPS ? T(warp_sums[threadIdx.x]) : T(0);
    if (threadIdx.x < 32) v = warp_sum(v);
    __syncthreads(); /* warp_sums is free again */
    return v;
}

/* ---- 1. order matters --------------------------------------------------------------------------- */

/* Stage 08's shape in fp32: each thread adds its 16-byte vectors a grid apart, the block adds its
 * threads, and the last block adds the blocks' sums in block order. Every run of one grid gives the same
 * bits; another grid puts other values in each thread's sum, and the bits change. */
__global__ void __launch_bounds__(BLOCK) float_sum(const float *x, uint64_t n, float *out, float *partials)
{
    const float4 *v = reinterpret_cast<const float4 *>(x);
    uint64_t vectors = n / 4, t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    float acc = 0.0f;
    for (uint64_t i = t; i < vectors; i += (uint64_t)gridDim.x * BLOCK) {
        float4 f = __ldcs(v + i);
        acc += (f.x + f.y) + (f.z + f.w);
    }
    if (t < n - vectors * 4) acc += x[vectors * 4 + t];
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();
    }
    if (!last_block_to_finish()) return;
    float total = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) total += __ldcg(&partials[b]);
    total = block_sum(total);
    if (threadIdx.x == 0) *out = total;
}

enum { ONE_BLOCK, ONE_PER_SM, EIGHT_PER_SM };

template <int GRID>
static void run_float_sum(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = "the input is not aligned to 16 bytes";
        return;
    }
    unsigned blocks = GRID == ONE_BLOCK ? 1u : GRID == ONE_PER_SM ? (unsigned)r->sm_count : 8u * r->sm_count;
    float_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out, r->partials);
    LAUNCH_CHECK("float_sum");
    /* A thread's vectors, the pairs inside one, the tail; the block's tree; then the blocks' sums: a thread's
     * share of them and the last block's tree. */
    uint64_t threads = (uint64_t)blocks * BLOCK;
    r->shape.serial = (double)((r->n / 4 + threads - 1) / threads) + 2 + 1 + (blocks > 1 ? (blocks + BLOCK - 1) / BLOCK : 0);
    r->shape.tree = blocks > 1 ? 8 + 8 : 8;
}

/* ---- 2. integers are associative: fixed point ------------------------------------------------- */

/* Data on a grid of 2^-24 (the bench's data: multiples of 2^-23 below 2 in magnitude) are integers in
 * units of 2^-24; int64 adds them exactly in any order. The total becomes a float in one rounding
 * (__ll2float_rn) and a scaling by 2^-24 (exact). A value off the grid, or data whose sum could leave
 * int64, cannot be held: the launcher refuses them, which is why this is not the general method. */
#define FIXED_UNIT 0x1p24f
__device__ long long fixed_total; /* 0 before every launch: the last block resets it */

__global__ void __launch_bounds__(BLOCK) fixed_point_sum(const float *x, uint64_t n, float *out)
{
    const float4 *v = reinterpret_cast<const float4 *>(x);
    uint64_t vectors = n / 4, t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    long long acc = 0;
    for (uint64_t i = t; i < vectors; i += (uint64_t)gridDim.x * BLOCK) {
        float4 f = __ldcs(v + i);
        acc += __float2ll_rn(f.x * FIXED_UNIT) + __float2ll_rn(f.y * FIXED_UNIT) +
               __float2ll_rn(f.z * FIXED_UNIT) + __float2ll_rn(f.w * FIXED_UNIT);
    }
    if (t < n - vectors * 4) acc += __float2ll_rn(x[vectors * 4 + t] * FIXED_UNIT);
    acc = block_sum(acc);
    if (threadIdx.x == 0) {
        atomicAdd((unsigned long long *)&fixed_total, (unsigned long long)acc);
        __threadfence();
    }
    if (last_block_to_finish() && threadIdx.x == 0) {
        cuda::atomic_ref<long long, cuda::thread_scope_device> total(fixed_total);
        *out = __ll2float_rn(total.exchange(0, cuda::memory_order_relaxed)) / FIXED_UNIT;
    }
}

/* Whether the host's copy of the input is on the grid, with sum|x| 2^24 far inside int64. The launcher
 * runs for every timed run, and a scan of the input then would be timed: the answer is kept for the input
 * it was asked of (its address, N and 257 values spread over it; other data there change those). */
static const char *fixed_point_refusal(const float *x, uint64_t n)
{
    static const float *seen;
    static uint64_t seen_n;
    static float seen_sample[257];
    static const char *why;
    float sample[257];
    for (int k = 0; k < 257; k++) sample[k] = x[(n - 1) * k / 256];
    if (x == seen && n == seen_n && !memcmp(sample, seen_sample, sizeof sample)) return why;
    memcpy(seen_sample, sample, sizeof sample);
    double abs_sum = 0.0;
    int on_grid = 1;
    for (uint64_t i = 0; i < n && on_grid; i++) {
        float scaled = x[i] * FIXED_UNIT;
        on_grid = isfinite(scaled) && scaled == truncf(scaled);
        abs_sum += fabsf(x[i]);
    }
    seen = x, seen_n = n;
    why = !on_grid ? "a value is not a multiple of 2^-24: fixed point in units of 2^-24 cannot hold it exactly"
        : abs_sum * FIXED_UNIT >= 0x1p62 ? "sum|x| 2^24 reaches 2^62: the int64 total could overflow" : NULL;
    return why;
}

static void run_fixed_point(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = "the input is not aligned to 16 bytes";
        return;
    }
    if ((r->refuse = fixed_point_refusal(r->host_in, r->n))) return;
    unsigned blocks = grid_for(r->n / 4 + 1, BLOCK * UNROLL, "fixed_point_sum");
    if (blocks > 8u * r->sm_count) blocks = 8u * r->sm_count;
    fixed_point_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out);
    LAUNCH_CHECK("fixed_point_sum");
}

/* ---- 3. the general method: digits of 2^-149 ---------------------------------------------------- */

/* A finite fp32 value with exponent field f and fraction m is q 2^(e - 149), e = max(f, 1) - 1 and
 * q = m + 2^23 (f > 0) or m (a subnormal): bit e of a fixed-point number whose unit is 2^-149. That number
 * is kept in DIGITS digits of 32 bits, each an int64, so a digit takes 2^31 additions of a 32-bit part
 * before it could overflow: no carry is needed while adding. 11 digits reach 2^203: fp32's 2^128 and
 * room for 2^75 values. Each thread owns a column of digits in shared memory (digit k of thread t at
 * d[k * blockDim.x + t]: a warp's 32 threads touch 32 consecutive int64s), so its additions need no
 * atomics; NaN and Inf set flags instead (IEEE: NaN, or +Inf and -Inf together, give NaN; one infinity
 * gives itself). */
#define DIGITS 11
enum { SAW_NAN = 1, SAW_PLUS_INF = 2, SAW_MINUS_INF = 4 };

__device__ __forceinline__ long long &digit(long long *d, int k) { return d[k * blockDim.x + threadIdx.x]; }

/* One fp32 value (its bits) into the thread's digits: its 55-bit magnitude shifted into place spans two. */
__device__ __forceinline__ void digits_add_value(long long *d, uint32_t bits, unsigned *flags)
{
    unsigned field = bits >> 23 & 0xffu;
    if (field == 0xffu) {
        atomicOr(flags, bits & 0x7fffffu ? SAW_NAN : bits >> 31 ? SAW_MINUS_INF : SAW_PLUS_INF);
        return;
    }
    unsigned e = field ? field - 1 : 0;
    unsigned long long mag = (unsigned long long)((bits & 0x7fffffu) | (field ? 0x800000u : 0u)) << (e % 32);
    long long low = (long long)(mag & 0xffffffffu), high = (long long)(mag >> 32);
    if (bits >> 31) low = -low, high = -high;
    digit(d, e / 32) += low;
    digit(d, e / 32 + 1) += high;
}

/* A signed 64-bit integer v times 2^(p - 149), p >= 0, into the thread's digits: v 2^(p % 32) is 96 bits
 * at most, its low 64 as two unsigned digits and the rest (the sign) as the third. */
__device__ __forceinline__ void digits_add_integer(long long *d, long long v, int p)
{
    int s = p % 32;
    unsigned long long low = (unsigned long long)v << s;
    long long high = s ? v >> (64 - s) : (v < 0 ? -1 : 0);
    digit(d, p / 32) += (long long)(low & 0xffffffffu);
    digit(d, p / 32 + 1) += (long long)(low >> 32);
    digit(d, p / 32 + 2) += high;
}

/* Every digit but the top into [0, 2^32), the carries upward: the top digit keeps the sign. */
__device__ __forceinline__ void carry_digits(long long *d, int stride)
{
#pragma unroll
    for (int k = 0; k + 1 < DIGITS; k++) {
        long long carry = d[k * stride] >> 32; /* arithmetic shift: floor division by 2^32 */
        d[k * stride] -= carry * 4294967296LL;
        d[(k + 1) * stride] += carry;
    }
}

/* The grid's total: every block adds its digits with integer atomics (any order gives the same sum) and
 * ORs its flags; the last block takes them, leaving zeros for the next launch. */
__device__ unsigned long long digit_total[DIGITS];
__device__ unsigned flag_total;

/* The carried total rounded once, to fp32 (returned) and to fp64 (*wide): its top 64 bits as an
 * integer, the lowest set where any bit below them is (a sticky bit, far under both formats' last
 * place), converted by one correctly rounded integer-to-float conversion, then scaled by a power of two,
 * exactly: a total of 2^24 units or more is a normal number (no second rounding), and a smaller one is
 * exact in both formats. Past FLT_MAX the fp32 result is Inf, as IEEE rounds. The digits stay in
 * registers: every loop runs over constant indices. */
__device__ __noinline__ float round_digits(const long long *total, unsigned flags, double *wide)
{
    if (flags & SAW_NAN || (flags & SAW_PLUS_INF && flags & SAW_MINUS_INF)) {
        *wide = __longlong_as_double(0x7ff8000000000000LL);
        return __int_as_float(0x7fc00000);
    }
    if (flags) {
        *wide = flags & SAW_PLUS_INF ? (double)INFINITY : -(double)INFINITY;
        return flags & SAW_PLUS_INF ? INFINITY : -INFINITY;
    }
    long long d[DIGITS];
#pragma unroll
    for (int k = 0; k < DIGITS; k++) d[k] = total[k];
    carry_digits(d, 1);
    bool negative = d[DIGITS - 1] < 0;
    if (negative) {
#pragma unroll
        for (int k = 0; k < DIGITS; k++) d[k] = -d[k];
        carry_digits(d, 1);
    }
    int top = DIGITS - 1; /* the digits moved up until the highest is not zero: no index varies */
#pragma unroll
    for (int step = 0; step + 1 < DIGITS; step++) {
        bool up = d[DIGITS - 1] == 0;
        top -= up;
#pragma unroll
        for (int k = DIGITS - 1; k > 0; k--) d[k] = up ? d[k - 1] : d[k];
        d[0] = up ? 0 : d[0];
    }
    unsigned long long hi = d[DIGITS - 1], mid = d[DIGITS - 2], lo = d[DIGITS - 3], sticky = 0;
#pragma unroll
    for (int k = 0; k + 3 < DIGITS; k++) sticky |= d[k];
    if (hi == 0) { /* every digit zero */
        *wide = 0.0;
        return 0.0f;
    }
    int c = __clz((unsigned)hi); /* hi:mid:lo, 96 bits, shifted left by c: the top 64 and the 32 below */
    unsigned long long w = (hi << 32 | mid) << c | (lo << c) >> 32;
    sticky |= (lo << c) & 0xffffffffu;
    w |= sticky != 0;
    int shift = 32 * (top - 1) - 149 - c; /* the unit of w's lowest bit */
    float f = scalbnf(__ull2float_rn(w), shift);
    *wide = negative ? -scalbn(__ull2double_rn(w), shift) : scalbn(__ull2double_rn(w), shift);
    return negative ? -f : f;
}

/* After the block's values are in its threads' digits: each thread carries its column, the block adds
 * the columns digit by digit (at most 2^10 columns of digits below 2^32: no overflow) into the grid's
 * total, and the last block rounds it: fp32 to *out, fp64 to *wide (the launchers: the first 8 bytes of
 * Run.partials; the demo reads it there). */
__device__ void finish_digits(long long *d, unsigned *flags, float *out, double *wide)
{
    __shared__ long long sum[DIGITS];
    long long column[DIGITS]; /* the thread's digits, carried in registers */
#pragma unroll
    for (int k = 0; k < DIGITS; k++) column[k] = digit(d, k);
    carry_digits(column, 1);
#pragma unroll
    for (int k = 0; k < DIGITS; k++) digit(d, k) = column[k];
    __syncthreads();
    for (int k = threadIdx.x / 32; k < DIGITS; k += blockDim.x / 32) { /* warp w adds digits w, w + warps, ... */
        long long s = 0;
        for (unsigned t = threadIdx.x % 32; t < blockDim.x; t += 32) s += d[k * blockDim.x + t];
        s = warp_sum(s);
        if (threadIdx.x % 32 == 0) sum[k] = s;
    }
    __syncthreads();
    if (gridDim.x == 1) { /* one block: its digits are the total, with no atomics and no count */
        if (threadIdx.x == 0) *out = round_digits(sum, *flags, wide);
        return;
    }
    if (threadIdx.x < DIGITS) atomicAdd(&digit_total[threadIdx.x], (unsigned long long)sum[threadIdx.x]);
    if (threadIdx.x == DIGITS) atomicOr(&flag_total, *flags);
    if (!last_block_to_finish()) return; /* its barrier, then thread 0's release: the block's atomics first */
    __shared__ unsigned grid_flags;
    if (threadIdx.x < DIGITS) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> total(digit_total[threadIdx.x]);
        sum[threadIdx.x] = (long long)total.exchange(0ull, cuda::memory_order_relaxed);
    }
    if (threadIdx.x == DIGITS) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> total(flag_total);
        grid_flags = total.exchange(0u, cuda::memory_order_relaxed);
    }
    __syncthreads();
    if (threadIdx.x == 0) *out = round_digits(sum, grid_flags, wide);
}

/* Every value straight into the digits: two shared-memory read-modify-writes of 8 bytes per value. */
__global__ void __launch_bounds__(BLOCK) digits_sum(const float *x, uint64_t n, float *out, double *wide)
{
    __shared__ long long d[DIGITS * BLOCK];
    __shared__ unsigned flags;
    for (int k = 0; k < DIGITS; k++) digit(d, k) = 0;
    if (threadIdx.x == 0) flags = 0;
    __syncthreads();
    const uint4 *v = reinterpret_cast<const uint4 *>(x);
    uint64_t vectors = n / 4, t = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
    for (uint64_t i = t; i < vectors; i += (uint64_t)gridDim.x * BLOCK) {
        uint4 b = __ldcs(v + i);
        digits_add_value(d, b.x, &flags);
        digits_add_value(d, b.y, &flags);
        digits_add_value(d, b.z, &flags);
        digits_add_value(d, b.w, &flags);
    }
    if (t < n - vectors * 4) digits_add_value(d, __float_as_uint(x[vectors * 4 + t]), &flags);
    finish_digits(d, &flags, out, wide);
}

/* ---- 4. the fast one: fp64 windows in front of the digits -------------------------------------- */

/* 2^e for a normal double's exponent, made from its bits. */
__device__ __forceinline__ double power_of_two(int e) { return __longlong_as_double((long long)(1023 + e) << 52); }

/* An fp64 addition is exact while its operands and result are multiples of one quantum and below 2^53
 * of them. Values whose exponent fields lie in a window of SPAN fields, the lowest L, are multiples of
 * 2^(L - 150) below 2^(L - 150 + SPAN + 24); PER_CARRY of them add up to less than 2^53 quanta when
 * SPAN + 24 + log2(PER_CARRY) <= 53 + 1. Each thread keeps two such windows side by side (2 SPAN fields
 * under the warp's largest field in its first load, with room above it), adds every value that falls in
 * one to that window's fp64 sum (exactly), and after every PER_CARRY values moves the sums, integers of
 * quanta, into int64 (__double2ll_rn: exact). Values outside both windows, and NaN and Inf, go to the
 * digits one by one: correct for any data, fast when the data have a range, as nearly all data do. */
template <int PER_CARRY>
struct Windows {
    static_assert(PER_CARRY == 16 || PER_CARRY == 32, "SPAN below takes log2(PER_CARRY) as 4 or 5");
    static constexpr int SPAN = 54 - 24 - (PER_CARRY == 16 ? 4 : 5);
    static constexpr unsigned SPAN_BITS = (unsigned)SPAN << 23; /* SPAN fields, where the bits hold them */
    double sum0, sum1;   /* the windows' fp64 sums since the last carry */
    long long int0, int1; /* their integer totals, in quanta */
    int top;             /* the highest field of window 0 */
    unsigned top_bits;   /* top << 23 */

    __device__ void open(int largest_field)
    {
        top = min(max(largest_field + 6, 2 * SPAN), 254);
        top_bits = (unsigned)top << 23;
        sum0 = sum1 = 0.0;
        int0 = int1 = 0;
    }
    /* A value into its window's sum; true where it falls in neither (above or below them, NaN and Inf) and
     * is not a zero: the caller adds those to the digits, after the tile (a branch a tile, not a value). */
    __device__ __forceinline__ bool add(uint32_t bits)
    {
        unsigned below_top = top_bits - (bits & 0x7f800000u); /* fields under top, times 2^23 */
        double x = (double)__uint_as_float(bits);
        if (below_top < SPAN_BITS) sum0 += x;
        if (below_top - SPAN_BITS < SPAN_BITS) sum1 += x;
        return outside(top_bits, bits);
    }
    static __device__ __forceinline__ bool outside(unsigned top_bits, uint32_t bits)
    {
        return top_bits - (bits & 0x7f800000u) >= 2 * SPAN_BITS && bits << 1;
    }
    __device__ __forceinline__ void carry()
    {
        int0 += __double2ll_rn(sum0 * power_of_two(150 - (top - SPAN + 1))); /* 2^(150 - L): in quanta */
        int1 += __double2ll_rn(sum1 * power_of_two(150 - (top - 2 * SPAN + 1)));
        sum0 = sum1 = 0.0;
    }
    /* The integer totals into the digits: their unit 2^(L - 150) is bit L - 1 of the digits. */
    __device__ void flush(long long *d)
    {
        digits_add_integer(d, int0, top - SPAN);
        digits_add_integer(d, int1, top - 2 * SPAN);
        int0 = int1 = 0;
    }
};

/* A 16-byte vector's values as fp32 bits (exact: every fp16 and bf16 value is an fp32 value). */
template <typename T> struct Vector;
template <> struct Vector<float> {
    static constexpr int COUNT = 4;
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k) { return (&v.x)[k]; }
};
template <> struct Vector<__half> {
    static constexpr int COUNT = 8;
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k)
    {
        return __float_as_uint(__half2float(reinterpret_cast<const __half *>(&v)[k]));
    }
};
template <> struct Vector<__nv_bfloat16> {
    static constexpr int COUNT = 8;
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k) { return (k % 2 ? (&v.x)[k / 2] >> 16 : (&v.x)[k / 2] & 0xffffu) << 16; }
};
template <typename T>
__device__ __forceinline__ uint32_t value_bits(T v) { return __float_as_uint((float)v); }

/* A tile: UNROLL 16-byte vectors a thread, a block's width apart, streamed; past the end zeros, which add
 * nothing. */
__device__ __forceinline__ void load_tile(uint4 *r, const uint4 *v, uint64_t i, uint64_t vectors)
{
#pragma unroll
    for (int k = 0; k < UNROLL; k++) r[k] = i + k * blockDim.x < vectors ? __ldcs(v + i + k * blockDim.x) : make_uint4(0, 0, 0, 0);
}

/* A tile's values outside both windows into the digits: rare, so a call of its own, which keeps the
 * registers it needs out of the loop's (the tile passed by value: an array would go to local memory). */
static_assert(UNROLL == 4, "add_outside takes a tile's 4 vectors");
template <typename T>
__device__ __noinline__ void add_outside(long long *d, unsigned top_bits, uint4 r0, uint4 r1, uint4 r2, uint4 r3,
                                         unsigned *flags)
{
    const uint4 r[UNROLL] = {r0, r1, r2, r3};
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < Vector<T>::COUNT; j++) {
            uint32_t bits = Vector<T>::bits(r[k], j);
            if (Windows<Vector<T>::COUNT * UNROLL>::outside(top_bits, bits)) digits_add_value(d, bits, flags);
        }
}

/* THREADS a block (a template argument: the digits' columns are a static shared array, and the launch
 * bounds hold every block size to the same 64 registers: 1024 threads an SM). Each thread's next tile is
 * loaded before it adds the one it holds, so its own loads are in flight while it computes. */
template <typename T, int THREADS>
__global__ void __launch_bounds__(THREADS, 1024 / THREADS) window_sum(const T *x, uint64_t n, float *out, double *wide)
{
    constexpr int PER_VEC = Vector<T>::COUNT;
    __shared__ long long d[DIGITS * THREADS];
    __shared__ unsigned flags;
    for (int k = 0; k < DIGITS; k++) digit(d, k) = 0;
    if (threadIdx.x == 0) flags = 0;
    __syncthreads();
    uint64_t head = ((16 - (uintptr_t)x % 16) % 16) / sizeof(T); /* elements before a 16-byte boundary */
    if (head > n) head = n;
    const uint4 *v = reinterpret_cast<const uint4 *>(x + head);
    uint64_t vectors = (n - head) / PER_VEC, tail = head + vectors * PER_VEC;
    uint64_t t = (uint64_t)blockIdx.x * THREADS + threadIdx.x, stride = (uint64_t)gridDim.x * THREADS * UNROLL;
    uint64_t i = (uint64_t)blockIdx.x * THREADS * UNROLL + threadIdx.x;
    uint4 r[UNROLL], next[UNROLL];
    load_tile(r, v, i, vectors);
    int largest = 0; /* the windows: under the warp's largest finite field of its first vectors */
#pragma unroll
    for (int k = 0; k < PER_VEC; k++) {
        int field = Vector<T>::bits(r[0], k) >> 23 & 0xff;
        largest = max(largest, field == 0xff ? 0 : field);
    }
    for (int m = 16; m > 0; m >>= 1) largest = max(largest, __shfl_xor_sync(FULL_MASK, largest, m));
    Windows<PER_VEC * UNROLL> w;
    w.open(largest);
    for (unsigned carries = 1; __any_sync(FULL_MASK, i < vectors); carries++, i += stride) {
        load_tile(next, v, i + stride, vectors);
        bool missed = false;
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
#pragma unroll
            for (int j = 0; j < PER_VEC; j++) missed |= w.add(Vector<T>::bits(r[k], j));
        if (missed) add_outside<T>(d, w.top_bits, r[0], r[1], r[2], r[3], &flags);
        w.carry();
        if (carries % 512 == 0) w.flush(d); /* int64 room: 2^10 carries below 2^53 */
#pragma unroll
        for (int k = 0; k < UNROLL; k++) r[k] = next[k];
    }
    uint32_t first = t < head ? value_bits(x[t]) : 0u, last = t < n - tail ? value_bits(x[tail + t]) : 0u;
    if (w.add(first)) digits_add_value(d, first, &flags);
    if (w.add(last)) digits_add_value(d, last, &flags);
    w.carry();
    w.flush(d);
    finish_digits(d, &flags, out, wide);
}

/* A block per tile of per_thread 16-byte vectors a thread, as stage 08, up to as many blocks as the GPU
 * holds at once. The kernel's blocks per SM are asked once (*per_sm, the caller's): the query is host time,
 * and a launcher's host time is inside the timed region. */
template <typename KernelFn>
static unsigned digits_grid(Run *r, KernelFn kernel, int *per_sm, uint64_t vectors, unsigned per_thread)
{
    if (*per_sm == 0) CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, BLOCK, 0));
    uint64_t blocks = (vectors + (uint64_t)BLOCK * per_thread - 1) / ((uint64_t)BLOCK * per_thread);
    uint64_t most = (uint64_t)r->sm_count * *per_sm;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

static void run_digits(Run *r)
{
    if ((uintptr_t)r->in % 16) {
        r->refuse = "the input is not aligned to 16 bytes";
        return;
    }
    static int per_sm;
    unsigned blocks = digits_grid(r, digits_sum, &per_sm, r->n / 4 + 1, 1);
    digits_sum<<<blocks, BLOCK>>>(r->in, r->n, r->out, (double *)r->partials);
    LAUNCH_CHECK("digits_sum");
}

template <typename T>
static void run_windows(Run *r)
{
    if ((uintptr_t)r->data % sizeof(T)) {
        r->refuse = "the input is not aligned to its element size";
        return;
    }
    static int per_sm;
    unsigned blocks = digits_grid(r, window_sum<T, BLOCK>, &per_sm, r->n * sizeof(T) / 16 + 1, UNROLL);
    window_sum<T, BLOCK><<<blocks, BLOCK>>>((const T *)r->data, r->n, r->out, (double *)r->partials);
    LAUNCH_CHECK("window_sum");
}

/* CUB's own answers to order, in a CCCL newer than CUDA 13.0's (make CCCL_HOME=/path, README): DeviceReduce
 * with an execution environment that requires a determinism, found at compile time. gpu_to_gpu: the same
 * bits on every GPU (a reproducible floating-point accumulator, not exactly rounded); not_guaranteed: the
 * blocks' sums joined by atomics, in any order. The check takes CUB's ordinary shape (shape_cub_reduce),
 * which the accumulator's error stays within, and for the atomics a chain through every block of the
 * largest grid that shape allows. */
#ifdef CUB_DETERMINISM
static void run_cub_gpu_to_gpu(Run *r)
{
    CUDA_CHECK(cub::DeviceReduce::Reduce(r->in, r->out, (int64_t)r->n, cuda::std::plus<>{}, 0.0f,
                                         cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)));
    r->shape = shape_cub_reduce(r->n, r->sm_count);
}

static void run_cub_not_guaranteed(Run *r)
{
    CUDA_CHECK(cub::DeviceReduce::Reduce(r->in, r->out, (int64_t)r->n, cuda::std::plus<>{}, 0.0f,
                                         cuda::execution::require(cuda::execution::determinism::not_guaranteed)));
    r->shape = shape_cub_reduce(r->n, r->sm_count);
    r->shape.atomic = fmin(ceil(r->n / 4096.0), 40.0 * r->sm_count);
}
#endif

static const Kernel kernels[] = {
    {"float_one_block", "1. order matters: fp32, each thread's vectors a grid apart, 1 block",
     run_float_sum<ONE_BLOCK>},
    {"float_block_per_sm", "1. the same kernel with a block per SM", run_float_sum<ONE_PER_SM>},
    {"float_8_blocks_per_sm", "1. the same kernel with 8 blocks per SM", run_float_sum<EIGHT_PER_SM>},
    {"fixed_point", "2. int64 in units of 2^-24: exact for data on that grid, refused otherwise", run_fixed_point,
     .acc = ACC_EXACT_SUM, .no_tree = "its sum is exact, the same in any order: there is no tree to draw"},
    {"digits", "3. every value into 32-bit digits of 2^-149 in shared memory, rounded once", run_digits,
     .acc = ACC_EXACT_SUM, .no_tree = "its sum is exact, the same in any order: there is no tree to draw"},
    {"windows_f32", "4. two exact fp64 windows in front of the digits, 16-byte loads", run_windows<float>,
     .dtype = DT_F32, .acc = ACC_EXACT_SUM, .no_tree = "its sum is exact, the same in any order: there is no tree to draw"},
    {"windows_f16", "4. the same for fp16 input", run_windows<__half>, .dtype = DT_F16, .acc = ACC_EXACT_SUM,
     .no_tree = "its sum is exact, the same in any order: there is no tree to draw"},
    {"windows_bf16", "4. the same for bf16 input", run_windows<__nv_bfloat16>, .dtype = DT_BF16,
     .acc = ACC_EXACT_SUM, .no_tree = "its sum is exact, the same in any order: there is no tree to draw"},
#ifdef CUB_DETERMINISM
    {"cub_gpu_to_gpu", "CUB's DeviceReduce requiring gpu_to_gpu determinism (CCCL_HOME)", run_cub_gpu_to_gpu,
     .no_tree = CUB_UNRECORDED},
    {"cub_not_guaranteed", "CUB's DeviceReduce requiring no determinism: atomics (CCCL_HOME)", run_cub_not_guaranteed,
     .no_tree = CUB_UNRECORDED},
#endif
};

STAGE("13_exact", kernels, .bench_fills = "shifted wide",
      .default_sizes = "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28,2^30", .charts = "bandwidth+ scaling",
      .accuracy = "float_8_blocks_per_sm windows_f32", .trees = "");

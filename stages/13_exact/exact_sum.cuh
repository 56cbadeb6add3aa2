/* Stage 13's exact sums, steps 3 to 5 of its reduce.cu: the kernels that sum fp32, fp16, bf16 and fp64
 * exactly, rounded once, for any data, order, grid and GPU. Stage 13's program (reduce.cu, which reads it
 * where its steps 3 to 5 are) and the exact-sum library (lib/exact_sum.cu) launch the same kernels: one copy
 * of the code. Device code and the grid's size; no harness, no Run. */
#ifndef REDUCE_EXACT_SUM_CUH
#define REDUCE_EXACT_SUM_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/atomic>
#include <stdint.h>

#include "packed.h" /* unaligned_head */

#define BLOCK 256
#define UNROLL 4 /* 16-byte loads in flight per thread, as in stage 08 */
#define FULL_MASK 0xffffffffu

template <typename T>
__device__ __forceinline__ T warp_sum(T v)
{
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(FULL_MASK, v, m);
    return v;
}

/* A warp's sum of ints (where it fits in an int): one instruction from sm_80 on, shuffles before it. */
__device__ __forceinline__ int warp_int_sum(int v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(FULL_MASK, v);
#else
    return warp_sum(v);
#endif
}

/* A warp's OR of unsigned words, the same way. */
__device__ __forceinline__ unsigned warp_or(unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(FULL_MASK, v);
#else
    for (int m = 16; m > 0; m >>= 1) v |= __shfl_xor_sync(FULL_MASK, v, m);
    return v;
#endif
}

/* A block's largest value, in every thread (the windows open at the block's largest field). */
template <int WARPS_HERE>
__device__ __forceinline__ unsigned block_max(unsigned v)
{
    __shared__ unsigned warp_largest[WARPS_HERE];
    for (int m = 16; m > 0; m >>= 1) v = max(v, __shfl_xor_sync(FULL_MASK, v, m));
    if (threadIdx.x % 32 == 0) warp_largest[threadIdx.x / 32] = v;
    __syncthreads();
    for (int k = 0; k < WARPS_HERE; k++) v = max(v, warp_largest[k]);
    return v;
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
/* #pragma unroll in a function the host compiler also builds (tests/ runs them on the host). */
#ifdef __CUDA_ARCH__
#define HOST_DEVICE_UNROLL _Pragma("unroll")
#else
#define HOST_DEVICE_UNROLL
#endif
enum { SAW_NAN = 1, SAW_PLUS_INF = 2, SAW_MINUS_INF = 4, SAW_NOT_MINUS_ZERO = 8 /* fp64's (step 5) */ };

__device__ __forceinline__ long long &digit(long long *d, int k) { return d[k * blockDim.x + threadIdx.x]; }

/* The flag of a NaN or an Inf (its bits). */
__device__ __forceinline__ unsigned flag_of(uint32_t nonfinite_bits)
{
    return nonfinite_bits & 0x7fffffu ? SAW_NAN : nonfinite_bits >> 31 ? SAW_MINUS_INF : SAW_PLUS_INF;
}

/* One fp32 value (its bits) into the thread's digits: its 55-bit magnitude shifted into place spans two. */
__device__ __forceinline__ void digits_add_value(long long *d, uint32_t bits, unsigned *flags)
{
    unsigned field = bits >> 23 & 0xffu;
    if (field == 0xffu) {
        atomicOr(flags, flag_of(bits));
        return;
    }
    unsigned e = field ? field - 1 : 0;
    unsigned long long mag = (unsigned long long)((bits & 0x7fffffu) | (field ? 0x800000u : 0u)) << (e % 32);
    long long low = (long long)(mag & 0xffffffffu), high = (long long)(mag >> 32);
    if (bits >> 31) low = -low, high = -high;
    digit(d, e / 32) += low;
    digit(d, e / 32 + 1) += high;
}

/* A signed 64-bit integer v times 2^p digits' units, p >= 0, into digits through add(k, part) (part added
 * to digit k): v 2^(p % 32) is 96 bits at most, its low 64 as two unsigned digits and the rest (the sign)
 * as the third. */
template <typename Add>
__host__ __device__ __forceinline__ void add_integer(long long v, int p, Add add)
{
    int s = p % 32;
    unsigned long long low = (unsigned long long)v << s;
    add(p / 32, (long long)(low & 0xffffffffu));
    add(p / 32 + 1, (long long)(low >> 32));
    add(p / 32 + 2, s ? v >> (64 - s) : (v < 0 ? -1 : 0));
}

/* Every digit but the top into [0, 2^32), the carries upward: the top digit keeps the sign. */
__device__ __forceinline__ void carry_digits(long long *d)
{
#pragma unroll
    for (int k = 0; k + 1 < DIGITS; k++) {
        long long carry = d[k] >> 32; /* arithmetic shift: floor division by 2^32 */
        d[k] -= carry * 4294967296LL;
        d[k + 1] += carry;
    }
}

/* The same across a warp, lane k holding digit k (lanes from DIGITS on hold 0), once: every lane below the
 * top keeps its low 32 bits and passes the rest up one lane. */
__device__ __forceinline__ long long carry_once(long long d)
{
    const int lane = threadIdx.x % 32;
    long long carry = lane < DIGITS - 1 ? d >> 32 : 0, below = __shfl_up_sync(FULL_MASK, carry, 1);
    return d + (lane ? below : 0) - carry * 4294967296LL;
}

/* ... until no digit below the top has a carry (a carry through digits of 2^32 - 1, or a borrow through
 * zeros, moves one digit a pass). */
__device__ long long carry_lanes(long long d)
{
    for (;;) {
        d = carry_once(d);
        if (!__any_sync(FULL_MASK, threadIdx.x % 32 < DIGITS - 1 && d >> 32 != 0)) return d;
    }
}

/* The grid's total, in words that count their blocks: word k < DIGITS is the sum of the blocks' digit k
 * (each below 2^33 in magnitude) plus 2^49 a block; word DIGITS is one a block, plus 2^16, 2^32 and 2^48
 * for each block that saw NaN, +Inf and -Inf. Integers, modulo 2^64: any order of the blocks gives the
 * same words. A word's count equal to the grid's size says it holds every block's addition, with no fence
 * and no counter of its own. The block that adds last to the flags word reads the others until each is
 * complete and leaves zeros for the next launch. */
#define MAX_BLOCKS (1u << 14) /* a digit word's sum stays below 2^47 in magnitude, its count below 2^15 */
#define BLOCK_COUNT (1ull << 49)
__device__ unsigned long long grid_words[DIGITS + 1];

/* The blocks a word has counted, and a digit word's sum (N digit words, then the flags word). */
template <int N = DIGITS>
__device__ __forceinline__ unsigned blocks_in(unsigned long long word, int k)
{
    return k < N ? (unsigned)((word + BLOCK_COUNT / 2) / BLOCK_COUNT) : (unsigned)(word & 0xffffu);
}
__device__ __forceinline__ long long digit_sum(unsigned long long word)
{
    return (long long)(word - blocks_in(word, 0) * BLOCK_COUNT);
}

/* The total of the last fp32, fp16 or bf16 sum on this device rounded to odd in fp64: the total where fp64
 * holds it, else its neighbour whose last bit is 1 (round_digits leaves it here; a NaN, Inf or 0 total leaves
 * it alone, round_digits' fp64 result being those exactly). Rounded to nearest once more to a format of at
 * most 51 bits, fp16's 11 or bf16's 8, it gives the one rounding of the total itself: the odd last bit keeps
 * a value just off a tie from reading as the tie. w is the total's top 64 bits, its lowest bit sticky (itself
 * rounded to odd), times 2^shift. */
__device__ double total_to_odd;
__device__ __forceinline__ double odd_double(unsigned long long w, int shift, bool negative)
{
    double t = __ull2double_rz(w);
    if ((unsigned long long)t != w) t = __longlong_as_double(__double_as_longlong(t) | 1);
    return negative ? -scalbn(t, shift) : scalbn(t, shift);
}

/* The total rounded once, to fp32 (returned) and to fp64 (wide), by one warp, lane k holding digit k:
 * carried (and negated if negative, and carried again), its top 64 bits as an integer, the lowest set
 * where any bit below them is (a sticky bit, far under both formats' last place), converted by one
 * correctly rounded integer-to-float conversion, then scaled by a power of two, exactly: a total of 2^24
 * units or more is a normal number (no second rounding), and a smaller one is exact in both formats. Past
 * FLT_MAX the fp32 result is Inf, as IEEE rounds. Every lane returns them. */
__device__ float round_digits(long long d, unsigned flags, double &wide)
{
    if (flags & SAW_NAN || (flags & SAW_PLUS_INF && flags & SAW_MINUS_INF)) {
        wide = __longlong_as_double(0x7ff8000000000000LL);
        return __int_as_float(0x7fc00000);
    }
    if (flags) {
        wide = flags & SAW_PLUS_INF ? (double)INFINITY : -(double)INFINITY;
        return flags & SAW_PLUS_INF ? INFINITY : -INFINITY;
    }
    d = carry_lanes(d);
    bool negative = __shfl_sync(FULL_MASK, d, DIGITS - 1) < 0;
    if (negative) d = carry_lanes(-d);
    unsigned nonzero = __ballot_sync(FULL_MASK, d != 0);
    if (!nonzero) { /* every digit zero */
        wide = 0.0;
        return 0.0f;
    }
    int top = 31 - __clz((int)nonzero); /* hi:mid:lo, the top three digits (below digit 0: zeros) */
    unsigned long long hi = __shfl_sync(FULL_MASK, d, top), mid = __shfl_sync(FULL_MASK, d, max(top - 1, 0)),
                       lo = __shfl_sync(FULL_MASK, d, max(top - 2, 0));
    mid = top >= 1 ? mid : 0;
    lo = top >= 2 ? lo : 0;
    unsigned long long sticky = top >= 3 && nonzero & ((1u << (top - 2)) - 1); /* a digit under lo */
    int c = __clz((unsigned)hi); /* hi:mid:lo, 96 bits, shifted left by c: the top 64 and the 32 below */
    unsigned long long w = (hi << 32 | mid) << c | (lo << c) >> 32;
    sticky |= (lo << c) & 0xffffffffu;
    w |= sticky != 0;
    int shift = 32 * (top - 1) - 149 - c; /* the unit of w's lowest bit */
    float f = scalbnf(__ull2float_rn(w), shift);
    wide = negative ? -scalbn(__ull2double_rn(w), shift) : scalbn(__ull2double_rn(w), shift);
    if (threadIdx.x == 0) total_to_odd = odd_double(w, shift, negative);
    return negative ? -f : f;
}

/* A block's digits into the grid's words, and the finishing block's rounding: fp32 to *out, fp64 to *wide
 * (the launchers: the first 8 bytes of Run.partials; the demo reads it there). The block's first warp calls
 * it, lane k holding digit k (below 2^62 in magnitude; lanes from DIGITS on hold 0). A grid of one block
 * rounds its own digits, with no atomics. One carry pass leaves every digit below 2^33 in magnitude. */
__device__ void finish_grid(long long d, unsigned flags, float *out, double *wide)
{
    const int lane = threadIdx.x;
    double w;
    if (gridDim.x == 1) {
        float f = round_digits(d, flags, w);
        if (lane == 0) *out = f, *wide = w;
        return;
    }
    d = carry_once(d);
    unsigned long long add = lane < DIGITS ? (unsigned long long)d + BLOCK_COUNT
                             : 1 + ((unsigned long long)(flags & SAW_NAN ? 1 : 0) << 16)
                                 + ((unsigned long long)(flags & SAW_PLUS_INF ? 1 : 0) << 32)
                                 + ((unsigned long long)(flags & SAW_MINUS_INF ? 1 : 0) << 48);
    unsigned long long seen = 0;
    if (lane <= DIGITS) seen = atomicAdd(&grid_words[lane], add) + add;
    if (blocks_in(__shfl_sync(FULL_MASK, seen, DIGITS), DIGITS) != gridDim.x) return; /* not last on the flags word */
    if (lane <= DIGITS) { /* every block's additions are made: those still on their way are a wait, not a deadlock */
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(grid_words[lane]);
        while (blocks_in(seen, lane) != gridDim.x) seen = word.load(cuda::memory_order_relaxed);
        word.store(0ull, cuda::memory_order_relaxed);
    }
    unsigned long long fw = __shfl_sync(FULL_MASK, seen, DIGITS);
    unsigned grid_flags = (fw >> 16 & 0xffffu ? SAW_NAN : 0) | (fw >> 32 & 0xffffu ? SAW_PLUS_INF : 0) | (fw >> 48 ? SAW_MINUS_INF : 0);
    float f = round_digits(lane < DIGITS ? digit_sum(seen) : 0, grid_flags, w);
    if (lane == 0) *out = f, *wide = w;
}

/* The block's columns of digits summed digit by digit into sum (at most 2^10 columns of digits below
 * 2^32: no overflow), each column carried first by its thread; sum is ready for every thread after. */
__device__ void column_totals(long long *d, long long *sum)
{
    long long column[DIGITS]; /* the thread's digits, carried in registers */
#pragma unroll
    for (int k = 0; k < DIGITS; k++) column[k] = digit(d, k);
    carry_digits(column);
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
    __shared__ long long sum[DIGITS];
    column_totals(d, sum);
    if (threadIdx.x < 32) finish_grid(threadIdx.x < DIGITS ? sum[threadIdx.x] : 0, flags, out, wide);
}

/* ---- 4. the fast one: two exact fp64 windows in front of the digits ------------------------------ */

/* A double's bits and back (a move between registers on the GPU); a float's bits. */
__host__ __device__ __forceinline__ uint64_t double_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
__host__ __device__ __forceinline__ double bits_double(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}
__host__ __device__ __forceinline__ uint32_t float_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* 2^e for a normal double's exponent, made from its bits. */
__host__ __device__ __forceinline__ double power_of_two(int e) { return bits_double((uint64_t)(1023 + e) << 52); }

/* A 64-bit addition to a digit in shared memory, as two 32-bit atomics (a 64-bit one there is a loop of
 * compare-and-swaps, retried while other threads change the digit): the low words' addition returns the
 * low word it found, which says whether it carried, and the high word takes the part's high word and that
 * carry (high_addend). Once every addition is made the digit is the sum of the parts modulo 2^64, whatever
 * their order. */
__host__ __device__ __forceinline__ unsigned high_addend(unsigned found_low, long long part)
{
    const unsigned low = (unsigned)part;
    return (unsigned)((unsigned long long)part >> 32) + (found_low + low < found_low ? 1u : 0u);
}
__device__ __forceinline__ void shared_add64(long long *digit, long long part)
{
    unsigned *word = reinterpret_cast<unsigned *>(digit); /* little-endian: the low word first */
    const unsigned high = high_addend(atomicAdd(word, (unsigned)part), part);
    if (high) atomicAdd(word + 1, high);
}

/* Step 4's buckets. What the windows cannot take goes to the thread's BUCKETS fp64 sums in shared memory, bucket
 * b for the exponent fields 16 b to 16 b + 15 (bucket_of: bits 27 to 30 of a value's bits), opened at
 * 1.5 2^(f - 98) for its least field f (1 for bucket 0, which holds the subnormals). Its last bit, 2^(f - 150),
 * is at most the last bit of every value it takes, and BUCKET_VALUES values below 2^(f + 15 - 126) move it by
 * less than half its binade: every addition is exact, a conversion and one fp64 read-modify-write a value.
 * Every BUCKET_VALUES values at most, and at the end, a bucket's distance from its start in units of its last
 * bit (below 2^51) is an integer at bit f - 1 of the digits of 2^-149. */
#define BUCKETS 16
#define BUCKET_VALUES 4096
#define RANGE_EVERY 16 /* of tiles in a row to the buckets, those whose range is looked at (back to the windows?) */
__host__ __device__ __forceinline__ unsigned bucket_of(uint32_t bits) { return bits >> 27 & 0xfu; } /* field / 16 */
__host__ __device__ __forceinline__ int bucket_least_field(int b) { return b ? 16 * b : 1; }
__host__ __device__ __forceinline__ double bucket_base(int b) { return 1.5 * power_of_two(bucket_least_field(b) - 98); }
/* A bucket's distance from its start, in units of its last bit. */
__host__ __device__ __forceinline__ long long bucket_distance(double bucket, int b)
{
    return (long long)(double_bits(bucket) - double_bits(bucket_base(b)));
}

/* A value (its fp32 bits) into the thread's buckets: mine is its first, the next a block's width on. A NaN or
 * an Inf goes to the top bucket, which is then NaN or an Inf of the sign the sum's is (+Inf and -Inf make NaN):
 * its flushes take it as the flag it is. */
__device__ __forceinline__ void bucket_add(double *mine, uint32_t bits, unsigned width)
{
    mine[bucket_of(bits) * width] += (double)__uint_as_float(bits);
}
/* Whether a bucket is a NaN or an Inf (only the top one can be): then its flag joins FLAGS and it adds nothing. */
__device__ __forceinline__ bool bucket_nonfinite(double bucket, unsigned *flags)
{
    if (isfinite(bucket)) return false;
    atomicOr(flags, flag_of(__float_as_uint((float)bucket)));
    return true;
}

/* One value (its bits) into the buckets, or its flag where it is NaN or Inf. */
__device__ __forceinline__ void take_value(double *mine, uint32_t bits, unsigned *flags)
{
    if ((bits >> 23 & 0xffu) == 0xffu) atomicOr(flags, flag_of(bits));
    else bucket_add(mine, bits, blockDim.x);
}

/* The thread's buckets, each at its start: opened the first time the thread has values for them, so that a
 * thread whose values all fit its windows never writes them. */
__device__ __forceinline__ void open_buckets(double *mine)
{
    for (int b = 0; b < BUCKETS; b++) mine[b * blockDim.x] = bucket_base(b);
}

/* The block's DIGITS digits of 2^32 (step 3's), in shared memory, take the threads' flushes, rare, by
 * shared_add64: every BUCKET_VALUES values of a thread (FLUSH_TILES tiles), its windows' totals and its buckets
 * (three parts each). A digit takes parts below 2^32 in magnitude, about 6 a flush of a thread: a block takes
 * fewer than 2^37 values (more than a GPU holds) before a digit could reach 2^62. */
__shared__ long long block_digits[DIGITS]; /* a block's own, as any __shared__ array: window_sum zeroes them */
struct BlockDigits {
    __device__ void operator()(int k, long long part) const { shared_add64(&block_digits[k], part); }
};

/* The thread's buckets into the block's digits (a NaN or Inf to the flags), each back at its start (those still
 * there add nothing). */
__device__ __forceinline__ void flush_buckets(double *mine, unsigned *flags)
{
    for (int b = 0; b < BUCKETS; b++) {
        double &bucket = mine[b * blockDim.x];
        const bool nonfinite = b == BUCKETS - 1 && bucket_nonfinite(bucket, flags);
        const long long distance = nonfinite ? 0 : bucket_distance(bucket, b);
        if (distance != 0) add_integer(distance, bucket_least_field(b) - 1, BlockDigits{});
        if (distance != 0 || nonfinite) bucket = bucket_base(b);
    }
}

/* fp64 splits a value exactly (Dekker's FastTwoSum): for |s| >= |x|, t = s + x rounded, x = (t - s) +
 * (x - (t - s)), and both parts are exact doubles. A sum kept inside one binade [2^A, 2^(A+1)) rounds each x
 * onto its grid of 2^(A - 52): t - s is the part of x on that grid, x - (t - s) the part below it, at most half
 * a unit. Each thread keeps two such windows for a tile of values:
 *   high starts at 1.5 2^A and takes tiles whose magnitudes add up to less than 2^(A - 2): they move it by
 *        less than that, so it stays in its binade, and it keeps their bits down to 2^(A - 52);
 *   low  starts at 1.5 2^(A - 46) and takes what high leaves (each below 2^(A - 53)), down to 2^(A - 98).
 * Checks without an fp64 compare say whether the tile was taken whole: its magnitudes add up to less than
 * the limit, and each value is 0 or its field's last bit is at least 2^(A - 98), so that low takes what high
 * leaves of it exactly; NaN and Inf fail them.
 * A value of exponent field f is below 2^(f - 126) and its last bit is 2^(max(f, 1) - 150): A = F + 8 - 119
 * for the largest field F seen takes a tile of values up to 2^8 times the largest and keeps fields F + 8
 * down to F - 59 exact, a range of 2^68. A is at least -51, where low's grid is 2^-149: then every finite
 * value of a tile under the limit is exact, subnormals included. After a tile both windows hold integers
 * of their units, and within a binade the difference of two doubles' bits counts the units between them:
 * the tile's sums go to int64 totals as those differences, exactly. */
#define HEADROOM 8 /* fields above the largest seen that the windows still take */

struct Windows {
    int a;                       /* high's binade, 2^a */
    long long int_high, int_low; /* the tiles' sums in units of 2^(a - 52) and 2^(a - 98) */

    static __device__ int binade(unsigned largest_field) { return max((int)largest_field + HEADROOM - 119, -51); }
    __device__ void open(unsigned largest_field)
    {
        a = binade(largest_field);
        int_high = int_low = 0;
    }
    __device__ double high_base() const { return 1.5 * power_of_two(a); }
    __device__ double low_base() const { return 1.5 * power_of_two(a - 46); }
    /* The limit of a tile's magnitudes, 2^(a - 2), times 2^-16 (a normal float for every a); and 2^(a - 75), the
     * least magnitude of a field whose last bit is at least 2^(a - 98), as the key below (0 at the lowest binade,
     * where every finite value's is: every key passes). */
    __device__ float scaled_limit() const { return __int_as_float((a - 2 - 16 + 127) << 23); }
    __device__ uint32_t lower_key() const { return a > -51 ? ((uint32_t)(a + 52) << 24) - 1u : 0u; }
    /* Whether these windows take a tile of that range whole: nothing past their binade (16 values below 2^11 less
     * than the limit) and nothing under their last bit, 2^(a - 98). */
    __device__ bool takes(const struct TileRange &g) const;
    /* Whether windows opened at a tile's largest field take it whole: its least nonzero field's last bit is at
     * least 2^(a - 98) (a magnitude limit a tile of 16 values cannot reach from there). */
    static __device__ bool take_range(unsigned largest_field, unsigned least_field)
    {
        const int a = binade(largest_field);
        return a == -51 || (int)least_field >= a + 52;
    }
    /* The totals into the block's digits: 2^(a - 52) is bit a + 97 of the digits, 2^(a - 98) bit a + 51. */
    __device__ void flush()
    {
        add_integer(int_high, a + 97, BlockDigits{});
        add_integer(int_low, a + 51, BlockDigits{});
        int_high = int_low = 0;
    }
};

/* A 16-byte vector's values as fp32 bits (exact: every fp16 and bf16 value is an fp32 value). */
template <typename T> struct Vector;
/* IN_LINE: whether a tile no windows take goes to the thread's buckets in the loop (fp32's 16 values), or in a
 * call (the 16-bit types' 32 values would crowd the loop's registers; fp16's 41 fields, 2^-24 to 2^16, are
 * always in windows opened at a tile's largest). */
template <> struct Vector<float> {
    static constexpr int COUNT = 4;
    static constexpr bool IN_LINE = true;
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k) { return (&v.x)[k]; }
    static __device__ __forceinline__ void clear(uint4 &v, int k) { (&v.x)[k] = 0; }
};
struct Vector16 { /* 16-bit values, two to a word */
    static constexpr int COUNT = 8;
    static constexpr bool IN_LINE = false;
    static __device__ __forceinline__ void clear(uint4 &v, int k) { (&v.x)[k / 2] &= k % 2 ? 0xffffu : 0xffff0000u; }
};
template <> struct Vector<__half> : Vector16 {
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k)
    {
        return __float_as_uint(__half2float(reinterpret_cast<const __half *>(&v)[k]));
    }
};
template <> struct Vector<__nv_bfloat16> : Vector16 {
    static __device__ __forceinline__ uint32_t bits(uint4 v, int k) { return (k % 2 ? (&v.x)[k / 2] >> 16 : (&v.x)[k / 2] & 0xffffu) << 16; }
};
template <typename T>
__device__ __forceinline__ uint32_t value_bits(T v) { return __float_as_uint((float)v); }

/* A tile: UNROLL 16-byte vectors a thread, a block's width apart, streamed; past the end `pad`, zeros that
 * add nothing (fp64's are -0: step 5). */
__device__ __forceinline__ void load_tile(uint4 *r, const uint4 *v, uint64_t i, uint64_t vectors, uint4 pad = make_uint4(0, 0, 0, 0))
{
#pragma unroll
    for (int k = 0; k < UNROLL; k++) r[k] = i + k * blockDim.x < vectors ? __ldcs(v + i + k * blockDim.x) : pad;
}

/* A tile's values through the windows (a conversion and four fp64 additions a value, no branch); true where
 * every value was in the windows' range: then its sums join the totals. The checks cost three operations a
 * value, one of them a compare:
 *   the limit: the magnitudes times 2^-16 are summed (one fused multiply-add each; finite values cannot
 *     overflow, NaN and Inf stay themselves) and the sum compared once (its rounding, under 2^-18 of it,
 *     is far inside the limit's margin of 2 below what keeps high in its binade);
 *   the lower bound: the key of a value's bits b, 2 b - 1 as an unsigned integer (the sign shifted out), is
 *     monotonic in the magnitude, except that 0 becomes the largest key; at least lower's key, the value is 0
 *     or at least lower. */
template <typename T>
__device__ __forceinline__ bool split_tile(Windows &w, const uint4 *r)
{
    const double high_base = w.high_base(), low_base = w.low_base();
    const float scaled_limit = w.scaled_limit();
    const uint32_t lower_key = w.lower_key();
    double high = high_base, low = low_base;
    float scaled_sum = 0.0f;
    bool exact = true;
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < Vector<T>::COUNT; j++) {
            uint32_t bits = Vector<T>::bits(r[k], j);
            float f = __uint_as_float(bits);
            scaled_sum = fmaf(fabsf(f), 0x1p-16f, scaled_sum);
            exact &= bits * 2u - 1u >= lower_key;
            double x = f, t = high + x;
            low += x - (t - high);
            high = t;
        }
    if (!exact || !(scaled_sum < scaled_limit)) return false;
    w.int_high += __double_as_longlong(high) - __double_as_longlong(high_base);
    w.int_low += __double_as_longlong(low) - __double_as_longlong(low_base);
    return true;
}

/* Every FLUSH_TILES tiles of a thread (a call: rare, and its registers stay out of the loop's): its windows'
 * totals and its buckets, where it opened them, flushed to the block's digits. */
__device__ __noinline__ Windows flush_thread(Windows w, double *mine, bool opened, unsigned *flags)
{
    w.flush();
    if (opened) flush_buckets(mine, flags);
    return w;
}

/* A tile's largest finite field, the least field of its nonzero finite values (0xff where none) and whether it
 * holds a NaN or an Inf: whether windows opened elsewhere would take it (Windows::take_range). */
struct TileRange {
    unsigned largest, least;
    bool nonfinite;
};
template <typename T>
__device__ __forceinline__ TileRange tile_range(const uint4 *r)
{
    TileRange g = {0u, 0xffu, false};
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < Vector<T>::COUNT; j++) {
            const uint32_t bits = Vector<T>::bits(r[k], j);
            const unsigned field = bits >> 23 & 0xffu;
            g.nonfinite |= field == 0xffu;
            g.largest = max(g.largest, field == 0xffu ? 0u : field);
            g.least = min(g.least, bits << 1 ? field : 0xffu);
        }
    return g;
}

__device__ __forceinline__ bool Windows::takes(const TileRange &g) const
{
    return !g.nonfinite && binade(g.largest) <= a && (a == -51 || (int)g.least >= a + 52);
}

/* A tile the windows could not take that holds a NaN or an Inf, or asks for windows elsewhere that would take
 * it: rare, so a call of its own, which keeps the registers it needs out of the loop's (the tile passed by
 * value: an array would go to local memory). Its NaN and Inf set the flags and leave the tile (the result is
 * NaN or Inf then, whatever the finite values add up to). Where windows at its largest finite field would take
 * the rest, the totals go to the block's digits and the windows open there; the tile is split again, and one
 * they still cannot take goes to the buckets. */
static_assert(UNROLL == 4, "take_tile takes a tile's 4 vectors");
template <typename T>
__device__ __noinline__ Windows take_tile(Windows w, double *mine, uint4 r0, uint4 r1, uint4 r2, uint4 r3, unsigned *flags)
{
    uint4 r[UNROLL] = {r0, r1, r2, r3};
    unsigned largest = 0, least = 0xff, seen = 0;
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < Vector<T>::COUNT; j++) {
            uint32_t bits = Vector<T>::bits(r[k], j), field = bits >> 23 & 0xff;
            if (field == 0xff) {
                seen |= flag_of(bits);
                Vector<T>::clear(r[k], j);
            } else {
                largest = max(largest, field);
                least = min(least, bits << 1 ? field : 0xffu);
            }
        }
    if (seen) atomicOr(flags, seen);
    if (Windows::binade(largest) != w.a && Windows::take_range(largest, least)) {
        w.flush();
        w.open(largest);
    }
    if (split_tile<T>(w, r)) return w;
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < Vector<T>::COUNT; j++) bucket_add(mine, Vector<T>::bits(r[k], j), blockDim.x);
    return w;
}

/* THREADS a block (a template argument: the buckets are a static shared array, 32 KiB at 256 threads, and the
 * launch bounds give every block size the same 80 registers, 768 threads an SM: room for two tiles and both
 * windows). A thread's first two tiles are loaded before anything waits, and each next tile before it adds the one
 * it holds. The windows open at the largest finite field of the block's first tile, the same in every thread, so
 * that at the end the block adds its threads' totals as integers (in 16-bit pieces). A tile no windows take
 * whole (a range past 2^68) goes to the thread's buckets in line, while the next tile stays in registers: the
 * data's range costs a value one fp64 read-modify-write, whatever it is. A thread opens its buckets the first
 * time it has values for them, and only a block whose buckets hold something adds them. The result is exact
 * for any data. */
template <typename T, int THREADS>
__global__ void __launch_bounds__(THREADS, 768 / THREADS) window_sum(const T *x, uint64_t n, float *out, double *wide)
{
    constexpr int PER_VEC = Vector<T>::COUNT, WARPS_HERE = THREADS / 32;
    /* Tiles between the flushes: a bucket takes BUCKET_VALUES values, the windows' int64 totals 2^12 tiles of 2^50 units. */
    constexpr unsigned FLUSH_TILES = BUCKET_VALUES / (UNROLL * PER_VEC);
    static_assert(FLUSH_TILES <= 4096, "the windows' totals take 2^12 tiles");
    __shared__ double buckets[BUCKETS * THREADS];
    __shared__ long long bucket_sums[BUCKETS];
    __shared__ int warp_chunks[8][WARPS_HERE];
    __shared__ unsigned flags;
    uint64_t head = unaligned_head(x, n); /* elements before a 16-byte boundary */
    const uint4 *v = reinterpret_cast<const uint4 *>(x + head);
    uint64_t vectors = (n - head) / PER_VEC, tail = head + vectors * PER_VEC;
    uint64_t t = (uint64_t)blockIdx.x * THREADS + threadIdx.x, stride = (uint64_t)gridDim.x * THREADS * UNROLL;
    uint64_t i = (uint64_t)blockIdx.x * THREADS * UNROLL + threadIdx.x;
    uint4 r[UNROLL], next[UNROLL];
    load_tile(r, v, i, vectors);
    load_tile(next, v, i + stride, vectors);
    if (threadIdx.x < DIGITS) block_digits[threadIdx.x] = 0;
    if (threadIdx.x == 0) flags = 0;
    unsigned largest = 0;
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < PER_VEC; j++) {
            unsigned field = Vector<T>::bits(r[k], j) >> 23 & 0xff;
            largest = max(largest, field == 0xff ? 0u : field);
        }
    largest = block_max<WARPS_HERE>(largest); /* its barrier also makes the zeros above seen by every thread */
    Windows w;
    w.open(largest);
    const int block_a = w.a;
    bool used = false; /* whether this thread opened its buckets (open_buckets) */
    bool in_buckets = false; /* whether the last tile went to the buckets: then the next one's range is looked at first */
    unsigned bucket_run = 0; /* tiles in a row to the buckets: the range of one in RANGE_EVERY is looked at */
    unsigned tiles = 0; /* the thread's tiles, for the flushes every FLUSH_TILES */
    while (i < vectors) {
        if (!in_buckets) {
            for (; i < vectors && split_tile<T>(w, r); i += stride) { /* no call in this loop but a rare one */
                if (++tiles % FLUSH_TILES == 0) w = flush_thread(w, buckets + threadIdx.x, used, &flags);
#pragma unroll
                for (int k = 0; k < UNROLL; k++) r[k] = next[k];
                load_tile(next, v, i + 2 * stride, vectors);
            }
            if (i >= vectors) break;
        }
        bool to_buckets = false;
        if constexpr (Vector<T>::IN_LINE) {
            if (in_buckets && bucket_run % RANGE_EVERY != 0) {
                to_buckets = true; /* data without a range, most likely still: the buckets take any value */
            } else {
                const TileRange g = tile_range<T>(r);
                if (in_buckets && w.takes(g)) { /* back to the windows */
                    in_buckets = false;
                    bucket_run = 0;
                    continue;
                }
                to_buckets = !g.nonfinite && (Windows::binade(g.largest) == w.a || !Windows::take_range(g.largest, g.least));
            }
        }
        if (!used) open_buckets(buckets + threadIdx.x); /* either path may add to them */
        used = true;
        if (to_buckets) {
            /* No windows take it whole: its values to the buckets, and on to the next tile, already loaded. */
#pragma unroll
            for (int k = 0; k < UNROLL; k++)
#pragma unroll
                for (int j = 0; j < PER_VEC; j++) bucket_add(buckets + threadIdx.x, Vector<T>::bits(r[k], j), THREADS);
#pragma unroll
            for (int k = 0; k < UNROLL; k++) r[k] = next[k];
            load_tile(next, v, i + 2 * stride, vectors);
            in_buckets = true;
            bucket_run++;
        } else {
            /* A call. The tiles are loaded again after it, so that none is held in registers across it. */
            w = take_tile<T>(w, buckets + threadIdx.x, r[0], r[1], r[2], r[3], &flags);
            load_tile(r, v, i + stride, vectors);
            load_tile(next, v, i + 2 * stride, vectors);
            in_buckets = false;
            bucket_run = 0;
        }
        if (++tiles % FLUSH_TILES == 0) w = flush_thread(w, buckets + threadIdx.x, used, &flags);
        i += stride;
    }
    /* The warp together again before its shuffles: its threads leave the loop from different places (after
     * the call or not), and a warp still apart does each shuffle below a part at a time. */
    __syncwarp();
    /* The values before and after the tiles, at most one each a thread (the buckets have room: fewer than
     * FLUSH_TILES tiles since their last flush). */
    if (t < head || t < n - tail) {
        if (!used) open_buckets(buckets + threadIdx.x);
        used = true;
        if (t < head) take_value(buckets + threadIdx.x, value_bits(x[t]), &flags);
        if (t < n - tail) take_value(buckets + threadIdx.x, value_bits(x[tail + t]), &flags);
    }
    if (w.a != block_a) w.flush(); /* windows opened elsewhere: their totals to the block's digits */
    /* The totals at the block's binade in 16-bit chunks (the top one signed), each summed across the warp
     * (one instruction from sm_80 on; 32 chunks: no overflow); chunk j of the high total is bit
     * block_a + 97 + 16 j of the digits, of the low total bit block_a + 51 + 16 j. */
    const long long totals[2] = {w.int_high, w.int_low};
#pragma unroll
    for (int j = 0; j < 8; j++) {
        long long total = totals[j / 4];
        int chunk = j % 4 == 3 ? (int)(total >> 48) : (int)(total >> 16 * (j % 4) & 0xffff);
        chunk = warp_int_sum(chunk);
        if (threadIdx.x % 32 == 0) warp_chunks[j][threadIdx.x / 32] = chunk;
    }
    const bool any_used = __syncthreads_or(used);
    if (any_used) {
        /* Each bucket's distances (below 2^51; 0 where its thread never opened them), in its place, summed across
         * the block by a warp a bucket: below 2^59. */
        long long *distances = reinterpret_cast<long long *>(buckets);
        for (int b = 0; b < BUCKETS; b++)
            distances[b * THREADS + threadIdx.x] =
                used && !(b == BUCKETS - 1 && bucket_nonfinite(buckets[b * THREADS + threadIdx.x], &flags))
                    ? bucket_distance(buckets[b * THREADS + threadIdx.x], b) : 0;
        __syncthreads();
        for (int b = threadIdx.x / 32; b < BUCKETS; b += WARPS_HERE) {
            long long s = 0;
            for (int u = threadIdx.x % 32; u < THREADS; u += 32) s += distances[b * THREADS + u];
            s = warp_sum(s);
            if (threadIdx.x % 32 == 0) bucket_sums[b] = s;
        }
        __syncthreads();
    }
    if (threadIdx.x >= 32) return;
    /* The first warp: lane j < 8 adds chunk j's warp sums (below 2^26 in magnitude), and lane k gathers digit
     * k from the block's digits, the chunks and the buckets' sums: a piece at bit p, times 2^(p % 32), is below
     * 2^63, its low 32 bits digit p / 32 and the rest (signed) the digit above. A bucket's sum goes as two
     * pieces, its low 32 bits and the rest. */
    const int lane = threadIdx.x;
    int chunk = 0;
    if (lane < 8)
        for (int k = 0; k < WARPS_HERE; k++) chunk += warp_chunks[lane][k];
    long long digit = lane < DIGITS ? block_digits[lane] : 0;
    const auto place = [&digit, lane](long long piece, int p) {
        const long long placed = piece * (1ll << p % 32);
        digit += lane == p / 32 ? placed & 0xffffffff : lane == p / 32 + 1 ? placed >> 32 : 0;
    };
#pragma unroll
    for (int j = 0; j < 8; j++)
        place(__shfl_sync(FULL_MASK, chunk, j), (j < 4 ? block_a + 97 : block_a + 51) + 16 * (j % 4));
    if (any_used)
        for (int b = 0; b < BUCKETS; b++) {
            const long long s = bucket_sums[b];
            place(s & 0xffffffff, bucket_least_field(b) - 1);
            place(s >> 32, bucket_least_field(b) + 31);
        }
    finish_grid(digit, flags, out, wide);
}

/* ---- 5. fp64 input: three exact windows in front of digits of 2^-1074 ------------------------------ */

/* A finite fp64 value with exponent field f and fraction m is q 2^(e - 1074), e = max(f, 1) - 1 and
 * q = m + 2^52 (f > 0) or m (a subnormal): bit e of a fixed-point number whose unit is 2^-1074. fp64 runs
 * from 2^-1074 to 2^1024, 2098 bits; DIGITS64 digits of 32 bits reach 2^2176, room for 2^78 values. A
 * column of them a thread would be 544 bytes of shared memory a thread, so the block shares one set, which
 * the rare paths (values the windows cannot take, and the windows' totals) add to with 64-bit shared-memory
 * atomics. A digit takes 2^31 additions of a 32-bit part: run_windows_f64 gives a block fewer than 2^29
 * values (each adds to a digit at most once, its tile's flushes less than once a value).
 * The arithmetic of the values and the tiles is __host__ __device__: tests/ runs it on the host. */
#define DIGITS64 68
#define MINUS_ZERO_BITS 0x8000000000000000ull
#define MINUS_ZEROS make_uint4(0u, 0x80000000u, 0u, 0x80000000u) /* a vector of two -0s */

/* Value j (0 or 1) of a 16-byte vector of doubles, as bits. */
__host__ __device__ __forceinline__ uint64_t value64(uint4 v, int j)
{
    return j ? (uint64_t)v.w << 32 | v.z : (uint64_t)v.y << 32 | v.x;
}
__host__ __device__ __forceinline__ void set_value64(uint4 &v, int j, uint64_t bits)
{
    (j ? v.z : v.x) = (uint32_t)bits;
    (j ? v.w : v.y) = (uint32_t)(bits >> 32);
}
__host__ __device__ __forceinline__ unsigned field64(uint64_t bits) { return (unsigned)(bits >> 52) & 0x7ffu; }

/* The flag of an fp64 NaN or Inf (its bits). */
__host__ __device__ __forceinline__ unsigned flag_of64(uint64_t nonfinite_bits)
{
    return nonfinite_bits << 12 ? SAW_NAN : nonfinite_bits >> 63 ? SAW_MINUS_INF : SAW_PLUS_INF;
}

/* One finite fp64 value (its bits) into digits of 2^-1074 through add(k, part): q 2^(e % 32), below 2^85,
 * is three 32-bit parts, at digits e / 32 to e / 32 + 2. */
template <typename Add>
__host__ __device__ __forceinline__ void add_value64(uint64_t bits, Add add)
{
    unsigned field = field64(bits), e = field ? field - 1 : 0, s = e % 32;
    uint64_t q = (bits & 0xfffffffffffffull) | (field ? 1ull << 52 : 0ull);
    uint64_t low = q << s, high = s ? q >> (64 - s) : 0;
    long long sign = bits >> 63 ? -1 : 1;
    add(e / 32, sign * (long long)(low & 0xffffffffu));
    add(e / 32 + 1, sign * (long long)(low >> 32));
    add(e / 32 + 2, sign * (long long)high);
}

/* The leading zeros of a nonzero 32-bit word. */
__host__ __device__ __forceinline__ int leading_zeros(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __clz((int)v);
#else
    return __builtin_clz(v);
#endif
}

/* A carried total rounded once: fp64 returned, fp32 in *narrow, to nearest, ties to even. The caller has
 * carried the DIGITS64 digits of 2^-1074 (negated if negative, and carried again: every digit is in
 * [0, 2^32)) and gives the top nonzero digit's index (-1: every digit zero), that digit and the two below
 * (hi, mid, lo; 0 below digit 0) and whether any digit under lo is nonzero. NaN and Inf as IEEE says (step 3);
 * a total of 0 is -0 where every value read was -0, as IEEE's additions give. Otherwise the total's top 64
 * bits are taken as an integer w, the lowest set where any bit below is (a sticky bit, 11 bits under fp64's
 * last place). fp64: w through one correctly rounded conversion, scaled by a power of two exactly (a total
 * of 2^53 units or more is normal, a smaller one is w exactly), Inf past DBL_MAX. fp32: the same where the
 * total is at least FLT_MIN (2^-126); below, fp32's unit is 2^-149, 925 bits above the digits', and w is
 * rounded to it in integers (its half bit, and a sticky bit of the bits under it). */
__host__ __device__ double round_top64(int top, unsigned long long hi, unsigned long long mid,
                                       unsigned long long lo, bool sticky, bool negative, unsigned flags,
                                       float *narrow)
{
    if (flags & SAW_NAN || (flags & SAW_PLUS_INF && flags & SAW_MINUS_INF)) {
        *narrow = (float)NAN;
        return NAN;
    }
    if (flags & (SAW_PLUS_INF | SAW_MINUS_INF)) {
        *narrow = flags & SAW_PLUS_INF ? (float)INFINITY : -(float)INFINITY;
        return flags & SAW_PLUS_INF ? (double)INFINITY : -(double)INFINITY;
    }
    if (top < 0) { /* every digit zero */
        const bool minus = !(flags & SAW_NOT_MINUS_ZERO);
        *narrow = minus ? -0.0f : 0.0f;
        return minus ? -0.0 : 0.0;
    }
    const int c = leading_zeros((uint32_t)hi); /* hi:mid:lo shifted left by c: the top 64 bits and 32 below */
    unsigned long long w = (hi << 32 | mid) << c | (lo << c) >> 32;
    sticky |= ((lo << c) & 0xffffffffu) != 0;
    w |= sticky;
    const int low_bit = 32 * (top - 1) - c; /* w's lowest bit is bit low_bit of the digits */
    const double wide = scalbn((double)w, low_bit - 1074);
    float f;
    if (low_bit + 63 >= 948) { /* the top bit at 2^-126 or above */
        f = scalbnf((float)w, low_bit - 1074);
    } else { /* the bits of w below fp32's unit 2^-149 (bit 925), more than 40 */
        int drop = 925 - low_bit;
        unsigned long long q = drop >= 64 ? 0 : w >> drop, half = drop > 64 ? 0 : w >> (drop - 1) & 1;
        bool rest = drop > 64 ? w != 0 : (w & ((1ull << (drop - 1)) - 1)) != 0;
        q += half && (rest || (q & 1));
        f = scalbnf((float)q, -149);
    }
    *narrow = negative ? -f : f;
    return negative ? -wide : wide;
}

/* A value's key (its bits' high word h and low word l): 2 h + (l != 0) - 1 as a 32-bit unsigned integer. The
 * sign is shifted out, and the key grows with the exponent field, except that 0 (+0 and -0) becomes the
 * largest key and a subnormal whose high word holds no bit of it (below 2^-1054) the smallest. */
__host__ __device__ __forceinline__ uint32_t key64(uint64_t bits)
{
    return ((uint32_t)(bits >> 32) << 1 | (uint32_t)((uint32_t)bits != 0)) - 1u;
}

/* Step 4's windows for 53-bit values, three of them, each a FastTwoSum in fp64, on a tile of 8 values (4
 * 16-byte vectors):
 *   high starts at 1.5 2^A and takes tiles whose magnitudes add up to less than 2^(A - 2): it keeps their
 *        bits down to 2^(A - 52) and leaves each value a rest below 2^(A - 53);
 *   mid  starts at 1.5 2^(A - 47) and takes those rests (8 of them move it by less than 2^(A - 50), an eighth
 *        of its binade), down to 2^(A - 99), leaving rests below 2^(A - 100);
 *   low  starts at 1.5 2^(A - 94) and takes those, down to 2^(A - 146), exactly where the value is a multiple
 *        of 2^(A - 146): 0, or a normal value of field f >= A + 929 (its last bit 2^(f - 1075)).
 * A value of field f is below 2^(f - 1022): A = F + 8 - 1017 for the largest field F seen takes a tile of
 * values up to 2^8 times the largest, and fields F + 8 down to F - 80 exactly, a range of 2^89 (two windows
 * would keep 42 fields). A is at least -928, where low's unit is 2^-1074 (every finite value is on it,
 * subnormals included), and at most 1023 (high must stay finite: there a tile's limit is 2^1021). */
struct Windows64 {
    int a;                                 /* high's binade, 2^a */
    long long int_high, int_mid, int_low;  /* the tiles' sums in units of 2^(a - 52), 2^(a - 99), 2^(a - 146) */

    static __host__ __device__ int binade(unsigned largest_field)
    {
        int a = (int)largest_field + HEADROOM - 1017;
        return a < -928 ? -928 : a > 1023 ? 1023 : a;
    }
    __host__ __device__ void open(unsigned largest_field)
    {
        a = binade(largest_field);
        int_high = int_mid = int_low = 0;
    }
    /* Whether windows opened at a tile's largest field take its values: the least nonzero field is at least
     * a + 929 (Windows::take_range, for three windows). */
    static __host__ __device__ bool take_range(unsigned largest_field, unsigned least_field)
    {
        const int a = binade(largest_field);
        return a == -928 || (int)least_field >= a + 929;
    }
    /* Whether windows opened elsewhere, at a tile's largest field, would take it: then moving them helps. */
    __host__ __device__ bool elsewhere_take(unsigned largest_field, unsigned least_field) const
    {
        return binade(largest_field) != a && take_range(largest_field, least_field);
    }
    __host__ __device__ double base(int window) const { return 1.5 * power_of_two(a - 47 * window); }
    __host__ __device__ double limit() const { return power_of_two(a - 2); }
    /* The least key of a value low takes exactly: field a + 929 and no rest below it (0 at the lowest binade,
     * where every finite value's is: every key passes). */
    __host__ __device__ uint32_t lower_key() const { return a > -928 ? ((uint32_t)(a + 929) << 21) - 1u : 0u; }
    /* The totals into digits of 2^-1074: 2^(a - 52) is bit a + 1022, 2^(a - 99) bit a + 975, 2^(a - 146) bit
     * a + 928. */
    template <typename Add>
    __host__ __device__ void flush(Add add)
    {
        add_integer(int_high, a + 1022, add);
        add_integer(int_mid, a + 975, add);
        add_integer(int_low, a + 928, add);
        int_high = int_mid = int_low = 0;
    }
    /* Piece j (0 to 11) of the totals, for a block's sum of them: 16 bits of total j / 4 (high, mid, low), the
     * top piece of each signed. A block's pieces (at most 1024 threads') add up to less than 2^26. */
    __host__ __device__ int piece(int j) const
    {
        const long long total = j < 4 ? int_high : j < 8 ? int_mid : int_low;
        return j % 4 == 3 ? (int)(total >> 48) : (int)(total >> 16 * (j % 4) & 0xffff);
    }
    /* The bit of the digits that piece j is at, for windows at binade a: a + 1022 + 16 j for high's pieces,
     * a + 975 + 16 (j - 4) for mid's, a + 928 + 16 (j - 8) for low's. */
    static __host__ __device__ int piece_bit(int j, int a) { return a + 1022 - 47 * (j / 4) + 16 * (j % 4); }
};

/* A tile of 8 values through the windows (seven fp64 additions a value, no branch); true where every value
 * was in the windows' range: then its sums join the totals, and *not_minus_zero is set where a value of the
 * tile is not -0. The checks: the magnitudes summed in fp64 (one addition a value; a tile past DBL_MAX is
 * Inf, NaN stays NaN: both fail) and compared with the limit once (their rounding, under 2^-50 of the sum,
 * is far inside the limit's margin); the least key, one integer min a value, compared with lower_key once;
 * and the AND of the values' high words, whose sign bit says, in a tile of zeros, whether all are -0. */
__host__ __device__ __forceinline__ bool split_tile64(Windows64 &w, const uint4 *r, bool *not_minus_zero)
{
    const double high_base = w.base(0), mid_base = w.base(1), low_base = w.base(2), limit = w.limit();
    const uint32_t lower_key = w.lower_key();
    double high = high_base, mid = mid_base, low = low_base, magnitudes = 0.0;
    uint32_t least_key = 0xffffffffu, signs = 0xffffffffu;
    HOST_DEVICE_UNROLL
    for (int k = 0; k < UNROLL; k++)
    HOST_DEVICE_UNROLL
        for (int j = 0; j < 2; j++) {
            const uint64_t bits = value64(r[k], j);
            const double x = bits_double(bits);
            magnitudes += fabs(x);
            const uint32_t key = key64(bits);
            least_key = key < least_key ? key : least_key;
            signs &= (uint32_t)(bits >> 32);
            double t = high + x, rest = x - (t - high);
            high = t;
            t = mid + rest;
            low += rest - (t - mid);
            mid = t;
        }
    if (least_key < lower_key || !(magnitudes < limit)) return false;
    *not_minus_zero |= magnitudes != 0.0 || !(signs >> 31);
    w.int_high += (long long)(double_bits(high) - double_bits(high_base));
    w.int_mid += (long long)(double_bits(mid) - double_bits(mid_base));
    w.int_low += (long long)(double_bits(low) - double_bits(low_base));
    return true;
}

/* A tile's finite values into the digits, value by value (its zeros add nothing). */
template <typename Add>
__host__ __device__ __forceinline__ void tile_to_digits64(const uint4 *r, Add add)
{
    HOST_DEVICE_UNROLL
    for (int k = 0; k < UNROLL; k++)
    HOST_DEVICE_UNROLL
        for (int j = 0; j < 2; j++) {
            const uint64_t bits = value64(r[k], j);
            if (bits << 1) add_value64(bits, add);
        }
}

/* A tile the windows could not take, as take_tile: its NaN and Inf flagged through flag(bits) (and out of
 * the tile, as -0), with SAW_NOT_MINUS_ZERO where a value is not -0; where windows at the largest finite field
 * would take the rest, the totals go to the digits (through add) and the windows open there (a tile wider than
 * any windows leaves them where they are: moving them would flush them for nothing); the tile is split again,
 * and one they still cannot take goes to the digits value by value. */
template <typename Add, typename Flag>
__host__ __device__ __noinline__ Windows64 take_tile64(Windows64 w, Add add, Flag flag, uint4 r0, uint4 r1, uint4 r2, uint4 r3)
{
    uint4 r[UNROLL] = {r0, r1, r2, r3};
    unsigned largest = 0, least = 0x7ff, seen = 0;
    HOST_DEVICE_UNROLL
    for (int k = 0; k < UNROLL; k++)
    HOST_DEVICE_UNROLL
        for (int j = 0; j < 2; j++) {
            const uint64_t bits = value64(r[k], j);
            if (bits != MINUS_ZERO_BITS) seen |= SAW_NOT_MINUS_ZERO;
            if (field64(bits) == 0x7ff) {
                seen |= flag_of64(bits);
                set_value64(r[k], j, MINUS_ZERO_BITS);
            } else {
                largest = field64(bits) > largest ? field64(bits) : largest;
                least = bits << 1 && field64(bits) < least ? field64(bits) : least;
            }
        }
    flag(seen);
    if (w.elsewhere_take(largest, least)) {
        w.flush(add);
        w.open(largest);
    }
    bool ignored = false;
    if (!split_tile64(w, r, &ignored)) tile_to_digits64(r, add);
    return w;
}

/* A value outside the tiles (before the first 16-byte boundary or after the last) into the digits and the
 * flags, as take_tile64 takes each. */
template <typename Add>
__host__ __device__ __forceinline__ void take_value64(uint64_t bits, Add add, unsigned *seen)
{
    if (bits != MINUS_ZERO_BITS) *seen |= SAW_NOT_MINUS_ZERO;
    if (field64(bits) == 0x7ff) *seen |= flag_of64(bits);
    else if (bits << 1) add_value64(bits, add);
}

/* The total in a warp, lane k holding digits k, k + 32 and k + 64 (slots 0 to 2; 0 past DIGITS64), as
 * carry_once, carry_lanes and round_digits do for step 3's digits: one carry pass (every digit below the
 * top keeps its low 32 bits and passes the rest up one digit, the last lane's to the first lane's next
 * slot) ... */
#define SLOTS64 ((DIGITS64 + 1 + 31) / 32)

__device__ __forceinline__ void carry_once64(long long *digit)
{
    const int lane = threadIdx.x % 32;
    long long carry[SLOTS64], previous = 0; /* previous: the slot below's carries */
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) carry[s] = lane + 32 * s < DIGITS64 - 1 ? digit[s] >> 32 : 0;
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) {
        long long below = __shfl_up_sync(FULL_MASK, carry[s], 1), wrapped = __shfl_sync(FULL_MASK, previous, 31);
        digit[s] += (lane ? below : wrapped) - carry[s] * 4294967296LL;
        previous = carry[s];
    }
}

/* ... until no digit below the top has a carry ... */
__device__ void carry_lanes64(long long *digit)
{
    const int lane = threadIdx.x % 32;
    for (;;) {
        carry_once64(digit);
        bool more = false;
#pragma unroll
        for (int s = 0; s < SLOTS64; s++) more |= lane + 32 * s < DIGITS64 - 1 && digit[s] >> 32 != 0;
        if (!__any_sync(FULL_MASK, more)) return;
    }
}

/* Digit k (the same k in every lane) of the warp's. */
__device__ __forceinline__ unsigned long long lane_digit64(const long long *digit, int k)
{
    long long slot = digit[0];
#pragma unroll
    for (int s = 1; s < SLOTS64; s++)
        if (k >= 32 * s) slot = digit[s];
    return k < 0 ? 0 : (unsigned long long)__shfl_sync(FULL_MASK, slot, k % 32);
}

/* ... and the total rounded once (round_top64): carried, negated if negative and carried again, the top
 * nonzero digit found by a ballot a slot. Every lane returns the results. */
__device__ double round_lanes64(long long *digit, unsigned flags, float *narrow)
{
    carry_lanes64(digit);
    const bool negative = (long long)lane_digit64(digit, DIGITS64 - 1) < 0;
    if (negative) {
#pragma unroll
        for (int s = 0; s < SLOTS64; s++) digit[s] = -digit[s];
        carry_lanes64(digit);
    }
    unsigned nonzero[SLOTS64];
    int top = -1;
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) {
        nonzero[s] = __ballot_sync(FULL_MASK, digit[s] != 0);
        if (nonzero[s]) top = 32 * s + 31 - __clz((int)nonzero[s]);
    }
    bool sticky = false; /* a nonzero digit under lo, digit top - 2 */
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) {
        const int under = top - 2 - 32 * s; /* slot s's digits under lo */
        sticky |= under >= 32 ? nonzero[s] != 0 : under > 0 && (nonzero[s] & ((1u << under) - 1)) != 0;
    }
    return round_top64(top, lane_digit64(digit, top), lane_digit64(digit, top - 1), lane_digit64(digit, top - 2),
                       sticky, negative, flags, narrow);
}

/* The grid's total of fp64 (step 3's words for DIGITS64 digits; the flags word counts each block that saw
 * NaN or +Inf at 2^16, NaN or -Inf at 2^32, and a value other than -0 at 2^48: NaN gives NaN as +Inf and
 * -Inf together do), and its rounding, by the block's first warp, its lanes holding the block's digits
 * (digit, as round_lanes64's), which the finishing block's leave with the grid's. */
__device__ unsigned long long grid_words64[DIGITS64 + 1];

__device__ void finish_grid64(long long *digit, unsigned flags, double *out, float *narrow)
{
    const int lane = threadIdx.x;
    float f;
    if (gridDim.x == 1) {
        const double total = round_lanes64(digit, flags, &f);
        if (lane == 0) *out = total, *narrow = f;
        return;
    }
    carry_once64(digit); /* every digit below 2^33 in magnitude */
    const unsigned long long flag_word = 1 + ((unsigned long long)(flags & (SAW_NAN | SAW_PLUS_INF) ? 1 : 0) << 16)
                                         + ((unsigned long long)(flags & (SAW_NAN | SAW_MINUS_INF) ? 1 : 0) << 32)
                                         + ((unsigned long long)(flags & SAW_NOT_MINUS_ZERO ? 1 : 0) << 48);
    unsigned long long seen[SLOTS64];
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) {
        const int k = lane + 32 * s;
        const unsigned long long add = k < DIGITS64 ? (unsigned long long)digit[s] + BLOCK_COUNT : flag_word;
        seen[s] = k <= DIGITS64 ? atomicAdd(&grid_words64[k], add) + add : 0;
    }
    constexpr int FLAGS_SLOT = DIGITS64 / 32, FLAGS_LANE = DIGITS64 % 32;
    if (blocks_in<DIGITS64>(__shfl_sync(FULL_MASK, seen[FLAGS_SLOT], FLAGS_LANE), DIGITS64) != gridDim.x) return;
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) {
        const int k = lane + 32 * s;
        digit[s] = 0;
        if (k > DIGITS64) continue;
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(grid_words64[k]);
        while (blocks_in<DIGITS64>(seen[s], k) != gridDim.x) seen[s] = word.load(cuda::memory_order_relaxed);
        word.store(0ull, cuda::memory_order_relaxed);
        if (k < DIGITS64) digit[s] = digit_sum(seen[s]);
    }
    const unsigned long long fw = __shfl_sync(FULL_MASK, seen[FLAGS_SLOT], FLAGS_LANE);
    const unsigned grid_flags = (fw >> 16 & 0xffffu ? SAW_PLUS_INF : 0) | (fw >> 32 & 0xffffu ? SAW_MINUS_INF : 0) |
                                (fw >> 48 ? SAW_NOT_MINUS_ZERO : 0);
    const double total = round_lanes64(digit, grid_flags, &f);
    if (lane == 0) *out = total, *narrow = f;
}

/* A tile's largest finite field, the least field of its nonzero finite values (0x7ff where none), whether it
 * holds a NaN or an Inf and whether a value is not -0 (TileRange's, for fp64). */
struct TileRange64 {
    unsigned largest, least;
    bool nonfinite, not_minus_zero;
};
__host__ __device__ __forceinline__ TileRange64 tile_range64(const uint4 *r)
{
    TileRange64 g = {0u, 0x7ffu, false, false};
    HOST_DEVICE_UNROLL
    for (int k = 0; k < UNROLL; k++)
        HOST_DEVICE_UNROLL
        for (int j = 0; j < 2; j++) {
            const uint64_t bits = value64(r[k], j);
            const unsigned field = field64(bits);
            g.nonfinite |= field == 0x7ff;
            g.not_minus_zero |= bits != MINUS_ZERO_BITS;
            g.largest = field != 0x7ff && field > g.largest ? field : g.largest;
            g.least = bits << 1 && field < g.least ? field : g.least;
        }
    return g;
}

/* window_sum's shape on fp64: two tiles of 8 values a thread in registers, the windows opened at the largest
 * finite field of the block's first tile. A tile no windows take whole goes to the block's digits in line, value
 * by value; a call takes a tile with NaN or Inf, or one that windows opened elsewhere would take. After either,
 * the next two tiles are loaded again (kept in registers through them, the loop would spill). At the end the
 * threads' totals (at the block's binade, or flushed where a thread opened other windows) are summed across each warp in
 * 16-bit pieces, which lanes add to the block's digits; the first warp finishes the grid. The fp64 result
 * goes to *out, the fp32 rounding of the same total to *narrow. */
template <int THREADS>
__global__ void __launch_bounds__(THREADS, 768 / THREADS) window_sum_f64(const double *x, uint64_t n, double *out, float *narrow)
{
    constexpr int WARPS_HERE = THREADS / 32;
    __shared__ long long d[DIGITS64];
    __shared__ unsigned flags;
    __shared__ int warp_pieces[12][WARPS_HERE];
    long long *digits = d;
    unsigned *block_flags = &flags;
    const auto add = [digits](int k, long long part) { shared_add64(&digits[k], part); };
    const auto flag = [block_flags](unsigned seen) { atomicOr(block_flags, seen); };
    uint64_t head = unaligned_head(x, n); /* 0 or 1 */
    const uint4 *v = reinterpret_cast<const uint4 *>(x + head);
    uint64_t vectors = (n - head) / 2, tail = head + vectors * 2;
    uint64_t t = (uint64_t)blockIdx.x * THREADS + threadIdx.x, stride = (uint64_t)gridDim.x * THREADS * UNROLL;
    uint64_t i = (uint64_t)blockIdx.x * THREADS * UNROLL + threadIdx.x;
    uint4 r[UNROLL], next[UNROLL];
    load_tile(r, v, i, vectors, MINUS_ZEROS);
    load_tile(next, v, i + stride, vectors, MINUS_ZEROS);
    for (int k = threadIdx.x; k < DIGITS64; k += THREADS) d[k] = 0;
    if (threadIdx.x == 0) flags = 0;
    unsigned largest = 0;
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            unsigned field = field64(value64(r[k], j));
            largest = max(largest, field == 0x7ff ? 0u : field);
        }
    largest = block_max<WARPS_HERE>(largest);
    Windows64 w;
    w.open(largest);
    const int block_a = w.a;
    bool not_minus_zero = false;
    unsigned tiles = 0; /* tiles in the totals since they were last flushed: int64 holds 2^12 of 2^50 units */
    while (i < vectors) {
        for (; i < vectors && split_tile64(w, r, &not_minus_zero); i += stride) { /* no call in this loop */
            if (++tiles % 4096 == 0) w.flush(add);
#pragma unroll
            for (int k = 0; k < UNROLL; k++) r[k] = next[k];
            load_tile(next, v, i + 2 * stride, vectors, MINUS_ZEROS);
        }
        if (i >= vectors) break;
        const TileRange64 g = tile_range64(r);
        if (!g.nonfinite && !w.elsewhere_take(g.largest, g.least)) {
            /* No windows take it whole (take_tile64 would split it once more, in vain): its values to the digits. */
            not_minus_zero |= g.not_minus_zero;
            tile_to_digits64(r, add);
        } else { /* a call: NaN or Inf, or windows elsewhere take it */
            w = take_tile64(w, add, flag, r[0], r[1], r[2], r[3]);
        }
        load_tile(r, v, i + stride, vectors, MINUS_ZEROS);
        load_tile(next, v, i + 2 * stride, vectors, MINUS_ZEROS);
        if (++tiles % 4096 == 0) w.flush(add);
        i += stride;
    }
    __syncwarp(); /* the warp together again before its shuffles (as window_sum) */
    unsigned seen = not_minus_zero ? SAW_NOT_MINUS_ZERO : 0;
    if (t < head) take_value64(double_bits(x[t]), add, &seen);
    if (t < n - tail) take_value64(double_bits(x[tail + t]), add, &seen);
    if (w.a != block_a) w.flush(add); /* windows opened elsewhere: their totals to the digits */
    /* The totals at the block's binade in 12 pieces, each summed across the warp (window_sum's chunks). */
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < 12; j++) {
        const int piece_sum = warp_int_sum(w.piece(j));
        if (lane == 0) warp_pieces[j][threadIdx.x / 32] = piece_sum;
    }
    seen = warp_or(seen);
    if (lane == 0 && seen) atomicOr(&flags, seen);
    __syncthreads();
    if (threadIdx.x >= 32) return;
    /* The first warp: lane j < 12 adds piece j's warp sums, and lane k gathers digits k, k + 32 and k + 64: a
     * piece at bit p, times 2^(p % 32), is below 2^57, its low 32 bits digit p / 32 and the rest (signed)
     * the digit above. */
    int piece = 0;
    if (lane < 12)
        for (int k = 0; k < WARPS_HERE; k++) piece += warp_pieces[lane][k];
    long long digit[SLOTS64];
#pragma unroll
    for (int s = 0; s < SLOTS64; s++) digit[s] = lane + 32 * s < DIGITS64 ? d[lane + 32 * s] : 0;
#pragma unroll
    for (int j = 0; j < 12; j++) {
        const int p = Windows64::piece_bit(j, block_a);
        const long long placed = (long long)__shfl_sync(FULL_MASK, piece, j) * (1ll << p % 32);
#pragma unroll
        for (int s = 0; s < SLOTS64; s++) {
            const int k = lane + 32 * s;
            digit[s] += k == p / 32 ? placed & 0xffffffff : k == p / 32 + 1 ? placed >> 32 : 0;
        }
    }
    finish_grid64(digit, flags, out, narrow);
}

/* The grid of a kernel above for `vectors` 16-byte vectors (or values, for digits_sum: its launcher says),
 * per_thread of them a thread: a block per tile, as stage 08, up to as many blocks as the GPU holds at once
 * (per_sm, from the occupancy query, times its SMs) and MAX_BLOCKS. */
static inline unsigned exact_grid(int per_sm, int sm_count, uint64_t vectors, unsigned per_thread)
{
    uint64_t blocks = (vectors + (uint64_t)BLOCK * per_thread - 1) / ((uint64_t)BLOCK * per_thread);
    uint64_t most = (uint64_t)sm_count * per_sm;
    if (most > MAX_BLOCKS) most = MAX_BLOCKS;
    return (unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks);
}

/* A block takes fewer than 2^29 fp64 values (its shared digits take 2^31 additions: step 5): where the grid
 * the GPU holds at once is too small for that, the input is refused. */
#define VALUES_PER_BLOCK64 (1ull << 29)

#endif

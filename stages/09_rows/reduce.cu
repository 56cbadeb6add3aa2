/* Stage 09: one sum per row. The input is a [batch, hidden] matrix (rows x cols, row-major), the pattern
 * inside softmax and LayerNorm; the output is one sum per row. Two ways to split the work (the matrix
 * article, §2 and §3): one warp per row for short rows, one block per row for long ones, each with
 * scalar and with 128-bit packed loads (§4), and the block reduce written with cub::BlockReduce.
 * Then what the article's BlockAllReduce (§3) and its closing note on softmax (§5) lead to: a block
 * all-reduce for any operator that leaves the result in every thread, softmax's max and sum per row
 * (as the row's log-sum-exp) in two passes and in the online softmax's one pass (the course chapter,
 * §7.7.5), LayerNorm's mean and variance per row in one pass (Welford's, merged as the online softmax
 * merges), rows shorter than a warp shared among groups of lanes (the shuffle article's width), and a
 * kernel that picks the split by the row length. */
#include <cub/cub.cuh>

#include "stage.h"
#include "levels.h"
#include "packed.h"

#define BLOCK 128 /* the article's block size: 4 warps, so 4 rows per block in the warp-per-row kernels */
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

#define PACK 4 /* floats in 128 bits: the article's Packed<float, PACK> (common/packed.h) */

/* The operators the reductions take (the article's SumOp, and the others softmax needs). */
struct SumOp {
    __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp { /* a NaN wins, so that it reaches the result (fmaxf would drop it) */
    __device__ float operator()(float a, float b) const { return a > b || isnan(a) ? a : b; }
};

/* The online softmax's pair over a set of elements: m, their maximum, and l, the sum of exp(x - m) over
 * them. One element x is the pair (x, 1). */
struct MaxSum {
    float m, l;
};
/* The (m, l) merge of two disjoint sets: m = max(m1, m2), l = l1 exp(m1 - m) + l2 exp(m2 - m). Only the
 * side with the smaller max is rescaled (one expf); equal maxima take the factor 1, so two -Inf or two
 * +Inf never meet as inf - inf. A NaN element lands in l (NaN > m is false), which carries it on. */
struct MergeOp {
    __device__ MaxSum operator()(MaxSum a, MaxSum b) const
    {
        MaxSum hi = b.m > a.m ? b : a, lo = b.m > a.m ? a : b;
        return {hi.m, hi.l + lo.l * (lo.m == hi.m ? 1.0f : expf(lo.m - hi.m))};
    }
};

/* LayerNorm's state over a set of elements (Welford): n, how many; mean, their mean; m2, the sum of
 * (x - mean)^2 over them. One element x is the state (1, x, 0). n is an exact integer up to 2^24. */
struct Welford {
    float n, mean, m2;
};
/* Chan, Golub and LeVeque's merge of two disjoint sets, the (m, l) merge's counterpart: n = na + nb,
 * d = mean_b - mean_a, mean = mean_a + d nb / n, m2 = m2_a + m2_b + d^2 na nb / n. Merging one element
 * is Welford's update. The weight nb / n is one division, shared; an empty side (0, 0, 0) leaves the
 * other exact, and two empty sides stay empty (the weight 0, not 0 / 0). An infinite mean on either
 * side makes the mean their sum (the Inf, or NaN for +Inf and -Inf), where d would be Inf - Inf. */
struct WelfordOp {
    __device__ Welford operator()(Welford a, Welford b) const
    {
        float n = a.n + b.n, w = n > 0.0f ? b.n / n : 0.0f, d = b.mean - a.mean;
        float mean = isinf(a.mean) || isinf(b.mean) ? a.mean + b.mean : a.mean + d * w;
        return {n, mean, a.m2 + b.m2 + d * d * a.n * w};
    }
};

__device__ __forceinline__ float shfl_xor(float v, int mask, int width)
{
    return __shfl_xor_sync(FULL_MASK, v, mask, width);
}
__device__ __forceinline__ MaxSum shfl_xor(MaxSum p, int mask, int width)
{
    return {shfl_xor(p.m, mask, width), shfl_xor(p.l, mask, width)};
}
__device__ __forceinline__ Welford shfl_xor(Welford s, int mask, int width)
{
    return {shfl_xor(s.n, mask, width), shfl_xor(s.mean, mask, width), shfl_xor(s.m2, mask, width)};
}

/* The xor butterfly within each group of `width` lanes (a power of two, at most 32): every lane of a
 * group ends with its group's result. Every lane of the warp must call it (the mask is full). */
template <typename Op, typename T>
__device__ __forceinline__ T warp_all_reduce(T v, int width)
{
    for (int mask = width / 2; mask > 0; mask >>= 1) v = Op()(v, shfl_xor(v, mask, width));
    return v;
}

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    return warp_all_reduce<SumOp>(v, 32); /* every lane has the warp's sum */
}

/* Warp sums through shared memory, then one warp adds them. Called once per kernel: a second call
 * would need a __syncthreads() first, or it would overwrite warp_sums while warp 0 still reads them. */
__device__ __forceinline__ float block_reduce_sum(float v)
{
    __shared__ TRACED(float) warp_sums[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_reduce_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < WARPS ? warp_sums[lane] : 0.0f;
    return warp_reduce_sum(v); /* thread 0 has the block's sum */
}
/* Its levels: two butterflies over a whole warp each (the second's lanes past WARPS hold zeros). */
#define BLOCK_REDUCE_LEVELS (LOG2_WARP + LOG2_WARP)

/* The article's BlockAllReduce<ReductionOp, T, block_size> (§3): the block's result in every thread,
 * for any operator. The article reduces with cub::BlockReduce, whose result is valid in thread 0 only,
 * and broadcasts it through a shared result_broadcast; here the reduce is written out: each warp's
 * butterfly, the warp results through shared memory, warp 0's butterfly over them in groups of
 * THREADS / 32 lanes (no identity element needed), and thread 0's result through shared memory to
 * every thread.
 * Each Op and T has shared arrays of its own. Two calls with the same ones (a LayerNorm's mean, then
 * its variance) are safe back to back: a thread writes partial[] of the second call only after the
 * barrier that follows the first call's reads of partial[], and thread 0 writes result only after the
 * second call's first barrier, which every thread reaches after it has read the first result. */
template <typename Op, typename T, int THREADS>
__device__ __forceinline__ T block_all_reduce(T v)
{
    static_assert(THREADS >= 32 && THREADS <= 1024 && (THREADS & (THREADS - 1)) == 0, "whole warps, a power of two");
    constexpr int warps = THREADS / 32;
    __shared__ TRACED(T) partial[warps];
    __shared__ TRACED(T) result; /* the article's result_broadcast */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_all_reduce<Op>(v, 32);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_all_reduce<Op, T>(partial[lane % warps], warps);
        if (lane == 0) result = v;
    }
    __syncthreads();
    return result;
}
/* Its levels in a block of BLOCK threads: the warp's butterfly, then warp 0's over groups of WARPS lanes. */
#define ALL_REDUCE_LEVELS (LOG2_WARP + tree_levels(WARPS))

/* This thread's share of one row p[0..cols), as thread `lane` of `width`: 16-byte packs where the row
 * allows them. A row starts on a 16-byte boundary only when cols is a multiple of 4 (and the matrix
 * is aligned), so a scalar head runs up to the first boundary and a scalar tail finishes; the article
 * asserts cols % 4 == 0 instead and assumes the alignment. The head and the tail are loops over the
 * lanes, not one element per lane, so that a group of one or two lanes reads all of theirs too. */
__device__ __forceinline__ float packed_share(const float *p, uint64_t cols, unsigned lane, unsigned width)
{
    uint64_t head = unaligned_head(p, cols);
    const Packed<float, PACK> *packs = reinterpret_cast<const Packed<float, PACK> *>(p + head);
    uint64_t count = (cols - head) / PACK, tail = head + count * PACK;
    float s = 0.0f;
    for (uint64_t i = lane; i < head; i += width) s += p[i];
    for (uint64_t i = lane; i < count; i += width) {
        Packed<float, PACK> v = packs[i];
        s += (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
    }
    for (uint64_t i = tail + lane; i < cols; i += width) s += p[i];
    return s;
}

/* One warp per row, WARPS rows per block. The article has no row check: with rows not a multiple of
 * WARPS, the last block's extra warps read and write past the matrix. Here a whole warp leaves
 * together, so the shuffles' full mask stays true. 64-bit offsets: rows x cols passes 2^32. */
__global__ void __launch_bounds__(BLOCK) rows_warp_per_row(const float *x, float *out, uint64_t rows, uint64_t cols)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float *p = x + row * cols;
    float v = 0.0f;
    for (uint64_t i = lane; i < cols; i += 32) v += p[i];
    v = warp_reduce_sum(v);
    if (lane == 0) out[row] = v;
}

__global__ void __launch_bounds__(BLOCK) rows_warp_per_row_packed(const float *x, float *out, uint64_t rows,
                                                                  uint64_t cols)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float v = warp_reduce_sum(packed_share(x + row * cols, cols, lane, 32));
    if (lane == 0) out[row] = v;
}

/* One block per row: BLOCK threads stride along it, then the block's reduce. */
__global__ void __launch_bounds__(BLOCK) rows_block_per_row(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    float v = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) v += p[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

__global__ void __launch_bounds__(BLOCK) rows_block_per_row_packed(const float *x, float *out, uint64_t cols)
{
    float v = block_reduce_sum(packed_share(x + (uint64_t)blockIdx.x * cols, cols, threadIdx.x, BLOCK));
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The same with the library's block reduce in place of block_reduce_sum. */
__global__ void __launch_bounds__(BLOCK) rows_block_per_row_cub(const float *x, float *out, uint64_t cols)
{
    typedef cub::BlockReduce<float, BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    float v = BlockReduce(temp).Sum(packed_share(x + (uint64_t)blockIdx.x * cols, cols, threadIdx.x, BLOCK));
    if (threadIdx.x == 0) out[blockIdx.x] = v; /* BlockReduce's result is valid in thread 0 only */
}

/* Softmax's two reductions of a row, as the article's closing note names them (§5): the max, which
 * every thread needs for its exps (the reason for the broadcast), then the sum of exp(x - max) over
 * the row read a second time. The row's result is its log-sum-exp, max + log(sum): softmax(x)_i is
 * exp(x_i - LSE). An infinite max is the LSE itself (+Inf in, +Inf out; exp(inf - inf) would be NaN). */
__global__ void __launch_bounds__(BLOCK) rows_softmax_two_pass(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) m = MaxOp()(m, p[i]);
    m = block_all_reduce<MaxOp, float, BLOCK>(m);
    float l = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) l += expf(p[i] - m);
    l = block_all_reduce<SumOp, float, BLOCK>(l);
    if (threadIdx.x == 0) out[blockIdx.x] = isinf(m) ? m : m + logf(l);
}

/* The online softmax (the course chapter, §7.7.5: FlashAttention's (m, l) merge): one pass, each
 * thread merging its elements into its pair, then the pairs merged across the block with the same rule:
 * shuffles within warps, shared memory between them. An infinite m is the LSE unless l holds a NaN. */
__global__ void __launch_bounds__(BLOCK) rows_online_softmax(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    MaxSum s = {-INFINITY, 0.0f};
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) s = MergeOp()(s, MaxSum{p[i], 1.0f});
    s = block_all_reduce<MergeOp, MaxSum, BLOCK>(s);
    if (threadIdx.x == 0) out[blockIdx.x] = isinf(s.m) && !isnan(s.l) ? s.m : s.m + logf(s.l);
}

/* LayerNorm's mean and variance of each row in one pass (the course chapter, §7.7.5), as the online
 * softmax does its (m, l): each thread merges its elements into its Welford state, then the states are
 * merged across the block by the same rule, shuffles within warps and shared memory between them. The
 * row's mean goes to out[row], its population variance m2 / n to out[rows + row]; a row whose mean is not
 * finite (it holds a NaN or an Inf) has no variance: NaN. */
__global__ void __launch_bounds__(BLOCK) rows_welford(const float *x, float *out, uint64_t rows, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    Welford s = {0.0f, 0.0f, 0.0f};
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) s = WelfordOp()(s, Welford{1.0f, p[i], 0.0f});
    s = block_all_reduce<WelfordOp, Welford, BLOCK>(s);
    if (threadIdx.x == 0) {
        out[blockIdx.x] = s.mean;
        out[rows + blockIdx.x] = isfinite(s.mean) ? s.m2 / s.n : NAN;
    }
}

/* The largest |x| of each row: the scale a KV cache's per-group quantisation divides by (the course chapter,
 * §7.8.2, a row being one group), beside softmax's max. Every thread needs the scale to quantise its own
 * elements, hence the all-reduce. A maximum rounds nothing: the result is exactly the largest |x|, and a
 * NaN wins (MaxOp), so that a group holding one cannot be quantised with a finite scale. */
__global__ void __launch_bounds__(BLOCK) rows_group_abs_max(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    float m = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) m = MaxOp()(m, fabsf(p[i]));
    m = block_all_reduce<MaxOp, float, BLOCK>(m);
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}

/* RMSNorm's reduction (the course chapter, §7.7.4-7.7.5): the sum of squares of each row, which every
 * thread then needs for x_i / sqrt(sum / cols + eps), hence the all-reduce. The square is formed inside
 * fmaf, so each term is rounded once, by its addition; the result is the sum, so that the check holds
 * the reduction itself to its bound (sum_squares_tolerance), not the square root after it. */
__global__ void __launch_bounds__(BLOCK) rows_rms_sum_squares(const float *x, float *out, uint64_t cols)
{
    const float *p = x + (uint64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) s = fmaf(p[i], p[i], s);
    s = block_all_reduce<SumOp, float, BLOCK>(s);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}

/* The matrix article's blockReduceSum counts the warps whose sums warp 0 adds as blockDim.x >> 5, which
 * leaves out a last warp that is only partly there: with the 100 threads launched here, warps 0-2 are
 * counted and warp 3's 4 lanes are dropped. Deliberately wrong (run it with --kernel): its check fails
 * wherever a row has more than 96 columns. Everything else is right, so that the count is the only
 * defect: the partial warp reduces with a mask of its own lanes, and its lanes add only partners that
 * exist. The right count is (blockDim.x + 31) >> 5; the kernels above fix the block size at compile time,
 * a multiple of 32 (block_all_reduce's static_assert). */
#define ODD_BLOCK 100
__global__ void __launch_bounds__(ODD_BLOCK) rows_block_reduce_drops_warp(const float *x, float *out, uint64_t cols)
{
    __shared__ float warp_sums[32];
    const float *p = x + (uint64_t)blockIdx.x * cols;
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned lanes = blockDim.x - warp * 32 < 32 ? blockDim.x - warp * 32 : 32; /* this warp's */
    unsigned mask = lanes == 32 ? FULL_MASK : (1u << lanes) - 1;
    float v = 0.0f;
    for (uint64_t i = threadIdx.x; i < cols; i += blockDim.x) v += p[i];
    for (unsigned offset = 16; offset > 0; offset >>= 1) {
        float other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < lanes) v += other;
    }
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = threadIdx.x < (blockDim.x >> 5) ? warp_sums[lane] : 0.0f; /* the article's count */
        v = warp_reduce_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

/* Rows shorter than a warp's share: `width` lanes per row (a power of two, at most 32), BLOCK / width
 * rows per block, the groups reduced with __shfl_xor_sync's width argument (the shuffle article, §1.2
 * and §3). A lane whose row does not exist still joins the shuffles, which name every lane. */
__global__ void __launch_bounds__(BLOCK) rows_subwarp_per_row(const float *x, float *out, uint64_t rows, uint64_t cols,
                                                              unsigned width)
{
    uint64_t row = (uint64_t)blockIdx.x * (BLOCK / width) + threadIdx.x / width;
    unsigned lane = threadIdx.x % width;
    float v = row < rows ? packed_share(x + row * cols, cols, lane, width) : 0.0f;
    v = warp_all_reduce<SumOp>(v, width);
    if (lane == 0 && row < rows) out[row] = v;
}

/* Additions on one row's longest path: a thread's loop (scalar, or packs plus the 2 inside a pack and
 * its share of the head's and the tail's up to 3 elements each), then the reduce's levels. */
static double serial_adds(uint64_t cols, unsigned threads, int packed)
{
    return packed ? (double)((cols / PACK + threads - 1) / threads) + 2 + 2 * ((3 + threads - 1) / threads)
                  : (double)((cols + threads - 1) / threads);
}

/* One warp per row (WARPS rows per block), or one block per row; tree: the reduce's levels. */
static void launch_warp_rows(Run *r, void (*kernel)(const float *, float *, uint64_t, uint64_t), const char *name,
                             int packed)
{
    kernel<<<grid_for(r->rows, WARPS, name), BLOCK>>>(r->in, r->row_sums, r->rows, r->cols);
    LAUNCH_CHECK(name);
    r->chain.serial = serial_adds(r->cols, 32, packed);
    r->chain.tree = LOG2_WARP;
}

static void launch_block_rows(Run *r, void (*kernel)(const float *, float *, uint64_t), const char *name, int packed,
                              double tree)
{
    kernel<<<grid_for(r->rows, 1, name), BLOCK>>>(r->in, r->row_sums, r->cols);
    LAUNCH_CHECK(name);
    r->chain.serial = serial_adds(r->cols, BLOCK, packed);
    r->chain.tree = tree;
}

static void run_warp(Run *r)
{
    launch_warp_rows(r, rows_warp_per_row, "rows_warp_per_row", 0);
}

static void run_warp_packed(Run *r)
{
    launch_warp_rows(r, rows_warp_per_row_packed, "rows_warp_per_row_packed", 1);
}

static void run_block(Run *r)
{
    launch_block_rows(r, rows_block_per_row, "rows_block_per_row", 0, BLOCK_REDUCE_LEVELS);
}

static void run_block_packed(Run *r)
{
    launch_block_rows(r, rows_block_per_row_packed, "rows_block_per_row_packed", 1, BLOCK_REDUCE_LEVELS);
}

static void run_block_cub(Run *r)
{
    launch_block_rows(r, rows_block_per_row_cub, "rows_block_per_row_cub", 1, LOG2_WARP + WARPS); /* warp reduce, then warp sums */
}

/* The log-sum-exp kernels: a thread's loop and block_all_reduce's levels; the two-pass kernel's terms
 * meet one expf each, the online kernel's also the rescaling by every max that grows after them (at
 * most one per addition on the way). */
static void run_softmax_two_pass(Run *r)
{
    launch_block_rows(r, rows_softmax_two_pass, "rows_softmax_two_pass", 0, ALL_REDUCE_LEVELS);
    r->chain.exps = 1;
}

static void run_online_softmax(Run *r)
{
    launch_block_rows(r, rows_online_softmax, "rows_online_softmax", 0, ALL_REDUCE_LEVELS);
    r->chain.exps = 1 + r->chain.serial + r->chain.tree;
}

/* Welford's moments: a merge per element in a thread's loop, then block_all_reduce's levels; the shape
 * says the row's results are a mean and a variance (moments_tolerance in common/bounds.c bounds them). */
static void run_welford(Run *r)
{
    rows_welford<<<grid_for(r->rows, 1, "rows_welford"), BLOCK>>>(r->in, r->row_sums, r->rows, r->cols);
    LAUNCH_CHECK("rows_welford");
    r->chain.serial = serial_adds(r->cols, BLOCK, 0);
    r->chain.tree = ALL_REDUCE_LEVELS;
    r->chain.welford = 1;
}

/* The per-group abs-max: a maximum, nothing rounded; the sum of squares: a thread's loop of fmaf and
 * block_all_reduce's levels (sum_squares_tolerance reads them). */
static void run_group_abs_max(Run *r)
{
    launch_block_rows(r, rows_group_abs_max, "rows_group_abs_max", 0, ALL_REDUCE_LEVELS);
}

static void run_rms_sum_squares(Run *r)
{
    launch_block_rows(r, rows_rms_sum_squares, "rows_rms_sum_squares", 0, ALL_REDUCE_LEVELS);
}

/* The article's count of warps: the shape is that of the sum it would compute with the right count (a
 * thread's loop, its warp's 5 levels, warp 0's 5), so that the check fails on the dropped warp alone. */
static void run_block_reduce_drops_warp(Run *r)
{
    rows_block_reduce_drops_warp<<<grid_for(r->rows, 1, "rows_block_reduce_drops_warp"), ODD_BLOCK>>>(r->in, r->row_sums,
                                                                                                    r->cols);
    LAUNCH_CHECK("rows_block_reduce_drops_warp");
    r->chain.serial = serial_adds(r->cols, ODD_BLOCK, 0);
    r->chain.tree = 2 * LOG2_WARP;
}

/* Elements per thread that the warp and block splits aim for: four 16-byte packs per thread. */
#define ROW_SHARE 16
/* Elements per lane that the sub-warp groups aim for: two 16-byte packs. Measured on the H200 at 32 to
 * 128 columns, 8 beat 16 and 32: short rows need every lane of the GPU loading, more than they need
 * many loads per lane. */
#define LANE_SHARE 8

/* rows_subwarp_per_row's lanes per row: the most (a power of two, at most a warp) that still leave
 * each lane LANE_SHARE elements: 1 below 16 columns, 2 from 16, 4 from 32, ..., 32 from 256. */
static unsigned subwarp_width(uint64_t cols)
{
    unsigned w = 1;
    while (w < 32 && cols >= 2ull * w * LANE_SHARE) w *= 2;
    return w;
}

static void run_subwarp(Run *r)
{
    unsigned width = subwarp_width(r->cols);
    rows_subwarp_per_row<<<grid_for(r->rows, BLOCK / width, "rows_subwarp_per_row"), BLOCK>>>(r->in, r->row_sums, r->rows,
                                                                                             r->cols, width);
    LAUNCH_CHECK("rows_subwarp_per_row");
    r->chain.serial = serial_adds(r->cols, width, 1);
    r->chain.tree = tree_levels(width);
}

/* The split chosen by the row length, by one rule: the largest group per row (a warp, a block) whose
 * threads each still get ROW_SHARE elements, and below a warp's share, groups of lanes. A larger group
 * puts more threads on the same matrix, more warps to hide DRAM's latency; fewer than ROW_SHARE
 * elements each would leave a thread too few loads in flight for its fixed costs (the shuffles, the
 * block's start and end; stage 06). Hence groups of lanes below 32 x ROW_SHARE columns, a warp per row
 * below BLOCK x ROW_SHARE, a block per row from there; the rows chart shows how they fare. */
static void run_auto(Run *r)
{
    if (r->cols < 32 * ROW_SHARE) run_subwarp(r);
    else if (r->cols < BLOCK * ROW_SHARE) run_warp_packed(r);
    else run_block_packed(r);
}

static const Kernel kernels[] = {
    {"rows_warp_per_row", "article §2: one warp per row, xor-shuffle warpReduceSum", run_warp},
    {"rows_block_per_row", "article §3: one block per row, blockReduceSum (warp sums through shared memory)", run_block},
    {"rows_warp_per_row_packed", "article §4.1: the same with Packed<float, 4> loads, any cols and alignment",
     run_warp_packed},
    {"rows_block_per_row_packed", "article §4.2: the same with Packed<float, 4> loads, any cols and alignment",
     run_block_packed},
    {"rows_block_per_row_cub", "article §3: cub::BlockReduce in place of blockReduceSum, packed loads", run_block_cub,
     .no_tree = "its block's sum is cub::BlockReduce's: " CUB_UNRECORDED " (rows_block_per_row is that reduction by hand)"},
    {"rows_softmax_two_pass", "article §3 BlockAllReduce, §5: softmax's max to every thread, then sum of exp(x - max); log-sum-exp",
     run_softmax_two_pass, .op = OP_LOGSUMEXP},
    {"rows_online_softmax", "chapter §7.7.5: FlashAttention's online softmax, (m, l) pairs merged in one pass; log-sum-exp",
     run_online_softmax, .op = OP_LOGSUMEXP},
    {"rows_welford", "chapter §7.7.5: LayerNorm's mean and variance, Welford states merged in one pass like (m, l)",
     run_welford, .no_tree = "it writes two results a row (a mean and a variance), and the record build has room for one"},
    {"rows_group_abs_max", "chapter §7.8.2: a KV cache's per-group quantisation scale, max |x| of a row to every thread",
     run_group_abs_max, .op = OP_ABS_MAX, .no_tree = "a maximum, not a sum: the record build follows additions"},
    {"rows_rms_sum_squares", "chapter §7.7.4-7.7.5: RMSNorm's sum of squares per row (fmaf), to every thread",
     run_rms_sum_squares, .op = OP_SUM_SQUARES,
     .no_tree = "its terms are squares, and the record build checks a sum of the inputs"},
    {"rows_block_reduce_drops_warp", "article §3 blockReduceSum's blockDim.x >> 5 with 100 threads: drops the partial warp",
     run_block_reduce_drops_warp, .flags = NOT_DEFAULT},
    {"rows_subwarp_per_row", "warp shuffle article §1.2, §3: W lanes per row, __shfl_xor_sync's width, packed loads", run_subwarp},
    {"rows_auto", "beyond the articles: lanes, a warp or a block per row, by the row length", run_auto},
};

/* Default: 2^26 floats (256 MiB) as rows of 32 ... 65536 columns; check: odd shapes, and every width of
 * rows_subwarp_per_row (cols 4 and 7: 1 lane, 16, 17 and 31: 2, 33: 4, 100: 8, 200: 16, 300 and 1000: 32). */
STAGE("09_rows", kernels,
      .default_sizes = "2^21x32,2^20x64,2^19x128,2^18x256,2^17x512,2^16x1024,2^15x2048,2^14x4096,2^13x8192,2^12x16384,"
               "2^11x32768,2^10x65536",
      .check_sizes = "1x1,1x31,3x33,5x4,7x1000,1000x7,33x4097,2^16x33,1000003x1,2x1000003,129x16,65x17,37x100,19x200,"
                     "11x300", .rows = 1,
      .charts = {{"rows", OWNS}},
      .trees = {{"rows_warp_per_row", "4x64"}, {"rows_subwarp_per_row", "32x32"}, {"rows_block_per_row", "1x1024"}});

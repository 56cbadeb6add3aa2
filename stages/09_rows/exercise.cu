/* Exercise 09: the packed warp-per-row sum for any row length.
 * The article's packed kernels assert cols % 4 == 0 and assume every row starts on a 16-byte boundary.
 * Neither holds for cols = 33 or 1000, or for rows that start at x + row * cols with cols odd. Finish
 * packed_share below so that rows_warp_per_row_packed is right for every shape of the check sizes:
 * the elements before the row's first 16-byte boundary one by one (the head), then the packs, then the
 * elements after the last whole pack (the tail), each spread over the `width` threads by `lane`.
 * Hint: the head has ((16 - (uintptr_t)p % 16) % 16) / sizeof(float) elements, at most cols.
 * Hint: the stub below reads only the packs, starting at p itself: it is the article's version, and
 *   it reads unaligned packs and drops the tail.
 * 提示：头部有 ((16 - (uintptr_t)p % 16) % 16) / sizeof(float) 个元素，至多 cols 个。
 * 提示：下面的桩只读取打包部分，并且从 p 本身开始：这是文章的写法，它会读取未对齐的 pack，并丢掉尾部。 */
#include "common.h"

#define BLOCK 128
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

template <typename T, int N>
struct alignas(sizeof(T) * N) Packed {
    T elem[N];
};
#define PACK 4

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
__device__ __forceinline__ float packed_share(const float *p, uint64_t cols, unsigned lane, unsigned width)
{
    float s = 0.0f;
    if ((uintptr_t)p % 16) return s; /* TODO: a head up to the 16-byte boundary instead of giving up */
    const Packed<float, PACK> *packs = reinterpret_cast<const Packed<float, PACK> *>(p);
    for (uint64_t i = lane; i < cols / PACK; i += width) {
        Packed<float, PACK> v = packs[i];
        s += (v.elem[0] + v.elem[1]) + (v.elem[2] + v.elem[3]);
    }
    return s; /* TODO: the tail */
}
#endif

__global__ void __launch_bounds__(BLOCK) rows_warp_per_row_packed(const float *x, float *out, uint64_t rows,
                                                                  uint64_t cols)
{
    uint64_t row = (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (row >= rows) return;
    float v = warp_reduce_sum(packed_share(x + row * cols, cols, lane, 32));
    if (lane == 0) out[row] = v;
}

static void run_warp_packed(Run *r)
{
    rows_warp_per_row_packed<<<grid_for(r->rows, WARPS, "rows_warp_per_row_packed"), BLOCK>>>(r->in, r->row_sums,
                                                                                             r->rows, r->cols);
    LAUNCH_CHECK("rows_warp_per_row_packed");
    r->shape.serial = (double)((r->cols / PACK + 31) / 32) + 2 + 2;
    r->shape.tree = 5;
}

static const Kernel kernels[] = {
    {"rows_warp_per_row_packed", "exercise: one warp per row, Packed<float, 4> loads, any cols", run_warp_packed},
};

STAGE("09_rows", kernels, .default_sizes = "2^16x1000", .check_sizes = "1x1,1x31,3x33,5x4,7x1000,1000x7,33x4097,2^16x33", .rows = 1,
      .charts = "rows+");

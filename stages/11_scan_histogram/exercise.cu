/* Exercise 11 (the course chapter's §7.6): two parts of this stage's program are left to write.
 * 1. scan_block_totals_and_add_back: the cross-block part of a scan of any N. scan_tiles has scanned
 *    every tile of 1024 elements on its own and written tile t's total to totals[t]. Scan those totals
 *    (in place; there may be more than 1024 of them), then add to every element of tile t > 0 the sum
 *    of the tiles before it. The stub does nothing, so every N > 1024 fails.
 * 2. histogram4096_shared: 4096 bins, counted per block in shared memory and merged into the global
 *    histogram, like histogram_shared_privatized with 256. The stub counts nothing.
 * make stage-11 exercise checks scan_device_wide and histogram4096_shared (and CUB) at the check sizes;
 * build/11_scan_histogram/exercise takes the stage program's options.
 * Hint: the totals are an array like any other: scan_device_wide_levels(totals, totals, tiles, scratch)
 *       scans it, with scratch for its own totals.
 * Hint: the add-back is one more kernel over tiles 1 .. tiles-1: load_items / store_items read and
 *       write a tile, and scanned totals[t - 1] is what tile t adds.
 * Hint: 4096 unsigned counters are 16 KiB: they fit in shared memory. histogram_privatized<BINS, T, AGG>
 *       in scan_histogram.cu takes the number of bins as a parameter.
 * Hint: shared memory starts with anything in it: zero the bins, __syncthreads, count, __syncthreads,
 *       merge.
 * 提示：各 tile 的总和也是一个普通数组：scan_device_wide_levels(totals, totals, tiles, scratch) 就能扫描它，scratch 存放它自己的总和。
 * 提示：加回是再多一个作用于 tile 1 .. tiles-1 的 kernel：load_items / store_items 读写一个 tile，扫描后的 totals[t - 1] 就是 tile t 要加上的值。
 * 提示：4096 个 unsigned 计数器是 16 KiB：放得进共享内存。scan_histogram.cu 中的 histogram_privatized<BINS, T, AGG> 以 bin 的个数为参数。
 * 提示：共享内存一开始里面可能是任何值：先把 bin 清零，__syncthreads，计数，__syncthreads，再合并。 */
#define SCAN_HISTOGRAM_EXERCISE
#include "scan_histogram.cu"

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
static void scan_block_totals_and_add_back(int *out, uint64_t n, int *totals, uint64_t tiles, int *scratch)
{
    (void)out, (void)n, (void)totals, (void)tiles, (void)scratch; /* TODO: scan the totals, add them back */
}

__global__ void histogram4096_shared(const uint16_t *in, uint64_t n, unsigned *hist)
{
    (void)in, (void)n, (void)hist; /* TODO: per-block bins in shared memory, merged into hist */
}
#endif

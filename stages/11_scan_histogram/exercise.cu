/* Exercise 11: the exclusive scan.
 * Every scan in scan_histogram.cu is inclusive: element i gets in[0] + ... + in[i]. Most uses of a scan
 * want it exclusive, in[0] + ... + in[i-1] (0 for i = 0): where each element's output starts, as in
 * stream compaction, a radix sort's bucket offsets or a sparse matrix's row starts. Write
 * scan_exclusive_levels, an exclusive scan of any N, in the passes of scan_reduce_then_scan_levels: the
 * tiles' sums (tile_sums), their inclusive scan in place (scan_device_wide_levels), then one kernel,
 * like scan_tiles, that scans each tile exclusively, starting from the sum of the tiles before it.
 * scan_tiles already makes one exclusive value from its inclusive pieces: `before`, the thread's
 * inclusive block scan less the thread's own total. make stage-11 exercise runs scan_exclusive (and
 * CUB's inclusive scan beside it) at the check sizes, checked element by element against an exact CPU
 * scan; build/11_scan_histogram/exercise takes the stage program's options.
 * Hint: in the tile kernel, replace each of the thread's SCAN_ITEMS values by the running total before
 *   it (keep the value, store the total, then add the value); the thread's total then goes through
 *   block_inclusive_scan exactly as in scan_tiles.
 * Hint: tile t > 0 adds offsets[t - 1], as scan_tiles does: the scanned tile sums are the same for an
 *   exclusive scan, so the first two passes are scan_reduce_then_scan_levels' own.
 * Hint: the stub below is the stage's inclusive scan: each element also counts itself, so it is wrong
 *   wherever in[i] is not 0, from the first element on. Subtracting in[i] afterwards would be right
 *   too, at the price of one more pass over both arrays.
 * 提示：在 tile kernel 里，把线程的 SCAN_ITEMS 个值各自换成它之前的累加和（先记下值，写入累加和，再把值加上）；然后线程的总和照 scan_tiles 的做法交给 block_inclusive_scan。
 * 提示：tile t > 0 加上 offsets[t - 1]，和 scan_tiles 一样：对排他扫描来说，扫描后的各 tile 之和并没有变，所以前两遍直接沿用 scan_reduce_then_scan_levels 的。
 * 提示：下面的桩就是本阶段的包含式扫描：每个元素把自己也算了进去，所以只要 in[i] 不为 0 就错，从第一个元素起就错。事后再减去 in[i] 也是对的，代价是把两个数组多读写一遍。 */
#define SCAN_HISTOGRAM_EXERCISE
#include "scan_histogram.cu"

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
static void scan_exclusive_levels(const int *in, int *out, uint64_t n, int *scratch)
{
    scan_reduce_then_scan_levels(in, out, n, scratch); /* TODO: exclusive */
}
#endif

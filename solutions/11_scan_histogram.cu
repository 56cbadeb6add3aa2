/* Solution of stages/11_scan_histogram/exercise.cu (compiled in place of its stub): an exclusive scan
 * of any N from the stage's inclusive pieces. */
#include "stage.h"

/* scan_tiles, exclusive: each of the thread's SCAN_ITEMS values becomes the sum of the thread's values
 * before it, and the thread's total goes through the same inclusive block scan, less itself: what the
 * threads before hold. Tile t > 0 starts from offsets[t - 1], the inclusive sum of tiles 0 .. t-1.
 * Each block reads its whole tile before it writes, so in == out is allowed. */
__global__ void __launch_bounds__(SCAN_THREADS) scan_tiles_exclusive(const int *in, int *out, uint64_t n,
                                                                     const int *offsets)
{
    uint64_t tile = blockIdx.x;
    int x[SCAN_ITEMS];
    load_items(in, n, tile, x);
    int total = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        int v = x[k];
        x[k] = total;
        total += v;
    }
    int block_total;
    int before = block_inclusive_scan(total, &block_total) - total;
    if (offsets && tile > 0) before += offsets[tile - 1];
    for (int k = 0; k < SCAN_ITEMS; k++) x[k] += before;
    store_items(out, n, tile, x);
}

/* Reduce-then-scan's passes: the tiles' sums, their inclusive scan in place, then each tile scanned
 * exclusively from its offset. Reads N twice, writes N once, as the inclusive one does. */
static void scan_exclusive_levels(const int *in, int *out, uint64_t n, int *scratch)
{
    uint64_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    unsigned grid = grid_for(n, SCAN_TILE, "scan_tiles_exclusive");
    if (tiles > 1) {
        tile_sums<<<grid, SCAN_THREADS>>>(in, n, scratch);
        LAUNCH_CHECK("tile_sums");
        scan_device_wide_levels(scratch, scratch, tiles, scratch + LEVEL_INTS(tiles));
    }
    scan_tiles_exclusive<<<grid, SCAN_THREADS>>>(in, out, n, tiles > 1 ? scratch : NULL);
    LAUNCH_CHECK("scan_tiles_exclusive");
}

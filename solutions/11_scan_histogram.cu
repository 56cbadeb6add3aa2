/* Solution of stages/11_scan_histogram/exercise.cu (compiled in place of its stubs), and the same two
 * parts of the stage's own program (stages/11_scan_histogram/scan_histogram.cu includes it). */

/* Tile t > 0 adds the inclusive sum of the tiles before it; tile 0 has nothing to add. */
__global__ void __launch_bounds__(SCAN_THREADS) add_tile_offsets(int *out, uint64_t n, const int *scanned_totals)
{
    uint64_t tile = (uint64_t)blockIdx.x + 1;
    int x[SCAN_ITEMS];
    load_items(out, n, tile, x);
    int before = scanned_totals[tile - 1];
    for (int k = 0; k < SCAN_ITEMS; k++) x[k] += before;
    store_items(out, n, tile, x);
}

/* The totals are scanned by the same device-wide scan, one level up (recursion ends when they fit in
 * one tile), then added back. */
static void scan_block_totals_and_add_back(int *out, uint64_t n, int *totals, uint64_t tiles, int *scratch)
{
    scan_device_wide_levels(totals, totals, tiles, scratch);
    add_tile_offsets<<<(unsigned)(tiles - 1), SCAN_THREADS>>>(out, n, totals);
    LAUNCH_CHECK("add_tile_offsets");
}

/* 4096 counters of 4 bytes are 16 KiB of shared memory: it fits (48 KiB without opting in, up to
 * 227 KiB on Hopper), at the price of fewer blocks per SM than 1 KiB of 256 bins allows. */
__global__ void histogram4096_shared(const uint16_t *in, uint64_t n, unsigned *hist)
{
    histogram_privatized<4096, uint16_t, 0>(in, n, hist);
}

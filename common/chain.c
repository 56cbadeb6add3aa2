/* The chains of additions (chain.h). */
#include "chain.h"

#include <math.h>

AddChain chain_unknown(uint64_t n)
{
    return (AddChain){.serial = n > 1 ? (double)(n - 1) : 1.0};
}

/* CUB's DeviceReduce (CCCL 3.x, cub/device/dispatch/dispatch_reduce.cuh and tuning/tuning_reduce.cuh:
 * the policy for sm_60 and later, which sm_90 takes): blocks of 256 threads, each loading 16 items per
 * tile (a 4-byte accumulator: every sum here is fp32 or int32); a grid of G blocks splits the tiles
 * evenly (GridEvenShare), so a thread adds 16 values in each of at most ceil(tiles / G) tiles into its
 * running sum; the block then reduces its 256 sums (warp shuffles, 5 levels, then the 8 warps' sums in
 * a row, 7); a second kernel of one block sums the G partials the same way (16 per thread per tile of
 * 4096). G = min(tiles, occupancy x SMs x 5) with occupancy between 1 and 8 blocks of 256 per SM: the
 * first pass takes the smallest G, the second the largest, so the path is never shorter than CUB's.
 * Assumed: a thread's 16 values of a tile reach its sum through at most 16 additions, in any order
 * (ThreadReduce). A segment of DeviceSegmentedReduce is one block's share: sm_count 0. */
AddChain chain_cub_reduce(uint64_t n, int sm_count)
{
    double tiles = ceil((double)n / 4096.0);
    double g_min = sm_count ? fmin(tiles, 5.0 * sm_count) : 1.0, g_max = sm_count ? fmin(tiles, 40.0 * sm_count) : 1.0;
    return (AddChain){.serial = ceil(tiles / fmax(g_min, 1.0)) * 16.0 +
                                (g_max > 1.0 ? ceil(g_max / 4096.0) * 16.0 : 0.0),
                      .tree = (g_max > 1.0 ? 2.0 : 1.0) * (5.0 + 7.0)};
}

double unit_roundoff(int significand_bits)
{
    return ldexp(1.0, -significand_bits);
}

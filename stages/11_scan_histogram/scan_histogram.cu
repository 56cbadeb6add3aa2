/* Stage 11: reduction's two relatives, the prefix sum (scan) and the histogram (atomics).
 * Scan, one level at a time: a warp (5 __shfl_up_sync steps), a block (warp scans, warp totals through
 * shared memory, offsets added back), the whole array of any N (block scans, a scan of the block
 * totals, the totals added back: the course chapter's exercise), and reduce-then-scan; int32 data,
 * checked element by element against an exact int64 CPU scan. Histogram: 256 bins with global atomics,
 * with per-block private bins in shared memory, and with warp-aggregated shared atomics; 4096 bins
 * with global atomics and in shared memory (the chapter's second exercise); uniform and skewed data.
 * Then what a scan is for in sampling (the chapter's §7.3 and §7.7.5, "scan-then-truncate"): top-p's cut,
 * the fewest of the sorted probabilities whose sum reaches p of their total, found by a scan and a search.
 * CUB (DeviceScan::InclusiveSum, DeviceHistogram::HistogramEven) does each task in the same run.
 * This is a program of its own (no stage harness): its data, checks and output are below; the command
 * line, timing loop and CSV are every program's (common/program.h). */
#include <cub/cub.cuh>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "exit_codes.h"
#include "fill.h"
#include "gpu.h"
#include "options.h"
#include "result.h"
#include "stage.h"
#include "timing.h"

#define STAGE_NAME "11_scan_histogram"
#define DEFAULT_SIZES "2^20,2^24,2^26"
/* One warp, one block, 1000003 (two levels of block totals), 2^24+1 (three levels). */
#define CHECK_SIZES "1,31,33,255,256,257,1000003,2^24+1"
#define FULL_MASK 0xffffffffu

#define SCAN_THREADS 256
#define SCAN_ITEMS 4                              /* consecutive elements per thread: one 16-byte load */
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)     /* elements one block scans */
#define WARPS (SCAN_THREADS / 32)
#define HIST_THREADS 256
#define HOT_FRACTION 0.9                          /* skewed data: this share of the samples in one bin */
#define HOT_BIN 200
#define HOT_KEY 1234

/* ---- scan: warp, block, tile ---------------------------------------------------------------- */

/* Hillis-Steele inside a warp: after step d, lane i holds the sum of lanes i-d+1 .. i (5 steps, about
 * 32 log 32 additions where a sequential scan needs 31: more work, but every lane busy). All 32 lanes
 * must call it: __shfl_up_sync gives lanes below d their own value back, which the lane test drops. */
__device__ __forceinline__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x % 32;
    for (int d = 1; d < 32; d *= 2) {
        int t = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d) v += t;
    }
    return v;
}

/* Inclusive scan over the block's SCAN_THREADS values: each warp scans its own, lane 31 leaves the
 * warp's total in shared memory, warp 0 scans the WARPS totals, and each warp adds the totals of the
 * warps before it. *block_total: the sum of all SCAN_THREADS values, in every thread. */
__device__ int block_inclusive_scan(int v, int *block_total)
{
    __shared__ int warp_totals[WARPS];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_inclusive_scan(v);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int t = warp_inclusive_scan(lane < WARPS ? warp_totals[lane] : 0);
        if (lane < WARPS) warp_totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    *block_total = warp_totals[WARPS - 1];
    return v;
}

/* The SCAN_ITEMS elements of thread t of tile `tile`: elements tile*SCAN_TILE + t*SCAN_ITEMS + k,
 * zero past n. A full tile is read with one 16-byte load per thread (the tile start is 4 KiB aligned). */
__device__ __forceinline__ void load_items(const int *in, uint64_t n, uint64_t tile, int x[SCAN_ITEMS])
{
    uint64_t first = tile * SCAN_TILE + (uint64_t)threadIdx.x * SCAN_ITEMS;
    if ((tile + 1) * SCAN_TILE <= n) {
        int4 q = *(const int4 *)(in + first);
        x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
    } else {
        for (int k = 0; k < SCAN_ITEMS; k++) x[k] = first + k < n ? in[first + k] : 0;
    }
}

__device__ __forceinline__ void store_items(int *out, uint64_t n, uint64_t tile, const int x[SCAN_ITEMS])
{
    uint64_t first = tile * SCAN_TILE + (uint64_t)threadIdx.x * SCAN_ITEMS;
    if ((tile + 1) * SCAN_TILE <= n) {
        *(int4 *)(out + first) = make_int4(x[0], x[1], x[2], x[3]);
    } else {
        for (int k = 0; k < SCAN_ITEMS; k++)
            if (first + k < n) out[first + k] = x[k];
    }
}

/* The warp level alone: each warp scans its 32 consecutive elements, independent of the others. */
__global__ void scan_warp_segments(const int *in, int *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int v = warp_inclusive_scan(i < n ? in[i] : 0); /* every lane takes part, those past n with 0 */
    if (i < n) out[i] = v;
}

/* One block per tile of SCAN_TILE elements: a sequential scan of the thread's SCAN_ITEMS, a block scan
 * of the thread totals, the thread's offset added back. offsets (NULL: none): tile t adds offsets[t-1]
 * (reduce-then-scan). totals (NULL: none): tile t writes its total to totals[t] (scan-then-propagate).
 * Each block reads its whole tile before it writes, so in == out is allowed. */
__global__ void __launch_bounds__(SCAN_THREADS) scan_tiles(const int *in, int *out, uint64_t n, const int *offsets,
                                                           int *totals)
{
    uint64_t tile = blockIdx.x;
    int x[SCAN_ITEMS];
    load_items(in, n, tile, x);
    for (int k = 1; k < SCAN_ITEMS; k++) x[k] += x[k - 1];
    int block_total;
    int before = block_inclusive_scan(x[SCAN_ITEMS - 1], &block_total) - x[SCAN_ITEMS - 1];
    if (offsets && tile > 0) before += offsets[tile - 1];
    for (int k = 0; k < SCAN_ITEMS; k++) x[k] += before;
    store_items(out, n, tile, x);
    if (totals && threadIdx.x == 0) totals[tile] = block_total;
}

/* Reduce-then-scan's first pass: each tile's sum only (reads the input, writes one int per tile). */
__global__ void __launch_bounds__(SCAN_THREADS) tile_sums(const int *in, uint64_t n, int *totals)
{
    int x[SCAN_ITEMS];
    load_items(in, n, blockIdx.x, x);
    int v = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) v += x[k];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(FULL_MASK, v, d);
    __shared__ int warp_sums[WARPS];
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (int w = 0; w < WARPS; w++) s += warp_sums[w];
        totals[blockIdx.x] = s;
    }
}

/* Scan-then-propagate's last pass: tile t > 0 adds the inclusive sum of the tiles before it, the
 * scanned totals[t - 1]; tile 0 has nothing to add, so the grid starts at tile 1. */
__global__ void __launch_bounds__(SCAN_THREADS) add_tile_offsets(int *out, uint64_t n, const int *scanned_totals)
{
    uint64_t tile = (uint64_t)blockIdx.x + 1;
    int x[SCAN_ITEMS];
    load_items(out, n, tile, x);
    int before = scanned_totals[tile - 1];
    for (int k = 0; k < SCAN_ITEMS; k++) x[k] += before;
    store_items(out, n, tile, x);
}

/* The cross-block part of scan_device_wide_levels (below, and it calls that function in turn): scan
 * the `tiles` block totals in place, then add to every element of tile t > 0 the inclusive total of
 * tiles 0 .. t-1. scratch: room for the totals' own levels. */
static void scan_block_totals_and_add_back(int *out, uint64_t n, int *totals, uint64_t tiles, int *scratch);

/* Each level's totals start at a 128-byte boundary: the next level reads them 16 bytes at a
 * time. */
#define LEVEL_INTS(tiles) (((tiles) + 31) / 32 * 32)

/* Scratch a device-wide scan of n elements needs: one total per tile, at every level. */
static uint64_t scan_scratch_ints(uint64_t n)
{
    uint64_t total = 0;
    for (uint64_t m = n; m > SCAN_TILE; m = (m + SCAN_TILE - 1) / SCAN_TILE) total += LEVEL_INTS((m + SCAN_TILE - 1) / SCAN_TILE);
    return total + 1;
}

/* Scan-then-propagate (the chapter's exercise): block scans that also write their totals, the totals
 * scanned by this same function one level up (N / 1024 of them, then N / 1024^2, ...), the totals added
 * back. Moves 16 N bytes: the input read, the output written, then read and written again. */
static void scan_device_wide_levels(const int *in, int *out, uint64_t n, int *scratch)
{
    uint64_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    unsigned grid = grid_for(n, SCAN_TILE, "scan_tiles");
    scan_tiles<<<grid, SCAN_THREADS>>>(in, out, n, NULL, tiles > 1 ? scratch : NULL);
    LAUNCH_CHECK("scan_tiles");
    if (tiles > 1) scan_block_totals_and_add_back(out, n, scratch, tiles, scratch + LEVEL_INTS(tiles));
}

/* The totals are an array like any other: the same device-wide scan scans them, one level up (the
 * recursion ends where they fit in one tile); then they are added back. */
static void scan_block_totals_and_add_back(int *out, uint64_t n, int *totals, uint64_t tiles, int *scratch)
{
    scan_device_wide_levels(totals, totals, tiles, scratch);
    add_tile_offsets<<<(unsigned)(tiles - 1), SCAN_THREADS>>>(out, n, totals);
    LAUNCH_CHECK("add_tile_offsets");
}

/* Reduce-then-scan: the tiles' sums first (reads N), those sums scanned (tiny), then each tile scanned
 * again starting from its offset (reads N, writes N): 12 N bytes instead of 16 N. */
static void scan_reduce_then_scan_levels(const int *in, int *out, uint64_t n, int *scratch)
{
    uint64_t tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    unsigned grid = grid_for(n, SCAN_TILE, "tile_sums");
    if (tiles > 1) {
        tile_sums<<<grid, SCAN_THREADS>>>(in, n, scratch);
        LAUNCH_CHECK("tile_sums");
        scan_device_wide_levels(scratch, scratch, tiles, scratch + LEVEL_INTS(tiles));
    }
    scan_tiles<<<grid, SCAN_THREADS>>>(in, out, n, tiles > 1 ? scratch : NULL, NULL);
    LAUNCH_CHECK("scan_tiles");
}

/* ---- top-p: scan, then truncate ---------------------------------------------------------------- */

/* Top-p sampling keeps the fewest most likely tokens whose probabilities add up to p of the total: over
 * probabilities sorted in descending order, the first index where the inclusive scan reaches p times its
 * last element. Here p = TOP_P_NUM / TOP_P_DEN and the probabilities are integers (fixed point), so the
 * threshold, ceil(p total), and the cut are exact and the check can demand equality. The scan is
 * positive and rises, so exactly one element is the first to reach the threshold: its thread writes how
 * many are kept. */
#define TOP_P_NUM 9
#define TOP_P_DEN 10
__global__ void top_p_cut(const int *scanned, uint64_t n, unsigned long long *kept)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long threshold = ((long long)scanned[n - 1] * TOP_P_NUM + TOP_P_DEN - 1) / TOP_P_DEN;
    if (scanned[i] >= threshold && (i == 0 || scanned[i - 1] < threshold)) *kept = i + 1;
}

/* ---- histograms ------------------------------------------------------------------------------- */

/* Counts the samples into bins (global or shared memory): the grid walks the input 16 bytes per
 * thread per step, the last n % 16 bytes (n % 8 keys) one by one. AGG = 1: warp-aggregated atomics,
 * the lanes holding the same key add once, with the number of them (__match_any_sync, sm_70+);
 * the loop then runs the same number of times in every lane of a warp, which that call needs. */
template <typename T, int AGG>
__device__ __forceinline__ void count_samples(const T *in, uint64_t n, unsigned *bins)
{
    const int per_word = 16 / sizeof(T);
    const uint4 *words = (const uint4 *)in;
    uint64_t nwords = n / per_word, stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t gid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x % 32;
    /* AGG: the loop runs while the warp's first lane has a word (w - lane is the same in all 32 lanes). */
    for (uint64_t w = gid; (AGG ? w - lane : w) < nwords; w += stride) {
        int valid = w < nwords;
        uint4 q = valid ? words[w] : make_uint4(0, 0, 0, 0);
        const T *s = (const T *)&q;
        for (int k = 0; k < per_word; k++) {
            unsigned key = s[k];
            if (AGG) {
                unsigned peers = __match_any_sync(FULL_MASK, valid ? key : 0xffffffffu);
                if (valid && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&bins[key], __popc(peers));
            } else {
                atomicAdd(&bins[key], 1u);
            }
        }
    }
    uint64_t tail = nwords * per_word + gid;
    if (tail < n) atomicAdd(&bins[in[tail]], 1u);
}

/* The chapter's first version: every sample is one atomicAdd on the global histogram. */
__global__ void histogram_global_atomics(const uint8_t *in, uint64_t n, unsigned *hist)
{
    count_samples<uint8_t, 0>(in, n, hist);
}

/* Per-block private bins in shared memory (zeroed first: shared memory starts undefined), counted
 * with shared atomics, then one global atomicAdd per non-empty bin per block. */
template <int BINS, typename T, int AGG>
__device__ __forceinline__ void histogram_privatized(const T *in, uint64_t n, unsigned *hist)
{
    __shared__ unsigned bins[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) bins[b] = 0;
    __syncthreads();
    count_samples<T, AGG>(in, n, bins);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (bins[b]) atomicAdd(&hist[b], bins[b]);
}

__global__ void histogram_shared_privatized(const uint8_t *in, uint64_t n, unsigned *hist)
{
    histogram_privatized<256, uint8_t, 0>(in, n, hist);
}

__global__ void histogram_warp_aggregated(const uint8_t *in, uint64_t n, unsigned *hist)
{
    histogram_privatized<256, uint8_t, 1>(in, n, hist);
}

__global__ void histogram4096_global_atomics(const uint16_t *in, uint64_t n, unsigned *hist)
{
    count_samples<uint16_t, 0>(in, n, hist);
}

/* 4096 counters of 4 bytes are 16 KiB of shared memory: they fit (48 KiB without opting in, up to
 * 227 KiB on Hopper), at the price of fewer blocks per SM than the 1 KiB of 256 bins allows. */
__global__ void histogram4096_shared(const uint16_t *in, uint64_t n, unsigned *hist)
{
    histogram_privatized<4096, uint16_t, 0>(in, n, hist);
}

/* ---- the kernels' table ------------------------------------------------------------------------- */

/* T_SCAN_EXCLUSIVE: element i is the sum of the elements before it (the exercise's scan). */
typedef enum { T_SCAN_WARP, T_SCAN_BLOCK, T_SCAN, T_SCAN_EXCLUSIVE, T_HIST256, T_HIST4096, T_TOP_P } Task;

/* The device buffers every launcher uses. */
static struct {
    int *in, *out, *scratch;
    uint8_t *samples;      /* uint8 samples, or uint16 keys for 4096 bins */
    unsigned *hist;        /* 4096 counters */
    unsigned long long *kept; /* top-p's cut: how many of the sorted probabilities are kept */
    void *cub_temp;
    size_t cub_temp_bytes;
    int sm_count;
    int hist_per_sm[3];    /* blocks per SM of the histogram kernels: global, 256 bins shared, 4096 bins shared */
} buffers;

typedef void (*Launch)(uint64_t n);

typedef struct {
    const char *name;
    Task task;
    const char *what;
    Launch launch;
    int cub;               /* 1: the library's row of its task */
} Entry;

static void run_scan_warp(uint64_t n)
{
    scan_warp_segments<<<grid_for(n, SCAN_THREADS, "scan_warp_segments"), SCAN_THREADS>>>(buffers.in, buffers.out, n);
    LAUNCH_CHECK("scan_warp_segments");
}

static void run_scan_block(uint64_t n)
{
    scan_tiles<<<grid_for(n, SCAN_TILE, "scan_tiles"), SCAN_THREADS>>>(buffers.in, buffers.out, n, NULL, NULL);
    LAUNCH_CHECK("scan_tiles");
}

static void run_scan_device_wide(uint64_t n) { scan_device_wide_levels(buffers.in, buffers.out, n, buffers.scratch); }
static void run_scan_reduce_then_scan(uint64_t n) { scan_reduce_then_scan_levels(buffers.in, buffers.out, n, buffers.scratch); }

#ifdef SCAN_HISTOGRAM_EXERCISE
/* The exercise's exclusive scan of any N (exercise.cu: its stub, or the solution compiled in its place). */
static void scan_exclusive_levels(const int *in, int *out, uint64_t n, int *scratch);
static void run_scan_exclusive(uint64_t n)
{
    scan_exclusive_levels(buffers.in, buffers.out, n, buffers.scratch);
}
#endif

/* The device-wide scan, then the cut over its result. */
static void run_top_p(uint64_t n)
{
    scan_device_wide_levels(buffers.in, buffers.out, n, buffers.scratch);
    top_p_cut<<<grid_for(n, SCAN_THREADS, "top_p_cut"), SCAN_THREADS>>>(buffers.out, n, buffers.kept);
    LAUNCH_CHECK("top_p_cut");
}

static void run_cub_scan(uint64_t n)
{
    size_t bytes = buffers.cub_temp_bytes;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(buffers.cub_temp, bytes, buffers.in, buffers.out, (int64_t)n));
}

/* Blocks for a histogram kernel: as many as fit on the machine at once, no more than the work needs
 * (16 bytes of samples per thread and step). */
static unsigned hist_grid(int slot, uint64_t bytes)
{
    uint64_t blocks = (uint64_t)buffers.sm_count * buffers.hist_per_sm[slot];
    uint64_t needed = (bytes / 16 + HIST_THREADS - 1) / HIST_THREADS;
    return (unsigned)(blocks < needed ? blocks : needed ? needed : 1);
}

/* The histograms' timed work includes zeroing the bins. */
#define HIST_RUN(fn, kernel, T, bins, slot)                                                                    \
    static void fn(uint64_t n)                                                                                 \
    {                                                                                                          \
        CUDA_CHECK(cudaMemsetAsync(buffers.hist, 0, (bins) * sizeof(unsigned)));                               \
        kernel<<<hist_grid(slot, n * sizeof(T)), HIST_THREADS>>>((const T *)buffers.samples, n, buffers.hist); \
        LAUNCH_CHECK(#kernel);                                                                                 \
    }
HIST_RUN(run_hist_global, histogram_global_atomics, uint8_t, 256, 0)
HIST_RUN(run_hist_shared, histogram_shared_privatized, uint8_t, 256, 1)
HIST_RUN(run_hist_aggregated, histogram_warp_aggregated, uint8_t, 256, 1)
HIST_RUN(run_hist4096_global, histogram4096_global_atomics, uint16_t, 4096, 0)
HIST_RUN(run_hist4096_shared, histogram4096_shared, uint16_t, 4096, 2)

static void run_cub_hist256(uint64_t n)
{
    size_t bytes = buffers.cub_temp_bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(buffers.cub_temp, bytes, buffers.samples, buffers.hist, 257, 0, 256, (int64_t)n));
}

static void run_cub_hist4096(uint64_t n)
{
    size_t bytes = buffers.cub_temp_bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(buffers.cub_temp, bytes, (const uint16_t *)buffers.samples, buffers.hist, 4097, 0,
                                                   4096, (int64_t)n));
}

static const Entry entries[] = {
    {"scan_warp", T_SCAN_WARP, "each warp scans its 32 elements (Hillis-Steele, __shfl_up_sync)", run_scan_warp, 0},
    {"scan_block", T_SCAN_BLOCK, "each block scans its tile of 1024 (warp scans + warp totals in shared)", run_scan_block, 0},
    {"scan_device_wide", T_SCAN, "any N: block scans, scan of block totals, add-back (chapter exercise)", run_scan_device_wide, 0},
    {"scan_reduce_then_scan", T_SCAN, "any N: tile sums, their scan, tiles scanned from their offsets", run_scan_reduce_then_scan, 0},
#ifdef SCAN_HISTOGRAM_EXERCISE
    {"scan_exclusive", T_SCAN_EXCLUSIVE, "exercise: any N, exclusive (each element the sum of those before it)", run_scan_exclusive, 0},
#endif
    {"cub_inclusive_sum", T_SCAN, "cub::DeviceScan::InclusiveSum", run_cub_scan, 1},
    {"histogram_global_atomics", T_HIST256, "256 bins: one global atomicAdd per sample", run_hist_global, 0},
    {"histogram_shared_privatized", T_HIST256, "256 bins: per-block bins in shared memory, merged", run_hist_shared, 0},
    {"histogram_warp_aggregated", T_HIST256, "256 bins: as privatized, equal keys of a warp added once", run_hist_aggregated, 0},
    {"cub_histogram_even", T_HIST256, "cub::DeviceHistogram::HistogramEven, 256 bins", run_cub_hist256, 1},
    {"histogram4096_global_atomics", T_HIST4096, "4096 bins: one global atomicAdd per sample", run_hist4096_global, 0},
    {"histogram4096_shared", T_HIST4096, "4096 bins: per-block bins in shared memory (chapter exercise)", run_hist4096_shared, 0},
    {"cub_histogram_even_4096", T_HIST4096, "cub::DeviceHistogram::HistogramEven, 4096 bins", run_cub_hist4096, 1},
    {"top_p_scan_then_cut", T_TOP_P, "top-p's cut (chapter §7.3, §7.7.5): device-wide scan of sorted probabilities, then the search",
     run_top_p, 0},
};
#define ENTRY_COUNT (int)(sizeof entries / sizeof entries[0])

/* The kernels run when --kernel is not given: all of them, or in the exercise build its own; and what
 * the scan's check says of it. */
#ifdef SCAN_HISTOGRAM_EXERCISE
#define DEFAULT_KERNELS "scan_exclusive"
#define EXCLUSIVE_NOTE ", scan_exclusive: exclusive"
#else
#define DEFAULT_KERNELS NULL
#define EXCLUSIVE_NOTE ""
#endif

/* ---- what this program is ------------------------------------------------------------------- */

typedef enum { DATA_UNIFORM, DATA_SKEWED } Data;
static const char *data_names[] = {"uniform", "skewed"};
static const char *task_dtypes[] = {"i32", "i32", "i32", "i32", "u8", "u16", "i32"};

static int find_entry(const char *name, size_t len)
{
    for (int i = 0; i < ENTRY_COUNT; i++)
        if (strlen(entries[i].name) == len && !strncmp(entries[i].name, name, len)) return i;
    return -1;
}

static int kernel_exists(const char *name) { return find_entry(name, strlen(name)) >= 0; }

/* Is kernel i run without --kernel? Every one, or in the exercise build its own (and CUB's). */
static int runs_by_default(int i)
{
    static const char *defaults = DEFAULT_KERNELS;
    if (!defaults || entries[i].cub) return 1;
    for (const char *p = defaults; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (find_entry(p, strcspn(p, ",")) == i) return 1;
    return 0;
}

static void list_kernels(void)
{
    printf("stage %s kernels:\n", STAGE_NAME);
    for (int k = 0; k < ENTRY_COUNT; k++)
        printf("  %-30s %s%s\n", entries[k].name, entries[k].what, runs_by_default(k) ? "" : " [not run by default here]");
    printf("default sizes: %s\n", DEFAULT_SIZES);
    printf("check sizes: %s\n", CHECK_SIZES);
}

/* The types its kernels read, each led by a space, as --describe says and --input takes them. */
#define INPUT_TYPES " i32 u8 u16"

static void describe_kernels(JsonWriter *w)
{
    json_open(w, "kernels", '[');
    for (int k = 0; k < ENTRY_COUNT; k++)
        describe_kernel(w, entries[k].name, task_dtypes[entries[k].task],
                        entries[k].cub ? "library" : runs_by_default(k) ? "default" : "other", NULL, NAN);
    json_close(w, ']');
    json_words(w, "input_types", INPUT_TYPES, " ");
}

/* The scans take int32 files; the histograms' samples are uint8 and uint16, which a file here cannot be. */
static const ProgramOption own_options[] = {
    INPUT_OPTIONS("scan your own data instead of a fill: a NumPy .npy of int32 (C order; a 2-D array, its elements\n"
                  "in order) or raw bytes with --dtype i32; N is the file's, and the scans run on it (the\n"
                  "histograms take uint8 and uint16 samples, which no file type here holds)"),
};

static Program describe_program(const char *argv0)
{
    Program p = {.stage = STAGE_NAME};
    program_defaults(&p, argv0, list_kernels, describe_kernels, kernel_exists);
    p.fills = p.check_fills = p.bench_fills = "random skewed";
    p.default_sizes = p.bench_sizes = DEFAULT_SIZES;
    p.check_sizes = CHECK_SIZES;
    p.edge_sizes = "2^31+17";
    p.charts[0] = Chart{"scan_histogram", OWNS};
    p.usage_note = "fills: random (histogram samples uniform over the bins) or skewed (90% of them in one bin); the\n"
                   "scan's data is int32 in [-128, 127] either way";
    p.own = own_options;
    p.own_count = sizeof own_options / sizeof own_options[0];
    return p;
}

/* ---- data and references ---------------------------------------------------------------------- */

/* From the project's counter-based fill: fill_value(random) is (m - 2^23) / 2^23 for 24 random bits m,
 * so floor(v * 2^k) + 2^k is the top k + 1 bits of m, uniform on [0, 2^(k+1)). */
static unsigned top_bits(uint64_t seed, uint64_t i, int bits)
{
    float v = fill_value(FILL_RANDOM, seed, i);
    return (unsigned)((int)floorf(v * (float)(1 << (bits - 1))) + (1 << (bits - 1)));
}

/* int32 in [-128, 127]: any prefix of N elements stays far inside int32 (|prefix| <= 128 N, and a random
 * walk of N such steps is about 74 sqrt(N)); the check compares modulo 2^32 anyway, as the GPU wraps. */
static void fill_scan(int *x, uint64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) x[i] = (int)top_bits(seed, (uint64_t)i, 8) - 128;
}

/* Histogram samples: uniform over the bins, or skewed: HOT_FRACTION of them in one bin (decided by a
 * second draw, from seed + 1000), the rest uniform. bits 8: uint8 samples, 12: uint16 keys < 4096. */
static void fill_samples(void *x, uint64_t n, int bits, Data data, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        unsigned key = top_bits(seed, (uint64_t)i, bits);
        if (data == DATA_SKEWED && fill_value(FILL_RANDOM, seed + 1000, (uint64_t)i) < (float)(2 * HOT_FRACTION - 1))
            key = bits == 8 ? HOT_BIN : HOT_KEY;
        if (bits == 8) ((uint8_t *)x)[i] = (uint8_t)key;
        else ((uint16_t *)x)[i] = (uint16_t)key;
    }
}

/* The GPU's scan against the exact one (int64, restarted every `segment` elements; 0: never; exclusive:
 * element i is the sum of those before it), compared modulo 2^32. Returns the number of wrong elements;
 * *first: the first wrong index. */
static uint64_t check_scan(const int *in, const int *out, uint64_t n, uint64_t segment, int exclusive, uint64_t *first)
{
    uint64_t wrong = 0;
    int64_t s = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (segment && i % segment == 0) s = 0;
        int64_t before = s;
        s += in[i];
        if ((uint32_t)out[i] != (uint32_t)(uint64_t)(exclusive ? before : s) && !wrong++) *first = i;
    }
    return wrong;
}

static void cpu_histogram(const void *x, uint64_t n, int bits, uint64_t *counts)
{
    memset(counts, 0, sizeof(uint64_t) << bits);
    if (bits == 8)
        for (uint64_t i = 0; i < n; i++) counts[((const uint8_t *)x)[i]]++;
    else
        for (uint64_t i = 0; i < n; i++) counts[((const uint16_t *)x)[i]]++;
}

/* ---- timing and output --------------------------------------------------------------------------- */

/* What the timing loop's callbacks share: the kernel, the size, and the output it writes. */
typedef struct {
    const Entry *e;
    uint64_t n;
    const void *output;    /* what each run writes: the scan, or the bins */
    uint64_t output_bytes;
    uint64_t first_hash;   /* the bits of the first run's output */
    int runs, same_bits;
} EntryRuns;

static void run_entry(EntryRuns *er)
{
    er->e->launch(er->n);
}

/* Untimed, after each run: did it write the bits of the first run? */
static void compare_output(EntryRuns *er)
{
    uint64_t h = device_bits_hash(er->output, er->output_bytes);
    if (er->runs++ == 0) er->first_hash = h;
    else if (h != er->first_hash) er->same_bits = 0;
}

typedef struct {
    const Entry *e;
    double us, gbps, spread; /* spread: the runs' interquartile range over their median */
    uint64_t wrong, first, of;   /* wrong elements (or bins) of `of`, and the first of them */
    int same_bits;
    double bytes_read;
} Result;

/* The median time of e at n (every run flushed unless --l2 warm), and whether every run wrote the same bits. */
static void time_entry(Result *r, const Entry *e, uint64_t n, const void *output, uint64_t output_bytes,
                       const Options *o, const L2Flush *flush)
{
    EntryRuns er = {e, n, output, output_bytes, 0, 0, 1};
    TimedLaunch<EntryRuns> t = {NULL, run_entry, NULL, compare_output, &er, o->warm ? NULL : flush};
    r->e = e;
    r->us = time_runs(&t, o->warmup, o->reps, &r->spread, NULL);
    r->same_bits = er.same_bits;
}

static double cub_us_of(const Result *res, int count)
{
    for (int i = 0; i < count; i++)
        if (res[i].e->cub) return res[i].us;
    return 0.0;
}

static void print_group(const Result *res, int count, const GpuInfo *d, const char *unit)
{
    double cub_us = cub_us_of(res, count);
    printf("%-30s %-16s %10s %8s %6s %7s %5s\n", "kernel", "check", "time(us)", "GB/s", "%peak", "x CUB", "bits");
    for (int i = 0; i < count; i++) {
        char check[48] = "ok", xcub[16] = "-";
        if (res[i].wrong) snprintf(check, sizeof check, "FAIL@%s %llu", unit, (unsigned long long)res[i].first);
        if (cub_us > 0) snprintf(xcub, sizeof xcub, "%.2fx", cub_us / res[i].us);
        printf("%-30s %-16s %10.1f %8.1f %6.1f %7s %5s\n", res[i].e->name, check, res[i].us, res[i].gbps,
               100.0 * res[i].gbps / d->peak_gbps, xcub, res[i].same_bits ? "same" : "vary");
    }
}

static void csv_rows(FILE *csv, const GpuInfo *d, const Program *p, const Result *res, int count, const char *dtype,
                     uint64_t n, const Options *o)
{
    double cub_us = cub_us_of(res, count);
    for (int i = 0; i < count; i++) {
        Measurement row = {res[i].e->name, dtype, n, res[i].us, res[i].gbps, 100.0 * res[i].gbps / d->peak_gbps,
                      res[i].wrong == 0 ? "1" : "0", (double)res[i].wrong / (double)res[i].of, 0, o->warm,
                      res[i].same_bits, res[i].bytes_read, 0.0, cub_us > 0 ? cub_us / res[i].us : 0.0, o->fill, 0.0, res[i].spread};
        csv_write(csv, d->name, p, &row);
    }
}

/* Host memory for the arrays of --n: a size past what the host holds is a usage error (a smaller --n). */
static void *host_alloc_for_n(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of host memory (%zu bytes): choose a smaller --n\n", bytes);
        exit(EXIT_USAGE);
    }
    return p;
}

static int blocks_per_sm(const void *kernel)
{
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, HIST_THREADS, 0));
    return per_sm > 0 ? per_sm : 1;
}

/* ---- main --------------------------------------------------------------------------------- */

static int selected(const Options *o, int k) { return kernel_selected(o, entries[k].name, runs_by_default(k)); }

/* What the run needs on the GPU, checked against what is free before anything is allocated; then the
 * buffers. */
static void allocate(uint64_t max_n, const char *what, const GpuInfo *d)
{
    size_t cub_bytes = 0, bytes = 0;
    CUDA_CHECK(cub::DeviceScan::InclusiveSum(NULL, bytes, (const int *)NULL, (int *)NULL, (int64_t)max_n));
    cub_bytes = bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, (const uint8_t *)NULL, (unsigned *)NULL, 257, 0, 256,
                                                   (int64_t)max_n));
    if (bytes > cub_bytes) cub_bytes = bytes;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, (const uint16_t *)NULL, (unsigned *)NULL, 4097, 0,
                                                   4096, (int64_t)max_n));
    if (bytes > cub_bytes) cub_bytes = bytes;
    buffers.cub_temp_bytes = cub_bytes;
    require_gpu_memory(max_n * (2 * sizeof(int) + sizeof(uint16_t)) + scan_scratch_ints(max_n) * sizeof(int) + cub_bytes +
                       2 * d->l2_bytes + (64u << 20), what, d);
    buffers.in = (int *)device_alloc(max_n * sizeof(int), "the scan input");
    buffers.out = (int *)device_alloc(max_n * sizeof(int), "the scan output");
    buffers.scratch = (int *)device_alloc(scan_scratch_ints(max_n) * sizeof(int), "the block totals");
    buffers.samples = (uint8_t *)device_alloc(max_n * sizeof(uint16_t), "the histogram samples");
    buffers.hist = (unsigned *)device_alloc(4096 * sizeof(unsigned), "the bins");
    buffers.kept = (unsigned long long *)device_alloc(sizeof(unsigned long long), "top-p's cut");
    buffers.cub_temp = device_alloc(cub_bytes, "CUB's temporary storage");
    buffers.sm_count = d->sm_count;
    buffers.hist_per_sm[0] = blocks_per_sm((const void *)histogram_global_atomics);
    buffers.hist_per_sm[1] = blocks_per_sm((const void *)histogram_shared_privatized);
    buffers.hist_per_sm[2] = blocks_per_sm((const void *)histogram4096_shared);
}

/* The host's copies of the data and the exact answers. */
static struct {
    int *in, *out;
    uint16_t *samples;
    uint64_t counts[4096];
    unsigned hist[4096];
} host;

/* The scan kernels at n, CUB last; each kernel's output poisoned first, so a kernel that writes nothing
 * cannot pass on what the previous one left. file: the --input values (NULL: the fill). Returns the failures. */
static int run_scans(uint64_t n, const int *file, const Options *o, const GpuInfo *d, const L2Flush *flush, FILE *csv,
                     const Program *p)
{
    Result res[ENTRY_COUNT];
    int count = 0;
    if (file) memcpy(host.in, file, n * sizeof(int));
    else fill_scan(host.in, n, o->seed);
    CUDA_CHECK(cudaMemcpy(buffers.in, host.in, n * sizeof(int), cudaMemcpyHostToDevice));
    for (int k = 0; k < ENTRY_COUNT; k++) {
        const Entry *e = &entries[k];
        if (e->task > T_SCAN_EXCLUSIVE || !(selected(o, k) || (e->cub && count))) continue;
        CUDA_CHECK(cudaMemset(buffers.out, 0xab, n * sizeof(int)));
        Result *r = &res[count++];
        time_entry(r, e, n, buffers.out, n * sizeof(int), o, flush);
        r->bytes_read = 4.0 * n;
        r->gbps = 8.0 * n / (r->us * 1e-6) / 1e9; /* int32 read + int32 written */
        CUDA_CHECK(cudaMemcpy(host.out, buffers.out, n * sizeof(int), cudaMemcpyDeviceToHost));
        uint64_t segment = e->task == T_SCAN_WARP ? 32 : e->task == T_SCAN_BLOCK ? SCAN_TILE : 0;
        r->of = n;
        r->wrong = check_scan(host.in, host.out, n, segment, e->task == T_SCAN_EXCLUSIVE, &r->first);
    }
    if (!count) return 0;
    printf("-- scan: int32 %s, %.1f MiB read + %.1f MiB written; checked element by element against an exact "
           "int64 CPU scan, modulo 2^32 as the GPU wraps (scan_warp: per 32, scan_block: per %d" EXCLUSIVE_NOTE ")\n",
           file ? "from the file" : "in [-128, 127]", n * 4.0 / 1048576, n * 4.0 / 1048576, SCAN_TILE);
    print_group(res, count, d, "index");
    csv_rows(csv, d, p, res, count, "i32", n, o);
    int failures = 0;
    for (int i = 0; i < count; i++) failures += res[i].wrong != 0;
    return failures;
}

/* Top-p's probabilities, sorted in descending order as a sampler sorts them: a Zipf-like distribution,
 * element i about 2^24 / (i + 1), as the probabilities of a vocabulary fall off, each perturbed by at most
 * 1/16 of the gap to its successor (from the fill) so that every seed gives other values, still sorted and
 * positive. Their total, at most 2^24 (ln N + 1) + N, stays below 2^31 up to N = TOP_P_MAX_N. */
#define TOP_P_MAX_N (1ull << 30)
static void fill_probabilities(int *x, uint64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        int64_t here = (1ll << 24) / (i + 1) + 1, next = (1ll << 24) / (i + 2) + 1;
        x[i] = (int)(here - (int64_t)((here - next) * (top_bits(seed, (uint64_t)i, 4) / 256.0)));
    }
}

/* The exact cut: the fewest leading probabilities whose sum reaches ceil(p total). */
static uint64_t top_p_reference(const int *x, uint64_t n)
{
    int64_t total = 0, sum = 0;
    for (uint64_t i = 0; i < n; i++) total += x[i];
    int64_t threshold = (total * TOP_P_NUM + TOP_P_DEN - 1) / TOP_P_DEN;
    for (uint64_t i = 0; i < n; i++)
        if ((sum += x[i]) >= threshold) return i + 1;
    return n;
}

/* Top-p at n: its probabilities, the cut timed, and checked against the exact one. */
static int run_top_p_cut(uint64_t n, const Options *o, const GpuInfo *d, const L2Flush *flush, FILE *csv, const Program *p)
{
    Result res[1];
    int k = 0;
    while (k < ENTRY_COUNT && entries[k].task != T_TOP_P) k++;
    if (k == ENTRY_COUNT || !selected(o, k)) return 0;
    if (n > TOP_P_MAX_N) {
        printf("-- top-p: skipped at N = %llu (the int32 scan of its probabilities would overflow)\n",
               (unsigned long long)n);
        return 0;
    }
    fill_probabilities(host.in, n, o->seed);
    CUDA_CHECK(cudaMemcpy(buffers.in, host.in, n * sizeof(int), cudaMemcpyHostToDevice));
    uint64_t want = top_p_reference(host.in, n);
    unsigned long long got = 0;
    CUDA_CHECK(cudaMemset(buffers.kept, 0, sizeof(unsigned long long))); /* a kernel that writes nothing keeps 0 */
    Result *r = &res[0];
    time_entry(r, &entries[k], n, buffers.kept, sizeof(unsigned long long), o, flush);
    r->bytes_read = 4.0 * n;
    r->gbps = 8.0 * n / (r->us * 1e-6) / 1e9; /* the scan's int32 read + written, as the scans count */
    CUDA_CHECK(cudaMemcpy(&got, buffers.kept, sizeof got, cudaMemcpyDeviceToHost));
    r->of = 1;
    r->first = 0;
    r->wrong = got != want;
    printf("-- top-p (p = %d/%d): %s sorted int32 probabilities, the cut keeps %llu (exact: %llu)\n", TOP_P_NUM,
           TOP_P_DEN, "Zipf-like", (unsigned long long)got, (unsigned long long)want);
    print_group(res, 1, d, "cut");
    csv_rows(csv, d, p, res, 1, "i32", n, o);
    return r->wrong != 0;
}

/* The histograms at n on the data of --fill: 256 bins on uint8 samples, then 4096 bins on uint16 keys. */
static int run_histograms(uint64_t n, Data data, const Options *o, const GpuInfo *d, const L2Flush *flush, FILE *csv,
                          const Program *p)
{
    int failures = 0;
    for (int bits = 8; bits <= 12; bits += 4) {
        Task task = bits == 8 ? T_HIST256 : T_HIST4096;
        uint64_t bins = 1ull << bits;
        Result res[ENTRY_COUNT];
        int count = 0;
        for (int k = 0; k < ENTRY_COUNT; k++) {
            const Entry *e = &entries[k];
            if (e->task != task || !(selected(o, k) || (e->cub && count))) continue;
            if (!count) {
                if (n > 0xffffffffull) {
                    printf("-- histogram, %llu bins: skipped at N = %llu (the counters are 32-bit)\n",
                           (unsigned long long)bins, (unsigned long long)n);
                    break;
                }
                fill_samples(host.samples, n, bits, data, o->seed);
                CUDA_CHECK(cudaMemcpy(buffers.samples, host.samples, n * (bits == 8 ? 1 : 2), cudaMemcpyHostToDevice));
                cpu_histogram(host.samples, n, bits, host.counts);
            }
            Result *r = &res[count++];
            time_entry(r, e, n, buffers.hist, bins * sizeof(unsigned), o, flush);
            r->bytes_read = (double)n * (bits == 8 ? 1 : 2);
            r->gbps = r->bytes_read / (r->us * 1e-6) / 1e9; /* samples read */
            CUDA_CHECK(cudaMemcpy(host.hist, buffers.hist, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
            r->of = bins;
            r->wrong = 0;
            for (uint64_t b = 0; b < bins; b++)
                if (host.hist[b] != host.counts[b] && !r->wrong++) r->first = b;
        }
        if (!count) continue;
        printf("-- histogram, %llu bins: %s %s samples, %.1f MiB read; checked bin by bin against exact "
               "CPU counts\n", (unsigned long long)bins, data_names[data], bits == 8 ? "uint8" : "uint16 (< 4096)",
               n * (bits == 8 ? 1.0 : 2.0) / 1048576);
        print_group(res, count, d, "bin");
        char dtype[32];
        snprintf(dtype, sizeof dtype, "%s_%s", bits == 8 ? "u8" : "u16", data_names[data]);
        csv_rows(csv, d, p, res, count, dtype, n, o);
        for (int i = 0; i < count; i++) failures += res[i].wrong != 0;
    }
    return failures;
}

int main(int argc, char **argv)
{
    Program p = describe_program(argv[0]);
    Options o = parse_command_line(argc, argv, &p, NULL);
    ArrayFile file;
    int from_file = read_input(argv[0], &o, &p, INPUT_TYPES, &file);
    uint64_t *sizes = o.n;
    int size_count = from_file ? 1 : o.size_count;
    if (from_file) {
        sizes[0] = file.count;
        snprintf(o.fill, sizeof o.fill, "input"); /* the CSV's fill column */
    }
    Data data = strcmp(o.fill, "skewed") ? DATA_UNIFORM : DATA_SKEWED;
    FILE *csv = open_csv(o.csv_path, argv[0]);

    GpuInfo d;
    open_gpu(&d);
    printf("stage %s on %s (sm_%d%d, %d SMs, L2 %.1f MiB)\n", STAGE_NAME, d.name, d.cc_major, d.cc_minor, d.sm_count,
           d.l2_bytes / 1048576.0);
    printf("DRAM theoretical peak %.1f GB/s (%d MHz x %d-bit bus x 2)\n", d.peak_gbps, d.mem_clock_mhz, d.bus_bits);
    uint64_t max_n = 0;
    for (int s = 0; s < size_count; s++)
        if (sizes[s] > max_n) max_n = sizes[s];
    char what[600];
    snprintf(what, sizeof what, from_file ? "--input %s" : "N = %s", from_file ? o.input_path : o.sizes);
    allocate(max_n, what, &d);
    L2Flush flush;
    l2_flush_init(&flush, &d);
    host.in = (int *)host_alloc_for_n(max_n * sizeof(int));
    host.out = (int *)host_alloc_for_n(max_n * sizeof(int));
    host.samples = (uint16_t *)host_alloc_for_n(max_n * sizeof(uint16_t));

    int failures = 0;
    for (int s = 0; s < size_count; s++) {
        uint64_t n = sizes[s];
        char data_text[600];
        snprintf(data_text, sizeof data_text, from_file ? "input %s (i32)" : "fill %s", from_file ? o.input_path : o.fill);
        printf("\nN = %llu, %s; median of %d runs after %d warm-ups, %s; seed %llu\n", (unsigned long long)n, data_text,
               o.reps, o.warmup, o.warm ? "L2 left warm" : "L2 flushed before each", (unsigned long long)o.seed);
        failures += run_scans(n, from_file ? (const int *)file.bytes : NULL, &o, &d, &flush, csv, &p);
        if (!from_file) failures += run_histograms(n, data, &o, &d, &flush, csv, &p);
        if (!from_file) failures += run_top_p_cut(n, &o, &d, &flush, csv, &p);
    }
    if (csv) fclose(csv);
    printf("\n%s\n", failures ? "some kernels FAILED verification" : "all kernels passed verification");
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

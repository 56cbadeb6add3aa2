/* The speed of light (speed_of_light.h): the launch floor, one DRAM round trip, and the fastest of a few
 * read-only streams, each timed as the kernels are (flushed, the median). */
#include "speed_of_light.h"
#include "timing.h"

__global__ void common_empty(void) {}

/* One warp, one 16-byte load a lane from a flushed buffer, and nothing else: one DRAM round trip (with
 * its address translation) on top of the launch floor, which no kernel that reads its input escapes. */
__global__ void common_first_load(const uint4 *buf, int *sink)
{
    uint4 v = buf[threadIdx.x];
    if ((v.x ^ v.w) == 0x5eed5eedu) *sink = (int)v.x;
}

enum { LOAD_PLAIN, LOAD_STREAMING, LOAD_NO_L1 };

template <int POLICY>
__device__ __forceinline__ uint4 load16(const uint4 *p)
{
    if (POLICY == LOAD_STREAMING) return __ldcs(p);
    if (POLICY == LOAD_NO_L1) {
        uint4 v;
        asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
        return v;
    }
    return *p;
}

/* Reads buf[0..words) and nothing else: each step of a block is one contiguous tile of BLOCK x UNROLL
 * 16-byte loads, all issued before any is used; the next tile of the block is a grid of tiles on. */
template <int BLOCK, int UNROLL, int POLICY>
__global__ void __launch_bounds__(BLOCK) common_read_stream(const uint4 *buf, uint64_t words, int *sink)
{
    unsigned acc = 0;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK * UNROLL + threadIdx.x;
    for (; i + (UNROLL - 1) * BLOCK < words; i += (uint64_t)gridDim.x * BLOCK * UNROLL) {
        uint4 r[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) r[k] = load16<POLICY>(buf + i + k * BLOCK);
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc ^= r[k].x ^ r[k].w;
    }
    for (; i < words; i += BLOCK) acc ^= buf[i].x ^ buf[i].w;
    if (acc == 0x5eed5eedu) *sink = (int)acc;
}

/* The same with 4-byte loads, PER_THREAD of them in flight (stage 06's reduce_per_thread, reading only). */
template <int BLOCK, int PER_THREAD>
__global__ void __launch_bounds__(BLOCK) common_read_words(const uint4 *buf, uint64_t words, int *sink)
{
    const unsigned *x = reinterpret_cast<const unsigned *>(buf);
    uint64_t n = words * 4;
    unsigned acc = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * BLOCK * PER_THREAD + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * BLOCK * PER_THREAD) {
        unsigned r[PER_THREAD];
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) r[k] = i + (uint64_t)k * BLOCK < n ? x[i + (uint64_t)k * BLOCK] : 0u;
#pragma unroll
        for (int k = 0; k < PER_THREAD; k++) acc ^= r[k];
    }
    if (acc == 0x5eed5eedu) *sink = (int)acc;
}

typedef struct {
    const char *name;
    void (*fn)(const uint4 *, uint64_t, int *);
    int block;
    int tile_words; /* 16-byte words one block reads per step: with one_tile, the grid is one block per tile */
    int one_tile;   /* 0: as many blocks as fit on the GPU at once, each looping over tiles */
} StreamVariant;
#define V16(B, U, P, ONE, NAME) {NAME, common_read_stream<B, U, P>, B, B * U, ONE}
#define V4(B, K, ONE, NAME) {NAME, common_read_words<B, K>, B, B * K / 4, ONE}
static const StreamVariant stream_variants[] = {
    V16(512, 4, LOAD_STREAMING, 0, "512 threads x 4 16-byte __ldcs loads, full-occupancy grid"),
    V16(512, 8, LOAD_STREAMING, 0, "512 threads x 8 16-byte __ldcs loads, full-occupancy grid"),
    V16(1024, 4, LOAD_STREAMING, 0, "1024 threads x 4 16-byte __ldcs loads, full-occupancy grid"),
    V16(256, 8, LOAD_STREAMING, 0, "256 threads x 8 16-byte __ldcs loads, full-occupancy grid"),
    V16(512, 4, LOAD_PLAIN, 0, "512 threads x 4 16-byte loads, full-occupancy grid"),
    V16(1024, 4, LOAD_PLAIN, 0, "1024 threads x 4 16-byte loads, full-occupancy grid"),
    V16(512, 4, LOAD_NO_L1, 0, "512 threads x 4 16-byte nc.L1::no_allocate loads, full-occupancy grid"),
    V16(1024, 4, LOAD_NO_L1, 0, "1024 threads x 4 16-byte nc.L1::no_allocate loads, full-occupancy grid"),
    V16(256, 4, LOAD_PLAIN, 1, "256 threads x 4 16-byte loads, a block per tile"),
    V16(512, 4, LOAD_PLAIN, 1, "512 threads x 4 16-byte loads, a block per tile"),
    V16(256, 4, LOAD_STREAMING, 1, "256 threads x 4 16-byte __ldcs loads, a block per tile"),
    V16(256, 8, LOAD_PLAIN, 1, "256 threads x 8 16-byte loads, a block per tile"),
    V4(256, 16, 1, "256 threads x 16 4-byte loads, a block per tile"),
    V4(256, 16, 0, "256 threads x 16 4-byte loads, full-occupancy grid"),
};
#define VARIANTS (int)(sizeof(stream_variants) / sizeof(stream_variants[0]))

typedef struct {
    const StreamVariant *v; /* NULL for the launch floor and the round trip */
    const uint4 *buf;
    uint64_t words;
    unsigned grid;
    int *sink;
} StreamRun;

static void run_stream(StreamRun *s)
{
    s->v->fn<<<s->grid, s->v->block>>>(s->buf, s->words, s->sink);
    LAUNCH_CHECK("common_read_stream");
}

/* Median time (µs) of `reps` runs of the variant over bytes, each after an L2 flush. */
static double time_stream(const StreamVariant *v, const uint4 *buf, uint64_t bytes, int *sink, int sm_count,
                          const L2Flush *flush, int reps)
{
    uint64_t words = bytes / 16;
    uint64_t grid = (words + v->tile_words - 1) / v->tile_words;
    if (!v->one_tile) {
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v->fn, v->block, 0));
        uint64_t full = (uint64_t)sm_count * (per_sm > 0 ? per_sm : 1);
        if (grid > full) grid = full;
    }
    StreamRun s = {v, buf, words, (unsigned)grid, sink};
    TimedLaunch<StreamRun> t = {NULL, run_stream, NULL, NULL, &s, flush};
    return time_runs(&t, 2, reps, NULL, NULL);
}

/* The launch floor: an empty kernel where the first load would be. */
static void run_empty(StreamRun *)
{
    common_empty<<<1, 32>>>();
    LAUNCH_CHECK("common_empty");
}

static void run_first_load(StreamRun *s)
{
    common_first_load<<<1, 32>>>(s->buf, s->sink);
    LAUNCH_CHECK("common_first_load");
}

void measure_speed_of_light(SpeedOfLight *s, const GpuInfo *d, const L2Flush *flush, const void *buf, uint64_t bytes)
{
    int *sink = (int *)device_alloc(sizeof(int), "the read-only stream");
    StreamRun first = {NULL, (const uint4 *)buf, 0, 0, sink};
    TimedLaunch<StreamRun> floor = {NULL, run_empty, NULL, NULL, &first, flush};
    s->floor_us = time_runs(&floor, 5, 41, NULL, NULL);
    TimedLaunch<StreamRun> round_trip = {NULL, run_first_load, NULL, NULL, &first, flush};
    s->round_trip_us = time_runs(&round_trip, 5, 41, NULL, NULL);

    /* Each variant's bandwidth is the slope of its time between a quarter of the buffer and all of it,
     * so that the fixed cost (launch, ramp-up, tail), which the launch floor stands for, is not counted
     * twice; the stream is the variant with the steepest slope. */
    uint64_t quarter = bytes / 4 / 4096 * 4096;
    s->read_gbps = s->whole_gbps = 0.0;
    s->variant = "none: no variant's time grew with the bytes";
    for (int v = 0; v < VARIANTS; v++) {
        const StreamVariant *sv = &stream_variants[v];
        double t_all = time_stream(sv, (const uint4 *)buf, bytes, sink, d->sm_count, flush, 9);
        double t_quarter = time_stream(sv, (const uint4 *)buf, quarter, sink, d->sm_count, flush, 9);
        double slope = t_all > t_quarter ? (bytes - quarter) / ((t_all - t_quarter) * 1e3) : 0.0;
        if (slope > s->read_gbps) {
            s->read_gbps = slope;
            s->whole_gbps = bytes / (t_all * 1e3);
            s->variant = sv->name;
        }
    }
    s->bytes = bytes;
    CUDA_CHECK(cudaFree(sink));
}

double speed_of_light_us(const SpeedOfLight *s, double bytes)
{
    return s->floor_us + bytes / (s->read_gbps * 1e3);
}

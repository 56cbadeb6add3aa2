/* The command line, --describe, the CSV writer, the timing loop and the memory check of every
 * program (program.h), and the speed of light every stage program measures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

/* ---- the command line ------------------------------------------------------------------------- */

typedef enum { OPT_N, OPT_KERNEL, OPT_LIST, OPT_DESCRIBE, OPT_FILL, OPT_SEED, OPT_REPS, OPT_WARMUP, OPT_CSV,
               OPT_CHECK, OPT_L2, OPT_HELP } CommonFlag;

typedef struct {
    CommonFlag id;
    const char *flag, *value, *help;
} CommonOption;

/* The common rows of --help; %F is replaced by the program's fills, %D by its default sizes. */
static const CommonOption common_options[] = {
    {OPT_N, "--n", "N[,N...]", "sizes (default %D); suffixes K M G (x1024), 2^k[+c]"},
    {OPT_KERNEL, "--kernel", "NAME[,NAME...]|all", "run the kernels of --list named, or every default one (default all)"},
    {OPT_LIST, "--list", NULL, "list the kernels and exit"},
    {OPT_DESCRIBE, "--describe", NULL, "print what this program is (kernels, sizes, fills, charts) as key: value lines, for scripts"},
    {OPT_FILL, "--fill", "F", "input data: %F (default the first)"},
    {OPT_SEED, "--seed", "S", "seed of the random data (default 1)"},
    {OPT_REPS, "--reps", "R", "timed runs, the median reported (default 20, at most 100000)"},
    {OPT_WARMUP, "--warmup", "W", "untimed runs before them (default 3, at most 1000)"},
    {OPT_CSV, "--csv", "FILE", "append one row per measurement to FILE"},
    {OPT_CHECK, "--check", NULL, "exit 1 if any check fails"},
    {OPT_L2, "--l2", "flushed|warm", "flushed (default): L2 flushed before every timed run, the input read from DRAM;\n"
                                     "warm: no flush, so an input that fits in L2 is read from it (rows labelled warm)"},
    {OPT_HELP, "--help", NULL, "this text"},
};
#define COMMON_COUNT (int)(sizeof common_options / sizeof common_options[0])

/* "  --flag VALUE" padded to a column, then the help, later lines indented to the same column. */
static void help_row(const char *flag, const char *value, const char *help, const Program *p)
{
    char head[64];
    snprintf(head, sizeof head, "  %s%s%s", flag, value ? " " : "", value ? value : "");
    printf("%-28s", head);
    if (strlen(head) >= 28) printf("\n%-28s", "");
    for (const char *c = help; *c; c++) {
        if (*c == '\n') printf("\n%-28s", "");
        else if (c[0] == '%' && c[1] == 'F') printf("%s", p->fills), c++;
        else if (c[0] == '%' && c[1] == 'D') printf("%s", p->default_sizes), c++;
        else putchar(*c);
    }
    putchar('\n');
}

static void print_help(const char *prog, const Program *p)
{
    printf("usage: %s [options]   (stage %s)\n", prog, p->stage);
    if (p->usage_note) printf("%s\n", p->usage_note);
    for (int i = 0; i < COMMON_COUNT; i++)
        help_row(common_options[i].flag, common_options[i].value, common_options[i].help, p);
    if (p->own_count) printf("options of this program:\n");
    for (int i = 0; i < p->own_count; i++) help_row(p->own[i].flag, p->own[i].value, p->own[i].help, p);
    printf("exit codes: 0 ok, 1 a check failed (with --check), 2 usage error, 3 no usable GPU or a CUDA error\n");
}

/* "key: value", or "key:" alone for an empty value. */
static void describe_line(const char *key, const char *value)
{
    printf("%s:%s%s\n", key, *value ? " " : "", value);
}

static void describe(const Program *p)
{
    describe_line("stage", p->stage);
    describe_line("program", p->program);
    describe_line("gpus", p->several_gpus ? "several" : "one");
    p->describe_kernels();
    describe_line("fills", p->fills);
    describe_line("check fills", p->check_fills);
    describe_line("bench fills", p->bench_fills);
    describe_line("default sizes", p->default_sizes);
    describe_line("bench sizes", p->bench_sizes);
    describe_line("check sizes", p->check_sizes);
    describe_line("edge sizes", p->edge_sizes);
    describe_line("row stage", p->rows ? "yes" : "no");
    describe_line("baseline", p->baseline);
    describe_line("warm-L2 kernels", p->warm_l2);
    describe_line("flush probes", p->flush_probes);
    describe_line("accuracy kernels", p->accuracy);
    describe_line("limit kernels", p->limits);
    describe_line("tree kernels", p->trees);
    describe_line("charts", p->charts);
    describe_line("csv", p->csv);
}

/* Is word (length len) one of the space-separated words of list? */
static int in_words(const char *list, const char *word, size_t len)
{
    for (const char *w = list; *w; w += strcspn(w, " ")) {
        w += strspn(w, " ");
        if (strcspn(w, " ") == len && !strncmp(w, word, len)) return 1;
    }
    return 0;
}

void program_init(Program *p, const char *stage, const char *argv0, void (*list)(void),
                  void (*describe_kernels)(void), int (*kernel_exists)(const char *name))
{
    memset(p, 0, sizeof *p);
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    p->stage = stage;
    p->program = slash ? slash + 1 : argv0 ? argv0 : stage;
    p->fills = p->check_fills = p->bench_fills = "random";
    p->edge_sizes = p->baseline = p->warm_l2 = p->flush_probes = p->accuracy = p->limits = p->trees = "";
    p->charts = "";
    p->csv = "results.csv";
    p->list = list;
    p->describe_kernels = describe_kernels;
    p->kernel_exists = kernel_exists;
}

Options parse_command_line(int argc, char **argv, const Program *p)
{
    const char *prog = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time through a pipe too: make bench's progress follows the tables */
    Options o;
    memset(&o, 0, sizeof o);
    static char first_fill[32];
    snprintf(first_fill, sizeof first_fill, "%.*s", (int)strcspn(p->fills, " "), p->fills);
    o.sizes = p->default_sizes;
    o.fill = first_fill;
    o.seed = 1;
    o.reps = 20;
    o.warmup = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const CommonOption *c = NULL;
        const ProgramOption *own = NULL;
        for (int k = 0; k < COMMON_COUNT; k++)
            if (!strcmp(a, common_options[k].flag)) c = &common_options[k];
        for (int k = 0; k < p->own_count; k++)
            if (!strcmp(a, p->own[k].flag)) own = &p->own[k];
        if (!strcmp(a, "-h")) c = &common_options[COMMON_COUNT - 1];
        if (!c && !own) usage_error(prog, "unknown option '%s'", a);
        const char *v = NULL;
        if (c ? c->value != NULL : own->value != NULL) {
            if (i + 1 >= argc) usage_error(prog, "option %s needs a value", a);
            v = argv[++i];
        }
        if (own) {
            own->take(prog, v);
            continue;
        }
        long num;
        switch (c->id) {
        case OPT_HELP: print_help(prog, p); exit(EXIT_OK);
        case OPT_LIST: p->list(); exit(EXIT_OK);
        case OPT_DESCRIBE: describe(p); exit(EXIT_OK);
        case OPT_CHECK: o.check = 1; break;
        case OPT_N: {
            uint64_t sizes[64];
            if (parse_size_list(v, sizes, 64) < 0)
                usage_error(prog, "--n '%s': give element counts >= 1 such as 1000003, 16M, 2^24+1 or 4096x4096 "
                                  "(comma-separated, at most 64)", v);
            o.sizes = v;
            break;
        }
        case OPT_KERNEL:
            for (const char *s = v; strcmp(v, "all") && *s;) {
                char name[128];
                int len = (int)strcspn(s, ",");
                snprintf(name, sizeof name, "%.*s", len, s);
                if (!p->kernel_exists(name))
                    usage_error(prog, "unknown kernel '%s' (--list shows this program's kernels)", name);
                s += len + (s[len] == ',');
            }
            o.kernels = strcmp(v, "all") ? v : NULL;
            break;
        case OPT_FILL:
            if (!*v || !in_words(p->fills, v, strlen(v))) {
                fprintf(stderr, "error: unknown fill '%s' (this program's fills: %s)\n(try %s --help)\n", v, p->fills, prog);
                exit(EXIT_USAGE);
            }
            o.fill = v;
            break;
        case OPT_SEED:
            if (parse_int(v, 0, 0x7fffffffL, &num)) usage_error(prog, "--seed '%s': give a whole number >= 0", v);
            o.seed = (uint64_t)num;
            break;
        case OPT_REPS:
            if (parse_int(v, 1, 100000, &num)) usage_error(prog, "--reps '%s': give a whole number from 1 to 100000", v);
            o.reps = (int)num;
            break;
        case OPT_WARMUP:
            if (parse_int(v, 0, 1000, &num)) usage_error(prog, "--warmup '%s': give a whole number from 0 to 1000", v);
            o.warmup = (int)num;
            break;
        case OPT_CSV: o.csv_path = v; break;
        case OPT_L2:
            if (strcmp(v, "flushed") && strcmp(v, "warm")) usage_error(prog, "--l2 '%s': give flushed or warm", v);
            o.warm = !strcmp(v, "warm");
            break;
        }
    }
    return o;
}

int kernel_selected(const Options *o, const char *name, int is_default)
{
    if (!o->kernels) return is_default;
    size_t len = strlen(name);
    for (const char *s = o->kernels; *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ','))
        if (strcspn(s, ",") == len && !strncmp(s, name, len)) return 1;
    return 0;
}

int option_sizes(const Options *o, uint64_t *sizes, int max, const char *prog)
{
    int count = parse_size_list(o->sizes, sizes, max);
    if (count < 0) usage_error(prog, "--n '%s': give at most 64 element counts >= 1, comma-separated", o->sizes);
    return count;
}

/* ---- the CSV ---------------------------------------------------------------------------------- */

FILE *open_csv(const char *path, const char *prog)
{
    if (!path) return NULL;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "error: cannot write the CSV file '%s': %s\n(try %s --help)\n", path, strerror(errno), prog);
        exit(EXIT_USAGE);
    }
    fseek(f, 0, SEEK_END); /* the header goes in with the first row: a run that fails early adds nothing */
    return f;
}

void csv_write(FILE *csv, const char *gpu, const Program *p, const CsvRow *r)
{
    if (!csv) return;
    if (ftell(csv) == 0) fprintf(csv, "%s\n", CSV_HEADER);
    fprintf(csv, "%s,%s,%s,%s,%llu,", gpu, r->pass ? p->stage : "00_device", r->kernel, r->dtype, (unsigned long long)r->n);
    if (r->median_us > 0) fprintf(csv, "%.3f", r->median_us);
    if (r->gbps > 0) fprintf(csv, ",%.2f,", r->gbps);
    else fprintf(csv, ",,");
    if (r->gbps > 0 && r->pct_peak > 0) fprintf(csv, "%.2f", r->pct_peak);
    if (!r->pass) {
        fprintf(csv, ",,,,,,,,,,\n");
        fflush(csv);
        return;
    }
    fprintf(csv, ",%.3e,%s,", r->rel_err, r->pass);
    if (r->cols) fprintf(csv, "%llu", (unsigned long long)r->cols);
    fprintf(csv, ",%s,%s,%.0f,", r->warm ? "warm" : "flushed", r->same_bits ? "same" : "vary", r->bytes_read);
    if (r->speedup > 0) fprintf(csv, "%.3f", r->speedup);
    fprintf(csv, ",");
    if (r->x_cub > 0) fprintf(csv, "%.3f", r->x_cub);
    fprintf(csv, ",%s,", r->fill ? r->fill : "");
    if (r->rel_bound > 0) fprintf(csv, "%.3e", r->rel_bound);
    fprintf(csv, "\n");
    fflush(csv);
}

/* ---- timing ----------------------------------------------------------------------------------- */

double time_runs(const TimedRun *t, int warmup, int reps)
{
    double *us = (double *)malloc(sizeof(double) * (reps > 0 ? reps : 1));
    if (!us) {
        fprintf(stderr, "error: out of host memory for %d timings\n", reps);
        exit(EXIT_GPU);
    }
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = -warmup; i < reps; i++) {
        if (t->prepare) t->prepare(t->ctx);
        if (t->flush) l2_flush(t->flush, 0);
        else keep_gpu_busy(50.0, 0);
        CUDA_CHECK(cudaEventRecord(start));
        t->run(t->ctx);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (i >= 0) us[i] = ms * 1e3;
        if (t->after) t->after(t->ctx);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    double m = median(us, reps);
    free(us);
    return m;
}

/* Each word mixed with its index (splitmix64), the mixes combined with XOR: the order of the atomics
 * does not matter, the position of every word does. */
__global__ void common_bits_hash(const unsigned *x, uint64_t words, unsigned long long *out)
{
    unsigned long long h = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i << 32 | x[i]) + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        h ^= z ^ (z >> 31);
    }
    atomicXor(out, h);
}

uint64_t device_bits_hash(const void *p, uint64_t bytes)
{
    unsigned long long *out = (unsigned long long *)device_alloc(sizeof *out, "the output hash");
    CUDA_CHECK(cudaMemset(out, 0, sizeof *out));
    uint64_t words = bytes / 4;
    unsigned blocks = (unsigned)(words / 256 < 1024 ? words / 256 + 1 : 1024);
    common_bits_hash<<<blocks, 256>>>((const unsigned *)p, words, out);
    LAUNCH_CHECK("common_bits_hash");
    uint64_t h;
    CUDA_CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(out));
    return h;
}

/* ---- the speed of light: the launch floor and the read-only stream ------------------------------ */

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

typedef void (*StreamFn)(const uint4 *, uint64_t, int *);
typedef struct {
    const char *name;
    StreamFn fn;
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
    const StreamVariant *v;
    const uint4 *buf;
    uint64_t words;
    unsigned grid;
    int *sink;
} StreamRun;

static void run_stream(void *ctx)
{
    const StreamRun *s = (const StreamRun *)ctx;
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
    TimedRun t = {NULL, run_stream, NULL, &s, flush};
    return time_runs(&t, 2, reps);
}

static void run_empty(void *ctx)
{
    (void)ctx;
    common_empty<<<1, 32>>>();
    LAUNCH_CHECK("common_empty");
}

typedef struct {
    const uint4 *buf;
    int *sink;
} FirstLoad;

static void run_first_load(void *ctx)
{
    const FirstLoad *f = (const FirstLoad *)ctx;
    common_first_load<<<1, 32>>>(f->buf, f->sink);
    LAUNCH_CHECK("common_first_load");
}

void measure_speed_of_light(SpeedOfLight *s, const GpuInfo *d, const L2Flush *flush, const void *buf, uint64_t bytes)
{
    int *sink = (int *)device_alloc(sizeof(int), "the read-only stream");
    TimedRun floor = {NULL, run_empty, NULL, NULL, flush}; /* an empty kernel between the events, after a flush */
    s->floor_us = time_runs(&floor, 5, 41);
    FirstLoad first = {(const uint4 *)buf, sink};
    TimedRun round_trip = {NULL, run_first_load, NULL, &first, flush};
    s->round_trip_us = time_runs(&round_trip, 5, 41);

    /* Each variant's bandwidth is the slope of its time between a quarter of the buffer and all of it,
     * so that the fixed cost (launch, ramp-up, tail), which the launch floor stands for, is not counted
     * twice; the stream is the variant with the steepest slope. */
    uint64_t quarter = bytes / 4 / 4096 * 4096;
    s->read_gbps = 0.0;
    s->whole_gbps = 0.0;
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

/* ---- memory ----------------------------------------------------------------------------------- */

void require_gpu_memory(size_t need, const char *what, const GpuInfo *d)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need <= free_b) return;
    fprintf(stderr, "error: %s needs about %zu bytes of GPU memory; %s has %zu bytes free (of %zu): "
                    "choose smaller sizes\n", what, need, d->name, free_b, total_b);
    exit(EXIT_USAGE);
}

/* The program around every stage (its main): its options, --list and --describe, the sizes, the device
 * and its ceilings, the GPU memory, and the run of every kernel of `reduce_stage` (stage.h) at every size,
 * each measured, checked and reported by measure.cu. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cub.h"
#include "measure.h"
#ifdef RECORD_TREE
#include "record.h"
#endif

#define COPY_TEST_BYTES (512ull << 20) /* the copy moves it, the read-only streams read twice that */
#define DEFAULT_SIZES "2^26"
#define DEFAULT_BENCH_SIZES "2^16,2^18,2^20,2^22,2^24,2^26,2^28"
/* Odd sizes around a block of 256 and a warp, one not a multiple of anything, one past 2^24. */
#define DEFAULT_CHECK_SIZES "1,2,31,32,33,255,256,257,1000003,2^24+1"

/* ---- the stage's options and description ------------------------------------------------------- */

/* The harness's own options (Options.own, filled in by the takes below): --offset, --cond, --bounds-for, a
 * row stage's --rows, --cols and --out, and the record build's --record. */
typedef struct {
    int offset;             /* elements the input starts past an aligned address (0..15) */
    uint64_t rows;          /* --rows B (0: not given) */
    const char *cols;       /* --cols H[,H...] (NULL: not given) */
    double cond;            /* --cond C (0: not given) */
    int bounds_for;         /* --bounds-for SMS (0: not given) */
    const char *out_path;   /* --out: every row's result of the one kernel named (NULL: not given) */
    const char *record_path; /* --record: where the record build writes (NULL: stdout) */
} StageOptions;

static StageOptions *own(const Options *o) { return (StageOptions *)o->own; }

static void take_offset(const char *prog, const char *v, Options *o)
{
    long num;
    if (parse_int(v, 0, 15, &num)) usage_error(prog, "--offset '%s': give a whole number from 0 to 15", v);
    own(o)->offset = (int)num;
}

static void take_rows(const char *prog, const char *v, Options *o)
{
    if (!reduce_stage.program.rows) usage_error(prog, "%s: this stage sums one vector; --rows and --cols are for a row stage", "--rows");
    if (parse_size(v, &own(o)->rows)) usage_error(prog, "--rows '%s': give a size >= 1 such as 4096 or 2^12", v);
}

static void take_out(const char *prog, const char *v, Options *o)
{
    if (!reduce_stage.program.rows) usage_error(prog, "%s: every row's result is a row stage's; this stage sums one vector", "--out");
    own(o)->out_path = v;
}

static void take_cols(const char *prog, const char *v, Options *o)
{
    uint64_t cols[MAX_SIZES];
    if (!reduce_stage.program.rows) usage_error(prog, "%s: this stage sums one vector; --rows and --cols are for a row stage", "--cols");
    if (parse_size_list(v, cols, MAX_SIZES) < 0) usage_error(prog, "--cols '%s': give sizes >= 1 such as 1024 or 2^10", v);
    own(o)->cols = v;
}

static void take_cond(const char *prog, const char *v, Options *o)
{
    char *end;
    double c = strtod(v, &end);
    if (!*v || *end || !(c >= COND_MIN && c <= 1e30))
        usage_error(prog, "--cond '%s': give a condition number from 10 to 1e30, such as 1e8", v);
    own(o)->cond = c;
}

static void take_bounds_for(const char *prog, const char *v, Options *o)
{
    long num;
    if (parse_int(v, 1, 100000, &num)) usage_error(prog, "--bounds-for '%s': give the GPU's number of SMs, such as 132", v);
    own(o)->bounds_for = (int)num;
}

#ifdef RECORD_TREE
/* The --n a stage's tree kernel is recorded at when none is given (NULL: none declared). */
static const char *declared_tree_size(const char *kernel)
{
    for (const TreeKernel *t = reduce_stage.program.trees; t < reduce_stage.program.trees + MAX_LISTED && t->kernel; t++)
        if (!strcmp(t->kernel, kernel)) return t->n;
    return NULL;
}

/* The tree program (make stage-NN tree): the same options, and where its record goes. */
static void take_record(const char *, const char *v, Options *o) { own(o)->record_path = v; }
#endif

static const ProgramOption own_options[] = {
#ifdef RECORD_TREE
    {"--record", "FILE", "write the record of one block of the --kernel named to FILE (default: stdout)", take_record},
#endif
    {"--offset", "K", "start the input K elements past an aligned address (0-15; default 0): kernels that\n"
                      "need aligned vector loads refuse, the others must still be right", take_offset},
    {"--rows", "B", "a row stage: B rows of each --cols H (without --rows: the largest --n in rows of H)", take_rows},
    {"--cols", "H[,H...]", "a row stage: the row lengths (each size of --n is ROWSxCOLS; a plain N is one row)", take_cols},
    {"--out", "FILE.npy", "a row stage: every row's result of the one --kernel named, at one size, as float32 (a\n"
                          "Welford kernel's: 2 rows, the means then the variances), from its last timed run", take_out},
    {"--cond", "C", "--fill cond: the condition number sum|x| / |sum x| of the data (default 1e8; the largest\n"
                    "a size can have is about 6e6 x N)", take_cond},
    {"--bounds-for", "SMS", "print the error bound each kernel declares at each --n on --fill's data, on a GPU\n"
                            "of SMS multiprocessors, with no GPU needed (nothing is run)", take_bounds_for},
    INPUT_OPTIONS("sum your own data instead of a fill: a NumPy .npy (float32, float64, float16, int8, int32;\n"
                  "C order; a 2-D array is rows in a row stage), or raw bytes with --dtype; N is the file's, and\n"
                  "the kernels that take its type sum it"),
};

static int kernel_exists(const char *name)
{
    for (int i = 0; i < reduce_stage.count; i++)
        if (!strcmp(reduce_stage.kernels[i].name, name)) return 1;
    return 0;
}

static void list_kernels(void)
{
    printf("stage %s kernels:\n", reduce_stage.program.stage);
    for (int i = 0; i < reduce_stage.count; i++)
        printf("  %-34s %s%s\n", reduce_stage.kernels[i].name, reduce_stage.kernels[i].source,
               reduce_stage.kernels[i].flags & NOT_DEFAULT ? " [not run by default: deliberately wrong]" : "");
    printf("  %-34s %s\n", "cub", reduce_stage.program.rows ? "cub::DeviceSegmentedReduce::Sum on the same rows"
                                                      : "cub::DeviceReduce on the same data (fp32 or int32 accumulator), after each input type");
    printf("default sizes: %s\n", reduce_stage.program.default_sizes ? reduce_stage.program.default_sizes : DEFAULT_SIZES);
    printf("check sizes: %s\n", reduce_stage.program.check_sizes ? reduce_stage.program.check_sizes : DEFAULT_CHECK_SIZES);
    if (reduce_stage.program.warm_l2) printf("warm-L2 kernels: %s\n", reduce_stage.program.warm_l2);
}

static void describe_kernels(JsonWriter *w)
{
    int used[DT_COUNT] = {0};
    json_open(w, "kernels", '[');
    for (int i = 0; i < reduce_stage.count; i++) {
        const Kernel *k = &reduce_stage.kernels[i];
        describe_kernel(w, k->name, dtypes[k->dtype].name,
                        k->flags & NOT_DEFAULT ? "wrong" : k->flags & ON_CPU ? "cpu" : "default", accumulators[k->acc].key,
                        unchecked_from(k->acc));
        used[k->dtype] = 1;
    }
    for (int t = 0; t < DT_COUNT; t++)
        if (used[t])
            describe_kernel(w, "cub", dtypes[t].name, "library", accumulators[cub_acc((Dtype)t)].key,
                            unchecked_from(cub_acc((Dtype)t)));
    json_close(w, ']');
    json_open(w, "input_types", '[');
    for (int t = 0; t < DT_COUNT; t++)
        if (used[t]) json_string(w, NULL, dtypes[t].name);
    json_close(w, ']');
}

/* The speed-up column's kernel: the first GPU kernel of baseline_stage() (a row stage has none). */
static const Kernel *baseline_kernel(void)
{
    if (reduce_stage.program.rows) return NULL;
    const Stage *first = baseline_stage();
    for (int i = 0; i < first->count; i++)
        if (!(first->kernels[i].flags & ON_CPU)) return &first->kernels[i];
    return &first->kernels[0];
}

/* Every fill of fill.h, space-separated in its order: a stage's fills. */
static const char *every_fill(void)
{
    static char list[128];
    for (int f = 0, at = 0; f < FILL_COUNT; f++)
        at += snprintf(list + at, sizeof list - at, "%s%s", f ? " " : "", fill_name((Fill)f));
    return list;
}

static Program stage_program(const char *argv0)
{
    Program p = reduce_stage.program;
    p.fills = every_fill();
    if (!p.default_sizes) {
        p.default_sizes = DEFAULT_SIZES;
        p.bench_sizes = DEFAULT_BENCH_SIZES;
    }
    if (!p.bench_sizes) p.bench_sizes = p.default_sizes;
    if (!p.check_sizes) p.check_sizes = DEFAULT_CHECK_SIZES;
    p.edge_sizes = p.rows ? "2^31+17,2^16x32769" : "2^31+17";
    if (baseline_kernel()) p.baseline = baseline_kernel()->name;
    if (!p.charts[0].name) {
        p.charts[0] = Chart{"bandwidth", OWNS};
        p.charts[1] = Chart{"scaling", JOINS};
    }
    p.usage_note = "fills: shifted in [-1/2, 3/2) (mean 1/2: a sum the checks can hold to account); random in [-1, 1) (mean 0);\n"
                   "ones; seq (i mod 16); mod100 (i mod 100); large (near the input type's largest value, to show accumulators\n"
                   "overflowing); nan, inf (shifted with one NaN/+Inf at element 777); wide (half near 1e6, three in four\n"
                   "positive, half near 1e-6); cond (sum|x| / |sum x| = --cond, one size a run); binades (every binade from\n"
                   "the subnormals up, random signs: fp32 below 2^47, fp64 below 2^991; data without a range)";
#ifdef RECORD_TREE
    p.default_sizes = p.rows ? "1x1024" : "1024"; /* one block is recorded: a small input will do */
    p.usage_note = "the record build: block 0 of the one --kernel named, its shared memory and shuffles recorded;\n"
                   "exit code 5: the kernel cannot be recorded (the reason is printed)";
#endif
    p.own = own_options;
    p.own_count = (int)(sizeof own_options / sizeof own_options[0]);
    program_defaults(&p, argv0, list_kernels, describe_kernels, kernel_exists);
    return p;
}

/* --cols H[,H...] replaces the sizes of --n: B rows (--rows; without it, the largest N in rows) of each H. */
static void sizes_from_cols(Options *o, const StageOptions *so, const char *prog)
{
    if (so->rows && !so->cols) usage_error(prog, "--rows needs --cols (%s)", "e.g. --rows 4096 --cols 1024");
    if (!so->cols) return;
    uint64_t largest = 0;
    for (int i = 0; i < o->size_count; i++)
        if (o->n[i] > largest) largest = o->n[i];
    o->size_count = parse_size_list(so->cols, o->cols, MAX_SIZES);
    for (int i = 0; i < o->size_count; i++) {
        o->rows[i] = so->rows ? so->rows : largest / o->cols[i];
        if (o->rows[i] == 0 || o->rows[i] > MAX_ELEMENTS / o->cols[i])
            usage_error(prog, "--cols '%s': each H must be at most the number of elements, and rows x H "
                              "at most 2^40", so->cols);
        o->n[i] = o->rows[i] * o->cols[i];
        snprintf(o->size_text[i], sizeof o->size_text[i], "%llux%llu", (unsigned long long)o->rows[i],
                 (unsigned long long)o->cols[i]);
    }
}

/* The input types of the table, each once, in the order of their first kernel: the groups run_size times. */
static int table_types(Dtype *types)
{
    int count = 0, seen[DT_COUNT] = {0};
    for (int i = 0; i < reduce_stage.count; i++)
        if (!seen[reduce_stage.kernels[i].dtype]++) types[count++] = reduce_stage.kernels[i].dtype;
    return count;
}

/* --input FILE: its values are the one size run (a 2-D array: its rows, in a row stage), summed by the
 * kernels that take its type; every problem with the file is a usage error, found before the GPU is opened. */
static void sizes_from_input(Data *d, Options *o, const StageOptions *so, const Program *p, const char *prog)
{
    if (so->rows || so->cols || so->cond)
        usage_error(prog, "%s: the file's shape is the input; give no --rows, --cols or --cond", "--input");
    char types[96] = "";
    Dtype t[DT_COUNT];
    for (int i = 0, count = table_types(t); i < count; i++)
        snprintf(types + strlen(types), sizeof types - strlen(types), " %s", dtypes[t[i]].name);
    ArrayFile a;
    read_input(prog, o, p, types, &a);
    use_file(d, &a, o->input_path, prog);
    o->size_count = 1;
    o->n[0] = a.count;
    o->rows[0] = reduce_stage.program.rows && a.rows ? a.rows : 1;
    o->cols[0] = reduce_stage.program.rows ? a.cols : a.count;
    snprintf(o->size_text[0], sizeof o->size_text[0], "input");
}

/* ---- the device ----------------------------------------------------------------------------------- */

typedef struct {
    const void *from;
    void *to;
} Copy;

static void run_copy(Copy *c)
{
    CUDA_CHECK(cudaMemcpyAsync(c->to, c->from, COPY_TEST_BYTES, cudaMemcpyDeviceToDevice));
}

/* The device's ceilings, measured: a device-to-device copy (bytes read + written, the median of 10 runs
 * after untimed ones), then the speed of light (launch floor and read-only stream) over the same buffers. */
static void measure_ceilings(Device *d, const L2Flush *flush)
{
    char *a = (char *)device_alloc(2 * COPY_TEST_BYTES, "the bandwidth tests");
    CUDA_CHECK(cudaMemset(a, 0, 2 * COPY_TEST_BYTES));
    Copy copy = {a, a + COPY_TEST_BYTES};
    TimedLaunch<Copy> t = {NULL, run_copy, NULL, NULL, &copy, flush};
    d->copy_gbps = 2.0 * COPY_TEST_BYTES / (time_runs(&t, 2, 10, NULL, NULL) * 1e-6) / 1e9;
    /* After the copies: its untimed runs write back what the copies left dirty in L2. */
    measure_speed_of_light(&d->sol, &d->gpu, flush, a, 2 * COPY_TEST_BYTES);
    CUDA_CHECK(cudaFree(a));
}

/* ---- output -------------------------------------------------------------------------------------- */

static void print_header(const Device *d)
{
    const GpuInfo *g = &d->gpu;
    printf("stage %s on %s (sm_%d%d, %d SMs, L2 %.1f MiB)\n", reduce_stage.program.stage, g->name, g->cc_major, g->cc_minor,
           g->sm_count, g->l2_bytes / 1048576.0);
    printf("DRAM theoretical peak %.1f GB/s (%d MHz x %d-bit bus x 2); device-to-device copy %.1f GB/s "
           "(bytes read + written, %llu MiB)\n",
           g->peak_gbps, g->mem_clock_mhz, g->bus_bits, d->copy_gbps, COPY_TEST_BYTES >> 20);
    printf("speed of light: launch floor %.2f us (an empty kernel between the events) + bytes / %.1f GB/s "
           "(%.1f%% of peak: read-only stream, %s; %.1f GB/s over the whole %llu MiB); "
           "the floor with one DRAM round trip (a warp's first load) %.2f us\n",
           d->sol.floor_us, d->sol.read_gbps, 100.0 * d->sol.read_gbps / g->peak_gbps, d->sol.variant,
           d->sol.whole_gbps, (unsigned long long)(d->sol.bytes >> 20), d->sol.round_trip_us);
    printf("time: from the input in device memory to the final scalar; kernels+finish, for a kernel whose partial sums "
           "the CPU adds: its launches alone, then the copy of the partials and their sum (the median of each part)\n");
}

static void print_table_head(const Bench *b, uint64_t n, const char *text, const Options *o)
{
    printf("\nN = %llu", (unsigned long long)n);
    if (strcmp(text, "") && strspn(text, "0123456789") != strlen(text)) printf(" (%s)", text);
    if (reduce_stage.program.rows)
        printf(": %llu rows of %llu", (unsigned long long)b->run.rows, (unsigned long long)b->run.cols);
    if (b->data.input >= 0) printf(", input %s (%s)", o->input_path, dtypes[b->data.input].name);
    else printf(", fill %s", o->fill);
    if (b->data.offset) printf(", input %d elements past an aligned address", b->data.offset);
    if (b->data.input < 0 && b->data.fill != FILL_ONES && b->data.fill != FILL_SEQ && b->data.fill != FILL_MOD100)
        printf(", seed %llu", (unsigned long long)o->seed);
    printf("; median of %d runs (of %d where a run takes over %.0f ms), %s\n", o->reps, o->reps < SLOW_REPS ? o->reps : SLOW_REPS,
           SLOW_RUN_US / 1000.0,
           o->warm ? "L2 left warm (no flush: an input that fits in L2 is read from it, not from DRAM)"
                   : "L2 flushed before each");
    printf("%-34s %24s %9s %9s %5s %10s %15s %8s %6s %8s %7s %5s\n", "kernel", "result", "rel.err", "bound", "check",
           "time(us)", "kernels+finish", "GB/s", "%peak", "speed-up", "x CUB", "bits");
}

static void print_group_head(const Bench *b, Dtype t, uint64_t n, const Reference *ref, const Device *d)
{
    double sol = speed_of_light_us(&d->sol, bytes_of(b, n, t, 1));
    char sum[32];
    printf("-- %s input, %.1f MiB; fp64 reference %s", dtypes[t].name, n * (double)dtypes[t].bytes / 1048576.0,
           result_decimal(sum, sizeof sum, ref->sum, RESULT_F64));
    Fill f = b->data.fill;
    if (f == FILL_SHIFTED || f == FILL_WIDE || f == FILL_COND || f == FILL_BINADES || b->data.input >= 0)
        printf(", condition number sum|x| / |sum x| %.3g", ref->abs_sum / fabs(ref->sum));
    printf("; speed of light %.2f us (%.1f GB/s)\n", sol, bytes_of(b, n, t, 1) / (sol * 1e3));
}

/* The device's rows of the CSV (stage "device", pass empty): the ceilings every chart and table draws against. */
static void report_device(const Device *d, FILE *csv, const Program *p)
{
    double peak = d->gpu.peak_gbps;
    Measurement rows[] = {
        {"dram_peak", "f32", 0, 0, peak, 100.0},
        {"d2d_copy", "f32", COPY_TEST_BYTES / 4, 0, d->copy_gbps, 100.0 * d->copy_gbps / peak},
        {"read_sol", "f32", d->sol.bytes / 4, 0, d->sol.read_gbps, 100.0 * d->sol.read_gbps / peak},
        {"launch_floor", "f32", 0, d->sol.floor_us, 0, 0},
        {"round_trip_floor", "f32", 0, d->sol.round_trip_us, 0, 0},
        {"l2_size", "f32", d->gpu.l2_bytes / 4, 0, 0, 0},
    };
    for (int i = 0; i < (int)(sizeof rows / sizeof rows[0]); i++) csv_write(csv, d->gpu.name, p, &rows[i]);
}

/* ---- main ---------------------------------------------------------------------------------------- */

static int selected(const Kernel *k, const Options *o)
{
    return kernel_selected(o, k->name, !(k->flags & NOT_DEFAULT));
}

/* The first kernel of the table that runs (the baseline is timed first unless it is that one). */
static const Kernel *first_selected(const Options *o)
{
    for (int i = 0; i < reduce_stage.count; i++)
        if (selected(&reduce_stage.kernels[i], o)) return &reduce_stage.kernels[i];
    return NULL;
}

/* The input types the selected kernels read (in types_used), the bytes of an element of the widest (at
 * least fp32's: its copy is made for the reference and the baseline) and the largest N. */
static void plan_data(Bench *b, const Options *o, int *types_used)
{
    b->data.widest = sizeof(float);
    for (int i = 0; i < reduce_stage.count; i++)
        if (selected(&reduce_stage.kernels[i], o)) types_used[reduce_stage.kernels[i].dtype] = 1;
    for (int t = 0; t < DT_COUNT; t++)
        if (types_used[t] && dtypes[t].bytes > b->data.widest) b->data.widest = dtypes[t].bytes;
    for (int i = 0; i < o->size_count; i++)
        if (o->n[i] > b->data.max_n) b->data.max_n = o->n[i];
    b->data.uploaded = -1;
}

/* What the run needs on the GPU, checked against what is free before anything is allocated; then the
 * buffers. */
static void allocate(Bench *b, const Options *o, const Device *d)
{
    int types_used[DT_COUNT] = {1}; /* fp32's: the reference's and the baseline's */
    plan_data(b, o, types_used);
    uint64_t max_n = b->data.max_n, max_rows = 0;
    for (int i = 0; i < o->size_count; i++)
        if (o->rows[i] > max_rows) max_rows = o->rows[i];
    const Kernel *baseline = baseline_kernel();
    int any_in_place = baseline && baseline->flags & IN_PLACE, any_lse = 0;
    for (int i = 0; i < reduce_stage.count; i++)
        if (selected(&reduce_stage.kernels[i], o)) {
            any_in_place |= reduce_stage.kernels[i].flags & IN_PLACE;
            any_lse |= reduce_stage.kernels[i].op == OP_LOGSUMEXP;
        }
    b->capacity = PARTIALS_CAPACITY(max_n);
    size_t cub_bytes = 0, rows_bytes = 0;
    for (int t = 0; t < DT_COUNT; t++) {
        size_t bytes = types_used[t] ? cub_temp_bytes((Dtype)t, max_n) : 0;
        if (bytes > cub_bytes) cub_bytes = bytes;
    }
    if (reduce_stage.program.rows) {
        size_t bytes = cub_rows_temp_bytes(max_rows);
        if (bytes > cub_bytes) cub_bytes = bytes;
        rows_bytes = rows_device_bytes(max_rows);
    }
    size_t in_bytes = max_n * b->data.widest; /* --offset adds < 64 bytes */
    char what[64];
    snprintf(what, sizeof what, "N = %llu", (unsigned long long)max_n);
    size_t pristine_bytes = any_in_place ? max_n * sizeof(float) : 0; /* the in-place kernels read fp32 */
    require_gpu_memory(in_bytes + pristine_bytes + b->capacity * sizeof(float) + 2 * d->gpu.l2_bytes +
                       cub_bytes + rows_bytes + 2 * COPY_TEST_BYTES + (64u << 20), what, &d->gpu);

    Run *r = &b->run;
    b->data.base = (char *)device_alloc(in_bytes + 64, "the input");
    r->partials = (float *)device_alloc(b->capacity * sizeof(float), "the per-block partial sums");
    r->out = (float *)device_alloc(sizeof(double), "the result"); /* a double for an fp64 kernel's */
    r->sm_count = d->gpu.sm_count;
    if (any_in_place) {
        float *pristine = (float *)device_alloc(pristine_bytes, "the untouched copy of the input");
        CUDA_CHECK(cudaMemcpy(pristine, use_dtype(&b->data, r, DT_F32)->values, pristine_bytes, cudaMemcpyHostToDevice));
        b->pristine = pristine;
    }
    CUDA_CHECK(cudaMallocHost((void **)&b->h_partials, b->capacity * sizeof(float)));
    r->scratch = device_alloc(cub_bytes, "CUB's temporary storage");
    r->scratch_bytes = cub_bytes;
    if (reduce_stage.program.rows) rows_alloc(&b->rows, r, max_rows, any_lse);
    r->row_offsets = b->rows.offsets;
}

/* --out: the row results of the kernel just measured (its last run's, in b->rows.results). */
static void write_row_results(const Bench *b, const char *out_path)
{
    char err[512];
    int welford = b->run.chain.welford;
    uint64_t rows = welford ? 2 : b->run.rows, cols = welford ? b->run.rows : 0;
    if (write_array_file(out_path, DT_F32, b->rows.results, rows, cols, err, sizeof err)) {
        fprintf(stderr, "error: --out: %s\n", err);
        exit(EXIT_USAGE);
    }
}

/* Every selected kernel at one size, grouped by input type (in table order within a type): each type's
 * group is preceded by CUB on the same data (its time is the x CUB column), whose row follows the group's.
 * Returns the failures. */
static int run_size(Bench *b, uint64_t n, const Options *o, const Device *d, FILE *csv, const Program *p)
{
    int input = b->data.input;
    const ArrayFile *f32 = use_dtype(&b->data, &b->run, DT_F32);
    b->run.host_in = f32->values;
    Reference ref = data_reference(&b->data, f32, n);
    /* The baseline: measured here unless it is about to run anyway (in the first stage's own program, where
     * it is the first kernel selected), or the run leaves L2 warm (its rows are in no table with a speed-up
     * column). */
    const Kernel *baseline = baseline_kernel();
    double baseline_us = -1.0;
    if (reduce_stage.program.rows) rows_prepare(&b->rows, &b->run, f32->values, input >= 0);
    else if (!b->warm && (input < 0 || input == DT_F32) && baseline != first_selected(o)) {
        Measurement m = measure(b, baseline, &ref, f32->values, o);
        baseline_us = m.median_us;
        printf("(speed-up against %s %s on fp32: %.1f us%s)\n", baseline_stage()->program.stage, baseline->name,
               baseline_us, m.status == ST_OK ? "" : ", which did not pass its check here");
    }
    int failures = 0;
    Dtype types[DT_COUNT];
    for (int g = 0, groups = table_types(types); g < groups; g++) {
        Dtype t = types[g];
        int any = 0;
        for (int j = 0; j < reduce_stage.count; j++)
            any |= reduce_stage.kernels[j].dtype == t && selected(&reduce_stage.kernels[j], o) && (input < 0 || input == (int)t);
        if (!any) continue;
        const ArrayFile *h = use_dtype(&b->data, &b->run, t);
        ref = data_reference(&b->data, h, n);
        if (!reduce_stage.program.rows) print_group_head(b, t, n, &ref, d);
        Kernel cub = cub_kernel(t, reduce_stage.program.rows);
        Measurement c = measure(b, &cub, &ref, h->values, o);
        double cub_us = c.status == ST_SKIP ? -1.0 : c.median_us;
        for (int j = 0; j < reduce_stage.count; j++) {
            const Kernel *k = &reduce_stage.kernels[j];
            if (k->dtype != t || !selected(k, o)) continue;
            Measurement m = measure(b, k, &ref, h->values, o);
            if (k == baseline) baseline_us = m.median_us;
            if (own(o)->out_path && m.status != ST_SKIP) write_row_results(b, own(o)->out_path);
            report(b, k, &m, d, baseline_us, cub_us, csv, p);
            failures += m.status == ST_FAIL;
        }
        report(b, &cub, &c, d, baseline_us, cub_us, csv, p);
        failures += c.status == ST_FAIL;
    }
    return failures;
}

/* --bounds-for SMS: what each selected kernel's launcher declares at each size for a GPU of SMS
 * multiprocessors, on the data of --fill, with the GPU hidden (nothing is run): a line "bound: KERNEL DTYPE
 * N REL_BOUND CHAIN", the CSV's rel_bound ("-" where it writes none) and chain (0: exact) of its row, CUB's
 * after each input type's kernels; or "bound: KERNEL DTYPE N not declared: WHY" where the launcher refuses
 * the input or asks the GPU a question (occupancy, an attribute) whose answer it reads. */
static int print_declared_bounds(Bench *b, const Options *o, const char *prog)
{
    if (reduce_stage.program.rows || o->input_path)
        usage_error(prog, "%s: a row stage's bounds are its rows', and a file's its own: neither is declared here",
                    "--bounds-for");
    setenv("CUDA_VISIBLE_DEVICES", "", 1); /* before the first CUDA call: no launch reaches a GPU */
    static GpuHidden hidden; /* for the rest of the process */
    gpu_hidden = &hidden;
    int types_used[DT_COUNT] = {0};
    plan_data(b, o, types_used);
    b->run.sm_count = own(o)->bounds_for;
    for (int i = 0; i < o->size_count; i++) {
        b->run.n = o->n[i];
        b->run.rows = o->rows[i];
        b->run.cols = o->cols[i];
        b->run.host_in = use_dtype(&b->data, &b->run, DT_F32)->values;
        for (int t = 0; t < DT_COUNT; t++) {
            if (!types_used[t]) continue;
            const ArrayFile *h = use_dtype(&b->data, &b->run, (Dtype)t);
            Reference ref = data_reference(&b->data, h, b->run.n);
            Kernel cub = cub_kernel((Dtype)t, 0);
            for (int j = 0; j <= reduce_stage.count; j++) {
                const Kernel *k = j < reduce_stage.count ? &reduce_stage.kernels[j] : &cub;
                if (k->dtype != t || (k != &cub && !selected(k, o))) continue;
                Measurement row = declared_row(b, k, &ref, h->values);
                printf("bound: %s %s %llu ", k->name, dtypes[t].name, (unsigned long long)b->run.n);
                if (row.refused) printf("not declared: %s\n", row.refused);
                else if (row.rel_bound > 0) printf("%.3e %.0f\n", row.rel_bound, row.chain);
                else printf("- %.0f\n", row.chain); /* none the CSV would write: exact, or NaN in the data */
            }
        }
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    Program p = stage_program(argv[0]);
    StageOptions so;
    memset(&so, 0, sizeof so);
    Options o = parse_command_line(argc, argv, &p, &so);
#ifdef RECORD_TREE
    /* No --n (the sizes are the default's own string): a tree kernel at the size its stage declares. */
    if (!o.sizes_given && o.kernels && declared_tree_size(o.kernels)) set_sizes(&o, declared_tree_size(o.kernels), argv[0]);
    return record_tree(&reduce_stage, &o, so.record_path, argv[0]);
#endif
    Bench bench;
    memset(&bench, 0, sizeof bench);
    Data *data = &bench.data;
    data->input = -1;
    if (o.input_path) sizes_from_input(data, &o, &so, &p, argv[0]);
    else sizes_from_cols(&o, &so, argv[0]);
    parse_fill(o.fill, &data->fill);
    if (so.cond && data->fill != FILL_COND) usage_error(argv[0], "%s sets the condition number of --fill cond only", "--cond");
    if (data->fill == FILL_COND && o.size_count > 1)
        usage_error(argv[0], "--fill cond: its data depend on N; give one size a run (--n %s has more)", o.sizes);
    data->seed = o.seed;
    data->cond = so.cond;
    data->offset = so.offset;
    bench.warm = o.warm;
    bench.row_stage = reduce_stage.program.rows;
    if (so.bounds_for) return print_declared_bounds(&bench, &o, argv[0]);
    FILE *csv = open_csv(o.csv_path, argv[0]);
    if (so.out_path && (!o.kernels || strchr(o.kernels, ',') || !strcmp(o.kernels, "all") || o.size_count != 1))
        usage_error(argv[0], "--out %s: name one kernel (--kernel NAME) and one size, whose rows it holds", so.out_path);
    if (so.out_path) { /* writable, said before the GPU is opened */
        FILE *out = fopen(so.out_path, "wb");
        if (!out) usage_error(argv[0], "--out '%s': the file cannot be written", so.out_path);
        fclose(out);
    }

    Device d;
    memset(&d, 0, sizeof d);
    open_gpu(&d.gpu);
    bench.cc = d.gpu.cc_major * 10 + d.gpu.cc_minor;
    size_t free_bytes = 0, total_bytes;
    if (data->input >= 0) CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    double file_bytes = data->input >= 0 ? o.n[0] * (double)(dtypes[data->input].bytes > 4 ? dtypes[data->input].bytes : 4) : 0.0;
    if (file_bytes > free_bytes / 2) { /* its buffer and the harness's beside it */
        char msg[512];
        snprintf(msg, sizeof msg, "--input %s: %llu elements need %.1f GiB on the GPU (at least 4 bytes each), which "
                 "has %.1f GiB free: too large for this GPU", o.input_path, (unsigned long long)o.n[0],
                 file_bytes / 1073741824.0, free_bytes / 1073741824.0);
        usage_error(argv[0], "%s", msg);
    }
    allocate(&bench, &o, &d);
    l2_flush_init(&bench.flush, &d.gpu);
    measure_ceilings(&d, &bench.flush);
    print_header(&d);
    report_device(&d, csv, &p);

    int failures = 0;
    for (int s = 0; s < o.size_count; s++) {
        bench.run.n = o.n[s];
        bench.run.rows = o.rows[s];
        bench.run.cols = o.cols[s];
        print_table_head(&bench, o.n[s], o.size_text[s], &o);
        failures += run_size(&bench, o.n[s], &o, &d, csv, &p);
    }
    if (csv) fclose(csv);
    printf("\n%s\n", failures ? "some kernels FAILED verification" : "all kernels passed verification");
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

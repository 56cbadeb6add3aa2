/* The program around every stage: its options, the device, the measurement of each kernel (timing and
 * verification), the output table and the CSV. A stage file provides only `reduce_stage` (its table of
 * kernels, stage.h); the first stage's first kernel is linked in as `baseline_stage` for the speed-up
 * column. What it sums is data.cu's, CUB's rows cub.cu's, and a row stage's references and checks rows.cu's. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cub.h"
#include "data.h"
#include "rows.h"
#include "speed_of_light.h"
#include "stage.h"
#ifdef RECORD_TREE
#include "record.h"
#endif

extern const Stage reduce_stage;
extern const Stage baseline_stage __attribute__((weak)); /* absent in the first stage itself */

#define MAX_SIZES 64
#define COPY_TEST_BYTES (512ull << 20) /* the copy moves it, the read-only streams read twice that */
#define DEFAULT_SIZES "2^26"
#define DEFAULT_BENCH_SIZES "2^16,2^18,2^20,2^22,2^24,2^26,2^28"
/* Odd sizes around a block of 256 and a warp, one not a multiple of anything, one past 2^24. */
#define DEFAULT_CHECK_SIZES "1,2,31,32,33,255,256,257,1000003,2^24+1"
/* A kernel or CPU loop whose checked run takes over SLOW_RUN_US is timed SLOW_REPS times (or --reps, if
 * fewer), with no warm-up beyond the checked run. */
#define SLOW_RUN_US 20000.0
#define SLOW_REPS 3

/* ---- the stage's options and description ------------------------------------------------------- */

/* The harness's own options: --offset, and a row stage's --rows / --cols. */
static struct {
    int offset;             /* elements the input starts past an aligned address (0..15) */
    uint64_t rows;          /* --rows B (0: not given) */
    const char *cols;       /* --cols H[,H...] (NULL: not given) */
    double cond;            /* --cond C (0: not given) */
} stage_options;

static void take_offset(const char *prog, const char *v)
{
    long num;
    if (parse_int(v, 0, 15, &num)) usage_error(prog, "--offset '%s': give a whole number from 0 to 15", v);
    stage_options.offset = (int)num;
}

static void take_rows(const char *prog, const char *v)
{
    if (!reduce_stage.program.rows) usage_error(prog, "%s: this stage sums one vector; --rows and --cols are for a row stage", "--rows");
    if (parse_size(v, &stage_options.rows)) usage_error(prog, "--rows '%s': give a size >= 1 such as 4096 or 2^12", v);
}

static void take_cols(const char *prog, const char *v)
{
    uint64_t cols[MAX_SIZES];
    if (!reduce_stage.program.rows) usage_error(prog, "%s: this stage sums one vector; --rows and --cols are for a row stage", "--cols");
    if (parse_size_list(v, cols, MAX_SIZES) < 0) usage_error(prog, "--cols '%s': give sizes >= 1 such as 1024 or 2^10", v);
    stage_options.cols = v;
}

static void take_cond(const char *prog, const char *v)
{
    char *end;
    double c = strtod(v, &end);
    if (!*v || *end || !(c >= COND_MIN && c <= 1e30))
        usage_error(prog, "--cond '%s': give a condition number from 10 to 1e30, such as 1e8", v);
    stage_options.cond = c;
}


/* A stage's tree kernels are NAME, or NAME@N where its README's picture is recorded at --n N:
 * --describe names the kernels, and the record build records NAME at N unless --n says otherwise. */
static const char *tree_kernel_names(const char *trees)
{
    static char names[1024];
    char *out = names;
    for (const char *c = trees; *c && out < names + sizeof names - 1; c++) {
        if (*c == '@') c += strcspn(c, " ") - 1;
        else *out++ = *c;
    }
    *out = '\0';
    return names;
}

#ifdef RECORD_TREE
/* The N of KERNEL@N among the stage's tree kernels (NULL: none). */
static const char *declared_tree_size(const char *kernel)
{
    static char size[64];
    size_t len = strlen(kernel);
    for (const char *c = reduce_stage.program.trees; c && (c = strstr(c, kernel)); c += len)
        if ((c == reduce_stage.program.trees || c[-1] == ' ') && c[len] == '@') {
            snprintf(size, sizeof size, "%.*s", (int)strcspn(c + len + 1, " "), c + len + 1);
            return size;
        }
    return NULL;
}

/* The tree program (make stage-NN tree): the same options, and where its record goes. */
static const char *record_path;
static void take_record(const char *prog, const char *v)
{
    (void)prog;
    record_path = v;
}
#endif

static const ProgramOption own_options[] = {
#ifdef RECORD_TREE
    {"--record", "FILE", "write the record of one block of the --kernel named to FILE (default: stdout)", take_record},
#endif
    {"--offset", "K", "start the input K elements past an aligned address (0-15; default 0): kernels that\n"
                      "need aligned vector loads refuse, the others must still be right", take_offset},
    {"--rows", "B", "a row stage: B rows of each --cols H (without --rows: the largest --n in rows of H)", take_rows},
    {"--cols", "H[,H...]", "a row stage: the row lengths (each size of --n is ROWSxCOLS; a plain N is one row)", take_cols},
    {"--cond", "C", "--fill cond: the condition number sum|x| / |sum x| of the data (default 1e8; the largest\n"
                    "a size can have is about 6e6 x N)", take_cond},
    INPUT_OPTIONS("sum your own data instead of a fill: a NumPy .npy (float32, float16, int8, int32; C order;\n"
                  "a 2-D array is rows in a row stage), or raw bytes with --dtype; N is the file's, and the\n"
                  "kernels that take its type sum it"),
};

static const Kernel *find_kernel(const char *name)
{
    for (int i = 0; i < reduce_stage.count; i++)
        if (!strcmp(reduce_stage.kernels[i].name, name)) return &reduce_stage.kernels[i];
    return NULL;
}

static int kernel_exists(const char *name) { return find_kernel(name) != NULL; }

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

/* The accumulators, in Acc's order: the word --describe gives (a "kernel:" line's fourth), the name the
 * table's notes give, and the largest sum it holds. */
static const struct {
    const char *key, *name;
    double max;
} accumulators[ACC_COUNT] = {
    {"f32", "fp32", FLT_MAX}, {"f16", "fp16", 65504.0}, {"bf16", "bf16", 3.3895313892515355e38},
    {"i32", "int32", 2147483647.0}, {"f64", "fp64", DBL_MAX}, {"kahan", "Kahan fp32", FLT_MAX}, {"exact", "exact", FLT_MAX},
};

static void describe_kernels(void)
{
    int used[DT_COUNT] = {0};
    for (int i = 0; i < reduce_stage.count; i++) {
        const Kernel *k = &reduce_stage.kernels[i];
        printf("kernel: %s %s %s %s\n", k->name, dtypes[k->dtype].name,
               k->flags & NOT_DEFAULT ? "wrong" : k->flags & ON_CPU ? "cpu" : "default", accumulators[k->acc].key);
        used[k->dtype] = 1;
    }
    for (int t = 0; t < DT_COUNT; t++)
        if (used[t]) printf("kernel: cub %s library %s\n", dtypes[t].name, accumulators[cub_acc((Dtype)t)].key);
    printf("input types:");
    for (int t = 0; t < DT_COUNT; t++)
        if (used[t]) printf(" %s", dtypes[t].name);
    printf("\n");
}

/* The speed-up column's kernel: the first stage's first GPU kernel (a row stage has none). */
static const Kernel *baseline_kernel(void)
{
    if (reduce_stage.program.rows) return NULL;
    const Stage *first = &baseline_stage ? &baseline_stage : &reduce_stage;
    for (int i = 0; i < first->count; i++)
        if (!(first->kernels[i].flags & ON_CPU)) return &first->kernels[i];
    return &first->kernels[0];
}

/* Every fill of host.h, space-separated in its order: a stage's fills. */
static const char *every_fill(void)
{
    static char list[128];
    for (int f = 0, at = 0; f < FILL_COUNT; f++)
        at += snprintf(list + at, sizeof list - at, "%s%s", f ? " " : "", fill_name((Fill)f));
    return list;
}

static Program describe_stage(const char *argv0)
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
    if (!p.charts) p.charts = "bandwidth+ scaling";
    if (p.trees) p.trees = tree_kernel_names(p.trees);
    p.usage_note = "fills: shifted in [-1/2, 3/2) (mean 1/2: a sum the checks can hold to account); random in [-1, 1) (mean 0);\n"
                   "ones; seq (i mod 16); mod100 (i mod 100); large (near the input type's largest value, to show accumulators\n"
                   "overflowing); nan, inf (shifted with one NaN/+Inf at element 777); wide (half near 1e6, three in four\n"
                   "positive, half near 1e-6); cond (sum|x| / |sum x| = --cond, one size a run)";
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

/* The sizes to run: --n as written (a row stage: ROWSxCOLS each), or --cols' row lengths. */
typedef struct {
    uint64_t n[MAX_SIZES], rows[MAX_SIZES], cols[MAX_SIZES];
    char text[MAX_SIZES][32];  /* as given, e.g. "4096x2048" */
    int count;
} Sizes;

static Sizes sizes_to_run(const Options *o, const char *prog)
{
    Sizes s;
    memset(&s, 0, sizeof s);
    s.count = option_sizes(o, s.n, MAX_SIZES, prog);
    uint64_t largest = 0;
    for (int i = 0, at = 0; i < s.count; i++) { /* keep each size as written, for the output */
        int len = (int)strcspn(o->sizes + at, ",");
        snprintf(s.text[i], sizeof s.text[i], "%.*s", len, o->sizes + at);
        at += len + 1;
        parse_matrix(s.text[i], &s.rows[i], &s.cols[i]);
        if (s.n[i] > largest) largest = s.n[i];
    }
    if (stage_options.rows && !stage_options.cols) usage_error(prog, "--rows needs --cols (%s)", "e.g. --rows 4096 --cols 1024");
    if (stage_options.cols) { /* --cols replaces the sizes: B rows (or the largest N in rows) of each H */
        uint64_t cols[MAX_SIZES];
        s.count = parse_size_list(stage_options.cols, cols, MAX_SIZES);
        for (int i = 0; i < s.count; i++) {
            s.cols[i] = cols[i];
            s.rows[i] = stage_options.rows ? stage_options.rows : largest / cols[i];
            if (s.rows[i] == 0 || s.rows[i] > MAX_ELEMENTS / s.cols[i])
                usage_error(prog, "--cols '%s': each H must be at most the number of elements, and rows x H "
                                  "at most 2^40", stage_options.cols);
            s.n[i] = s.rows[i] * s.cols[i];
            snprintf(s.text[i], sizeof s.text[i], "%llux%llu", (unsigned long long)s.rows[i], (unsigned long long)s.cols[i]);
        }
    }
    return s;
}

/* ---- the device ----------------------------------------------------------------------------------- */

typedef struct {
    GpuInfo gpu;
    double copy_gbps;     /* measured device-to-device copy, bytes read + written */
    SpeedOfLight sol;     /* measured launch floor and read-only streaming bandwidth */
} Device;

typedef struct {
    const void *from;
    void *to;
} Copy;

static void run_copy(void *ctx)
{
    const Copy *c = (const Copy *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(c->to, c->from, COPY_TEST_BYTES, cudaMemcpyDeviceToDevice));
}

/* The device's ceilings, measured: a device-to-device copy (bytes read + written, the median of 10 runs
 * after untimed ones), then the speed of light (launch floor and read-only stream) over the same buffers. */
static void measure_ceilings(Device *d, const L2Flush *flush)
{
    char *a = (char *)device_alloc(2 * COPY_TEST_BYTES, "the bandwidth tests");
    CUDA_CHECK(cudaMemset(a, 0, 2 * COPY_TEST_BYTES));
    Copy copy = {a, a + COPY_TEST_BYTES};
    TimedRun t = {NULL, run_copy, NULL, &copy, flush};
    d->copy_gbps = 2.0 * COPY_TEST_BYTES / (time_runs(&t, 2, 10, NULL) * 1e-6) / 1e9;
    /* After the copies: its untimed runs write back what the copies left dirty in L2. */
    measure_speed_of_light(&d->sol, &d->gpu, flush, a, 2 * COPY_TEST_BYTES);
    CUDA_CHECK(cudaFree(a));
}

/* ---- the run's state ------------------------------------------------------------------------------ */

/* What the runs of every kernel share: main makes it, and passes it to what reads or changes it. */
typedef struct {
    Run run;                 /* what the launchers see: the buffers and the size being run */
    Data data;               /* the input (data.h) */
    Rows rows;               /* a row stage's references and results (rows.h) */
    int cc;                  /* compute capability, major * 10 + minor */
    int warm;                /* --l2 warm: no flush before a timed run */
    L2Flush flush;           /* run before every timed run (unless warm): evicts the input from L2 */
    const float *pristine;   /* untouched copy of the fp32 input, for IN_PLACE kernels (NULL if none) */
    float *h_partials;       /* pinned, PARTIALS_CAPACITY(largest N), for a kernel that finishes on the CPU */
    uint64_t capacity;
} Bench;

/* --input FILE: its values are the one size run (a 2-D array: its rows, in a row stage), summed by the
 * kernels that take its type; every problem with the file is a usage error, found before the GPU is opened. */
static Sizes input_sizes(Data *d, const Options *o, const Program *p, const char *prog)
{
    if (stage_options.rows || stage_options.cols || stage_options.cond)
        usage_error(prog, "%s: the file's shape is the input; give no --rows, --cols or --cond", "--input");
    char types[96] = "";
    for (int i = 0; i < reduce_stage.count; i++) {
        char name[24];
        snprintf(name, sizeof name, " %s", dtypes[reduce_stage.kernels[i].dtype].name);
        if (!strstr(types, name)) snprintf(types + strlen(types), sizeof types - strlen(types), "%s", name);
    }
    ArrayFile a;
    read_input(prog, o, p, types, &a);
    use_file(d, &a, prog);
    Sizes s;
    memset(&s, 0, sizeof s);
    s.count = 1;
    s.n[0] = a.count;
    s.rows[0] = reduce_stage.program.rows ? (a.rows ? a.rows : 1) : 1;
    s.cols[0] = reduce_stage.program.rows ? a.cols : a.count;
    snprintf(s.text[0], sizeof s.text[0], "input");
    return s;
}

/* The sum of the partials a kernel left for the CPU to finish (in fp64). */
static double finish(Bench *b, const char *name)
{
    Run *r = &b->run;
    if (r->host_partials > b->capacity) {
        fprintf(stderr, "error: kernel %s wrote %llu partials, more than the harness's room (%llu)\n", name,
                (unsigned long long)r->host_partials, (unsigned long long)b->capacity);
        exit(EXIT_GPU);
    }
    CUDA_CHECK(cudaMemcpy(b->h_partials, r->partials, r->host_partials * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (uint64_t i = 0; i < r->host_partials; i++) s += b->h_partials[i];
    return s;
}

/* Can the kernel's accumulators overflow on this data? Its narrow accumulator holds sums of up to
 * shape.span consecutive inputs, the fp32 one (atomics, CPU finish excluded) sums of everything. */
static int overflow_possible(const Kernel *k, const Shape *s, const Reference *ref, const float *values, uint64_t n)
{
    if (ref->non_finite || k->acc == ACC_EXACT_SUM) return 0; /* a NaN or Inf must show; an exact sum has no overflow */
    if (s->acc_bits == ACC_EXACT) return fabs(ref->sum) > 2147483647.0;
    if (ref->abs_sum > FLT_MAX) return 1;
    return (k->acc == ACC_F16 || k->acc == ACC_BF16) && max_chunk_abs_sum(values, n, s->span) > accumulators[k->acc].max;
}

/* ---- one kernel, measured ------------------------------------------------------------------------ */

/* ST_UNCHECKED: passed a bound too wide to hold the kernel to account, and the row says so instead of
 * "ok": at least the whole sum (a result of 0 would pass too), or, for an fp32-or-wider accumulator, at
 * least TIGHT_BOUND of it. The accumulator's chain of additions is then too long for this N. */
enum { ST_OK, ST_FAIL, ST_XFAIL, ST_UNCHECKED, ST_SKIP };
#define TIGHT_BOUND 1e-3
/* A verdict's word in the table's check column and in the CSV's pass column (ST_SKIP: not run, no row). */
static const struct {
    const char *check, *pass;
} verdicts[] = {{"ok", "1"}, {"FAIL", "0"}, {"xfail", "xfail"}, {"-", "unchecked"}};
static int wide_acc(Acc a) { return a != ACC_F16 && a != ACC_BF16; }
static double widest_checked_bound(Acc a) { return wide_acc(a) ? TIGHT_BOUND : 1.0; }

/* Bytes the algorithm must move: its input (and a row stage's row results, written: row_results floats a row). */
static double bytes_of(const Bench *b, uint64_t n, Dtype t, int row_results)
{
    return n * (double)dtypes[t].bytes + (reduce_stage.program.rows ? b->run.rows * 4.0 * row_results : 0.0);
}

/* What the timing loop's callbacks check each run of one kernel against, and the row they fill in. */
typedef struct {
    Bench *b;
    const Kernel *k;
    const float *values;  /* the input as the kernel reads it, in fp32 (for the stagnation term) */
    Reference want;       /* the fp64 reference (of a maximum: the largest input, exactly) */
    double tol;           /* from the shape the launcher reported in the first run */
    double result;        /* this run's sum (a row stage: a hash of the bits of its row sums) */
    int runs;
    int pass;             /* every run within the tolerance */
    CsvRow *row;          /* result: the first run's; same_bits: every run gave its bits; a row stage's
                             rel_err and rel_bound: of the worst row of the first run */
} RunCheck;

/* Untimed, before each run: the input of an in-place kernel restored, the Run reset. */
static void prepare_run(void *ctx)
{
    const RunCheck *c = (const RunCheck *)ctx;
    Run *r = &c->b->run;
    if (c->k->flags & IN_PLACE)
        CUDA_CHECK(cudaMemcpyAsync(r->in, c->b->pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    r->host_partials = 0;
    r->has_host_result = 0;
    r->blocks_per_sm = c->k->blocks_per_sm;
    r->refuse = NULL;
    memset(&r->shape, 0, sizeof r->shape);
}

/* Timed: from "input in device memory" to "sum available": the kernels, and for a kernel that finishes
 * on the CPU the copy of its partials and their sum. */
static void run_kernel(void *ctx)
{
    RunCheck *c = (RunCheck *)ctx;
    Run *r = &c->b->run;
    c->k->launch(r);
    if (!r->refuse && r->host_partials) c->result = finish(c->b, c->k->name);
}

/* Untimed, after each run: its result read back and checked, its bits compared with the first run's. */
static void check_run(void *ctx)
{
    RunCheck *c = (RunCheck *)ctx;
    Run *r = &c->b->run;
    if (r->refuse) return; /* nothing was launched */
    /* An integer accumulator (the table's .acc) is exact: its bound, and its overflow check, say so. */
    if (c->k->acc == ACC_I32 || c->k->acc == ACC_EXACT_SUM) r->shape.acc_bits = ACC_EXACT;
    if (reduce_stage.program.rows) {
        double err = 0.0, bound = 0.0;
        c->pass &= rows_pass(&c->b->rows, r, c->values, c->k->op, c->runs == 0, &err, &bound, &c->result);
        if (c->runs == 0) c->row->rel_err = err, c->row->rel_bound = bound;
    } else {
        if (r->has_host_result) {
            c->result = r->host_result;
        } else if (!r->host_partials) {
            float out;
            CUDA_CHECK(cudaMemcpy(&out, r->out, sizeof out, cudaMemcpyDeviceToHost));
            int as_int;
            memcpy(&as_int, &out, sizeof as_int);
            c->result = c->k->acc == ACC_I32 ? (double)as_int : (double)out;
        }
        if (c->runs == 0) c->tol = c->k->op == OP_MAX ? 0.0 : sum_tolerance(r->shape, &c->want, c->values, r->n);
        c->pass &= result_passes(c->result, &c->want, c->tol);
    }
    if (c->runs == 0) c->row->result = c->result;
    else if (memcmp(&c->row->result, &c->result, sizeof c->result)) c->row->same_bits = 0;
    c->runs++;
}

/* The kernel at the size being run: its row, every field but those that compare it with other rows
 * (report fills them in). */
static CsvRow measure(Bench *b, const Kernel *k, const Reference *ref, const float *values, const Options *o)
{
    Run *r = &b->run;
    CsvRow row;
    memset(&row, 0, sizeof row);
    row.kernel = k->name;
    row.dtype = dtypes[k->dtype].name;
    row.n = r->n;
    if (k->min_cc > b->cc) {
        row.status = ST_SKIP;
        return row;
    }
    RunCheck c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.k = k;
    c.values = values;
    c.want = *ref;
    if (k->op == OP_MAX) c.want.sum = ref->max; /* a maximum involves no rounding: the largest input exactly */
    if (k->acc == ACC_EXACT_SUM) c.want.sum = ref->sum32; /* the exact sum rounded once to fp32, bit for bit (bound 0) */
    c.pass = row.same_bits = 1;
    c.row = &row;
    TimedRun t = {prepare_run, run_kernel, check_run, &c, b->warm ? NULL : &b->flush};
    /* The first run, checked with the partials poisoned with NaN, so a partial that no block wrote shows. */
    CUDA_CHECK(cudaMemset(r->partials, 0xff, PARTIALS_CAPACITY(r->n) * sizeof(float)));
    CUDA_CHECK(cudaMemset(r->out, 0xff, sizeof(float)));
    if (reduce_stage.program.rows) CUDA_CHECK(cudaMemset(r->row_sums, 0xff, 2 * r->rows * sizeof(float)));
    double first_us = time_runs(&t, 0, 1, NULL);
    if (r->refuse) {
        row.status = ST_SKIP;
        row.refused = r->refuse;
        return row;
    }
    Shape shape = r->shape;
    /* A run of tens of milliseconds (a CPU loop, an atomic per element at large N) varies by far less
     * than its length: the checked run has warmed it up, and the median of a few runs is enough. */
    int slow = first_us > SLOW_RUN_US;
    row.median_us = time_runs(&t, slow ? 0 : o->warmup, slow && o->reps > SLOW_REPS ? SLOW_REPS : o->reps, &row.spread);
    row.gbps = bytes_of(b, r->n, k->dtype, shape.welford ? 2 : 1) / (row.median_us * 1e-6) / 1e9;
    row.bytes_read = r->n * (double)dtypes[k->dtype].bytes;
    row.chain = shape.acc_bits == ACC_EXACT ? 0.0 : shape.serial + shape.tree + shape.wide + shape.atomic;
    if (!reduce_stage.program.rows) {
        row.rel_err = relative_error(row.result, c.want.sum);
        row.rel_bound = c.want.sum != 0.0 ? c.tol / fabs(c.want.sum) : c.tol;
    }
    if (k->flags & IN_PLACE) /* leave the input as the next kernel expects it */
        CUDA_CHECK(cudaMemcpy(r->in, b->pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    row.status = c.pass ? ST_OK
               : !reduce_stage.program.rows && k->op == OP_SUM && overflow_possible(k, &shape, ref, values, r->n) ? ST_XFAIL : ST_FAIL;
    /* Without float atomics the order of the additions is fixed, so every run must give the same bits;
     * a result that moves between runs is a race (or reads memory nothing wrote). */
    row.unexpected_vary = !row.same_bits && !(shape.atomic > 0 && k->acc != ACC_I32);
    if (row.status == ST_OK && isfinite(c.want.sum) && !(row.rel_bound < widest_checked_bound(k->acc)))
        row.status = ST_UNCHECKED; /* NaN, Inf: exact */
    if (row.unexpected_vary) row.status = ST_FAIL;
    return row;
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
}

static void print_table_head(const Bench *b, uint64_t n, const char *text, const Options *o)
{
    printf("\nN = %llu", (unsigned long long)n);
    if (strcmp(text, "") && strspn(text, "0123456789") != strlen(text)) printf(" (%s)", text);
    if (reduce_stage.program.rows)
        printf(": %llu rows of %llu", (unsigned long long)b->run.rows, (unsigned long long)b->run.cols);
    if (b->data.input >= 0) printf(", input %s (%s)", input_path, dtypes[b->data.input].name);
    else printf(", fill %s", o->fill);
    if (stage_options.offset) printf(", input %d elements past an aligned address", stage_options.offset);
    if (b->data.input < 0 && b->data.fill != FILL_ONES && b->data.fill != FILL_SEQ && b->data.fill != FILL_MOD100)
        printf(", seed %llu", (unsigned long long)o->seed);
    printf("; median of %d runs (of %d where a run takes over %.0f ms), %s\n", o->reps, o->reps < SLOW_REPS ? o->reps : SLOW_REPS,
           SLOW_RUN_US / 1000.0,
           o->warm ? "L2 left warm (no flush: an input that fits in L2 is read from it, not from DRAM)"
                   : "L2 flushed before each");
    printf("%-34s %16s %9s %9s %5s %10s %8s %6s %8s %7s %5s\n", "kernel", "result", "rel.err", "bound", "check",
           "time(us)", "GB/s", "%peak", "speed-up", "x CUB", "bits");
}

static void print_group_head(const Bench *b, Dtype t, uint64_t n, const Reference *ref, const Device *d)
{
    double sol = speed_of_light_us(&d->sol, bytes_of(b, n, t, 1));
    printf("-- %s input, %.1f MiB; fp64 reference %.10g", dtypes[t].name, n * (double)dtypes[t].bytes / 1048576.0, ref->sum);
    Fill f = b->data.fill;
    if (f == FILL_SHIFTED || f == FILL_WIDE || f == FILL_COND || b->data.input >= 0)
        printf(", condition number sum|x| / |sum x| %.3g", ref->abs_sum / fabs(ref->sum));
    printf("; speed of light %.2f us (%.1f GB/s)\n", sol, bytes_of(b, n, t, 1) / (sol * 1e3));
}

/* "2.5x" of a time against this one, "-" without it. */
static const char *times_text(char *buf, size_t cap, double other_us, double us)
{
    if (other_us > 0 && us > 0) snprintf(buf, cap, "%.*fx", other_us / us < 0.1 ? 3 : 2, other_us / us);
    else snprintf(buf, cap, "-");
    return buf;
}

/* One row of the table, and of the CSV: the kernel's measured row, its speed-up against the baseline and
 * x CUB against CUB on the same input type (times <= 0: none). */
static void report(const Bench *b, const Kernel *k, CsvRow *row, const Device *d, double baseline_us, double cub_us,
                   FILE *csv, const Program *p)
{
    if (row->status == ST_SKIP && row->refused) {
        printf("%-34s skipped: %s\n", k->name, row->refused);
        return;
    }
    if (row->status == ST_SKIP) {
        printf("%-34s skipped: needs compute capability %d.%d (%s); this GPU is %d.%d\n", k->name, k->min_cc / 10,
               k->min_cc % 10, k->needs ? k->needs : "newer instructions", d->gpu.cc_major, d->gpu.cc_minor);
        return;
    }
    double peak = d->gpu.peak_gbps;
    row->pct_peak = 100.0 * row->gbps / peak;
    row->pass = verdicts[row->status].pass;
    row->cols = reduce_stage.program.rows ? b->run.cols : 0;
    row->warm = b->warm;
    row->speedup = baseline_us > 0 ? baseline_us / row->median_us : 0.0;
    row->x_cub = cub_us > 0 ? cub_us / row->median_us : 0.0;
    row->fill = b->data.input >= 0 ? "input" : fill_name(b->data.fill);
    char result[32], speedup[16], x_cub[16];
    if (reduce_stage.program.rows) snprintf(result, sizeof result, "%u rows", (unsigned)b->run.rows); /* the worst row's errors */
    else snprintf(result, sizeof result, "%.9g", row->result);
    printf("%-34s %16s %9.2e %9.2e %5s %10.1f %8.1f %6.1f %8s %7s %5s\n", k->name, result, row->rel_err, row->rel_bound,
           verdicts[row->status].check, row->median_us, row->gbps, row->pct_peak,
           times_text(speedup, sizeof speedup, baseline_us, row->median_us),
           times_text(x_cub, sizeof x_cub, cub_us, row->median_us), row->same_bits ? "same" : "vary");
    if (row->spread > NOISY_SPREAD)
        printf("%-34s   noisy: the runs' interquartile range is %.0f%% of their median, measured three times\n", "",
               100.0 * row->spread);
    if (row->status == ST_XFAIL)
        printf("%-34s   expected: the %s accumulator cannot hold these sums (overflow)\n", "", accumulators[k->acc].name);
    if (row->status == ST_UNCHECKED && row->rel_bound >= 1.0)
        printf("%-34s   not checked: its bound is the whole sum, which a result of 0 would pass (a chain of additions too\n"
               "%-34s   long for the %s accumulator at this N: see the error instead)\n", "", "", accumulators[k->acc].name);
    else if (row->status == ST_UNCHECKED)
        printf("%-34s   not checked: its bound is %g of the sum or more, too wide to hold the %s accumulator to account\n"
               "%-34s   (a chain of additions too long for it at this N: see the error instead)\n", "", TIGHT_BOUND,
               accumulators[k->acc].name, "");
    if (row->unexpected_vary)
        printf("%-34s   the result changed between runs with no atomics to explain it: a race\n", "");
    /* The physical limits: with the L2 flushed, no time can beat reading the input from DRAM. */
    if (!b->warm && row->gbps > peak)
        printf("%-34s   WARNING: %.0f GB/s is above the theoretical DRAM peak (%.0f GB/s): the input cannot have "
               "come from DRAM, so this measurement is wrong\n", "", row->gbps, peak);
    else if (!b->warm && row->median_us < speed_of_light_us(&d->sol, row->bytes_read))
        printf("%-34s   note: faster than the speed of light of its input (%.2f us): the read-only stream is not "
               "yet the limit here\n", "", speed_of_light_us(&d->sol, row->bytes_read));
    csv_write(csv, d->gpu.name, p, row);
}

/* The device's rows of the CSV (stage 00_device): the ceilings every chart and table draws against. */
static void report_device(const Device *d, FILE *csv, const Program *p)
{
    double peak = d->gpu.peak_gbps;
    CsvRow rows[] = {
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

/* What the run needs on the GPU, checked against what is free before anything is allocated; then the
 * buffers. */
static void allocate(Bench *b, const Sizes *s, const Options *o, const Device *d)
{
    uint64_t max_n = 0, max_rows = 0;
    for (int i = 0; i < s->count; i++) {
        if (s->n[i] > max_n) max_n = s->n[i];
        if (s->rows[i] > max_rows) max_rows = s->rows[i];
    }
    b->data.max_n = max_n;
    b->data.uploaded = -1;
    const Kernel *baseline = baseline_kernel();
    int any_in_place = baseline && baseline->flags & IN_PLACE;
    int types_used[DT_COUNT] = {1}, any_lse = 0;
    for (int i = 0; i < reduce_stage.count; i++)
        if (selected(&reduce_stage.kernels[i], o)) {
            any_in_place |= reduce_stage.kernels[i].flags & IN_PLACE;
            types_used[reduce_stage.kernels[i].dtype] = 1;
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
    size_t in_bytes = max_n * sizeof(float); /* fp32 is the widest input type; --offset adds < 64 bytes */
    char what[64];
    snprintf(what, sizeof what, "N = %llu", (unsigned long long)max_n);
    require_gpu_memory(in_bytes * (any_in_place ? 2 : 1) + b->capacity * sizeof(float) + 2 * d->gpu.l2_bytes +
                       cub_bytes + rows_bytes + 2 * COPY_TEST_BYTES + (64u << 20), what, &d->gpu);

    Run *r = &b->run;
    b->data.base = (char *)device_alloc(in_bytes + 64, "the input");
    r->partials = (float *)device_alloc(b->capacity * sizeof(float), "the per-block partial sums");
    r->out = (float *)device_alloc(sizeof(float), "the result");
    r->sm_count = d->gpu.sm_count;
    if (any_in_place) {
        float *pristine = (float *)device_alloc(in_bytes, "the untouched copy of the input");
        CUDA_CHECK(cudaMemcpy(pristine, use_dtype(&b->data, r, DT_F32)->values, in_bytes, cudaMemcpyHostToDevice));
        b->pristine = pristine;
    }
    CUDA_CHECK(cudaMallocHost((void **)&b->h_partials, b->capacity * sizeof(float)));
    void *cub_temp = device_alloc(cub_bytes, "CUB's temporary storage");
    if (reduce_stage.program.rows) rows_alloc(&b->rows, r, max_rows, any_lse);
    cub_use(cub_temp, cub_bytes, b->rows.offsets);
}

/* Every selected kernel at one size, in table order; each run of one input type is preceded by CUB on the
 * same data (its time is the x CUB column) and its row follows them. Returns the failures. */
static int run_size(Bench *b, uint64_t n, const Options *o, const Device *d, FILE *csv, const Program *p)
{
    int input = b->data.input;
    const HostData *f32 = use_dtype(&b->data, &b->run, DT_F32);
    b->run.host_in = f32->values;
    Reference ref = data_reference(&b->data, f32->values, n);
    /* The baseline: measured here unless it is about to run anyway (the first stage's first kernel), or
     * the run leaves L2 warm (its rows are in no table with a speed-up column). */
    const Kernel *baseline = baseline_kernel();
    double baseline_us = -1.0;
    if (reduce_stage.program.rows) rows_prepare(&b->rows, &b->run, f32->values, input >= 0);
    else if (!b->warm && (input < 0 || input == DT_F32) &&
             (&baseline_stage || !selected(baseline, o) || baseline != first_selected(o))) {
        CsvRow m = measure(b, baseline, &ref, f32->values, o);
        baseline_us = m.median_us;
        printf("(speed-up against %s %s on fp32: %.1f us%s)\n", &baseline_stage ? baseline_stage.program.stage : reduce_stage.program.stage,
               baseline->name, baseline_us, m.status == ST_OK ? "" : ", which did not pass its check here");
    }
    int failures = 0;
    for (int i = 0; i < reduce_stage.count;) {
        Dtype t = reduce_stage.kernels[i].dtype;
        int end = i;
        while (end < reduce_stage.count && reduce_stage.kernels[end].dtype == t) end++;
        int any = 0;
        for (int j = i; j < end; j++) any |= selected(&reduce_stage.kernels[j], o) && (input < 0 || input == (int)t);
        if (!any) {
            i = end;
            continue;
        }
        const HostData *h = use_dtype(&b->data, &b->run, t);
        ref = data_reference(&b->data, h->values, n);
        if (!reduce_stage.program.rows) print_group_head(b, t, n, &ref, d);
        Kernel cub = cub_kernel(t, reduce_stage.program.rows);
        CsvRow c = measure(b, &cub, &ref, h->values, o);
        double cub_us = c.status == ST_SKIP ? -1.0 : c.median_us;
        for (int j = i; j < end; j++) {
            const Kernel *k = &reduce_stage.kernels[j];
            if (!selected(k, o)) continue;
            CsvRow m = measure(b, k, &ref, h->values, o);
            if (k == baseline) baseline_us = m.median_us;
            report(b, k, &m, d, baseline_us, cub_us, csv, p);
            failures += m.status == ST_FAIL;
        }
        report(b, &cub, &c, d, baseline_us, cub_us, csv, p);
        failures += c.status == ST_FAIL;
        i = end;
    }
    return failures;
}

int main(int argc, char **argv)
{
    Program p = describe_stage(argv[0]);
    Options o = parse_command_line(argc, argv, &p);
#ifdef RECORD_TREE
    /* No --n (the sizes are the default's own string): a tree kernel at the size its stage declares. */
    if (o.sizes == p.default_sizes && o.kernels && declared_tree_size(o.kernels)) o.sizes = declared_tree_size(o.kernels);
    return record_tree(&reduce_stage, &o, record_path, argv[0]);
#endif
    Bench bench;
    memset(&bench, 0, sizeof bench);
    Data *data = &bench.data;
    data->input = -1;
    if (input_dtype && !input_path) usage_error(argv[0], "%s names the type of a raw --input file", "--dtype");
    Sizes sizes = input_path ? input_sizes(data, &o, &p, argv[0]) : sizes_to_run(&o, argv[0]);
    parse_fill(o.fill, &data->fill);
    if (stage_options.cond && data->fill != FILL_COND) usage_error(argv[0], "%s sets the condition number of --fill cond only", "--cond");
    if (data->fill == FILL_COND && sizes.count > 1)
        usage_error(argv[0], "--fill cond: its data depend on N; give one size a run (--n %s has more)", o.sizes);
    data->seed = o.seed;
    data->cond = stage_options.cond;
    data->offset = stage_options.offset;
    bench.warm = o.warm;
    FILE *csv = open_csv(o.csv_path, argv[0]);

    Device d;
    memset(&d, 0, sizeof d);
    open_gpu(&d.gpu);
    bench.cc = d.gpu.cc_major * 10 + d.gpu.cc_minor;
    size_t free_bytes = 0, total_bytes;
    if (data->input >= 0) CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (data->input >= 0 && sizes.n[0] * sizeof(float) > free_bytes / 2) { /* its buffer and the harness's beside it */
        char msg[512];
        snprintf(msg, sizeof msg, "--input %s: %llu elements need %.1f GiB as fp32 on the GPU, which has %.1f GiB free: "
                 "too large for this GPU", input_path, (unsigned long long)sizes.n[0],
                 sizes.n[0] * 4.0 / 1073741824.0, free_bytes / 1073741824.0);
        usage_error(argv[0], "%s", msg);
    }
    allocate(&bench, &sizes, &o, &d);
    l2_flush_init(&bench.flush, &d.gpu);
    measure_ceilings(&d, &bench.flush);
    print_header(&d);
    report_device(&d, csv, &p);

    int failures = 0;
    for (int s = 0; s < sizes.count; s++) {
        bench.run.n = sizes.n[s];
        bench.run.rows = sizes.rows[s];
        bench.run.cols = sizes.cols[s];
        print_table_head(&bench, sizes.n[s], sizes.text[s], &o);
        failures += run_size(&bench, sizes.n[s], &o, &d, csv, &p);
    }
    if (csv) fclose(csv);
    printf("\n%s\n", failures ? "some kernels FAILED verification" : "all kernels passed verification");
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

/* The program around every stage: options, device query, data, fp64 reference, verification,
 * timing, the CUB row, the output table and the CSV. A stage file provides only `reduce_stage`
 * (its table of kernels); stage 01's first kernel is linked in as `baseline_stage` for speed-ups. */
#include <cub/cub.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

extern const Stage reduce_stage;
extern const Stage baseline_stage __attribute__((weak)); /* absent in stage 01 itself */

#define MAX_SIZES 64
#define COPY_TEST_BYTES (512ull << 20) /* the copy moves it, the read-only streams read twice that */

typedef struct {
    uint64_t sizes[MAX_SIZES];
    uint64_t rows[MAX_SIZES], cols[MAX_SIZES]; /* a row stage's matrix of each size (rows x cols = size) */
    char size_text[MAX_SIZES][32]; /* as given, e.g. "4096x2048" */
    int size_count;
    const char *kernel;   /* NULL: every default kernel */
    Fill fill;
    uint64_t seed;
    int reps;
    int warmup;
    int offset;           /* elements the input starts past an aligned address (0..15) */
    const char *csv_path;
    int check;
    int warm;             /* --l2 warm: no flush, the input left in L2 from the run before */
} Options;

typedef struct {
    char name[256];
    int sm_count, cc_major, cc_minor;
    size_t l2_bytes;
    double peak_gbps;     /* theoretical: 2 x memory clock x bus width */
    double copy_gbps;     /* measured device-to-device copy, bytes read + written */
    SpeedOfLight sol;     /* measured launch floor and read-only streaming bandwidth */
    int mem_clock_mhz, bus_bits;
    GpuInfo gpu;
} Device;

enum { ST_OK, ST_FAIL, ST_XFAIL, ST_SKIP };

typedef struct {
    double result;
    double median_us;
    double tol;
    int status;           /* ST_OK: every run passed; ST_XFAIL: failed where the accumulator overflows */
    int reproducible;     /* every run gave the same bits */
    const char *refused;  /* ST_SKIP because the launcher refused the input (Run.refuse) */
    int unexpected_vary;  /* not reproducible although nothing in it depends on timing: a FAIL */
    double rel_err;       /* |result - reference| / |reference| (a row stage: of the worst row) */
    double rel_bound;     /* the tolerance, relative to the reference (a row stage: of that row) */
} Measure;

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]\n"
        "  --n N[,N...]      elements (default: the stage's sizes); suffixes K M G (x1024), 2^k[+c], SxK;\n"
        "                    a row stage (09) sums each row of a ROWSxCOLS matrix (a plain N: one row)\n"
        "  --rows B --cols H[,H...]   a row stage: B rows of H columns for each H (without --rows:\n"
        "                    the largest --n divided into rows of H)\n"
        "  --kernel NAME|all run the kernels of --list named (NAME,NAME,...), or every default one (default all)\n"
        "  --list            list this stage's kernels and exit\n"
        "  --fill random|ones|seq|large|nan|inf   input data (default random; large: near the input\n"
        "                    type's largest value, to show accumulators overflowing; nan/inf: random with\n"
        "                    one NaN/+Inf at element 777)\n"
        "  --l2 flushed|warm flushed (default): L2 flushed before every run, the input read from DRAM;\n"
        "                    warm: no flush, so an input that fits in L2 is read from it (rows labelled warm)\n"
        "  --offset K        start the input K elements past an aligned address (0-15; default 0):\n"
        "                    kernels that need aligned vector loads refuse, the others must still be right\n"
        "  --seed S          seed of the random fill (default 1)\n"
        "  --reps R          timed repetitions, median reported (default 20)\n"
        "  --warmup W        untimed runs before timing (default 3)\n"
        "  --csv FILE        append one row per kernel and size to FILE\n"
        "  --check           exit 1 if any kernel fails verification\n"
        "  --help            this text\n"
        "exit codes: 0 ok, 1 verification failed (with --check), 2 usage error, 3 no usable GPU or CUDA error\n",
        prog);
}

/* ---- options ------------------------------------------------------------------------------ */

static const Kernel *find_kernel(const Stage *s, const char *name)
{
    for (int i = 0; i < s->count; i++)
        if (!strcmp(s->kernels[i].name, name)) return &s->kernels[i];
    return NULL;
}

static void list_kernels(const Stage *s)
{
    printf("stage %s kernels:\n", s->name);
    for (int i = 0; i < s->count; i++)
        printf("  %-34s %s%s\n", s->kernels[i].name, s->kernels[i].source,
               s->kernels[i].flags & NOT_DEFAULT ? " [not run by default: deliberately wrong]" : "");
    printf("  %-34s %s\n", "cub", s->rows ? "cub::DeviceSegmentedReduce::Sum on the same rows"
                                             : "cub::DeviceReduce on the same data (fp32 or int32 accumulator), after each input type");
    printf("default sizes: %s\n", s->default_sizes ? s->default_sizes : "2^26");
    printf("check sizes: %s\n", s->check_sizes ? s->check_sizes : DEFAULT_CHECK_SIZES);
    if (s->warm_l2) printf("warm-L2 kernels: %s\n", s->warm_l2);
}

static Options parse_options(int argc, char **argv)
{
    const char *prog = argv[0];
    Options o;
    memset(&o, 0, sizeof o);
    const char *sizes = reduce_stage.default_sizes ? reduce_stage.default_sizes : "2^26";
    uint64_t rows_given = 0, cols_given[MAX_SIZES];
    const char *cols_list = NULL;
    o.fill = FILL_RANDOM;
    o.seed = 1;
    o.reps = 20;
    o.warmup = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, prog);
            exit(EXIT_OK);
        }
        if (!strcmp(a, "--list")) {
            list_kernels(&reduce_stage);
            exit(EXIT_OK);
        }
        if (!strcmp(a, "--check")) {
            o.check = 1;
            continue;
        }
        int takes_value = !strcmp(a, "--n") || !strcmp(a, "--kernel") || !strcmp(a, "--fill") ||
                          !strcmp(a, "--seed") || !strcmp(a, "--reps") || !strcmp(a, "--warmup") ||
                          !strcmp(a, "--csv") || !strcmp(a, "--offset") || !strcmp(a, "--rows") ||
                          !strcmp(a, "--cols") || !strcmp(a, "--l2");
        if (!takes_value) usage_error(prog, "unknown option '%s'", a);
        if (i + 1 >= argc) usage_error(prog, "option %s needs a value", a);
        const char *v = argv[++i];
        long num;
        if (!strcmp(a, "--n")) {
            if (parse_size_list(v, o.sizes, MAX_SIZES) < 0)
                usage_error(prog, "--n '%s': give element counts >= 1 such as 1000003, 16M, 2^24+1 or 4096x4096 "
                                  "(comma-separated, at most 64)", v);
            sizes = v;
        } else if (!strcmp(a, "--kernel")) {
            for (const char *p = v; strcmp(v, "all") && *p;) { /* NAME or NAME,NAME,... */
                char name[128];
                int len = (int)strcspn(p, ",");
                snprintf(name, sizeof name, "%.*s", len, p);
                if (!find_kernel(&reduce_stage, name))
                    usage_error(prog, "unknown kernel '%s' (--list shows this stage's kernels)", name);
                p += len + (p[len] == ',');
            }
            o.kernel = strcmp(v, "all") ? v : NULL;
        } else if (!strcmp(a, "--fill")) {
            if (parse_fill(v, &o.fill)) usage_error(prog, "unknown fill '%s' (random, ones, seq, large, nan or inf)", v);
        } else if (!strcmp(a, "--seed")) {
            if (parse_int(v, 0, 0x7fffffffL, &num)) usage_error(prog, "--seed '%s': give a whole number >= 0", v);
            o.seed = (uint64_t)num;
        } else if (!strcmp(a, "--reps")) {
            if (parse_int(v, 1, 100000, &num)) usage_error(prog, "--reps '%s': give a whole number from 1 to 100000", v);
            o.reps = (int)num;
        } else if (!strcmp(a, "--warmup")) {
            if (parse_int(v, 0, 1000, &num)) usage_error(prog, "--warmup '%s': give a whole number from 0 to 1000", v);
            o.warmup = (int)num;
        } else if (!strcmp(a, "--rows") || !strcmp(a, "--cols")) {
            if (!reduce_stage.rows)
                usage_error(prog, "%s: this stage sums one vector; --rows and --cols are for a row stage (09_rows)", a);
            if (!strcmp(a, "--rows") ? parse_size(v, &rows_given) : parse_size_list(v, cols_given, MAX_SIZES) < 0)
                usage_error(prog, "bad value '%s' for --rows or --cols: give sizes >= 1 such as 4096 or 2^12", v);
            if (!strcmp(a, "--cols")) cols_list = v;
        } else if (!strcmp(a, "--l2")) {
            if (strcmp(v, "flushed") && strcmp(v, "warm")) usage_error(prog, "--l2 '%s': give flushed or warm", v);
            o.warm = !strcmp(v, "warm");
        } else if (!strcmp(a, "--offset")) {
            if (parse_int(v, 0, 15, &num)) usage_error(prog, "--offset '%s': give a whole number from 0 to 15", v);
            o.offset = (int)num;
        } else {
            o.csv_path = v;
        }
    }
    o.size_count = parse_size_list(sizes, o.sizes, MAX_SIZES);
    uint64_t largest = 0;
    for (int i = 0, at = 0; i < o.size_count; i++) { /* keep each size as written, for the output */
        int len = (int)strcspn(sizes + at, ",");
        snprintf(o.size_text[i], sizeof o.size_text[i], "%.*s", len, sizes + at);
        at += len + 1;
        parse_matrix(o.size_text[i], &o.rows[i], &o.cols[i]);
        if (o.sizes[i] > largest) largest = o.sizes[i];
    }
    if (rows_given && !cols_list) usage_error(prog, "--rows needs --cols (%s)", "e.g. --rows 4096 --cols 1024");
    if (cols_list) { /* --cols replaces the sizes: B rows (or the largest N in rows) of each H */
        o.size_count = parse_size_list(cols_list, cols_given, MAX_SIZES);
        for (int i = 0; i < o.size_count; i++) {
            o.cols[i] = cols_given[i];
            o.rows[i] = rows_given ? rows_given : largest / cols_given[i];
            if (o.rows[i] == 0 || o.rows[i] > MAX_ELEMENTS / o.cols[i])
                usage_error(prog, "--cols '%s': each H must be at most the number of elements, and rows x H "
                                  "at most 2^40", cols_list);
            o.sizes[i] = o.rows[i] * o.cols[i];
            snprintf(o.size_text[i], sizeof o.size_text[i], "%llux%llu", (unsigned long long)o.rows[i],
                     (unsigned long long)o.cols[i]);
        }
    }
    return o;
}

/* ---- device ------------------------------------------------------------------------------- */

static void open_device(Device *d)
{
    GpuInfo gpu;
    open_gpu(&gpu);
    d->gpu = gpu;
    snprintf(d->name, sizeof d->name, "%s", gpu.name);
    d->sm_count = gpu.sm_count;
    d->cc_major = gpu.cc_major;
    d->cc_minor = gpu.cc_minor;
    d->l2_bytes = gpu.l2_bytes;
    d->peak_gbps = gpu.peak_gbps;
    d->mem_clock_mhz = gpu.mem_clock_mhz;
    d->bus_bits = gpu.bus_bits;
}

/* The device's ceilings, measured: a device-to-device copy (bytes read + written, the median of 10 runs
 * after untimed ones), then the speed of light (launch floor and read-only stream) over the same buffers. */
static void measure_ceilings(Device *d, const L2Flush *flush)
{
    char *a = (char *)device_alloc(2 * COPY_TEST_BYTES, "the bandwidth tests");
    char *b = a + COPY_TEST_BYTES;
    CUDA_CHECK(cudaMemset(a, 0, 2 * COPY_TEST_BYTES));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    double copy_ms[10];
    for (int i = -2; i < 10; i++) {
        float t;
        CUDA_CHECK(cudaEventRecord(start));
        CUDA_CHECK(cudaMemcpyAsync(b, a, COPY_TEST_BYTES, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (i >= 0) copy_ms[i] = t;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    d->copy_gbps = 2.0 * COPY_TEST_BYTES / (median(copy_ms, 10) * 1e-3) / 1e9;
    /* After the copies: its untimed runs write back what the copies left dirty in L2. */
    measure_speed_of_light(&d->sol, &d->gpu, flush, a, 2 * COPY_TEST_BYTES);
    CUDA_CHECK(cudaFree(a));
}

/* ---- input types ---------------------------------------------------------------------------- */

static const char *dtype_names[DT_COUNT] = {"f32", "f16", "bf16", "fp8_e4m3", "fp8_e5m2", "i8"};
static const int dtype_bytes[DT_COUNT] = {4, 2, 2, 1, 1, 1};
/* Largest finite value of each input type: --fill large scales [0.5, 1) to it. */
static const double dtype_max[DT_COUNT] = {FLT_MAX, 65504.0, 3.3895313892515355e38, 448.0, 57344.0, 127.0};
static const char *acc_names[] = {"fp32", "fp16", "bf16", "int32", "fp64", "Kahan fp32"};

static double acc_max(Acc a)
{
    return a == ACC_F16 ? 65504.0 : a == ACC_BF16 ? 3.3895313892515355e38 : a == ACC_I32 ? 2147483647.0
         : a == ACC_F64 ? DBL_MAX : FLT_MAX;
}

/* One input type's data: the bytes the kernels read, and the same values as floats (every value of
 * these types is exact in fp32), from which the fp64 reference is computed. */
typedef struct {
    void *bytes;
    float *values;
} HostData;

static float encode(Dtype t, float v, void *bytes, uint64_t i)
{
    switch (t) {
    case DT_F16: {
        __half h = __float2half_rn(v);
        ((__half *)bytes)[i] = h;
        return __half2float(h);
    }
    case DT_BF16: {
        __nv_bfloat16 h = __float2bfloat16_rn(v);
        ((__nv_bfloat16 *)bytes)[i] = h;
        return __bfloat162float(h);
    }
    case DT_FP8_E4M3:
    case DT_FP8_E5M2: {
        __nv_fp8_interpretation_t kind = t == DT_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2;
        __nv_fp8_storage_t q = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, kind);
        ((__nv_fp8_storage_t *)bytes)[i] = q;
        return __half2float(__half(__nv_cvt_fp8_to_halfraw(q, kind)));
    }
    case DT_I8: {
        float q = isfinite(v) ? fminf(fmaxf(floorf(v), -128.0f), 127.0f) : 0.0f; /* int8 has no NaN or Inf */
        ((int8_t *)bytes)[i] = (int8_t)q;
        return q;
    }
    default:
        ((float *)bytes)[i] = v;
        return v;
    }
}

/* The fill in type t: random values in [-1, 1) rounded to t (integers in [-128, 127] for int8), ones,
 * seq, or large values near t's maximum. */
static HostData make_host_data(Dtype t, const Options *o, uint64_t n)
{
    HostData h;
    h.bytes = malloc(n * dtype_bytes[t]);
    h.values = (float *)malloc(n * sizeof(float));
    if (!h.bytes || !h.values) {
        fprintf(stderr, "error: could not allocate %llu bytes of host memory for the input\n",
                (unsigned long long)(n * (dtype_bytes[t] + sizeof(float))));
        exit(EXIT_USAGE);
    }
    double scale = o->fill == FILL_LARGE ? dtype_max[t] : t == DT_I8 && o->fill == FILL_RANDOM ? 128.0 : 1.0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++)
        h.values[i] = encode(t, (float)(fill_value(o->fill, o->seed, (uint64_t)i) * scale), h.bytes, (uint64_t)i);
    return h;
}

/* ---- one kernel, measured ----------------------------------------------------------------- */

typedef struct {
    Run run;
    int cc;                  /* compute capability, major * 10 + minor */
    const float *pristine;   /* untouched copy of the fp32 input, for IN_PLACE kernels (NULL if none) */
    HostData host[DT_COUNT]; /* made when a kernel of that type first runs */
    int uploaded;            /* the type whose data is in run.in, -1: none */
    char *base;              /* the device input buffer; the input starts --offset elements into it */
    int offset;
    uint64_t max_n;
    float *h_partials;       /* pinned, PARTIALS_CAPACITY(max n) */
    uint64_t capacity;
    L2Flush flush;           /* run before every timed run (unless --l2 warm): evicts the input from L2 */
    int warm;
    Dtype cub_dtype;         /* the input type the CUB row reduces */
    void *cub_temp;
    size_t cub_temp_bytes;
    cudaEvent_t start, stop;
    /* Row stages: each row's fp64 reference and tolerance, the row sums read back, CUB's offsets. */
    Reference *row_refs;
    double *row_tols;
    float *h_row_sums;
    int64_t *row_offsets;
} Bench;

static Bench g;              /* the CUB launcher needs its temporary storage */

static const HostData *use_dtype(Dtype t, const Options *o)
{
    for (int u = DT_F32 + 1; u < DT_COUNT; u++) /* keep fp32 (the baseline) and t: bounded host memory */
        if (u != (int)t && g.host[u].bytes) {
            free(g.host[u].bytes);
            free(g.host[u].values);
            g.host[u].bytes = NULL;
            g.host[u].values = NULL;
        }
    if (!g.host[t].bytes) g.host[t] = make_host_data(t, o, g.max_n);
    if (g.uploaded != (int)t) {
        g.run.data = g.base + (size_t)g.offset * dtype_bytes[t];
        g.run.in = (float *)g.run.data;
        CUDA_CHECK(cudaMemcpy((void *)g.run.data, g.host[t].bytes, g.max_n * dtype_bytes[t], cudaMemcpyHostToDevice));
        g.uploaded = t;
    }
    return &g.host[t];
}

/* CUB on every input type: fp32 accumulator (int32 for int8), as a user of the library would write. */
struct ToFloat {
    __device__ float operator()(__half x) const { return __half2float(x); }
    __device__ float operator()(__nv_bfloat16 x) const { return __bfloat162float(x); }
    __device__ float operator()(__nv_fp8_e4m3 x) const { return (float)x; }
    __device__ float operator()(__nv_fp8_e5m2 x) const { return (float)x; }
};
struct ToInt {
    __device__ int operator()(int8_t x) const { return x; }
};

template <typename T>
static cudaError_t cub_to_float(void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    return cub::DeviceReduce::TransformReduce(temp, bytes, (const T *)in, (float *)out, (int64_t)n,
                                              cuda::std::plus<float>(), ToFloat(), 0.0f);
}

static cudaError_t cub_reduce(Dtype t, void *temp, size_t &bytes, const void *in, void *out, uint64_t n)
{
    switch (t) {
    case DT_F16: return cub_to_float<__half>(temp, bytes, in, out, n);
    case DT_BF16: return cub_to_float<__nv_bfloat16>(temp, bytes, in, out, n);
    case DT_FP8_E4M3: return cub_to_float<__nv_fp8_e4m3>(temp, bytes, in, out, n);
    case DT_FP8_E5M2: return cub_to_float<__nv_fp8_e5m2>(temp, bytes, in, out, n);
    case DT_I8:
        return cub::DeviceReduce::TransformReduce(temp, bytes, (const int8_t *)in, (int *)out, (int64_t)n,
                                                  cuda::std::plus<int>(), ToInt(), 0);
    default: return cub::DeviceReduce::Sum(temp, bytes, (const float *)in, (float *)out, (int64_t)n);
    }
}

static void launch_cub(Run *r)
{
    size_t bytes = g.cub_temp_bytes;
    CUDA_CHECK(cub_reduce(g.cub_dtype, g.cub_temp, bytes, r->data, r->out, r->n));
    r->shape = shape_unknown(r->n);
    if (g.cub_dtype == DT_I8) r->shape.acc_bits = ACC_EXACT;
}

/* A row stage's CUB row: a segmented reduction, one segment per row. */
static void launch_cub_rows(Run *r)
{
    size_t bytes = g.cub_temp_bytes;
    CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(g.cub_temp, bytes, r->in, r->row_sums, (int64_t)r->rows, g.row_offsets,
                                               g.row_offsets + 1));
    r->shape = shape_unknown(r->cols);
}

static double finish(Run *r, const char *name)
{
    if (r->host_partials > g.capacity) {
        fprintf(stderr, "error: kernel %s wrote %llu partials, more than the harness's room (%llu)\n", name,
                (unsigned long long)r->host_partials, (unsigned long long)g.capacity);
        exit(EXIT_GPU);
    }
    CUDA_CHECK(cudaMemcpy(g.h_partials, r->partials, r->host_partials * sizeof(float), cudaMemcpyDeviceToHost));
    double s = 0.0;
    for (uint64_t i = 0; i < r->host_partials; i++) s += g.h_partials[i];
    return s;
}

/* One run from "input in device memory" to "sum available": the kernels, and for a kernel that
 * finishes on the CPU the copy of its partials and their sum. Restoring the input of an in-place
 * kernel and flushing L2 happen before the start event. */
static double run_once(const Kernel *k, Run *r, float *ms)
{
    if (k->flags & IN_PLACE)
        CUDA_CHECK(cudaMemcpyAsync(r->in, g.pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    if (g.warm) keep_gpu_busy(50.0, 0);
    else l2_flush(&g.flush, 0);
    r->host_partials = 0;
    r->param = k->param;
    r->refuse = NULL;
    memset(&r->shape, 0, sizeof r->shape);
    CUDA_CHECK(cudaEventRecord(g.start));
    k->launch(r);
    if (r->refuse) return NAN; /* nothing was launched */
    double result = r->host_partials ? finish(r, k->name) : 0.0;
    CUDA_CHECK(cudaEventRecord(g.stop));
    CUDA_CHECK(cudaEventSynchronize(g.stop));
    CUDA_CHECK(cudaEventElapsedTime(ms, g.start, g.stop));
    if (!r->host_partials && !reduce_stage.rows) {
        float out;
        CUDA_CHECK(cudaMemcpy(&out, r->out, sizeof out, cudaMemcpyDeviceToHost));
        int as_int;
        memcpy(&as_int, &out, sizeof as_int);
        result = k->acc == ACC_I32 ? (double)as_int : (double)out;
    }
    return result;
}

/* ---- row stages ------------------------------------------------------------------------------ */

static void row_references(const float *x, uint64_t rows, uint64_t cols)
{
#pragma omp parallel for schedule(dynamic, 16) if (rows >= 64)
    for (int64_t i = 0; i < (int64_t)rows; i++) g.row_refs[i] = reference_sum(x + (uint64_t)i * cols, cols);
}

/* Every row's sum against its reference (tolerances from the launcher's shape of one row, computed
 * once per kernel and size): 1 if all pass; the worst row's errors and a hash of the bits of all sums,
 * for the run-to-run comparison. */
static int rows_pass(const Run *r, int new_shape, double *rel_err, double *rel_bound, double *hash)
{
    CUDA_CHECK(cudaMemcpy(g.h_row_sums, r->row_sums, r->rows * sizeof(float), cudaMemcpyDeviceToHost));
    if (new_shape) {
#pragma omp parallel for schedule(static) if (r->rows >= 64)
        for (int64_t i = 0; i < (int64_t)r->rows; i++) g.row_tols[i] = sum_tolerance(r->shape, &g.row_refs[i], r->cols);
    }
    int pass = 1;
    double worst = -1.0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (uint64_t i = 0; i < r->rows; i++) {
        const Reference *ref = &g.row_refs[i];
        double v = g.h_row_sums[i], tol = g.row_tols[i];
        int ok = result_passes(v, ref, tol);
        double err = relative_error(v, ref->sum);
        double score = !ok ? INFINITY : isnan(err) ? 0.0 : err;
        pass &= ok;
        if (score > worst) {
            worst = score;
            *rel_err = err;
            *rel_bound = ref->sum != 0.0 ? tol / fabs(ref->sum) : tol;
        }
        uint32_t bits;
        memcpy(&bits, &g.h_row_sums[i], sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
    }
    memcpy(hash, &h, sizeof h);
    return pass;
}

/* Can the kernel's accumulators overflow on this data? Its narrow accumulator holds sums of up to
 * shape.span consecutive inputs, the fp32 one (atomics, CPU finish excluded) sums of everything. */
static int overflow_possible(const Kernel *k, const Shape *s, const Reference *ref, const float *values, uint64_t n)
{
    if (ref->non_finite) return 0; /* a NaN or Inf in the input is no overflow: it must show in the result */
    if (s->acc_bits == ACC_EXACT) return fabs(ref->sum) > 2147483647.0;
    if (ref->abs_sum > FLT_MAX) return 1;
    return (k->acc == ACC_F16 || k->acc == ACC_BF16) && max_chunk_abs_sum(values, n, s->span) > acc_max(k->acc);
}

static Measure measure(const Kernel *k, const Reference *ref, const float *values, const Options *o)
{
    Run *r = &g.run;
    Measure m;
    memset(&m, 0, sizeof m);
    if (k->min_cc > g.cc) {
        m.status = ST_SKIP;
        return m;
    }
    double *us = (double *)malloc(sizeof(double) * o->reps);
    if (!us) {
        fprintf(stderr, "error: out of host memory\n");
        exit(EXIT_GPU);
    }
    float ms;
    /* The checked run: partials poisoned with NaN, so a partial that no block wrote shows. */
    CUDA_CHECK(cudaMemset(r->partials, 0xff, PARTIALS_CAPACITY(r->n) * sizeof(float)));
    CUDA_CHECK(cudaMemset(r->out, 0xff, sizeof(float)));
    if (reduce_stage.rows) CUDA_CHECK(cudaMemset(r->row_sums, 0xff, r->rows * sizeof(float)));
    m.result = run_once(k, r, &ms);
    if (r->refuse) {
        free(us);
        m.status = ST_SKIP;
        m.refused = r->refuse;
        return m;
    }
    Shape shape = r->shape;
    if (reduce_stage.rows) {
        int pass = rows_pass(r, 1, &m.rel_err, &m.rel_bound, &m.result);
        double first = m.result;
        m.reproducible = 1;
        for (int i = 0; i < o->warmup; i++) run_once(k, r, &ms);
        for (int i = 0; i < o->reps; i++) {
            run_once(k, r, &ms);
            us[i] = ms * 1e3;
            double err, bound;
            if (!rows_pass(r, 0, &err, &bound, &m.result)) pass = 0;
            if (memcmp(&first, &m.result, sizeof first)) m.reproducible = 0;
        }
        m.median_us = median(us, o->reps);
        free(us);
        m.status = pass ? ST_OK : ST_FAIL;
        m.unexpected_vary = !m.reproducible && !(shape.atomic > 0);
        if (m.unexpected_vary) m.status = ST_FAIL;
        return m;
    }
    /* A maximum involves no rounding: it must be the largest input exactly. */
    Reference as_max = *ref;
    as_max.sum = ref->max;
    if (k->op == OP_MAX) ref = &as_max;
    m.tol = k->op == OP_MAX ? 0.0 : sum_tolerance(shape, ref, r->n);
    int pass = result_passes(m.result, ref, m.tol);
    m.reproducible = 1;
    for (int i = 0; i < o->warmup; i++) run_once(k, r, &ms);
    for (int i = 0; i < o->reps; i++) {
        double res = run_once(k, r, &ms);
        us[i] = ms * 1e3;
        if (memcmp(&res, &m.result, sizeof res)) m.reproducible = 0;
        if (!result_passes(res, ref, m.tol)) pass = 0;
    }
    m.median_us = median(us, o->reps);
    free(us);
    double want = k->op == OP_MAX ? ref->max : ref->sum;
    m.rel_err = relative_error(m.result, want);
    m.rel_bound = want != 0.0 ? m.tol / fabs(want) : m.tol;
    if (k->flags & IN_PLACE) /* leave the input as the next kernel expects it */
        CUDA_CHECK(cudaMemcpy(r->in, g.pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    m.status = pass ? ST_OK : k->op == OP_SUM && overflow_possible(k, &shape, ref, values, r->n) ? ST_XFAIL : ST_FAIL;
    /* Without float atomics the order of the additions is fixed, so every run must give the same bits;
     * a result that moves between runs is a race (or reads memory nothing wrote). */
    m.unexpected_vary = !m.reproducible && !(shape.atomic > 0 && k->acc != ACC_I32);
    if (m.unexpected_vary) m.status = ST_FAIL;
    return m;
}

/* ---- output ------------------------------------------------------------------------------- */

static void print_header(const Device *d)
{
    printf("stage %s on %s (sm_%d%d, %d SMs, L2 %.1f MiB)\n", reduce_stage.name, d->name, d->cc_major,
           d->cc_minor, d->sm_count, d->l2_bytes / 1048576.0);
    printf("DRAM theoretical peak %.1f GB/s (%d MHz x %d-bit bus x 2); device-to-device copy %.1f GB/s "
           "(bytes read + written, %llu MiB)\n",
           d->peak_gbps, d->mem_clock_mhz, d->bus_bits, d->copy_gbps, COPY_TEST_BYTES >> 20);
    printf("speed of light: launch floor %.2f us (an empty kernel between the events) + bytes / %.1f GB/s "
           "(%.1f%% of peak: read-only stream, %s; %.1f GB/s over the whole %llu MiB)\n",
           d->sol.floor_us, d->sol.read_gbps, 100.0 * d->sol.read_gbps / d->peak_gbps, d->sol.variant,
           d->sol.whole_gbps, (unsigned long long)(d->sol.bytes >> 20));
}

static void print_table_head(uint64_t n, const char *text, const Options *o)
{
    printf("\nN = %llu", (unsigned long long)n);
    if (strcmp(text, "") && strspn(text, "0123456789") != strlen(text)) printf(" (%s)", text);
    if (reduce_stage.rows)
        printf(": %llu rows of %llu", (unsigned long long)g.run.rows, (unsigned long long)g.run.cols);
    printf(", fill %s", fill_name(o->fill));
    if (o->offset) printf(", input %d elements past an aligned address", o->offset);
    if (o->fill == FILL_RANDOM || o->fill == FILL_LARGE) printf(", seed %llu", (unsigned long long)o->seed);
    printf("; median of %d runs, %s\n", o->reps,
           o->warm ? "L2 left warm (no flush: an input that fits in L2 is read from it, not from DRAM)"
                   : "L2 flushed before each");
    printf("%-34s %16s %9s %9s %5s %10s %8s %6s %8s %5s\n", "kernel", "result", "rel.err", "bound", "check",
           "time(us)", "GB/s", "%peak", "speed-up", "bits");
}

/* Bytes the algorithm must move: its input (and a row stage's row sums, written). */
static double bytes_of(uint64_t n, Dtype t)
{
    return n * (double)dtype_bytes[t] + (reduce_stage.rows ? g.run.rows * 4.0 : 0.0);
}

static void print_group_head(Dtype t, uint64_t n, const Reference *ref, const Device *d)
{
    double sol = speed_of_light_us(&d->sol, bytes_of(n, t));
    printf("-- %s input, %.1f MiB; fp64 reference %.10g; speed of light %.2f us (%.1f GB/s)\n", dtype_names[t],
           n * (double)dtype_bytes[t] / 1048576.0, ref->sum, sol, bytes_of(n, t) / (sol * 1e3));
}

static double gbps_of(const Measure *m, uint64_t n, Dtype t)
{
    return bytes_of(n, t) / (m->median_us * 1e-6) / 1e9;
}

static void print_row(const char *name, const Kernel *k, const Measure *m, const Device *d,
                      uint64_t n, double baseline_us)
{
    if (m->status == ST_SKIP && m->refused) {
        printf("%-34s skipped: %s\n", name, m->refused);
        return;
    }
    if (m->status == ST_SKIP) {
        printf("%-34s skipped: needs compute capability %d.%d (%s); this GPU is %d.%d\n", name, k->min_cc / 10,
               k->min_cc % 10, k->needs ? k->needs : "newer instructions", d->cc_major, d->cc_minor);
        return;
    }
    static const char *status[] = {"ok", "FAIL", "xfail"};
    double gbps = gbps_of(m, n, k->dtype);
    char result[32], speedup[16] = "-";
    if (reduce_stage.rows) snprintf(result, sizeof result, "%u rows", (unsigned)g.run.rows); /* the worst row's errors */
    else snprintf(result, sizeof result, "%.9g", m->result);
    if (baseline_us > 0) snprintf(speedup, sizeof speedup, "%.1fx", baseline_us / m->median_us);
    printf("%-34s %16s %9.2e %9.2e %5s %10.1f %8.1f %6.1f %8s %5s\n", name, result, m->rel_err, m->rel_bound,
           status[m->status], m->median_us, gbps, 100.0 * gbps / d->peak_gbps, speedup,
           m->reproducible ? "same" : "vary");
    if (m->status == ST_XFAIL)
        printf("%-34s   expected: the %s accumulator cannot hold these sums (overflow)\n", "", acc_names[k->acc]);
    if (m->unexpected_vary)
        printf("%-34s   the result changed between runs with no atomics to explain it: a race\n", "");
    /* The physical limits: with the L2 flushed, no time can beat reading the input from DRAM. */
    if (!g.warm && gbps > d->peak_gbps)
        printf("%-34s   WARNING: %.0f GB/s is above the theoretical DRAM peak (%.0f GB/s): the input cannot have "
               "come from DRAM, so this measurement is wrong\n", "", gbps, d->peak_gbps);
    else if (!g.warm && m->median_us < speed_of_light_us(&d->sol, n * (double)dtype_bytes[k->dtype]))
        printf("%-34s   note: faster than the speed of light of its input (%.2f us): the read-only stream is not "
               "yet the limit here\n", "", speed_of_light_us(&d->sol, n * (double)dtype_bytes[k->dtype]));
}

/* The CSV columns (CSV_HEADER); cols is a row stage's row length (empty for the others); a row with no
 * pass value is a 00_device row: no check, no l2 label. */
static void csv_row(FILE *csv, const Device *d, const char *stage, const char *kernel, const char *dtype, uint64_t n,
                    double us, double gbps, double pct, double rel_err, const char *pass)
{
    if (!csv) return;
    if (ftell(csv) == 0) fprintf(csv, "%s\n", CSV_HEADER);
    fprintf(csv, "%s,%s,%s,%s,%llu,", d->name, stage, kernel, dtype, (unsigned long long)n);
    if (us > 0) fprintf(csv, "%.3f", us);
    fprintf(csv, ",");
    if (gbps > 0) fprintf(csv, "%.2f,%.2f", gbps, pct);
    else fprintf(csv, ",");
    if (pass) fprintf(csv, ",%.3e,%s,", rel_err, pass);
    else fprintf(csv, ",,,");
    if (pass && reduce_stage.rows) fprintf(csv, "%llu", (unsigned long long)g.run.cols);
    fprintf(csv, ",%s\n", pass ? (g.warm ? "warm" : "flushed") : "");
}

static void csv_measure(FILE *csv, const Device *d, const Kernel *k, uint64_t n, const Measure *m)
{
    static const char *pass[] = {"1", "0", "xfail"};
    if (m->status == ST_SKIP) return;
    double gbps = gbps_of(m, n, k->dtype);
    csv_row(csv, d, reduce_stage.name, k->name, dtype_names[k->dtype], n, m->median_us, gbps,
            100.0 * gbps / d->peak_gbps, m->rel_err, pass[m->status]);
}

/* ---- main --------------------------------------------------------------------------------- */

static int selected(const Kernel *k, const Options *o)
{
    if (!o->kernel) return !(k->flags & NOT_DEFAULT);
    size_t len = strlen(k->name);
    for (const char *p = o->kernel; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
        if (strcspn(p, ",") == len && !strncmp(p, k->name, len)) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    FILE *csv = open_csv(o.csv_path, argv[0]);

    Device d;
    open_device(&d);
    g.cc = d.cc_major * 10 + d.cc_minor;
    uint64_t max_n = 0, max_rows = 0;
    for (int i = 0; i < o.size_count; i++) {
        if (o.sizes[i] > max_n) max_n = o.sizes[i];
        if (o.rows[i] > max_rows) max_rows = o.rows[i];
    }
    g.max_n = max_n;
    g.uploaded = -1;

    const Kernel *baseline = &baseline_stage ? &baseline_stage.kernels[0] : &reduce_stage.kernels[0];
    int any_in_place = baseline->flags & IN_PLACE;
    int types_used[DT_COUNT] = {1};
    for (int i = 0; i < reduce_stage.count; i++)
        if (selected(&reduce_stage.kernels[i], &o)) {
            any_in_place |= reduce_stage.kernels[i].flags & IN_PLACE;
            types_used[reduce_stage.kernels[i].dtype] = 1;
        }

    /* What the run needs on the GPU, checked against what is free before anything is allocated. */
    g.capacity = PARTIALS_CAPACITY(max_n);
    for (int t = 0; t < DT_COUNT; t++) {
        size_t bytes = 0;
        if (types_used[t]) CUDA_CHECK(cub_reduce((Dtype)t, NULL, bytes, NULL, NULL, max_n));
        if (bytes > g.cub_temp_bytes) g.cub_temp_bytes = bytes;
    }
    size_t rows_bytes = 0;
    if (reduce_stage.rows) {
        size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(NULL, bytes, (const float *)NULL, (float *)NULL, (int64_t)max_rows,
                                                   (const int64_t *)NULL, (const int64_t *)NULL));
        if (bytes > g.cub_temp_bytes) g.cub_temp_bytes = bytes;
        rows_bytes = max_rows * (sizeof(float) + 2 * sizeof(int64_t));
    }
    size_t in_bytes = max_n * sizeof(float); /* fp32 is the widest input type; --offset adds < 64 bytes */
    size_t need = in_bytes * (any_in_place ? 2 : 1) + g.capacity * sizeof(float) + 2 * d.l2_bytes +
                  g.cub_temp_bytes + rows_bytes + 2 * COPY_TEST_BYTES + (64u << 20);
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need > free_b) {
        fprintf(stderr, "error: N = %llu needs about %zu bytes of GPU memory; %s has %zu bytes free "
                        "(of %zu): choose a smaller --n\n",
                (unsigned long long)max_n, need, d.name, free_b, total_b);
        exit(EXIT_USAGE);
    }

    l2_flush_init(&g.flush, &d.gpu);
    g.warm = o.warm;
    measure_ceilings(&d, &g.flush);
    print_header(&d);
    csv_row(csv, &d, "00_device", "dram_peak", "f32", 0, 0, d.peak_gbps, 100.0, 0, NULL);
    csv_row(csv, &d, "00_device", "d2d_copy", "f32", COPY_TEST_BYTES / 4, 0, d.copy_gbps,
            100.0 * d.copy_gbps / d.peak_gbps, 0, NULL);
    csv_row(csv, &d, "00_device", "read_sol", "f32", d.sol.bytes / 4, 0, d.sol.read_gbps,
            100.0 * d.sol.read_gbps / d.peak_gbps, 0, NULL);
    csv_row(csv, &d, "00_device", "launch_floor", "f32", 0, d.sol.floor_us, 0, 0, 0, NULL);
    csv_row(csv, &d, "00_device", "l2_size", "f32", d.l2_bytes / 4, 0, 0, 0, 0, NULL);

    Run *r = &g.run;
    g.offset = o.offset;
    g.base = (char *)device_alloc(in_bytes + 64, "the input");
    r->partials = (float *)device_alloc(g.capacity * sizeof(float), "the per-block partial sums");
    r->out = (float *)device_alloc(sizeof(float), "the result");
    r->sm_count = d.sm_count;
    const HostData *f32 = use_dtype(DT_F32, &o);
    float *pristine = NULL;
    if (any_in_place) {
        pristine = (float *)device_alloc(in_bytes, "the untouched copy of the input");
        CUDA_CHECK(cudaMemcpy(pristine, f32->values, in_bytes, cudaMemcpyHostToDevice));
    }
    g.pristine = pristine;
    CUDA_CHECK(cudaMallocHost((void **)&g.h_partials, g.capacity * sizeof(float)));
    g.cub_temp = device_alloc(g.cub_temp_bytes ? g.cub_temp_bytes : 1, "CUB's temporary storage");
    CUDA_CHECK(cudaEventCreate(&g.start));
    CUDA_CHECK(cudaEventCreate(&g.stop));
    if (reduce_stage.rows) {
        r->row_sums = (float *)device_alloc(max_rows * sizeof(float), "the row sums");
        g.row_offsets = (int64_t *)device_alloc((max_rows + 1) * sizeof(int64_t), "CUB's row offsets");
        CUDA_CHECK(cudaMallocHost((void **)&g.h_row_sums, max_rows * sizeof(float)));
        g.row_refs = (Reference *)malloc(max_rows * sizeof(Reference));
        g.row_tols = (double *)malloc(max_rows * sizeof(double));
        if (!g.row_refs || !g.row_tols) {
            fprintf(stderr, "error: out of host memory for %llu row references\n", (unsigned long long)max_rows);
            exit(EXIT_USAGE);
        }
    }

    int failures = 0;
    for (int s = 0; s < o.size_count; s++) {
        uint64_t n = o.sizes[s];
        r->n = n;
        r->rows = o.rows[s];
        r->cols = o.cols[s];
        print_table_head(n, o.size_text[s], &o);

        /* Stage 01's first kernel is the baseline: measured here unless it is about to run anyway (a
         * row stage has none: its kernels do other work). */
        f32 = use_dtype(DT_F32, &o);
        Reference ref = reference_sum(f32->values, n);
        double baseline_us = -1.0;
        if (reduce_stage.rows) {
            int64_t *offsets = (int64_t *)malloc((r->rows + 1) * sizeof(int64_t));
            if (!offsets) {
                fprintf(stderr, "error: out of host memory for the row offsets\n");
                exit(EXIT_USAGE);
            }
            for (uint64_t i = 0; i <= r->rows; i++) offsets[i] = (int64_t)(i * r->cols);
            CUDA_CHECK(cudaMemcpy(g.row_offsets, offsets, (r->rows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
            free(offsets);
            row_references(f32->values, r->rows, r->cols);
        } else if (&baseline_stage || !selected(baseline, &o)) {
            Measure b = measure(baseline, &ref, f32->values, &o);
            baseline_us = b.median_us;
            printf("(speed-up against 01_naive %s on fp32: %.1f us%s)\n", baseline->name, baseline_us,
                   b.status == ST_OK ? "" : ", which did not pass its check here");
        }
        /* The kernels in table order; after each run of one input type, CUB on the same data. */
        int group = -1;
        const HostData *h = NULL;
        for (int i = 0; i <= reduce_stage.count; i++) {
            const Kernel *k = i < reduce_stage.count ? &reduce_stage.kernels[i] : NULL;
            if (k && !selected(k, &o)) continue;
            if (group >= 0 && (!k || (int)k->dtype != group)) {
                g.cub_dtype = (Dtype)group;
                Kernel cub = {"cub", "cub::DeviceReduce", reduce_stage.rows ? launch_cub_rows : launch_cub, 0, 0,
                              (Dtype)group, group == DT_I8 ? ACC_I32 : ACC_F32};
                Measure m = measure(&cub, &ref, h->values, &o);
                print_row("cub", &cub, &m, &d, n, baseline_us);
                csv_measure(csv, &d, &cub, n, &m);
                failures += m.status == ST_FAIL;
            }
            if (!k) break;
            if ((int)k->dtype != group) {
                group = k->dtype;
                h = use_dtype(k->dtype, &o);
                ref = reference_sum(h->values, n);
                if (!reduce_stage.rows) print_group_head(k->dtype, n, &ref, &d);
            }
            Measure m = measure(k, &ref, h->values, &o);
            if (k == baseline) baseline_us = m.median_us; /* stage 01: its first row */
            print_row(k->name, k, &m, &d, n, baseline_us);
            csv_measure(csv, &d, k, n, &m);
            failures += m.status == ST_FAIL;
        }
    }
    if (csv) fclose(csv);
    printf("\n%s\n", failures ? "some kernels FAILED verification" : "all kernels passed verification");
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

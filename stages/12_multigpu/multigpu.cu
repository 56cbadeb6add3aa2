/* Stage 12: the last level of the reduction hierarchy, across GPUs, with NCCL.
 * Two parts. The sum: a vector spread over G GPUs, each GPU reduces its shard with stage 08's kernel
 * (linked in through its table), then one ncclAllReduce adds the G partial sums. The data-parallel
 * case: ncclAllReduce of whole fp32/bf16 arrays (gradients), timed and reported like nccl-tests.
 * Two ways to drive the GPUs: one process for all of them (ncclCommInitAll), or one process per GPU
 * (--rank/--nranks/--id-file: rank 0 publishes ncclGetUniqueId through a file). */
#include <cuda_bf16.h>
#include <nccl.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
#error "stage 12 needs NCCL 2.10 or newer (bf16 all-reduce)"
#endif

extern const Stage reduce_stage; /* stage 08's table: stages/08_roofline/reduce.cu compiled as an object */

#define STAGE_NAME "12_multigpu"
#define MAX_GPUS 64
#define MAX_SIZES 64
#define MAX_REPS 1000
#define SUM_SEED 1
#define ARRAY_SEED 1000   /* rank r's arrays are filled with seed ARRAY_SEED + r */
#define SAMPLES 65536     /* elements of each all-reduce result compared with the fp64 sum */
#define SLOT 256          /* bytes of one rank's report in a gather */
#define NCCL_SLACK (768ull << 20) /* GPU memory left for NCCL's own buffers and the CUDA context */
#define DEFAULT_N "2^28"
#define DEFAULT_SIZES "1M,2M,4M,8M,16M,32M,64M,128M,256M,512M,1G"

static void nccl_check(ncclResult_t res, const char *what, const char *file, int line)
{
    if (res == ncclSuccess) return;
    fprintf(stderr, "error: NCCL call failed: %s\n  at %s:%d: %s\n", what, file, line, ncclGetErrorString(res));
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 13, 0)
    const char *last = ncclGetLastError(NULL);
    if (last && *last) fprintf(stderr, "  NCCL: %s\n", last);
#endif
    exit(EXIT_GPU);
}
#define NCCL_CHECK(call) nccl_check((call), #call, __FILE__, __LINE__)

typedef struct {
    int gpus;                  /* --gpus; 0: every visible GPU */
    uint64_t n;
    uint64_t sizes[MAX_SIZES]; /* all-reduce message sizes in bytes */
    int size_count;
    int f32, bf16;             /* the dtypes to all-reduce */
    int reps, warmup;
    const char *csv_path;
    int check;
    int rank, nranks;          /* one process per GPU when nranks > 0 */
    const char *id_file;
    int id_timeout;            /* seconds a rank > 0 waits for rank 0's id */
} Options;

typedef struct {
    int device, rank;
    char name[96];
    int sm_count;
    GpuInfo info;
    L2Flush flush;             /* before each timed run of the sum, as in every program */
    ncclComm_t comm;
    cudaStream_t stream;       /* NCCL's; the stage-08 launcher uses the legacy default stream */
    cudaEvent_t *ev;           /* 3 x reps */
    float *shard, *partials, *out, *total;
    void *send, *recv;
    unsigned char *scratch;    /* gathers: this rank's slot, then every rank's */
} Gpu;

/* This process's part of the world: all G GPUs (one process), or one (one process per GPU). */
static struct {
    int nranks, local, processes;
    Gpu gpu[MAX_GPUS];
} W;

/* What each rank reports, gathered to every rank: the leader prints, every rank decides the exit code. */
typedef struct {
    char name[96];
    int device, sm_count;
} Ident;
typedef struct {
    double lo, n, local_us, comm_us, total_us;
    double result, ref_sum, ref_abs, tol, ok;   /* this GPU's shard, checked against its fp64 reference */
    double total;                               /* the all-reduced sum as this GPU received it */
} SumReport;
typedef struct {
    double local_us, comm_us, max_err, ok;
} ArrayReport;
static_assert(sizeof(Ident) <= SLOT && sizeof(SumReport) <= SLOT && sizeof(ArrayReport) <= SLOT, "a report fits its slot");

/* ---- options ------------------------------------------------------------------------------ */

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
        "usage: %s [options]\n"
        "  --gpus G          GPUs driven by this one process (default: every visible GPU)\n"
        "  --n N             elements of the vector summed over the GPUs (default %s); K M G (x1024), 2^k[+c]\n"
        "  --sizes LIST      all-reduce message sizes in bytes, comma-separated (default 1M,2M,...,1G)\n"
        "  --dtype f32|bf16  all-reduce only this element type (default both)\n"
        "  --reps R          timed repetitions, median reported (default 20, at most %d)\n"
        "  --warmup W        untimed runs before timing (default 5)\n"
        "  --csv FILE        append one row per sum and per all-reduce size to FILE\n"
        "  --check           exit 1 if any check fails\n"
        "  --help            this text\n"
        "one process per GPU (start G copies, e.g. make stage-12 multigpu-run MODE=processes):\n"
        "  --rank R --nranks G --id-file PATH   this copy is rank R of G and uses GPU R; rank 0 writes\n"
        "                    NCCL's unique id to PATH, the others wait for it\n"
        "  --id-timeout S    seconds a rank waits for the id file (default 60)\n"
        "exit codes: 0 ok, 1 verification failed (with --check), 2 usage error, 3 no usable GPU, CUDA or NCCL error\n",
        prog, DEFAULT_N, MAX_REPS);
}

static Options parse_options(int argc, char **argv)
{
    const char *prog = argv[0];
    Options o;
    memset(&o, 0, sizeof o);
    parse_size(DEFAULT_N, &o.n);
    o.size_count = parse_size_list(DEFAULT_SIZES, o.sizes, MAX_SIZES);
    o.f32 = o.bf16 = 1;
    o.reps = 20;
    o.warmup = 5;
    o.rank = -1;
    o.id_timeout = 60;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout, prog);
            exit(EXIT_OK);
        }
        if (!strcmp(a, "--check")) {
            o.check = 1;
            continue;
        }
        int takes_value = !strcmp(a, "--gpus") || !strcmp(a, "--n") || !strcmp(a, "--sizes") ||
                          !strcmp(a, "--dtype") || !strcmp(a, "--reps") || !strcmp(a, "--warmup") ||
                          !strcmp(a, "--csv") || !strcmp(a, "--rank") || !strcmp(a, "--nranks") ||
                          !strcmp(a, "--id-file") || !strcmp(a, "--id-timeout");
        if (!takes_value) usage_error(prog, "unknown option '%s'", a);
        if (i + 1 >= argc) usage_error(prog, "option %s needs a value", a);
        const char *v = argv[++i];
        long num;
        if (!strcmp(a, "--gpus")) {
            if (parse_int(v, 1, MAX_GPUS, &num)) usage_error(prog, "--gpus '%s': give a whole number from 1 to 64", v);
            o.gpus = (int)num;
        } else if (!strcmp(a, "--n")) {
            if (parse_size(v, &o.n)) usage_error(prog, "--n '%s': give an element count >= 1 such as 1000003, 256M or 2^28", v);
        } else if (!strcmp(a, "--sizes")) {
            o.size_count = parse_size_list(v, o.sizes, MAX_SIZES);
            if (o.size_count < 0)
                usage_error(prog, "--sizes '%s': give byte counts >= 4 such as 1M,16M,1G (comma-separated, at most 64)", v);
            for (int s = 0; s < o.size_count; s++)
                if (o.sizes[s] % 4)
                    usage_error(prog, "--sizes '%s': every size must be a multiple of 4 bytes (one fp32 element)", v);
        } else if (!strcmp(a, "--dtype")) {
            if (!strcmp(v, "f32")) o.bf16 = 0, o.f32 = 1;
            else if (!strcmp(v, "bf16")) o.f32 = 0, o.bf16 = 1;
            else usage_error(prog, "--dtype '%s': give f32 or bf16", v);
        } else if (!strcmp(a, "--reps")) {
            if (parse_int(v, 1, MAX_REPS, &num)) usage_error(prog, "--reps '%s': give a whole number from 1 to 1000", v);
            o.reps = (int)num;
        } else if (!strcmp(a, "--warmup")) {
            if (parse_int(v, 0, 1000, &num)) usage_error(prog, "--warmup '%s': give a whole number from 0 to 1000", v);
            o.warmup = (int)num;
        } else if (!strcmp(a, "--rank")) {
            if (parse_int(v, 0, MAX_GPUS - 1, &num)) usage_error(prog, "--rank '%s': give a whole number from 0 to 63", v);
            o.rank = (int)num;
        } else if (!strcmp(a, "--nranks")) {
            if (parse_int(v, 1, MAX_GPUS, &num)) usage_error(prog, "--nranks '%s': give a whole number from 1 to 64", v);
            o.nranks = (int)num;
        } else if (!strcmp(a, "--id-timeout")) {
            if (parse_int(v, 1, 3600, &num)) usage_error(prog, "--id-timeout '%s': give seconds from 1 to 3600", v);
            o.id_timeout = (int)num;
        } else if (!strcmp(a, "--id-file")) {
            if (!*v) usage_error(prog, "--id-file '%s': give a path", v);
            o.id_file = v;
        } else {
            o.csv_path = v;
        }
    }
    int multi = o.rank >= 0 || o.nranks > 0 || o.id_file;
    if (multi && (o.rank < 0 || o.nranks == 0 || !o.id_file))
        usage_error(prog, "%sone process per GPU needs all three of --rank, --nranks and --id-file", "");
    if (multi && o.rank >= o.nranks) {
        char msg[64];
        snprintf(msg, sizeof msg, "%d", o.rank);
        usage_error(prog, "--rank %s: ranks run from 0 to --nranks - 1", msg);
    }
    if (multi && o.gpus && o.gpus != o.nranks)
        usage_error(prog, "%s--gpus and --nranks disagree (one process per GPU: leave out --gpus)", "");
    return o;
}

/* Same columns as every stage's CSV. The sum: GB/s of input over all GPUs, pct_peak against G x one
 * GPU's DRAM peak, the L2 flushed before each run. The all-reduce: bus bandwidth, no DRAM peak to hold
 * it against (pct_peak empty), and, as in nccl-tests, no flush (l2 "warm"). cols is empty. */
static void csv_row(FILE *csv, const char *gpu, const char *kernel, const char *dtype, uint64_t n, double us,
                    double gbps, double pct_peak, double rel_err, int pass)
{
    if (!csv) return;
    if (ftell(csv) == 0) fprintf(csv, "%s\n", CSV_HEADER);
    fprintf(csv, "%s,%s,%s,%s,%llu,%.3f,%.2f,", gpu, STAGE_NAME, kernel, dtype, (unsigned long long)n, us, gbps);
    if (pct_peak > 0) fprintf(csv, "%.2f", pct_peak);
    fprintf(csv, ",%.3e,%d,,%s\n", rel_err, pass, pct_peak > 0 ? "flushed" : "warm");
    fflush(csv);
}

/* ---- the NCCL unique id through a file (one process per GPU) --------------------------------- */

/* Written to a temporary name and renamed: a waiting rank sees no file or the whole id, never half. */
static void write_id(const char *path, const ncclUniqueId *id)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(id, sizeof *id, 1, f) != 1 || fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path)) {
        fprintf(stderr, "error: rank 0 cannot write the NCCL id file '%s': %s\n", path, strerror(errno));
        exit(EXIT_USAGE);
    }
}

static void read_id(const char *path, ncclUniqueId *id, int rank, int timeout_s)
{
    struct timespec pause = {0, 20 * 1000 * 1000};
    for (long waited_ms = 0;; waited_ms += 20) {
        FILE *f = fopen(path, "rb");
        if (f) {
            size_t got = fread(id, sizeof *id, 1, f);
            fclose(f);
            if (got == 1) return;
        }
        if (waited_ms >= 1000L * timeout_s) {
            fprintf(stderr, "error: rank %d waited %d s for rank 0 to write NCCL's unique id to '%s' and gave up "
                            "(is rank 0 running with the same --id-file, or did it fail?)\n", rank, timeout_s, path);
            exit(EXIT_GPU);
        }
        nanosleep(&pause, NULL);
    }
}

/* ---- helpers ------------------------------------------------------------------------------ */

static const Kernel *stage08_kernel(const char *name)
{
    for (int i = 0; i < reduce_stage.count; i++)
        if (!strcmp(reduce_stage.kernels[i].name, name)) return &reduce_stage.kernels[i];
    fprintf(stderr, "error: stage %s has no kernel '%s' (build/12_multigpu/roofline.o is stale?)\n", reduce_stage.name, name);
    exit(EXIT_GPU);
}

static const char *bytes_text(uint64_t b, char *buf, size_t cap)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0) snprintf(buf, cap, "%llu GiB", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0) snprintf(buf, cap, "%llu MiB", (unsigned long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0) snprintf(buf, cap, "%llu KiB", (unsigned long long)(b >> 10));
    else snprintf(buf, cap, "%llu B", (unsigned long long)b);
    return buf;
}

/* Median over the timed reps of the time from from[k] to to[k], in microseconds. */
static double median_us(const cudaEvent_t *from, const cudaEvent_t *to, int reps)
{
    static double t[MAX_REPS];
    for (int k = 0; k < reps; k++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, from[k], to[k]));
        t[k] = 1e3 * ms;
    }
    return median(t, reps);
}

/* Every rank's `bytes` (<= SLOT) to every rank, in rank order, with ncclAllGather. mine holds this
 * process's local GPUs' entries one after the other; all receives nranks entries. */
static void gather(const void *mine, size_t bytes, void *all)
{
    for (int l = 0; l < W.local; l++) {
        CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
        CUDA_CHECK(cudaMemcpy(W.gpu[l].scratch, (const char *)mine + l * bytes, bytes, cudaMemcpyHostToDevice));
    }
    NCCL_CHECK(ncclGroupStart()); /* one thread, several communicators: one group, or it deadlocks */
    for (int l = 0; l < W.local; l++)
        NCCL_CHECK(ncclAllGather(W.gpu[l].scratch, W.gpu[l].scratch + SLOT, bytes, ncclUint8, W.gpu[l].comm,
                                 W.gpu[l].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int l = 0; l < W.local; l++) {
        CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
        CUDA_CHECK(cudaStreamSynchronize(W.gpu[l].stream));
    }
    CUDA_CHECK(cudaSetDevice(W.gpu[0].device));
    CUDA_CHECK(cudaMemcpy(all, W.gpu[0].scratch + SLOT, W.nranks * bytes, cudaMemcpyDeviceToHost));
}

/* A Run for stage 08's launcher on the current device. */
static Run make_run(const Gpu *gp, const void *data, uint64_t n)
{
    Run r;
    memset(&r, 0, sizeof r);
    r.in = (float *)data;
    r.data = data;
    r.n = n;
    r.partials = gp->partials;
    r.out = gp->out;
    r.sm_count = gp->sm_count;
    return r;
}

static void launch(const Kernel *k, Run *r)
{
    k->launch(r);
    if (r->refuse || r->host_partials) {
        fprintf(stderr, "error: stage 08's %s did not finish on the GPU (%s)\n", k->name, r->refuse ? r->refuse : "host finish");
        exit(EXIT_GPU);
    }
}

/* ---- the sum of one vector spread over the GPUs --------------------------------------------- */

/* Shard of rank r: elements [n r / G, n (r + 1) / G) of one vector whose element i is
 * fill_value(random, SUM_SEED, i), so the vector and its sum do not depend on G. */
static void run_sum(const Options *o, const Kernel *k, SumReport *all)
{
    uint64_t n = o->n, G = (uint64_t)W.nranks;
    SumReport mine[MAX_GPUS];
    Reference refs[MAX_GPUS];
    Run runs[MAX_GPUS];
    float *host = (float *)malloc((n / G + 1) * sizeof(float));
    if (!host) {
        fprintf(stderr, "error: out of host memory for a shard of %llu floats\n", (unsigned long long)(n / G + 1));
        exit(EXIT_GPU);
    }
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        uint64_t lo = n * gp->rank / G, hi = n * (gp->rank + 1) / G;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)(hi - lo); i++) host[i] = fill_value(FILL_RANDOM, SUM_SEED, lo + (uint64_t)i);
        refs[l] = reference_sum(host, hi - lo);
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaMemcpy(gp->shard, host, (hi - lo) * sizeof(float), cudaMemcpyHostToDevice));
        memset(&mine[l], 0, sizeof mine[l]);
        mine[l].lo = (double)lo;
        mine[l].n = (double)(hi - lo);
        runs[l] = make_run(gp, gp->shard, hi - lo);
    }
    free(host);

    /* Everything is enqueued back to back, no host wait between reps: each GPU's rep starts when its
     * previous all-reduce ends, so one process starting late does not count as communication. */
    for (int it = 0; it < o->warmup + o->reps; it++) {
        int k_ = it - o->warmup;
        for (int l = 0; l < W.local; l++) {
            Gpu *gp = &W.gpu[l];
            CUDA_CHECK(cudaSetDevice(gp->device));
            l2_flush(&gp->flush, 0);
            if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[k_], 0));
            memset(&runs[l].shape, 0, sizeof runs[l].shape); /* the launcher fills in its shape */
            launch(k, &runs[l]); /* legacy default stream: NCCL's stream (a blocking one) waits for it */
            if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[o->reps + k_], 0));
        }
        NCCL_CHECK(ncclGroupStart());
        for (int l = 0; l < W.local; l++)
            NCCL_CHECK(ncclAllReduce(W.gpu[l].out, W.gpu[l].total, 1, ncclFloat32, ncclSum, W.gpu[l].comm, W.gpu[l].stream));
        NCCL_CHECK(ncclGroupEnd());
        if (k_ >= 0)
            for (int l = 0; l < W.local; l++) {
                CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
                CUDA_CHECK(cudaEventRecord(W.gpu[l].ev[2 * o->reps + k_], W.gpu[l].stream));
            }
    }
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaDeviceSynchronize());
        float out = 0.0f, total = 0.0f;
        CUDA_CHECK(cudaMemcpy(&out, gp->out, sizeof out, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&total, gp->total, sizeof total, cudaMemcpyDeviceToHost));
        SumReport *m = &mine[l];
        m->local_us = median_us(gp->ev, gp->ev + o->reps, o->reps);
        m->comm_us = median_us(gp->ev + o->reps, gp->ev + 2 * o->reps, o->reps);
        m->total_us = median_us(gp->ev, gp->ev + 2 * o->reps, o->reps);
        m->result = out;
        m->ref_sum = refs[l].sum;
        m->ref_abs = refs[l].abs_sum;
        m->tol = sum_tolerance(runs[l].shape, &refs[l], runs[l].n); /* the shape stage 08 reported */
        m->ok = result_passes(out, &refs[l], m->tol);
        m->total = total;
    }
    gather(mine, sizeof(SumReport), all);
}

/* Checks and prints the gathered sums; returns the number of failed checks. */
static int report_sum(const Options *o, const Kernel *k, const SumReport *all, int leader, FILE *csv,
                      const char *gpu_name)
{
    int G = W.nranks, failures = 0;
    double tol_shards = 0.0, abs_partials = 0.0, local_us = 0.0, comm_us = 0.0, total_us = 0.0;
    Reference ref;
    memset(&ref, 0, sizeof ref);
    for (int r = 0; r < G; r++) {
        ref.sum += all[r].ref_sum;
        ref.abs_sum += all[r].ref_abs;
        tol_shards += all[r].tol;
        abs_partials += all[r].ref_abs + all[r].tol; /* bounds |partial r| */
        local_us = fmax(local_us, all[r].local_us);
        comm_us = fmax(comm_us, all[r].comm_us);
        total_us = fmax(total_us, all[r].total_us);
        failures += all[r].ok == 0.0;
    }
    /* The all-reduce adds G fp32 partials: at most G - 1 roundings on any path, each within
     * u = 2^-24 of its result (gamma_{G-1} times the sum of |partials|). */
    double u = unit_roundoff(24), d = G - 1;
    double tol = tol_shards + d * u / (1.0 - d * u) * abs_partials;
    int total_ok = 1, same = 1;
    for (int r = 0; r < G; r++) {
        total_ok &= result_passes(all[r].total, &ref, tol);
        same &= all[r].total == all[0].total;
    }
    failures += !total_ok;
    if (!leader) return failures;

    printf("\nsum of N = %llu fp32 elements over %d GPU%s: stage 08 %s on each shard, then ncclAllReduce of the %d "
           "partial sums\n", (unsigned long long)o->n, G, G > 1 ? "s" : "", k->name, G);
    printf("medians of %d runs; local: the shard's reduction, comm: the all-reduce of one float\n", o->reps);
    printf("%-6s %-5s %12s %10s %16s %16s %10s  %s\n", "shard", "gpu", "elements", "local µs", "result",
           "fp64 reference", "tolerance", "check");
    for (int r = 0; r < G; r++)
        printf("%-6d %-5d %12.0f %10.1f %16.6f %16.6f %10.2e  %s\n", r, r, all[r].n, all[r].local_us, all[r].result,
               all[r].ref_sum, all[r].tol, all[r].ok != 0.0 ? "ok" : "FAIL");
    double rel = relative_error(all[0].total, ref.sum);
    printf("%-12s %12llu %10.1f %16.6f %16.6f %10.2e  %s\n", "total", (unsigned long long)o->n, local_us, all[0].total,
           ref.sum, tol, total_ok ? "ok" : "FAIL");
    printf("all-reduce of the partials: %.1f µs; local + comm per run: %.1f µs (%.0f GB/s of input over all GPUs); "
           "rel err %.2e; %s\n", comm_us, total_us, 4.0 * (double)o->n / (total_us * 1e3), rel,
           G == 1 ? "one GPU" : same ? "every GPU received the same bits" : "the GPUs received different totals");
    char name[64];
    snprintf(name, sizeof name, "sum_g%d%s", G, W.processes ? "_procs" : "");
    double gbps = 4.0 * (double)o->n / (total_us * 1e3);
    csv_row(csv, gpu_name, name, "f32", o->n, total_us, gbps, 100.0 * gbps / (G * W.gpu[0].info.peak_gbps), rel,
            total_ok && !failures);
    return failures;
}

/* ---- the all-reduce of whole arrays (the data-parallel gradient case) ------------------------- */

static double element(int bf16, int rank, uint64_t i)
{
    float v = fill_value(FILL_RANDOM, ARRAY_SEED + (uint64_t)rank, i);
    return bf16 ? (double)__bfloat162float(__float2bfloat16(v)) : (double)v;
}

/* Compares a sample of this GPU's result (every stride-th element and the last) with the fp64 sum of
 * what every rank sent; returns the largest error over the sum of magnitudes, *ok = all within tolerance. */
static double check_array(const Gpu *gp, int bf16, uint64_t count, void *sample, int *ok)
{
    size_t elem = bf16 ? 2 : 4;
    uint64_t stride = count > SAMPLES ? (count + SAMPLES - 1) / SAMPLES : 1;
    uint64_t rows = (count + stride - 1) / stride;
    CUDA_CHECK(cudaMemcpy2D(sample, elem, gp->recv, stride * elem, elem, rows, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy((char *)sample + rows * elem, (const char *)gp->recv + (count - 1) * elem, elem,
                          cudaMemcpyDeviceToHost));
    /* G values, at most G - 1 roundings on a path, in the element type (bf16: 8 significant bits) */
    Shape shape = {(double)(W.nranks - 1), 0.0, 0.0, bf16 ? 8 : 0, 0.0};
    double worst = 0.0;
    *ok = 1;
    for (uint64_t j = 0; j <= rows; j++) {
        uint64_t i = j < rows ? j * stride : count - 1;
        double got = bf16 ? (double)__bfloat162float(((const __nv_bfloat16 *)sample)[j]) : (double)((const float *)sample)[j];
        Reference ref;
        memset(&ref, 0, sizeof ref);
        for (int r = 0; r < W.nranks; r++) {
            double v = element(bf16, r, i);
            ref.sum += v;
            ref.abs_sum += fabs(v);
        }
        if (!result_passes(got, &ref, sum_tolerance(shape, &ref, (uint64_t)W.nranks))) *ok = 0;
        if (ref.abs_sum > 0.0) worst = fmax(worst, fabs(got - ref.sum) / ref.abs_sum);
        else if (got != 0.0) worst = INFINITY;
    }
    return worst;
}

static int run_arrays(const Options *o, int bf16, int leader, FILE *csv, const char *gpu_name)
{
    size_t elem = bf16 ? 2 : 4;
    const char *dtype = bf16 ? "bf16" : "f32";
    const Kernel *k = stage08_kernel(bf16 ? "roofline_bf16_f32" : "roofline_f32_deterministic");
    ncclDataType_t nccl_type = bf16 ? ncclBfloat16 : ncclFloat32;
    uint64_t max_bytes = 0;
    for (int s = 0; s < o->size_count; s++)
        if (o->sizes[s] > max_bytes) max_bytes = o->sizes[s];
    uint64_t max_count = max_bytes / elem;
    void *host = malloc(max_bytes);
    void *sample = malloc((SAMPLES + 2) * elem);
    if (!host || !sample) {
        fprintf(stderr, "error: out of host memory for %llu bytes\n", (unsigned long long)max_bytes);
        exit(EXIT_GPU);
    }
    /* Rank r's array: element i is fill_value(random, ARRAY_SEED + r, i), so every size is a prefix. */
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        uint64_t seed = ARRAY_SEED + (uint64_t)gp->rank;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)max_count; i++) {
            float v = fill_value(FILL_RANDOM, seed, (uint64_t)i);
            if (bf16) ((__nv_bfloat16 *)host)[i] = __float2bfloat16(v);
            else ((float *)host)[i] = v;
        }
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaMemcpy(gp->send, host, max_count * elem, cudaMemcpyHostToDevice));
    }
    free(host);

    if (leader) {
        printf("\nncclAllReduce (sum, out of place) of whole %s arrays on %d GPU%s, medians of %d runs\n", dtype, W.nranks,
               W.nranks > 1 ? "s" : "", o->reps);
        printf("local: stage 08 %s reducing the same bytes to one number on one GPU; comm: the all-reduce\n", k->name);
        printf("%10s %-5s %12s %10s %10s %11s %11s %12s  %s\n", "size", "dtype", "elements", "local µs", "comm µs",
               "algbw GB/s", "busbw GB/s", "max err/Σ|x|", "check");
    }
    int failures = 0;
    for (int s = 0; s < o->size_count; s++) {
        uint64_t bytes = o->sizes[s] / elem * elem, count = bytes / elem;
        ArrayReport mine[MAX_GPUS], all[MAX_GPUS];
        Run runs[MAX_GPUS];
        for (int l = 0; l < W.local; l++) runs[l] = make_run(&W.gpu[l], W.gpu[l].send, count);
        /* local: each GPU independently, all enqueued, then one wait */
        for (int it = 0; it < o->warmup + o->reps; it++)
            for (int l = 0; l < W.local; l++) {
                Gpu *gp = &W.gpu[l];
                int k_ = it - o->warmup;
                CUDA_CHECK(cudaSetDevice(gp->device));
                if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[k_], 0));
                launch(k, &runs[l]);
                if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[o->reps + k_], 0));
            }
        for (int l = 0; l < W.local; l++) {
            CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
            CUDA_CHECK(cudaDeviceSynchronize());
            mine[l].local_us = median_us(W.gpu[l].ev, W.gpu[l].ev + o->reps, o->reps);
        }
        /* comm: start and stop events outside the group (NCCL enqueues its kernels at ncclGroupEnd) */
        for (int it = 0; it < o->warmup + o->reps; it++) {
            int k_ = it - o->warmup;
            if (k_ >= 0)
                for (int l = 0; l < W.local; l++) {
                    CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
                    CUDA_CHECK(cudaEventRecord(W.gpu[l].ev[k_], W.gpu[l].stream));
                }
            NCCL_CHECK(ncclGroupStart());
            for (int l = 0; l < W.local; l++)
                NCCL_CHECK(ncclAllReduce(W.gpu[l].send, W.gpu[l].recv, count, nccl_type, ncclSum, W.gpu[l].comm,
                                         W.gpu[l].stream));
            NCCL_CHECK(ncclGroupEnd());
            if (k_ >= 0)
                for (int l = 0; l < W.local; l++) {
                    CUDA_CHECK(cudaSetDevice(W.gpu[l].device));
                    CUDA_CHECK(cudaEventRecord(W.gpu[l].ev[o->reps + k_], W.gpu[l].stream));
                }
        }
        for (int l = 0; l < W.local; l++) {
            Gpu *gp = &W.gpu[l];
            CUDA_CHECK(cudaSetDevice(gp->device));
            CUDA_CHECK(cudaStreamSynchronize(gp->stream));
            mine[l].comm_us = median_us(gp->ev, gp->ev + o->reps, o->reps);
            int ok = 0;
            mine[l].max_err = check_array(gp, bf16, count, sample, &ok);
            mine[l].ok = ok;
        }
        gather(mine, sizeof(ArrayReport), all);
        /* the collective ends when its slowest rank does: the largest median over the ranks */
        double local_us = 0.0, comm_us = 0.0, err = 0.0;
        int ok = 1;
        for (int r = 0; r < W.nranks; r++) {
            local_us = fmax(local_us, all[r].local_us);
            comm_us = fmax(comm_us, all[r].comm_us);
            err = fmax(err, all[r].max_err);
            ok &= all[r].ok != 0.0;
        }
        failures += !ok;
        double algbw = (double)bytes / (comm_us * 1e3); /* GB/s */
        double busbw = algbw * 2.0 * (W.nranks - 1) / W.nranks;
        if (leader) {
            char text[32], name[64];
            printf("%10s %-5s %12llu %10.1f %10.1f %11.1f %11.1f %12.2e  %s\n", bytes_text(bytes, text, sizeof text),
                   dtype, (unsigned long long)count, local_us, comm_us, algbw, busbw, err, ok ? "ok" : "FAIL");
            snprintf(name, sizeof name, "allreduce_g%d%s", W.nranks, W.processes ? "_procs" : "");
            /* gbps: busbw, or algbw for G = 1, where busbw is 0 by definition */
            csv_row(csv, gpu_name, name, dtype, count, comm_us, W.nranks > 1 ? busbw : algbw, 0.0, err, ok);
        }
    }
    if (leader) {
        printf("algbw = bytes / comm time; busbw = algbw x 2(G-1)/G, what each GPU's link carries in a ring all-reduce");
        printf(W.nranks == 1 ? "\n(G = 1: busbw is 0, no byte crosses a link, as nccl-tests prints it; the CSV has algbw)\n"
                             : "\n");
    }
    free(sample);
    return failures;
}

/* ---- setup -------------------------------------------------------------------------------- */

static void open_gpus(const Options *o, uint64_t need_bytes_of_shard, uint64_t max_bytes, uint64_t max_count)
{
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        cudaDeviceProp p;
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaGetDeviceProperties(&p, gp->device));
        snprintf(gp->name, sizeof gp->name, "%.95s", p.name); /* GPU names are far shorter */
        gp->sm_count = p.multiProcessorCount;
        describe_gpu(gp->device, &gp->info); /* exits if the GPU is older than compute capability 7.5 */
        uint64_t reduce_n = need_bytes_of_shard / 4 > max_count ? need_bytes_of_shard / 4 : max_count;
        size_t need = need_bytes_of_shard + PARTIALS_CAPACITY(reduce_n) * sizeof(float) + 2 * max_bytes +
                      2 * gp->info.l2_bytes + NCCL_SLACK;
        size_t free_b = 0, total_b = 0;
        CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        if (need > free_b) {
            fprintf(stderr, "error: --n %llu and --sizes up to %llu bytes need about %zu bytes on GPU %d; %s has %zu "
                            "bytes free (of %zu): choose smaller sizes\n", (unsigned long long)o->n,
                    (unsigned long long)max_bytes, need, gp->device, gp->name, free_b, total_b);
            exit(EXIT_USAGE);
        }
    }
}

static void alloc_gpus(const Options *o, uint64_t shard_cap, uint64_t max_bytes, uint64_t max_count)
{
    uint64_t reduce_n = shard_cap > max_count ? shard_cap : max_count;
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaStreamCreate(&gp->stream)); /* blocking: it and the legacy default stream wait for each other */
        gp->ev = (cudaEvent_t *)malloc(3 * (size_t)o->reps * sizeof(cudaEvent_t));
        if (!gp->ev) exit(EXIT_GPU);
        for (int e = 0; e < 3 * o->reps; e++) CUDA_CHECK(cudaEventCreate(&gp->ev[e]));
        gp->shard = (float *)device_alloc(shard_cap * sizeof(float), "the shard of the summed vector");
        gp->partials = (float *)device_alloc(PARTIALS_CAPACITY(reduce_n) * sizeof(float), "stage 08's partial sums");
        gp->out = (float *)device_alloc(sizeof(float), "the shard's sum");
        gp->total = (float *)device_alloc(sizeof(float), "the all-reduced sum");
        gp->send = device_alloc(max_bytes, "the all-reduce input");
        gp->recv = device_alloc(max_bytes, "the all-reduce output");
        gp->scratch = (unsigned char *)device_alloc(SLOT * (MAX_GPUS + 1), "the gather buffer");
        l2_flush_init(&gp->flush, &gp->info);
    }
}

static void free_gpus(const Options *o)
{
    for (int l = 0; l < W.local; l++) {
        Gpu *gp = &W.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        NCCL_CHECK(ncclCommDestroy(gp->comm));
        for (int e = 0; e < 3 * o->reps; e++) CUDA_CHECK(cudaEventDestroy(gp->ev[e]));
        free(gp->ev);
        CUDA_CHECK(cudaStreamDestroy(gp->stream));
        void *bufs[] = {gp->shard, gp->partials, gp->out, gp->total, gp->send, gp->recv, gp->scratch};
        for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) CUDA_CHECK(cudaFree(bufs[b]));
        l2_flush_free(&gp->flush);
    }
}

int main(int argc, char **argv)
{
    Options o = parse_options(argc, argv);
    W.processes = o.nranks > 0;
    int leader = !W.processes || o.rank == 0;
    FILE *csv = leader ? open_csv(o.csv_path, argv[0]) : NULL;

    require_gpu();
    int visible = 0;
    CUDA_CHECK(cudaGetDeviceCount(&visible));
    char msg[160];
    if (W.processes) {
        if (o.rank >= visible) {
            snprintf(msg, sizeof msg, "%d uses GPU %d, but %d GPU%s visible", o.rank, o.rank, visible,
                     visible == 1 ? " is" : "s are");
            usage_error(argv[0], "--rank %s (one process per GPU)", msg);
        }
        W.nranks = o.nranks;
        W.local = 1;
        W.gpu[0].device = W.gpu[0].rank = o.rank;
    } else {
        if (o.gpus > visible) {
            snprintf(msg, sizeof msg, "%d: only %d GPU%s visible", o.gpus, visible, visible == 1 ? " is" : "s are");
            usage_error(argv[0], "--gpus %s", msg);
        }
        W.nranks = W.local = o.gpus ? o.gpus : (visible < MAX_GPUS ? visible : MAX_GPUS);
        for (int l = 0; l < W.local; l++) W.gpu[l].device = W.gpu[l].rank = l;
    }
    if (o.n < (uint64_t)W.nranks) {
        snprintf(msg, sizeof msg, "%llu: the vector needs at least one element per GPU (%d)", (unsigned long long)o.n,
                 W.nranks);
        usage_error(argv[0], "--n %s", msg);
    }
    uint64_t max_bytes = 0;
    for (int s = 0; s < o.size_count; s++)
        if (o.sizes[s] > max_bytes) max_bytes = o.sizes[s];
    uint64_t max_count = max_bytes / (o.bf16 ? 2 : 4);
    uint64_t shard_cap = o.n / (uint64_t)W.nranks + 1;
    open_gpus(&o, shard_cap * sizeof(float), max_bytes, max_count);

    /* Communicators: one call for every GPU of this process, or one rank per process met through the id. */
    if (W.processes) {
        ncclUniqueId id;
        if (o.rank == 0) {
            NCCL_CHECK(ncclGetUniqueId(&id));
            write_id(o.id_file, &id);
        } else {
            read_id(o.id_file, &id, o.rank, o.id_timeout);
        }
        CUDA_CHECK(cudaSetDevice(W.gpu[0].device));
        NCCL_CHECK(ncclCommInitRank(&W.gpu[0].comm, W.nranks, id, o.rank));
        if (o.rank == 0) unlink(o.id_file); /* every rank has joined, so every rank has read it */
    } else {
        ncclComm_t comms[MAX_GPUS];
        int devs[MAX_GPUS];
        for (int l = 0; l < W.local; l++) devs[l] = W.gpu[l].device;
        NCCL_CHECK(ncclCommInitAll(comms, W.local, devs));
        for (int l = 0; l < W.local; l++) W.gpu[l].comm = comms[l];
    }
    alloc_gpus(&o, shard_cap, max_bytes, max_count);

    Ident ids[MAX_GPUS], all_ids[MAX_GPUS];
    for (int l = 0; l < W.local; l++) {
        memset(&ids[l], 0, sizeof ids[l]);
        snprintf(ids[l].name, sizeof ids[l].name, "%.95s", W.gpu[l].name);
        ids[l].device = W.gpu[l].device;
        ids[l].sm_count = W.gpu[l].sm_count;
    }
    gather(ids, sizeof(Ident), all_ids);
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    if (leader) {
        printf("stage %s: the sum across GPUs with NCCL\n", STAGE_NAME);
        printf("NCCL %d.%d.%d (built with headers %d.%d.%d); G = %d\n", version / 10000, version / 100 % 100,
               version % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, W.nranks);
        if (W.processes)
            printf("mode: %d processes, one GPU each (ncclCommInitRank; unique id through %s)\n", W.nranks, o.id_file);
        else
            printf("mode: one process driving %d GPU%s (ncclCommInitAll)\n", W.nranks, W.nranks > 1 ? "s" : "");
        for (int r = 0; r < W.nranks; r++)
            printf("rank %d: GPU %d, %s, %d SMs\n", r, all_ids[r].device, all_ids[r].name, all_ids[r].sm_count);
    }

    const Kernel *k = stage08_kernel("roofline_f32_deterministic");
    SumReport sums[MAX_GPUS];
    run_sum(&o, k, sums);
    int failures = report_sum(&o, k, sums, leader, csv, all_ids[0].name);
    if (o.f32) failures += run_arrays(&o, 0, leader, csv, all_ids[0].name);
    if (o.bf16) failures += run_arrays(&o, 1, leader, csv, all_ids[0].name);

    free_gpus(&o);
    if (csv) fclose(csv);
    if (leader) printf("\n%s\n", failures ? "some checks FAILED" : "all checks passed");
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

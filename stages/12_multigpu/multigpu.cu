/* Stage 12: the last level of the reduction hierarchy, across GPUs, with NCCL.
 * Two parts. The sum: a vector spread over G GPUs, each GPU reduces its shard with stage 08's kernel
 * (linked in through its table), then one ncclAllReduce adds the G partial sums. The data-parallel
 * case: ncclAllReduce of whole fp32/bf16 arrays (gradients), timed and reported like nccl-tests.
 * Two ways to drive the GPUs: one process for all of them (ncclCommInitAll), or one process per GPU
 * started by an MPI launcher (--mpi: rank 0 makes NCCL's unique id and MPI_Bcasts it; each rank takes
 * the GPU of its local rank; the reports are gathered with MPI_Allgather). The MPI part is compiled
 * where the Makefile finds an MPI (WITH_MPI); without it, --mpi says how to get it. */
#include <cuda_bf16.h>
#include <nccl.h>
#ifdef WITH_MPI
#define OMPI_SKIP_MPICXX 1  /* MPI's C interface alone: no C++ bindings (Open MPI, MPICH) */
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "csv.h"
#include "exit_codes.h"
#include "fill.h"
#include "gpu.h"
#include "options.h"
#include "parse.h"
#include "result.h"
#include "stage.h"
#include "timing.h"

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
#error "stage 12 needs NCCL 2.10 or newer (bf16 all-reduce)"
#endif

extern const Stage reduce_stage; /* stage 08's table: stages/08_roofline/reduce.cu compiled as an object */

#define MAX_GPUS 64
#define SAMPLES 65536     /* elements of each all-reduce result compared with the fp64 sum */
#define NCCL_SLACK (768ull << 20) /* GPU memory left for NCCL's own buffers and the CUDA context */
#define DEFAULT_N "2^28"
#define CHECK_N "1000003"
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
    int device, rank;
    GpuInfo info;
    L2Flush flush;             /* before each timed run of the sum (unless --l2 warm), as in every program */
    ncclComm_t comm;
    cudaStream_t stream;       /* NCCL's; the stage-08 launcher uses the legacy default stream */
    cudaEvent_t *ev;           /* 3 x reps */
    float *shard, *partials, *out;
    float *totals;             /* the all-reduced sum of every run of the sum, warm-up included */
    void *send, *recv;
} Gpu;

/* This process's part of the world: all G GPUs (one process), or one (one process per GPU, under MPI:
 * rank is its MPI rank, and local_rank its place among the local_size ranks of its host). */
static struct {
    int nranks, local, processes;
    int rank, local_rank, local_size;
    char host[64];
    Gpu gpu[MAX_GPUS];
} world;

/* What each rank reports, gathered to every rank: the leader prints, every rank decides the exit code. */
typedef struct {
    char name[96], host[64];
    int device, sm_count;
} Ident;
typedef struct {
    double gpu, lo, n, local_us, comm_us, total_us;
    double result, ref_sum, ref_abs, tol, ok;   /* this GPU's shard, checked against its fp64 reference */
    double total;                               /* the all-reduced sum as this GPU received it (last run) */
    double same;                                /* every run gave this GPU the same total bits */
} SumReport;
typedef struct {
    double local_us, comm_us, max_err, ok;
    double same;                                /* the checked elements had the same bits in two runs */
    uint64_t bits;                              /* a fingerprint of those bits, compared across ranks */
} ArrayReport;

/* ---- the program's options and description ------------------------------------------------- */

static struct {
    int gpus;                  /* --gpus; 0: every visible GPU */
    uint64_t sizes[MAX_SIZES]; /* all-reduce message sizes in bytes */
    int size_count;
    int f32, bf16;             /* the dtypes to all-reduce */
    const char *dtype;         /* --dtype as given: with --input, the type of a raw file */
    int sizes_given;           /* --sizes was given */
    int mpi;                   /* --mpi: one rank of an MPI job, one GPU */
    int ranks_only;            /* --ranks-only: the ranks meet, and the program stops before the GPUs */
} stage_options;

static void take_gpus(const char *prog, const char *v, Options *)
{
    long num;
    if (parse_int(v, 1, MAX_GPUS, &num)) usage_error(prog, "--gpus '%s': give a whole number from 1 to 64", v);
    stage_options.gpus = (int)num;
}

static void take_sizes(const char *prog, const char *v, Options *)
{
    stage_options.size_count = parse_size_list(v, stage_options.sizes, MAX_SIZES);
    stage_options.sizes_given = 1;
    if (stage_options.size_count < 0)
        usage_error(prog, "--sizes '%s': give byte counts >= 4 such as 1M,16M,1G (comma-separated, at most 64)", v);
    for (int s = 0; s < stage_options.size_count; s++)
        if (stage_options.sizes[s] % 4)
            usage_error(prog, "--sizes '%s': every size must be a multiple of 4 bytes (one fp32 element)", v);
}

static void take_dtype(const char *prog, const char *v, Options *)
{
    if (!strcmp(v, "f32")) stage_options.bf16 = 0, stage_options.f32 = 1;
    else if (!strcmp(v, "bf16")) stage_options.f32 = 0, stage_options.bf16 = 1;
    else usage_error(prog, "--dtype '%s': give f32 or bf16", v);
    stage_options.dtype = v;
}

/* How to get the MPI mode where the program was built without it. */
#define NO_MPI_HOWTO                                                                                            \
    "this program was built without MPI (make stage-12 found none): install Open MPI (Debian, Ubuntu: "         \
    "apt-get install libopenmpi-dev openmpi-bin) or set MPI_HOME=/path, then make stage-12 again"

static void take_mpi(const char *prog, const char *v, Options *)
{
    (void)v;
#ifndef WITH_MPI
    usage_error(prog, "--mpi: %s", NO_MPI_HOWTO);
#else
    (void)prog;
#endif
    stage_options.mpi = 1;
}

static void take_ranks_only(const char *prog, const char *v, Options *)
{
    (void)prog, (void)v;
    stage_options.ranks_only = 1;
}

static const ProgramOption own_options[] = {
    {"--gpus", "G", "GPUs driven by this one process (default: every visible GPU)", take_gpus},
    {"--sizes", "LIST", "all-reduce message sizes in bytes, comma-separated (default 1M,2M,...,1G)", take_sizes},
    {"--dtype", "f32|bf16", "all-reduce only this element type (default both); with --input, the type of a raw file", take_dtype},
    {"--input", "FILE", "sum your own fp32 data over the GPUs instead of the random vector: a NumPy .npy of float32\n"
                        "(C order; a 2-D array, its elements in order) or raw bytes with --dtype f32; N is the file's,\n"
                        "and the all-reduce of whole arrays, whose data are its own, does not run", take_input_path},
    {"--mpi", NULL, "one process per GPU: this process is one rank of an MPI job (mpirun -np G, srun)\n"
                    "and drives the GPU of its local rank", take_mpi},
    {"--ranks-only", NULL, "with --mpi: the ranks meet and stop before any GPU is used; rank 0 lists each\n"
                           "rank's host, local rank and the NCCL id it received", take_ranks_only},
};

/* The number of ranks of the MPI job that started this process, from the launcher's environment (Open
 * MPI's, or PMI's: MPICH, Slurm), or 0. */
static int launcher_ranks(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 0;
}

/* --mpi and --ranks-only, once every option is read. */
static void check_mpi_options(const char *prog)
{
    if (stage_options.ranks_only && !stage_options.mpi) usage_error(prog, "%s--ranks-only goes with --mpi", "");
    if (stage_options.mpi && stage_options.gpus)
        usage_error(prog, "%s--gpus and --mpi: under MPI each rank drives one GPU and mpirun -np G sets G "
                          "(leave out --gpus)", "");
    /* every rank of an MPI job driving every GPU of its host: a launcher started copies without --mpi */
    int ranks = launcher_ranks();
    if (!stage_options.mpi && ranks > 1) {
        char msg[32];
        snprintf(msg, sizeof msg, "%d", ranks);
        usage_error(prog, "an MPI launcher started this program as one of %s ranks: give --mpi, one GPU per rank", msg);
    }
}

/* Stage 08's fp32 kernel that the program runs on each GPU (the same bits on every run): the sum's shard, and
 * the all-reduce's local comparison. */
#define F32_KERNEL "roofline_f32_deterministic"

/* The kernels of --kernel: the two parts of the program, with the dtypes each runs. */
static const struct {
    const char *name, *dtypes, *about;
} parts[] = {
    {"sum", "f32", "one fp32 vector (--n) over the GPUs: stage 08's " F32_KERNEL " on each shard,\n"
                   "             then ncclAllReduce of the G partial sums"},
    {"allreduce", "f32 bf16", "ncclAllReduce (sum, out of place) of whole f32 and bf16 arrays (--sizes, --dtype),\n"
                              "             timed as nccl-tests times it"},
};
#define PART_COUNT (int)(sizeof parts / sizeof parts[0])

static void list_kernels(void)
{
    printf("stage 12_multigpu kernels:\n");
    for (int i = 0; i < PART_COUNT; i++) printf("  %-10s %s\n", parts[i].name, parts[i].about);
    printf("default sizes: %s (the sum); all-reduce sizes %s bytes\n", DEFAULT_N, DEFAULT_SIZES);
    printf("check sizes: %s\n", CHECK_N);
}

/* The types --input takes, each led by a space: the sum's (the all-reduce runs on arrays of its own). */
#define INPUT_TYPES " f32"

static void describe_kernels(JsonWriter *w)
{
    json_open(w, "kernels", '[');
    for (int i = 0; i < PART_COUNT; i++)
        for (const char *t = parts[i].dtypes; *t;) {
            int len = (int)strcspn(t, " ");
            char dtype[16];
            snprintf(dtype, sizeof dtype, "%.*s", len, t);
            describe_kernel(w, parts[i].name, dtype, "default", NULL, NAN);
            t += len + (t[len] == ' ');
        }
    json_close(w, ']');
    json_words(w, "input_types", INPUT_TYPES, " ");
}

static int kernel_exists(const char *name)
{
    for (int i = 0; i < PART_COUNT; i++)
        if (!strcmp(parts[i].name, name)) return 1;
    return 0;
}

static Program describe_program(void)
{
    Program p = {.stage = "12_multigpu"};
    program_defaults(&p, "multigpu", list_kernels, describe_kernels, kernel_exists);
    p.several_gpus = 1;
    p.default_sizes = p.bench_sizes = DEFAULT_N;
    p.check_sizes = CHECK_N;
    p.charts[0] = Chart{"multigpu", OWNS};
    p.csv = "multigpu.csv";
    p.usage_note =
        "the sum of one fp32 vector over G GPUs at each size of --n (kernel sum), and ncclAllReduce of whole arrays\n"
        "at each size of --sizes (kernel allreduce: never flushed, as in nccl-tests, so its rows are labelled warm).\n"
        "Two ways to drive the GPUs: one process drives all G (--gpus G; ncclCommInitAll), or an MPI launcher starts\n"
        "G copies, one per GPU (mpirun -np G ... --mpi; ncclCommInitRank), as make stage-12 run MODE=mpi does.\n"
        "An NCCL error exits 3, as a CUDA error does; under MPI, a rank that fails ends every rank (MPI_Abort).";
    p.own = own_options;
    p.own_count = (int)(sizeof own_options / sizeof own_options[0]);
    return p;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static const Kernel *stage08_kernel(const char *name)
{
    for (int i = 0; i < reduce_stage.count; i++)
        if (!strcmp(reduce_stage.kernels[i].name, name)) return &reduce_stage.kernels[i];
    fprintf(stderr, "error: stage %s has no kernel '%s' (build/12_multigpu/roofline.o is stale?)\n", reduce_stage.program.stage, name);
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
    double *t = (double *)host_alloc(reps * sizeof(double), "the timings");
    for (int k = 0; k < reps; k++) {
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, from[k], to[k]));
        t[k] = 1e3 * ms;
    }
    double m = median(t, reps);
    free(t);
    return m;
}

/* FNV-1a over the bytes: the fingerprint of the bits the ranks compare. */
static uint64_t fingerprint(const void *bytes, size_t len)
{
    const unsigned char *b = (const unsigned char *)bytes;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* Every rank's `bytes` to every rank, in rank order: mine holds this process's local GPUs' entries one
 * after the other; all receives nranks entries. One process holds them all already; under MPI,
 * MPI_Allgather brings them. */
static void gather(const void *mine, size_t bytes, void *all)
{
#ifdef WITH_MPI
    if (world.processes) {
        MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        return;
    }
#endif
    memcpy(all, mine, world.nranks * bytes);
}

/* Before an exit that every rank takes alike, from the same options and the same gathered reports: under
 * MPI, each rank then says why and meets the others in MPI_Finalize on its way out (end_every_rank),
 * rather than the first one out aborting the others before they have spoken. */
#ifdef WITH_MPI
static int exit_together;
#endif
static void before_shared_exit(void)
{
#ifdef WITH_MPI
    exit_together = 1;
#endif
}

/* ---- one process per GPU, under MPI ----------------------------------------------------------- */

#ifdef WITH_MPI
/* Where a rank runs, and the NCCL id it holds: gathered once the ranks have met. */
typedef struct {
    char host[64];
    int local_rank, local_size;
    uint64_t id_bits; /* fingerprint of the NCCL unique id this rank received */
} Place;

/* At exit, under MPI: a rank that fails on its own (a CUDA or NCCL error, a usage error that only it
 * sees) ends every rank with MPI_Abort, so that none is left waiting for it in NCCL's setup or a
 * collective; an exit that every rank takes (the end of the run, before_shared_exit) goes through
 * MPI_Finalize, which every rank reaches once it has said what it had to say. */
static void end_every_rank(int status, void *unused)
{
    (void)unused;
    int started = 0, finished = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&finished);
    if (!started || finished) return;
    if (status == EXIT_OK || exit_together) MPI_Finalize();
    else MPI_Abort(MPI_COMM_WORLD, status);
}

/* MPI_Init, and this rank's place: its rank among the G, its host, and its local rank there (its rank
 * among the ranks that share its host's memory, MPI_COMM_TYPE_SHARED, in rank order). */
static void mpi_start(const char *prog)
{
    MPI_Init(NULL, NULL);
    on_exit(end_every_rank, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0); /* the launcher forwards each line as it comes */
    MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world.nranks);
    if (world.nranks > MAX_GPUS) {
        char msg[64];
        snprintf(msg, sizeof msg, "%d ranks: at most %d", world.nranks, MAX_GPUS);
        before_shared_exit(); /* every rank sees the same size */
        usage_error(prog, "--mpi with %s", msg);
    }
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &world.local_rank);
    MPI_Comm_size(host, &world.local_size);
    MPI_Comm_free(&host);
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    snprintf(world.host, sizeof world.host, "%.63s", name);
}

/* NCCL's unique id: rank 0 makes it (ncclGetUniqueId needs no GPU) and MPI_Bcasts it. Then every rank's
 * place and a fingerprint of the id it holds go to every rank, which checks that all hold rank 0's. */
static void share_nccl_id(ncclUniqueId *id, Place *places)
{
    if (world.rank == 0) NCCL_CHECK(ncclGetUniqueId(id));
    MPI_Bcast(id, (int)sizeof *id, MPI_BYTE, 0, MPI_COMM_WORLD);
    Place mine;
    memset(&mine, 0, sizeof mine);
    snprintf(mine.host, sizeof mine.host, "%s", world.host);
    mine.local_rank = world.local_rank;
    mine.local_size = world.local_size;
    mine.id_bits = fingerprint(id, sizeof *id);
    gather(&mine, sizeof mine, places);
    int differ = 0;
    for (int r = 1; r < world.nranks; r++) differ += places[r].id_bits != places[0].id_bits;
    if (differ) {
        before_shared_exit(); /* every rank compares the same gathered fingerprints */
        fprintf(stderr, "error: rank %d: %d rank%s hold%s another NCCL unique id than rank 0's after MPI_Bcast\n",
                world.rank, differ, differ == 1 ? "" : "s", differ == 1 ? "s" : "");
        exit(EXIT_GPU);
    }
}

/* --ranks-only: rank 0 lists the ranks as they met. */
static void print_ranks(const Place *places)
{
    if (world.rank != 0) return;
    int hosts = 0;
    for (int r = 0; r < world.nranks; r++) hosts += places[r].local_rank == 0;
    printf("%d rank%s under MPI on %d host%s; NCCL's unique id made by rank 0 and sent by MPI_Bcast\n", world.nranks,
           world.nranks == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
    for (int r = 0; r < world.nranks; r++)
        printf("rank %d: host %s, local rank %d of %d, NCCL id %016llx\n", r, places[r].host, places[r].local_rank,
               places[r].local_size, (unsigned long long)places[r].id_bits);
    printf("every rank holds rank 0's NCCL id\n");
}

/* Every rank looks for a GPU, and they agree: where any rank has none, every rank says so and exits
 * EXIT_GPU, all together (before_shared_exit). */
static void require_gpu_every_rank(void)
{
    int count = 0, none = cudaGetDeviceCount(&count) != cudaSuccess || count == 0, ranks_without = 0;
    MPI_Allreduce(&none, &ranks_without, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!ranks_without) return;
    before_shared_exit();
    if (none) require_gpu(); /* says why, and exits EXIT_GPU */
    fprintf(stderr, "error: rank %d (%s) stops: %d of the %d ranks found no usable GPU\n", world.rank, world.host,
            ranks_without, world.nranks);
    exit(EXIT_GPU);
}

/* This rank's GPU: the one of its local rank, where its host shows a GPU for each of its ranks; GPU 0
 * where the launcher shows each rank a single GPU of its own (CUDA_VISIBLE_DEVICES set per rank). */
static int rank_gpu(const char *prog, int visible)
{
    if (world.local_rank < visible) return world.local_rank;
    if (visible == 1) return 0;
    char msg[200];
    snprintf(msg, sizeof msg, "%d is local rank %d of the %d ranks on host %s, which shows %d GPUs", world.rank,
             world.local_rank, world.local_size, world.host, visible);
    usage_error(prog, "rank %s: start at most one rank per GPU of a host", msg);
    return 0;
}
#endif

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
    r.sm_count = gp->info.sm_count;
    return r;
}

static void launch(const Kernel *k, Run *r)
{
    k->launch(r);
    if (r->refuse || r->host_partial_count) {
        fprintf(stderr, "error: stage 08's %s did not finish on the GPU (%s)\n", k->name, r->refuse ? r->refuse : "host finish");
        exit(EXIT_GPU);
    }
}

/* ---- the sum of one vector spread over the GPUs --------------------------------------------- */

/* How long each GPU spins before a rep of the sum, per GPU this process drives: longer than the host takes
 * to enqueue a rep on one GPU (its flush, stage 08's launch, the events, its share of the all-reduce). */
#define AHEAD_US_PER_GPU 50.0

/* Shard of rank r: elements [n r / G, n (r + 1) / G) of one vector whose element i is
 * fill_value(random, --seed, i), or element i of the --input file (file: its values; NULL: the fill), so
 * the vector and its sum do not depend on G. */
static void run_sum(const Options *o, const Kernel *k, uint64_t n, const float *file, SumReport *all)
{
    uint64_t G = (uint64_t)world.nranks;
    int run_count = o->warmup + o->reps;
    SumReport mine[MAX_GPUS];
    Reference refs[MAX_GPUS];
    Run runs[MAX_GPUS];
    float *host = (float *)host_alloc((n / G + 1) * sizeof(float), "a shard of the summed vector");
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        uint64_t lo = n * gp->rank / G, hi = n * (gp->rank + 1) / G;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < (int64_t)(hi - lo); i++)
            host[i] = file ? file[lo + (uint64_t)i] : fill_value(FILL_RANDOM, o->seed, lo + (uint64_t)i);
        refs[l] = reference_sum(host, hi - lo);
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaMemcpy(gp->shard, host, (hi - lo) * sizeof(float), cudaMemcpyHostToDevice));
        memset(&mine[l], 0, sizeof mine[l]);
        mine[l].gpu = gp->device;
        mine[l].lo = (double)lo;
        mine[l].n = (double)(hi - lo);
        runs[l] = make_run(gp, gp->shard, hi - lo);
    }
    free(host);

    /* Everything is enqueued back to back, no host wait between reps: each GPU's rep starts when its
     * previous all-reduce ends, so one process starting late does not count as communication. So this
     * is not the common time_runs, which times one GPU and waits for each run before the next: the events
     * keep this schedule on the G GPUs, and the medians come from the common median(). Each run's total
     * goes to a slot of its own, so that the bits of every run can be compared afterwards.
     * comm is timed from the end of this GPU's shard to the end of the all-reduce, so it includes any wait
     * for a GPU whose shard ends later. That wait must not be the host's: one thread enqueues the rep on
     * G GPUs, one after the other, and a small shard takes less time than those launches. So each GPU
     * first spins (untimed) AHEAD_US_PER_GPU times the GPUs this process drives, while the host enqueues
     * the rep on the others: with the GPUs' work slower than the host's launches, the host stays ahead,
     * and after the first rep every GPU starts each rep when the all-reduce before it ends: together. */
    for (int it = 0; it < run_count; it++) {
        int k_ = it - o->warmup;
        for (int l = 0; l < world.local; l++) {
            Gpu *gp = &world.gpu[l];
            CUDA_CHECK(cudaSetDevice(gp->device));
            keep_gpu_busy(AHEAD_US_PER_GPU * world.local, 0); /* as time_runs: busy while the rep is enqueued */
            if (!o->warm) l2_flush(&gp->flush, 0);
            if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[k_], 0));
            memset(&runs[l].chain, 0, sizeof runs[l].chain); /* the launcher fills in its shape */
            launch(k, &runs[l]); /* legacy default stream: NCCL's stream (a blocking one) waits for it */
            if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[o->reps + k_], 0));
        }
        NCCL_CHECK(ncclGroupStart());
        for (int l = 0; l < world.local; l++)
            NCCL_CHECK(ncclAllReduce(world.gpu[l].out, world.gpu[l].totals + it, 1, ncclFloat32, ncclSum,
                                     world.gpu[l].comm, world.gpu[l].stream));
        NCCL_CHECK(ncclGroupEnd());
        if (k_ >= 0)
            for (int l = 0; l < world.local; l++) {
                CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
                CUDA_CHECK(cudaEventRecord(world.gpu[l].ev[2 * o->reps + k_], world.gpu[l].stream));
            }
    }
    float *totals = (float *)host_alloc(run_count * sizeof(float), "the totals of every run");
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaDeviceSynchronize());
        float out = 0.0f;
        CUDA_CHECK(cudaMemcpy(&out, gp->out, sizeof out, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(totals, gp->totals, run_count * sizeof(float), cudaMemcpyDeviceToHost));
        SumReport *m = &mine[l];
        m->local_us = median_us(gp->ev, gp->ev + o->reps, o->reps);
        m->comm_us = median_us(gp->ev + o->reps, gp->ev + 2 * o->reps, o->reps);
        m->total_us = median_us(gp->ev, gp->ev + 2 * o->reps, o->reps);
        m->result = out;
        m->ref_sum = refs[l].sum;
        m->ref_abs = refs[l].abs_sum;
        m->tol = sum_tolerance(runs[l].chain, &refs[l], NULL, runs[l].n); /* the shape stage 08 reported (a tree) */
        m->ok = result_passes(out, &refs[l], m->tol);
        m->total = totals[run_count - 1];
        m->same = 1.0;
        for (int it = 1; it < run_count; it++)
            if (memcmp(&totals[it], &totals[0], sizeof(float))) m->same = 0.0;
    }
    free(totals);
    gather(mine, sizeof(SumReport), all);
}

/* Checks and prints the gathered sums, and writes the CSV row; returns the number of failed checks. */
static int report_sum(const Options *o, const Kernel *k, uint64_t n, const SumReport *all, int leader, FILE *csv,
                      const char *gpu_name, const Program *p)
{
    int G = world.nranks, failures = 0;
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
    /* bits: every GPU received the same total as GPU 0, and every run (warm-up included) the same as its first */
    int total_ok = 1, same = 1, every_run = 1;
    for (int r = 0; r < G; r++) {
        total_ok &= result_passes(all[r].total, &ref, tol);
        same &= !memcmp(&all[r].total, &all[0].total, sizeof all[r].total);
        every_run &= all[r].same != 0.0;
    }
    failures += !total_ok;
    if (!leader) return failures;

    char data[600] = "";
    if (o->input_path) snprintf(data, sizeof data, ", input %s (f32),", o->input_path);
    printf("\nsum of N = %llu fp32 elements%s over %d GPU%s: stage 08 %s on each shard, then ncclAllReduce of the %d "
           "partial sums\n", (unsigned long long)n, data, G, G > 1 ? "s" : "", k->name, G);
    printf("medians of %d runs; local: the shard's reduction; comm: from its end to the end of the all-reduce of one "
           "float, so it includes any wait for another GPU's shard (one host thread starts the GPUs in turn) and can\n"
           "exceed many times over the all-reduce alone (the table's smallest size); NCCL's first call, which connects\n"
           "the GPUs, ran untimed before%s\n",
           o->reps, o->warm ? "; L2 left warm (--l2 warm: no flush before each run)" : "");
    printf("%-6s %-5s %12s %10s %16s %24s %10s  %s\n", "shard", "gpu", "elements", "local µs", "result",
           "fp64 reference", "tolerance", "check");
    char got[32], want[32];
    for (int r = 0; r < G; r++)
        printf("%-6d %-5.0f %12.0f %10.1f %16s %24s %10.2e  %s\n", r, all[r].gpu, all[r].n, all[r].local_us,
               result_decimal(got, sizeof got, all[r].result, RESULT_F32),
               result_decimal(want, sizeof want, all[r].ref_sum, RESULT_F64), all[r].tol, all[r].ok != 0.0 ? "ok" : "FAIL");
    double rel = relative_error(all[0].total, ref.sum);
    double gbps = 4.0 * (double)n / (total_us * 1e3);
    printf("%-12s %12llu %10.1f %16s %24s %10.2e  %s\n", "total", (unsigned long long)n, local_us,
           result_decimal(got, sizeof got, all[0].total, RESULT_F32), result_decimal(want, sizeof want, ref.sum, RESULT_F64),
           tol, total_ok ? "ok" : "FAIL");
    printf("all-reduce of the partials: %.1f µs; local + comm per run: %.1f µs (%.0f GB/s of input over all GPUs); "
           "rel err %.2e; %s%s\n", comm_us, total_us, gbps, rel,
           G == 1 ? "one GPU" : same ? "every GPU received the same bits" : "the GPUs received different totals",
           every_run ? "" : "; the total's bits changed between runs");
    char name[64];
    snprintf(name, sizeof name, "sum_g%d%s", G, world.processes ? "_procs" : "");
    Measurement row = {name, "f32", n, total_us, gbps, 100.0 * gbps / (G * world.gpu[0].info.peak_gbps),
                  total_ok && !failures ? "1" : "0", rel, 0, o->warm, same && every_run, 4.0 * (double)n,
                  0.0, 0.0, o->input_path ? "input" : NULL, 0.0, -1.0};
    row.result_type = RESULT_F32;
    row.shown = all[0].total;
    csv_write(csv, gpu_name, p, &row);
    return failures;
}

/* ---- the all-reduce of whole arrays (the data-parallel gradient case) ------------------------- */

/* Rank r's arrays: element i is fill_value(random, 999 + S + r, i) for --seed S (the default 1: 1000 + r),
 * so every size is a prefix. */
static uint64_t array_seed(uint64_t seed, int rank)
{
    return 999 + seed + (uint64_t)rank;
}

static double element(int bf16, uint64_t seed, int rank, uint64_t i)
{
    float v = fill_value(FILL_RANDOM, array_seed(seed, rank), i);
    return bf16 ? (double)__bfloat162float(__float2bfloat16(v)) : (double)v;
}

static uint64_t sample_stride(uint64_t count)
{
    return count > SAMPLES ? (count + SAMPLES - 1) / SAMPLES : 1;
}

/* Reads the checked elements of this GPU's result (every stride-th, then the last) into sample; returns
 * how many. */
static uint64_t read_sample(const Gpu *gp, size_t elem, uint64_t count, void *sample)
{
    uint64_t stride = sample_stride(count), rows = (count + stride - 1) / stride;
    CUDA_CHECK(cudaSetDevice(gp->device));
    CUDA_CHECK(cudaMemcpy2D(sample, elem, gp->recv, stride * elem, elem, rows, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy((char *)sample + rows * elem, (const char *)gp->recv + (count - 1) * elem, elem,
                          cudaMemcpyDeviceToHost));
    return rows + 1;
}

/* Compares the sample (taken elements, read_sample's) with the fp64 sum of what every rank sent;
 * returns the largest error over the sum of magnitudes, *ok = all within tolerance. */
static double check_sample(int bf16, uint64_t seed, uint64_t count, const void *sample, uint64_t taken, int *ok)
{
    uint64_t stride = sample_stride(count);
    /* G values, at most G - 1 roundings on a path, in the element type (bf16: 8 significant bits) */
    AddChain shape = {(double)(world.nranks - 1), 0.0, 0.0, bf16 ? 8 : 0, 0.0};
    double worst = 0.0;
    *ok = 1;
    for (uint64_t j = 0; j < taken; j++) {
        uint64_t i = j + 1 < taken ? j * stride : count - 1;
        double got = bf16 ? (double)__bfloat162float(((const __nv_bfloat16 *)sample)[j]) : (double)((const float *)sample)[j];
        Reference ref;
        memset(&ref, 0, sizeof ref);
        for (int r = 0; r < world.nranks; r++) {
            double v = element(bf16, seed, r, i);
            ref.sum += v;
            ref.abs_sum += fabs(v);
        }
        if (!result_passes(got, &ref, sum_tolerance(shape, &ref, NULL, (uint64_t)world.nranks))) *ok = 0;
        if (ref.abs_sum > 0.0) worst = fmax(worst, fabs(got - ref.sum) / ref.abs_sum);
        else if (got != 0.0) worst = INFINITY;
    }
    return worst;
}

/* One ncclAllReduce of every local GPU's send array into its recv array. */
static void all_reduce_arrays(uint64_t count, ncclDataType_t type)
{
    NCCL_CHECK(ncclGroupStart());
    for (int l = 0; l < world.local; l++)
        NCCL_CHECK(ncclAllReduce(world.gpu[l].send, world.gpu[l].recv, count, type, ncclSum, world.gpu[l].comm,
                                 world.gpu[l].stream));
    NCCL_CHECK(ncclGroupEnd());
}

static int run_arrays(const Options *o, int bf16, int leader, FILE *csv, const char *gpu_name, const Program *p)
{
    size_t elem = bf16 ? 2 : 4;
    const char *dtype = bf16 ? "bf16" : "f32";
    const Kernel *k = stage08_kernel(bf16 ? "roofline_bf16_f32" : F32_KERNEL);
    ncclDataType_t nccl_type = bf16 ? ncclBfloat16 : ncclFloat32;
    uint64_t max_bytes = 0;
    for (int s = 0; s < stage_options.size_count; s++)
        if (stage_options.sizes[s] > max_bytes) max_bytes = stage_options.sizes[s];
    uint64_t max_count = max_bytes / elem;
    void *host = host_alloc(max_bytes, "the all-reduce input");
    void *sample = host_alloc((SAMPLES + 2) * elem, "the checked elements");
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        uint64_t seed = array_seed(o->seed, gp->rank);
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
        printf("\nncclAllReduce (sum, out of place) of whole %s arrays on %d GPU%s, medians of %d runs\n", dtype,
               world.nranks, world.nranks > 1 ? "s" : "", o->reps);
        printf("local: stage 08 %s reducing the same bytes to one number on one GPU; comm: the all-reduce\n", k->name);
        printf("%10s %-5s %12s %10s %10s %11s %11s %12s  %s\n", "size", "dtype", "elements", "local µs", "comm µs",
               "algbw GB/s", "busbw GB/s", "max err/Σ|x|", "check");
    }
    int failures = 0;
    for (int s = 0; s < stage_options.size_count; s++) {
        uint64_t bytes = stage_options.sizes[s] / elem * elem, count = bytes / elem;
        ArrayReport mine[MAX_GPUS], all[MAX_GPUS];
        Run runs[MAX_GPUS];
        for (int l = 0; l < world.local; l++) runs[l] = make_run(&world.gpu[l], world.gpu[l].send, count);
        /* local: each GPU independently, all enqueued, then one wait */
        for (int it = 0; it < o->warmup + o->reps; it++)
            for (int l = 0; l < world.local; l++) {
                Gpu *gp = &world.gpu[l];
                int k_ = it - o->warmup;
                CUDA_CHECK(cudaSetDevice(gp->device));
                if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[k_], 0));
                launch(k, &runs[l]);
                if (k_ >= 0) CUDA_CHECK(cudaEventRecord(gp->ev[o->reps + k_], 0));
            }
        for (int l = 0; l < world.local; l++) {
            CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
            CUDA_CHECK(cudaDeviceSynchronize());
            memset(&mine[l], 0, sizeof mine[l]);
            mine[l].local_us = median_us(world.gpu[l].ev, world.gpu[l].ev + o->reps, o->reps);
        }
        /* comm: start and stop events outside the group (NCCL enqueues its kernels at ncclGroupEnd) */
        for (int it = 0; it < o->warmup + o->reps; it++) {
            int k_ = it - o->warmup;
            if (k_ >= 0)
                for (int l = 0; l < world.local; l++) {
                    CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
                    CUDA_CHECK(cudaEventRecord(world.gpu[l].ev[k_], world.gpu[l].stream));
                }
            all_reduce_arrays(count, nccl_type);
            if (k_ >= 0)
                for (int l = 0; l < world.local; l++) {
                    CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
                    CUDA_CHECK(cudaEventRecord(world.gpu[l].ev[o->reps + k_], world.gpu[l].stream));
                }
        }
        for (int l = 0; l < world.local; l++) {
            Gpu *gp = &world.gpu[l];
            CUDA_CHECK(cudaSetDevice(gp->device));
            CUDA_CHECK(cudaStreamSynchronize(gp->stream));
            mine[l].comm_us = median_us(gp->ev, gp->ev + o->reps, o->reps);
            int ok = 0;
            uint64_t taken = read_sample(gp, elem, count, sample);
            mine[l].max_err = check_sample(bf16, o->seed, count, sample, taken, &ok);
            mine[l].ok = ok;
            mine[l].bits = fingerprint(sample, taken * elem);
        }
        /* The bits column. The timed runs follow one another with nothing between them (as in nccl-tests),
         * so only the last one's result can be read. Instead, one more all-reduce runs, untimed, and each
         * GPU compares the bits of its checked elements with the last timed run's (by fingerprint); the
         * ranks then compare their fingerprints. "same": both runs, on every GPU, gave the same bits there. */
        all_reduce_arrays(count, nccl_type);
        for (int l = 0; l < world.local; l++) {
            Gpu *gp = &world.gpu[l];
            CUDA_CHECK(cudaSetDevice(gp->device));
            CUDA_CHECK(cudaStreamSynchronize(gp->stream));
            uint64_t taken = read_sample(gp, elem, count, sample);
            mine[l].same = fingerprint(sample, taken * elem) == mine[l].bits;
        }
        gather(mine, sizeof(ArrayReport), all);
        /* the collective ends when its slowest rank does: the largest median over the ranks */
        double local_us = 0.0, comm_us = 0.0, err = 0.0;
        int ok = 1, same = 1;
        for (int r = 0; r < world.nranks; r++) {
            local_us = fmax(local_us, all[r].local_us);
            comm_us = fmax(comm_us, all[r].comm_us);
            err = fmax(err, all[r].max_err);
            ok &= all[r].ok != 0.0;
            same &= all[r].same != 0.0 && all[r].bits == all[0].bits;
        }
        failures += !ok;
        double algbw = (double)bytes / (comm_us * 1e3); /* GB/s */
        double busbw = algbw * 2.0 * (world.nranks - 1) / world.nranks;
        if (leader) {
            char text[32], name[64];
            printf("%10s %-5s %12llu %10.1f %10.1f %11.1f %11.1f %12.2e  %s\n", bytes_text(bytes, text, sizeof text),
                   dtype, (unsigned long long)count, local_us, comm_us, algbw, busbw, err, ok ? "ok" : "FAIL");
            if (!same) printf("%10s the checked elements' bits differ between the GPUs or between two runs\n", "");
            snprintf(name, sizeof name, "allreduce_g%d%s", world.nranks, world.processes ? "_procs" : "");
            /* gbps: busbw, or algbw for G = 1, where busbw is 0 by definition; no flush, as in nccl-tests: warm */
            Measurement row = {name, dtype, count, comm_us, world.nranks > 1 ? busbw : algbw, 0.0, ok ? "1" : "0", err,
                          0, 1, same, (double)bytes, 0.0, 0.0, NULL, 0.0, -1.0};
            csv_write(csv, gpu_name, p, &row);
        }
    }
    if (leader) {
        printf("algbw = bytes / comm time; busbw = algbw x 2(G-1)/G, what each GPU's link carries in a ring all-reduce");
        printf(world.nranks == 1
                   ? "\n(G = 1: busbw is 0, no byte crosses a link, as nccl-tests prints it; the CSV has algbw)\n"
                   : "\n");
    }
    free(sample);
    return failures;
}

/* ---- setup -------------------------------------------------------------------------------- */

/* Describes each local GPU and checks, before anything is allocated, that the run fits in its free memory. */
static void open_gpus(const Options *o, uint64_t max_n, uint64_t shard_cap, uint64_t max_bytes, uint64_t max_count)
{
    uint64_t reduce_n = shard_cap > max_count ? shard_cap : max_count;
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        describe_gpu(gp->device, &gp->info); /* exits if the GPU is older than compute capability 7.5 */
        size_t need = shard_cap * sizeof(float) + PARTIALS_CAPACITY(reduce_n) * sizeof(float) +
                      (size_t)(o->warmup + o->reps) * sizeof(float) + 2 * max_bytes + 2 * gp->info.l2_bytes +
                      NCCL_SLACK;
        char what[160];
        int len = snprintf(what, sizeof what, "GPU %d's", gp->device);
        if (max_n && o->input_path) len += snprintf(what + len, sizeof what - len, " share of --input %.100s", o->input_path);
        else if (max_n) len += snprintf(what + len, sizeof what - len, " share of N = %llu", (unsigned long long)max_n);
        if (max_bytes)
            snprintf(what + len, sizeof what - len, "%s all-reduce arrays of up to %llu bytes (--sizes)",
                     max_n ? " and" : "", (unsigned long long)max_bytes);
        require_gpu_memory(need, what, &gp->info);
    }
}

static void alloc_gpus(const Options *o, uint64_t shard_cap, uint64_t max_bytes, uint64_t max_count)
{
    uint64_t reduce_n = shard_cap > max_count ? shard_cap : max_count;
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        CUDA_CHECK(cudaStreamCreate(&gp->stream)); /* blocking: it and the legacy default stream wait for each other */
        gp->ev = (cudaEvent_t *)host_alloc(3 * (size_t)o->reps * sizeof(cudaEvent_t), "the timing events");
        for (int e = 0; e < 3 * o->reps; e++) CUDA_CHECK(cudaEventCreate(&gp->ev[e]));
        gp->shard = (float *)device_alloc(shard_cap * sizeof(float), "the shard of the summed vector");
        gp->partials = (float *)device_alloc(PARTIALS_CAPACITY(reduce_n) * sizeof(float), "stage 08's partial sums");
        gp->out = (float *)device_alloc(sizeof(float), "the shard's sum");
        gp->totals = (float *)device_alloc((size_t)(o->warmup + o->reps) * sizeof(float), "the all-reduced sums");
        gp->send = device_alloc(max_bytes, "the all-reduce input");
        gp->recv = device_alloc(max_bytes, "the all-reduce output");
        l2_flush_init(&gp->flush, &gp->info);
    }
}

/* NCCL connects the GPUs lazily, in a communicator's first collective: milliseconds that are the setup's,
 * not an all-reduce's. One all-reduce of one float on every GPU, waited for, before anything is timed. */
static void connect_gpus(void)
{
    for (int l = 0; l < world.local; l++) {
        CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
        CUDA_CHECK(cudaMemsetAsync(world.gpu[l].out, 0, sizeof(float), world.gpu[l].stream));
    }
    NCCL_CHECK(ncclGroupStart());
    for (int l = 0; l < world.local; l++)
        NCCL_CHECK(ncclAllReduce(world.gpu[l].out, world.gpu[l].out, 1, ncclFloat32, ncclSum, world.gpu[l].comm,
                                 world.gpu[l].stream));
    NCCL_CHECK(ncclGroupEnd());
    for (int l = 0; l < world.local; l++) {
        CUDA_CHECK(cudaSetDevice(world.gpu[l].device));
        CUDA_CHECK(cudaStreamSynchronize(world.gpu[l].stream));
    }
}

static void free_gpus(const Options *o)
{
    for (int l = 0; l < world.local; l++) {
        Gpu *gp = &world.gpu[l];
        CUDA_CHECK(cudaSetDevice(gp->device));
        NCCL_CHECK(ncclCommDestroy(gp->comm));
        for (int e = 0; e < 3 * o->reps; e++) CUDA_CHECK(cudaEventDestroy(gp->ev[e]));
        free(gp->ev);
        CUDA_CHECK(cudaStreamDestroy(gp->stream));
        void *bufs[] = {gp->shard, gp->partials, gp->out, gp->totals, gp->send, gp->recv};
        for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) CUDA_CHECK(cudaFree(bufs[b]));
        l2_flush_free(&gp->flush);
    }
}

int main(int argc, char **argv)
{
    const char *prog = argv[0];
    Program p = describe_program();
    stage_options.size_count = parse_size_list(DEFAULT_SIZES, stage_options.sizes, MAX_SIZES);
    stage_options.f32 = stage_options.bf16 = 1;
    Options o = parse_command_line(argc, argv, &p, NULL);
    check_mpi_options(prog);
    /* --input: the sum runs on the file (every rank reads it whole and takes its shard); --dtype names a raw
     * file's type. Every problem with the file is found here, before MPI and the GPUs. */
    if (o.input_path) o.input_dtype = stage_options.dtype;
    ArrayFile file;
    int from_file = read_input(prog, &o, &p, INPUT_TYPES, &file);
    uint64_t *ns = o.n;
    int n_count = from_file ? 1 : o.size_count;
    int do_sum = kernel_selected(&o, "sum", 1), do_arrays = kernel_selected(&o, "allreduce", 1) && !from_file;
    if (from_file) {
        ns[0] = file.count;
        if (!do_sum) usage_error(prog, "%s: the file is summed by the kernel sum, which --kernel leaves out", "--input");
        if (stage_options.sizes_given)
            usage_error(prog, "%s: --sizes sets the all-reduce's arrays, which do not run on a file", "--input");
    }
    world.processes = stage_options.mpi;

    /* Under MPI the ranks meet before anything else: rank 0's NCCL id reaches every rank, and every rank
     * looks for a GPU, so that a rank that cannot go on stops every rank (no rank left waiting). */
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    char msg[700];
    int visible = 0;
#ifdef WITH_MPI
    if (world.processes) {
        Place places[MAX_GPUS];
        mpi_start(prog);
        share_nccl_id(&id, places);
        if (stage_options.ranks_only) {
            print_ranks(places);
            MPI_Finalize();
            return EXIT_OK;
        }
    }
#endif
    int leader = world.rank == 0;
    FILE *csv = leader ? open_csv(o.csv_path, prog) : NULL; /* under MPI, a rank 0 that cannot ends every rank */
#ifdef WITH_MPI
    if (world.processes) {
        require_gpu_every_rank();
        CUDA_CHECK(cudaGetDeviceCount(&visible));
        world.local = 1;
        world.gpu[0].device = rank_gpu(prog, visible);
        world.gpu[0].rank = world.rank;
    }
#endif
    if (!world.processes) {
        require_gpu();
        CUDA_CHECK(cudaGetDeviceCount(&visible));
        if (stage_options.gpus > visible) {
            snprintf(msg, sizeof msg, "%d: only %d GPU%s visible", stage_options.gpus, visible,
                     visible == 1 ? " is" : "s are");
            usage_error(prog, "--gpus %s", msg);
        }
        world.nranks = world.local = stage_options.gpus ? stage_options.gpus : (visible < MAX_GPUS ? visible : MAX_GPUS);
        for (int l = 0; l < world.local; l++) world.gpu[l].device = world.gpu[l].rank = l;
    }
    /* Buffers for the largest --n (its shards) and the largest --sizes, of the parts that run. */
    uint64_t max_n = 0, max_bytes = 0;
    for (int i = 0; do_sum && i < n_count; i++) {
        if (ns[i] < (uint64_t)world.nranks) {
            if (from_file)
                snprintf(msg, sizeof msg, "--input %s: %llu elements, fewer than the GPUs (%d): the vector needs at "
                         "least one per GPU", o.input_path, (unsigned long long)ns[i], world.nranks);
            else
                snprintf(msg, sizeof msg, "--n %llu: the vector needs at least one element per GPU (%d)",
                         (unsigned long long)ns[i], world.nranks);
            before_shared_exit(); /* every rank has the same --n (or file) and G */
            usage_error(prog, "%s", msg);
        }
        if (ns[i] > max_n) max_n = ns[i];
    }
    for (int s = 0; do_arrays && s < stage_options.size_count; s++)
        if (stage_options.sizes[s] > max_bytes) max_bytes = stage_options.sizes[s];
    uint64_t max_count = max_bytes / (stage_options.bf16 ? 2 : 4);
    uint64_t shard_cap = do_sum ? max_n / (uint64_t)world.nranks + 1 : 0;
    open_gpus(&o, max_n, shard_cap, max_bytes, max_count);

    /* Communicators: one call for every GPU of this process, or one rank per process, met through the id. */
    if (world.processes) {
        CUDA_CHECK(cudaSetDevice(world.gpu[0].device));
        NCCL_CHECK(ncclCommInitRank(&world.gpu[0].comm, world.nranks, id, world.rank));
    } else {
        ncclComm_t comms[MAX_GPUS];
        int devs[MAX_GPUS];
        for (int l = 0; l < world.local; l++) devs[l] = world.gpu[l].device;
        NCCL_CHECK(ncclCommInitAll(comms, world.local, devs));
        for (int l = 0; l < world.local; l++) world.gpu[l].comm = comms[l];
    }
    alloc_gpus(&o, shard_cap, max_bytes, max_count);
    connect_gpus();

    Ident ids[MAX_GPUS], all_ids[MAX_GPUS];
    for (int l = 0; l < world.local; l++) {
        memset(&ids[l], 0, sizeof ids[l]);
        snprintf(ids[l].name, sizeof ids[l].name, "%.95s", world.gpu[l].info.name); /* GPU names are far shorter */
        snprintf(ids[l].host, sizeof ids[l].host, "%s", world.host);
        ids[l].device = world.gpu[l].device;
        ids[l].sm_count = world.gpu[l].info.sm_count;
    }
    gather(ids, sizeof(Ident), all_ids);
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    if (leader) {
        printf("stage %s: the sum across GPUs with NCCL\n", p.stage);
        printf("NCCL %d.%d.%d (built with headers %d.%d.%d); G = %d\n", version / 10000, version / 100 % 100,
               version % 100, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, world.nranks);
        if (world.processes)
            printf("mode: %d processes under MPI, one GPU each (ncclCommInitRank; unique id from rank 0 by MPI_Bcast)\n",
                   world.nranks);
        else
            printf("mode: one process driving %d GPU%s (ncclCommInitAll)\n", world.nranks, world.nranks > 1 ? "s" : "");
        for (int r = 0; r < world.nranks; r++)
            printf("rank %d: %s%s%sGPU %d, %s, %d SMs\n", r, world.processes ? "host " : "",
                   world.processes ? all_ids[r].host : "", world.processes ? ", " : "", all_ids[r].device,
                   all_ids[r].name, all_ids[r].sm_count);
    }

    int failures = 0;
    const Kernel *k = stage08_kernel(F32_KERNEL);
    for (int i = 0; do_sum && i < n_count; i++) {
        SumReport sums[MAX_GPUS];
        run_sum(&o, k, ns[i], from_file ? (const float *)file.bytes : NULL, sums);
        failures += report_sum(&o, k, ns[i], sums, leader, csv, all_ids[0].name, &p);
    }
    if (do_arrays && stage_options.f32) failures += run_arrays(&o, 0, leader, csv, all_ids[0].name, &p);
    if (do_arrays && stage_options.bf16) failures += run_arrays(&o, 1, leader, csv, all_ids[0].name, &p);

    free_gpus(&o);
    if (from_file) free(file.bytes);
    if (csv) fclose(csv);
    if (leader) printf("\n%s\n", failures ? "some checks FAILED" : "all checks passed");
    before_shared_exit(); /* every rank counted the same failures from the same gathered reports */
    return failures && o.check ? EXIT_VERIFY : EXIT_OK;
}

/* What a stage's reduce.cu needs from the harness: error checks, the Run a launcher fills in, and the
 * table of kernels. Everything else (options, data, reference, timing, CUB, output) is harness.cu.
 * The kernels of common/ itself (the flush, the timing and checking helpers) are named common_*, so that
 * the tools can tell them from a stage's (make stage-NN profile leaves them out). */
#ifndef REDUCE_COMMON_H
#define REDUCE_COMMON_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host.h"
#include "tree.h"

/* Every CUDA call goes through CUDA_CHECK; every launch is followed by LAUNCH_CHECK("kernel name").
 * A failure prints what failed, where, and CUDA's reason, then exits with EXIT_GPU. */
void cuda_check(cudaError_t err, const char *what, const char *file, int line);
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
/* Exits with EXIT_GPU and a plain message ("no CUDA-capable GPU found", "the NVIDIA driver is older
 * than ...") unless a GPU can be used. */
void require_gpu(void);
void launch_check(const char *kernel, const char *file, int line);
#define LAUNCH_CHECK(kernel) launch_check((kernel), __FILE__, __LINE__)

/* "error: <fmt with arg>" and the --help hint, then exit with EXIT_USAGE. */
void usage_error(const char *prog, const char *fmt, const char *arg);

/* GPU 0 as the programs describe it; exits with EXIT_GPU (and the reason) unless it can be used. */
typedef struct {
    char name[256];
    int sm_count, cc_major, cc_minor;
    size_t l2_bytes;
    double peak_gbps;   /* theoretical DRAM bandwidth: 2 x memory clock x bus width */
    int mem_clock_mhz, bus_bits;
} GpuInfo;
void open_gpu(GpuInfo *d);
/* The same description of any GPU (exits with EXIT_GPU if it is older than compute capability 7.5). */
void describe_gpu(int device, GpuInfo *d);

/* cudaMalloc, or exit with EXIT_GPU naming what it was for and how much memory is free. */
void *device_alloc(size_t bytes, const char *what);

/* The L2 flush, run before every timed run of every program: ordinary loads over twice the L2 size,
 * so that the timed run reads its input from DRAM (gpu.cu says why the loads must not be __ldcs).
 * `make audit` and the tests prove it with the DRAM bytes Nsight Compute counts (scripts/flush_check.sh). */
typedef struct {
    const uint4 *buf;
    uint64_t words;
    int *sink;
    unsigned grid;
} L2Flush;
void l2_flush_init(L2Flush *f, const GpuInfo *d);
void l2_flush(const L2Flush *f, cudaStream_t stream);
void l2_flush_free(L2Flush *f);
/* Runs before the start event where no flush does (--l2 warm): see gpu.cu. */
void keep_gpu_busy(double us, cudaStream_t stream);
/* Every SM busy for ms milliseconds, then synchronized: the GPU at its working clocks. */
void warm_gpu_clocks(double ms);

/* One reduction of in[0..n): the harness fills the first block, a launcher the second. */
typedef struct {
    float *in;              /* n floats in device memory (fresh copy before each run of an IN_PLACE kernel) */
    const void *data;       /* the same input for kernels whose input type is not fp32 (Kernel.dtype) */
    uint64_t n;
    float *partials;        /* device scratch for per-block sums: room for PARTIALS_CAPACITY(n) floats */
    float *out;             /* device scalar for kernels that finish on the GPU (an int for ACC_I32) */
    int sm_count;           /* multiprocessors, for grids sized to the machine */
    int blocks_per_sm;      /* the table entry's blocks per SM, for a grid sized to the machine */

    uint64_t host_partials; /* > 0: the CPU finishes the sum of partials[0..host_partials) (in fp64) */
    const float *host_in;   /* the same fp32 input in host memory, for a CPU row (ON_CPU) */
    int has_host_result;    /* set by a CPU row: its sum is host_result, nothing to read back */
    double host_result;
    const char *refuse;     /* set instead of launching when the kernel cannot take this input (why) */
    Shape shape;            /* how the additions are arranged, for the error bound (host.h) */

    /* Row stages (Stage.rows): in[] is a rows x cols matrix, row-major; each row's sum (or log-sum-exp,
     * OP_LOGSUMEXP) goes to row_sums[row] (room for rows floats), and shape describes one row's additions. */
    uint64_t rows, cols;
    float *row_sums;
} Run;

/* ceil(n / per_block) blocks, for a one-pass grid; exits with a clear error if the grid would be
 * larger than CUDA allows (2^31 - 1 blocks). */
unsigned grid_for(uint64_t n, uint64_t per_block, const char *kernel);

/* Room in Run.partials: enough for one sum per 128 elements (the smallest block that writes partials),
 * or for a grid of 65536 blocks. */
#define PARTIALS_CAPACITY(n) ((n) / 128 + 65536)

/* Enqueue the reduction on the default stream; a kernel that finishes on the GPU leaves the sum in
 * r->out, one that finishes on the CPU sets r->host_partials. */
typedef void (*LaunchFn)(Run *r);

enum {
    IN_PLACE = 1,       /* overwrites its input: the harness restores it before every run, untimed */
    NOT_DEFAULT = 2,    /* deliberately wrong teaching kernel: runs only when named with --kernel */
    ON_CPU = 4,         /* a CPU loop, timed between the same events */
};
/* A kernel or CPU loop whose checked run takes over SLOW_RUN_US is timed SLOW_REPS times (or --reps, if
 * fewer), with no warm-up beyond the checked run. */
#define SLOW_RUN_US 20000.0
#define SLOW_REPS 3

/* Input element types and accumulators (stage 07 uses most; the others are fp32, and int32 where an
 * article sums integers). */
typedef enum { DT_F32, DT_F16, DT_BF16, DT_FP8_E4M3, DT_FP8_E5M2, DT_I8, DT_I32, DT_COUNT } Dtype;
/* ACC_KAHAN: compensated fp32; ACC_EXACT_SUM: the exact sum rounded once to fp32, checked bit for bit. */
typedef enum { ACC_F32, ACC_F16, ACC_BF16, ACC_I32, ACC_F64, ACC_KAHAN, ACC_EXACT_SUM } Acc;
/* What the kernel reduces with: the max exercise is OP_MAX; OP_LOGSUMEXP, a row stage's, is softmax's max
 * and sum per row as one number, max + log(sum exp(x - max)), checked against reference_logsumexp. */
typedef enum { OP_SUM, OP_MAX, OP_LOGSUMEXP } Op;

/* A table entry; the fields after flags may be left out (fp32 input, fp32 accumulator, any GPU). */
typedef struct {
    const char *name;   /* printed in the table and written to the CSV */
    const char *source; /* the article section it implements */
    LaunchFn launch;
    int blocks_per_sm;  /* copied to Run.blocks_per_sm */
    int flags;
    Dtype dtype;        /* input element type */
    Acc acc;            /* accumulator of the thread's and the block's sums */
    int min_cc;         /* lowest compute capability (major * 10 + minor) it runs on, 0: any */
    const char *needs;  /* what that capability provides, for the "skipped" message */
    Op op;              /* OP_SUM; OP_MAX: checked against the exact maximum; OP_LOGSUMEXP (rows) */
    const char *no_tree; /* why make stage-NN tree cannot record it (NULL: it can; a CPU row never can) */
} Kernel;

/* A program's own option: its flag, what follows it in --help (NULL: a flag without a value), the help
 * text (later lines indented by the caller), and what takes it (value NULL for a flag); take reports a
 * bad value with usage_error. */
typedef struct {
    const char *flag;
    const char *value;
    const char *help;
    void (*take)(const char *prog, const char *value);
} ProgramOption;

/* What a program is, for the command line and for scripts (--describe prints it; scripts/ read it). A
 * stage declares its own in STAGE(...) below; NULL fields take their defaults (program_defaults). */
typedef struct {
    const char *stage;          /* its stage folder, e.g. "11_scan_histogram" */
    const char *program;        /* the binary's name in build/<stage>/ */
    int several_gpus;           /* 1: drives several GPUs (not a single-GPU program for the tools) */
    const char *fills;          /* --fill values, space-separated; the first is the default */
    const char *check_fills;    /* what `make stage-NN check` and the tests verify with */
    const char *bench_fills;    /* what `make bench` runs */
    const char *default_sizes;  /* --n when none is given (a stage: also the sizes of `make bench`) */
    const char *bench_sizes;    /* the sizes of `make bench` */
    const char *check_sizes;    /* the sizes `make check` and the tests verify */
    const char *edge_sizes;     /* 64-bit index sizes the audit runs */
    int rows;                   /* 1: a row stage (sizes ROWSxCOLS) */
    const char *baseline;       /* the kernel timed for the speed-up column ("": none) */
    const char *warm_l2;        /* kernels `make bench` also runs with --l2 warm ("": none) */
    const char *flush_probes;   /* TABLE_KERNEL@GPU_FUNCTION@LOADS for the flush check ("": none) */
    const char *charts;         /* the charts its rows go on (--describe; the reports read it from there) */
    const char *accuracy;       /* kernels on the accuracy chart (make accuracy; "": none) */
    const char *limits;         /* kernels make limits profiles (scripts/limits.sh; "": none) */
    const char *trees;          /* kernels whose recorded tree its READMEs show (make stage-NN tree; "": none);
                                   a stage may write NAME@N: recorded at --n N when no --n is given (default 1024) */
    const char *csv;            /* the file `make bench` collects its rows in */
    const char *library_launches; /* "FIRST LAST": a run of the library's baseline under a profiler is its launches
                                     whose names hold FIRST, up to the one whose name holds LAST (default: CUB's) */
    const char *usage_note;     /* printed under the usage line of --help (NULL: none) */
    void (*list)(void);         /* --list: the kernels, for people */
    void (*describe_kernels)(void); /* the "kernel: NAME DTYPE default|wrong|cpu|library ACC" lines */
    int (*kernel_exists)(const char *name);
    const ProgramOption *own;   /* the program's own options */
    int own_count;
} Program;

/* A stage: its table of kernels and what its program is. */
typedef struct {
    const Kernel *kernels;
    int count;
    Program program;
} Stage;

/* The data every stage program can sum (--fill; the harness makes them). */
/* shifted first: the default and the bench's, data whose sum a check can hold to account (host.h). */
#define HARNESS_FILLS "shifted random ones seq mod100 large nan inf wide cond"
/* Odd sizes around a block of 256 and a warp, one not a multiple of anything, one past 2^24. */
#define DEFAULT_CHECK_SIZES "1,2,31,32,33,255,256,257,1000003,2^24+1"

/* Each stage file ends with STAGE("NN_name", table), and after the table any of Program's fields that
 * differ from the defaults, named and in Program's order: STAGE("09_rows", kernels, .default_sizes = "...",
 * .rows = 1). Every stage has the harness's fills; a stage without default sizes runs 2^26, and 2^16..2^28
 * in `make bench`, and its rows go on the progression's charts ("bandwidth+ scaling").
 * The first stage is also built as the baseline that every other stage times for its speed-up column
 * (AS_BASELINE). */
#ifdef AS_BASELINE
#define STAGE_SYMBOL baseline_stage
#else
#define STAGE_SYMBOL reduce_stage
#endif
#define STAGE(stage_name, table, ...) \
    TREE_BIND \
    extern const Stage STAGE_SYMBOL; \
    const Stage STAGE_SYMBOL = {table, (int)(sizeof(table) / sizeof(table[0])), \
                                {.stage = stage_name, .fills = HARNESS_FILLS, .check_fills = "shifted ones wide", __VA_ARGS__}}

#endif

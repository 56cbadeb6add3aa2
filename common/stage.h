/* The vocabulary of a stage file (stages/NN_name/reduce.cu, exercise.cu, and the solutions compiled into
 * an exercise), all it includes: the Run a launcher fills in, the Kernel entries of its table, and
 * STAGE(...), which makes the table the stage's (harness.cu runs it). The kernels of common/ itself are
 * named common_*, so that the tools can tell them from a stage's (make stage-NN profile leaves them out). */
#ifndef REDUCE_STAGE_H
#define REDUCE_STAGE_H

#include <stdint.h>

#include "chain.h"
#include "check.h"
#include "dtype.h"
#include "program.h"
#include "tree.h"

/* One reduction of in[0..n): the harness fills the first block, a launcher the second. */
typedef struct {
    float *in;              /* n floats in device memory (fresh copy before each run of an IN_PLACE kernel) */
    const void *data;       /* the same input for kernels whose input type is not fp32 (Kernel.dtype) */
    uint64_t n;
    float *partials;        /* device scratch for per-block sums: room for PARTIALS_CAPACITY(n) floats */
    float *out;             /* device scalar for kernels that finish on the GPU (an int for ACC_I32) */
    int sm_count;           /* multiprocessors, for grids sized to the machine */
    int blocks_per_sm;      /* the table entry's blocks per SM, for a grid sized to the machine */
    void *scratch;          /* device temporary storage of scratch_bytes, for a library's call (CUB's rows) */
    size_t scratch_bytes;

    uint64_t host_partial_count; /* > 0: the CPU finishes the sum of partials[0..host_partial_count) (in fp64) */
    const float *host_in;   /* the same fp32 input in host memory, for a CPU row (ON_CPU) */
    int has_host_result;    /* set by a CPU row: its sum is host_result, nothing to read back */
    double host_result;
    const char *refuse;     /* set instead of launching when the kernel cannot take this input (why) */
    AddChain chain;            /* how the additions are arranged, for the error bound (chain.h) */

    /* Row stages (Program.rows): in[] is a rows x cols matrix, row-major; each row's sum (or log-sum-exp,
     * OP_LOGSUMEXP) goes to row_sums[row] (room for rows floats), and shape describes one row's additions. */
    uint64_t rows, cols;
    float *row_sums;
    const int64_t *row_offsets; /* device: row i is in[row_offsets[i], row_offsets[i + 1]), for CUB's rows */
} Run;

/* Room in Run.partials: enough for one sum per 128 elements (the smallest block that writes partials),
 * or for a grid of 65536 blocks. */
#define PARTIALS_CAPACITY(n) ((n) / 128 + 65536)

/* Enqueue the reduction on the default stream; a kernel that finishes on the GPU leaves the sum in
 * r->out, one that finishes on the CPU sets r->host_partial_count. */
typedef void (*LaunchFn)(Run *r);

enum {
    IN_PLACE = 1,       /* overwrites its input: the harness restores it before every run, untimed */
    NOT_DEFAULT = 2,    /* deliberately wrong teaching kernel: runs only when named with --kernel */
    ON_CPU = 4,         /* a CPU loop, timed between the same events */
};

/* Accumulators (stage 07 uses most; the others are fp32, and int32 where an article sums integers); the
 * harness's table of them (accumulators, measure.cu) is in this order. ACC_KAHAN: compensated fp32;
 * ACC_EXACT_SUM: the exact sum rounded once to fp32, checked bit for bit. */
typedef enum { ACC_F32, ACC_F16, ACC_BF16, ACC_I32, ACC_F64, ACC_KAHAN, ACC_EXACT_SUM, ACC_COUNT } Acc;
/* What the kernel reduces with: the max exercise is OP_MAX; OP_LOGSUMEXP, a row stage's, is softmax's max
 * and sum per row as one number, max + log(sum exp(x - max)), checked against reference_logsumexp; the row
 * stage's OP_ABS_MAX, the largest |x| of each row, exactly (reference_abs_max), and OP_SUM_SQUARES, the sum
 * of squares of each row (reference_sum_squares, within sum_squares_tolerance). */
typedef enum { OP_SUM, OP_MAX, OP_LOGSUMEXP, OP_ABS_MAX, OP_SUM_SQUARES } Op;

/* A table entry; the fields after flags may be left out (fp32 input, fp32 accumulator, any GPU). */
typedef struct {
    const char *name;   /* printed in the table and written to the CSV */
    const char *source; /* the article section it implements */
    LaunchFn launch;
    int blocks_per_sm;  /* copied to Run.blocks_per_sm */
    int flags;
    Dtype dtype;        /* input element type (dtype.h) */
    Acc acc;            /* accumulator of the thread's and the block's sums */
    int min_cc;         /* lowest compute capability (major * 10 + minor) it runs on, 0: any */
    const char *needs;  /* what that capability provides, for the "skipped" message */
    Op op;              /* OP_SUM; OP_MAX: checked against the exact maximum; OP_LOGSUMEXP, OP_ABS_MAX,
                           OP_SUM_SQUARES (rows) */
    const char *no_tree; /* why make stage-NN tree cannot record it (NULL: it can; a CPU row never can) */
} Kernel;

/* A stage: its table of kernels and what its program is. */
typedef struct {
    const Kernel *kernels;
    int count;
    Program program;
} Stage;

/* Each stage file ends with STAGE("NN_name", table), and after the table any of Program's fields that
 * differ from the defaults, named and in Program's order: STAGE("09_rows", kernels, .default_sizes = "...",
 * .rows = 1). It defines reduce_stage, the table the harness runs. Every stage has every fill of fill.h; a
 * stage without default sizes runs 2^26, and 2^16..2^28 in `make bench`, and its rows go on the
 * progression's charts (it owns bandwidth and joins scaling). */
extern const Stage reduce_stage;
#define STAGE(stage_name, table, ...) \
    TREE_BIND \
    const Stage reduce_stage = {table, (int)(sizeof(table) / sizeof(table[0])), \
                                {.stage = stage_name, .check_fills = "shifted ones wide", __VA_ARGS__}}

#endif

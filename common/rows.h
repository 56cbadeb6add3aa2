/* The row stages' part of the harness (rows.cu): in a stage whose Program.rows is 1 (stage 09) the input
 * is a rows x cols matrix, row-major, and every row is a reduction of its own, with its own reference. */
#ifndef REDUCE_ROWS_H
#define REDUCE_ROWS_H

#include "bounds.h"
#include "stage.h"

/* What the rows of the size being run are checked against, and their results read back. own, moments and
 * moment_tols: made at the first run of a size by a kernel that reads them, their pages untouched until then. */
typedef struct {
    Reference *refs;               /* each row's fp64 sum */
    Reference *lse;                /* each row's log-sum-exp (NULL unless an OP_LOGSUMEXP kernel runs) */
    Reference *own;                /* an OP_ABS_MAX or OP_SUM_SQUARES kernel's references */
    double *tols;                  /* each row's bound, from the shape the kernel reports for one row */
    Moments *moments;              /* a Welford kernel's references */
    MomentsTolerance *moment_tols; /* and bounds */
    float *results;                /* pinned: the results read back (a Welford kernel's: means, then variances) */
    int64_t *offsets;              /* device: row i is in[offsets[i], offsets[i + 1]), for CUB */
} Rows;

/* The GPU memory rows_alloc takes for max_rows rows, for the harness's check of free memory. */
size_t rows_device_bytes(uint64_t max_rows);
/* Room for max_rows rows: r->row_sums (two results a row) and the above; exits EXIT_USAGE if the host
 * memory of the references is not there. lse: whether an OP_LOGSUMEXP kernel runs. */
void rows_alloc(Rows *rows, Run *r, uint64_t max_rows, int lse);
/* The references of r->rows rows of r->cols values (structured: a file's data, bounds.h) and CUB's
 * offsets of those rows, before the kernels of a size run. */
void rows_prepare(Rows *rows, const Run *r, const float *values, int structured);
/* Every row's result against its reference (tolerances from r->chain, made when new_shape): 1 if all
 * pass; the worst row's errors and its result (a Welford kernel's: the value those errors are of), and a
 * hash of the bits of every result for the run-to-run comparison. */
int rows_pass(Rows *rows, const Run *r, const float *values, Op op, int new_shape, double *rel_err,
              double *rel_bound, double *worst_result, double *hash);
#endif

/* The row stages' part of the harness (rows.h): each row's reference, and every row's result checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit_codes.h"
#include "gpu.h"
#include "result.h"
#include "rows.h"

size_t rows_device_bytes(uint64_t max_rows)
{
    return max_rows * (2 * sizeof(float) + 2 * sizeof(int64_t));
}

void rows_alloc(Rows *rows, Run *r, uint64_t max_rows, int lse)
{
    r->row_sums = (float *)device_alloc(2 * max_rows * sizeof(float), "the row results");
    rows->offsets = (int64_t *)device_alloc((max_rows + 1) * sizeof(int64_t), "CUB's row offsets");
    CUDA_CHECK(cudaMallocHost((void **)&rows->results, 2 * max_rows * sizeof(float)));
    rows->refs = (Reference *)malloc(max_rows * sizeof(Reference));
    rows->tols = (double *)malloc(max_rows * sizeof(double));
    if (lse) rows->lse = (Reference *)malloc(max_rows * sizeof(Reference));
    rows->moments = (Moments *)malloc(max_rows * sizeof(Moments));
    rows->own = (Reference *)malloc(max_rows * sizeof(Reference));
    rows->moment_tols = (MomentsTolerance *)malloc(max_rows * sizeof(MomentsTolerance));
    if (!rows->refs || !rows->tols || (lse && !rows->lse) || !rows->moments || !rows->moment_tols || !rows->own) {
        fprintf(stderr, "error: out of host memory for %llu row references\n", (unsigned long long)max_rows);
        exit(EXIT_USAGE);
    }
}

void rows_prepare(Rows *rows, const Run *r, const float *values, int structured)
{
    int64_t *offsets = (int64_t *)malloc((r->rows + 1) * sizeof(int64_t));
    if (!offsets) {
        fprintf(stderr, "error: out of host memory for the row offsets\n");
        exit(EXIT_USAGE);
    }
    for (uint64_t i = 0; i <= r->rows; i++) offsets[i] = (int64_t)(i * r->cols);
    CUDA_CHECK(cudaMemcpy(rows->offsets, offsets, (r->rows + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
    free(offsets);
#pragma omp parallel for schedule(dynamic, 16) if (r->rows >= 64)
    for (int64_t i = 0; i < (int64_t)r->rows; i++) {
        rows->refs[i] = reference_sum(values + (uint64_t)i * r->cols, r->cols);
        rows->refs[i].structured = structured;
        if (rows->lse) rows->lse[i] = reference_logsumexp(values + (uint64_t)i * r->cols, r->cols);
    }
}

/* A Welford kernel's row i (its mean in results[i], its variance in results[rows + i]): both within
 * their bounds. err and bound are the variance's, the number LayerNorm divides by, or the mean's where the
 * mean fails (on mean-zero data the mean's bound, like a sum's, can be as large as the mean itself),
 * relative to the reference; where that is 0 (a row of equal values has no variance), relative to the
 * row's scale instead, max|x|^2 for the variance and max|x| for the mean, so that the bound of a row of
 * values near 1e6 reads as small as it is (absolute where every value is 0). */
static int moments_row_passes(const Rows *rows, uint64_t i, uint64_t count, double *err, double *bound, double *shown)
{
    const Moments *m = &rows->moments[i];
    const MomentsTolerance *t = &rows->moment_tols[i];
    double mean = rows->results[i], var = rows->results[count + i];
    int mean_ok = value_passes(mean, m->mean, t->mean);
    double got = mean_ok ? var : mean, want = mean_ok ? m->var : m->mean, tol = mean_ok ? t->var : t->mean;
    double scale = want != 0.0 ? fabs(want) : mean_ok ? m->max_abs * m->max_abs : m->max_abs;
    *err = want == 0.0 && scale > 0.0 ? fabs(got) / scale : relative_error(got, want);
    *bound = scale > 0.0 ? tol / scale : tol;
    *shown = got;
    return mean_ok && value_passes(var, m->var, t->var);
}

/* The reference of each row is its sum or, for OP_LOGSUMEXP, its log-sum-exp, for OP_ABS_MAX its largest
 * |x| (exact: a bound of 0), for OP_SUM_SQUARES its sum of squares, or a Welford kernel's mean and
 * variance (the tolerances, and the references made for one kernel, are computed once per kernel and size). */
int rows_pass(Rows *rows, const Run *r, const float *values, Op op, int new_shape, double *rel_err,
              double *rel_bound, double *worst_result, double *hash)
{
    const Reference *refs = op == OP_LOGSUMEXP ? rows->lse : op == OP_ABS_MAX || op == OP_SUM_SQUARES ? rows->own
                                                                                                      : rows->refs;
    int welford = r->chain.welford;
    uint64_t results = welford ? 2 * r->rows : r->rows;
    CUDA_CHECK(cudaMemcpy(rows->results, r->row_sums, results * sizeof(float), cudaMemcpyDeviceToHost));
    if (new_shape) {
#pragma omp parallel for schedule(static) if (r->rows >= 64)
        for (int64_t i = 0; i < (int64_t)r->rows; i++) {
            const float *row = values + i * r->cols;
            if (welford) {
                rows->moments[i] = reference_moments(row, r->cols);
                rows->moment_tols[i] = moments_tolerance(r->chain, &rows->moments[i]);
            } else if (op == OP_ABS_MAX) {
                rows->own[i] = reference_abs_max(row, r->cols);
                rows->tols[i] = 0.0; /* a maximum rounds nothing */
            } else if (op == OP_SUM_SQUARES) {
                rows->own[i] = reference_sum_squares(row, r->cols);
                rows->tols[i] = sum_squares_tolerance(r->chain, &rows->own[i], r->cols);
            } else {
                rows->tols[i] = op == OP_LOGSUMEXP ? logsumexp_tolerance(r->chain, &refs[i], r->cols)
                                                   : sum_tolerance(r->chain, &refs[i], row, r->cols);
            }
        }
    }
    int pass = 1;
    double worst = -1.0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (uint64_t i = 0; i < r->rows; i++) {
        double err, bound, shown = rows->results[i];
        int ok;
        if (welford) {
            ok = moments_row_passes(rows, i, r->rows, &err, &bound, &shown);
        } else {
            double tol = rows->tols[i];
            ok = result_passes(shown, &refs[i], tol);
            err = relative_error(shown, refs[i].sum);
            bound = refs[i].sum != 0.0 ? tol / fabs(refs[i].sum) : tol;
        }
        double score = !ok ? INFINITY : isnan(err) ? 0.0 : err;
        pass &= ok;
        if (score > worst) {
            worst = score;
            *rel_err = err;
            *rel_bound = bound;
            *worst_result = shown;
        }
    }
    for (uint64_t i = 0; i < results; i++) {
        uint32_t bits;
        memcpy(&bits, &rows->results[i], sizeof bits);
        h = (h ^ bits) * 1099511628211ull;
    }
    memcpy(hash, &h, sizeof h);
    return pass;
}

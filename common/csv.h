/* Every program's CSV (csv.cu): its columns, and one Measurement, a kernel at one size, written as a row. */
#ifndef REDUCE_CSV_H
#define REDUCE_CSV_H

#include <stdio.h>
#include <stdint.h>

#include "program.h"
#include "result.h"

/* Every program's CSV columns, each described in docs/README.md ("--csv FILE"). A device row (the GPU's own
 * figures, stage "device") leaves the columns after pct_peak empty, pass too: readers tell it by its empty
 * pass. */
#define CSV_HEADER "gpu,stage,kernel,dtype,n,median_us,gpu_us,finish_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub,fill,rel_bound,spread,chain,result,result_bits"

/* One measurement: a kernel at one size (or, a device row, one of the device's ceilings), as a row of
 * the CSV and of a program's table; csv_write writes it in CSV_HEADER's order. */
typedef struct {
    const char *kernel, *dtype;
    uint64_t n;
    double median_us;      /* <= 0: empty */
    double gbps, pct_peak; /* gbps <= 0: both empty */
    const char *pass;      /* "1", "0", "xfail" or "unchecked" (a bound a result of 0 passes); NULL: a device row (no check, no l2, no bits) */
    double rel_err;        /* |result - reference| / |reference| (a row stage: its worst row's) */
    uint64_t cols;         /* a row stage's row length; 0: empty */
    int warm;              /* l2: warm (1) or flushed (0) */
    int same_bits;         /* every timed run gave the bits of the first */
    double bytes_read;
    double speedup, x_cub; /* <= 0: empty */
    const char *fill;      /* the data's --fill (NULL: empty) */
    double rel_bound;      /* the check's tolerance relative to the reference (<= 0: empty) */
    double spread;         /* the timed runs' interquartile range over their median (< 0: empty) */
    double chain;          /* the longest path of additions (<= 0: empty) */
    double gpu_us;         /* the launches of a run finished on the host (<= 0: empty, and finish_us too) */
    double finish_us;      /* the host's finish of such a run */
    /* Not in the CSV: */
    int status;            /* the harness's verdict (ok, FAIL, xfail, unchecked, or not run), of which pass is
                              the CSV's word */
    double result;         /* what the first run gave (a row stage: a hash of the bits of its row results) */
    const char *refused;   /* not run: why the launcher refused the input (Run.refuse) */
    int unexpected_vary;   /* the bits varied between runs with no float atomics to explain it: a FAIL */
    /* The CSV's result columns, last: */
    ResultType result_type; /* the type the result was computed in (RESULT_NONE: both columns empty) */
    double shown;           /* the first run's result (a row stage: its worst row's), exact in result_type */
} Measurement;

/* Opens FILE for appending (exit EXIT_USAGE if it cannot be written); NULL path: no CSV. */
FILE *open_csv(const char *path, const char *prog);
/* Appends one row (the header first into an empty file) and flushes it. */
void csv_write(FILE *csv, const char *gpu, const Program *p, const Measurement *r);

#endif

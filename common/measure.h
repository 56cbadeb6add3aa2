/* One kernel measured at the size being run (measure.cu): timed between the L2 flush and its events,
 * checked against the fp64 reference, given a verdict, and reported as a row of the table and of the CSV. */
#ifndef REDUCE_MEASURE_H
#define REDUCE_MEASURE_H

#include <stdio.h>

#include "bounds.h"
#include "csv.h"
#include "data.h"
#include "fill.h"
#include "options.h"
#include "rows.h"
#include "speed_of_light.h"
#include "stage.h"
#include "timing.h"

/* The GPU, and its ceilings as the harness measured them. */
typedef struct {
    GpuInfo gpu;
    double copy_gbps;     /* measured device-to-device copy, bytes read + written */
    SpeedOfLight sol;     /* measured launch floor and read-only streaming bandwidth */
} Device;

/* What the runs of every kernel share (harness.cu's main makes it). */
typedef struct {
    Run run;                 /* what the launchers see: the buffers and the size being run */
    Data data;               /* the input (data.h) */
    int row_stage;           /* Program.rows: each of run.rows rows is a reduction of its own */
    Rows rows;               /* a row stage's references and results (rows.h) */
    int cc;                  /* compute capability, major * 10 + minor */
    int warm;                /* --l2 warm: no flush before a timed run */
    L2Flush flush;           /* run before every timed run (unless warm): evicts the input from L2 */
    const float *pristine;   /* untouched copy of the fp32 input, for IN_PLACE kernels (NULL if none) */
    float *h_partials;       /* pinned, PARTIALS_CAPACITY(largest N), for a kernel that finishes on the CPU */
    uint64_t capacity;
} Bench;

/* A kernel or CPU loop whose checked run takes over SLOW_RUN_US is timed SLOW_REPS times (or --reps, if
 * fewer), with no warm-up beyond the checked run. */
#define SLOW_RUN_US 20000.0
#define SLOW_REPS 3

/* The accumulators, in Acc's order: the word --describe gives (a "kernel:" line's fourth), the name the
 * table's notes give, and the largest sum it holds. */
typedef struct {
    const char *key, *name;
    double max;
} AccInfo;
extern const AccInfo accumulators[ACC_COUNT];
/* The relative bound from which a pass with accumulator A is ST_UNCHECKED: 1 (a result of 0 would pass) for
 * fp16 and bf16, a thousandth of the sum for the wider ones (--describe's unchecked_from). */
double unchecked_from(Acc a);

/* A kernel's verdict (Measurement.status). ST_XFAIL: failed where its accumulator overflows; ST_UNCHECKED:
 * passed a bound too wide to hold the kernel to account, and the row says so instead of "ok" (the
 * accumulator's chain of additions is too long for this N); ST_SKIP: not run, no row. */
enum { ST_OK, ST_FAIL, ST_XFAIL, ST_UNCHECKED, ST_SKIP };

/* The kernel's row at the size being run, every field but those that compare it with other rows; values:
 * the input it reads, in fp32; ref: their reference. */
Measurement measure(Bench *b, const Kernel *k, const Reference *ref, const float *values, const Options *o);
/* What the kernel's launcher declares at the size being run, with the GPU hidden (gpu_hidden set): the
 * row's rel_bound and chain, nothing run or timed; status ST_SKIP where the launcher asked the GPU a
 * question (refused: the call, the launcher left there) or refused the input (refused: its reason). */
Measurement declared_row(Bench *b, const Kernel *k, const Reference *ref, const float *values);
/* The row printed in the table and appended to csv (NULL: no CSV), with its speed-up against the baseline
 * and x CUB against CUB on the same input type (times <= 0: none). */
void report(const Bench *b, const Kernel *k, Measurement *row, const Device *d, double baseline_us, double cub_us,
            FILE *csv, const Program *p);
/* Bytes the algorithm must move for n elements of type t: its input, and a row stage's row results
 * (written: row_results floats a row). */
double bytes_of(const Bench *b, uint64_t n, Dtype t, int row_results);

#endif

/* One kernel measured and reported (measure.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"

const AccInfo accumulators[ACC_COUNT] = {
    {"f32", "fp32", FLT_MAX}, {"f16", "fp16", 65504.0}, {"bf16", "bf16", 3.3895313892515355e38},
    {"i32", "int32", 2147483647.0}, {"f64", "fp64", DBL_MAX}, {"kahan", "Kahan fp32", FLT_MAX}, {"exact", "exact", FLT_MAX},
};

/* Can the kernel's accumulators overflow on this data? Its narrow accumulator holds sums of up to
 * shape.span consecutive inputs, the fp32 one (atomics, CPU finish excluded) sums of everything. */
static int overflow_possible(const Kernel *k, const AddChain *s, const Reference *ref, const float *values, uint64_t n)
{
    if (k->acc == ACC_EXACT_SUM || isnan(ref->sum)) return 0; /* an exact sum has no overflow; a NaN must show */
    if (s->acc_bits == ACC_EXACT) return !ref->non_finite && fabs(ref->sum) > 2147483647.0;
    /* An Inf read must show too, unless the finite values' sums can overflow to the other Inf (Inf - Inf: NaN). */
    if (ref->abs_sum > (k->dtype == DT_F64 ? DBL_MAX : FLT_MAX)) return 1; /* an fp64 kernel's result is fp64 */
    return (k->acc == ACC_F16 || k->acc == ACC_BF16) && max_chunk_abs_sum(values, n, s->span) > accumulators[k->acc].max;
}

/* Each verdict's word in the table's check column and in the CSV's pass column, in ST_*'s order. */
static const struct {
    const char *check, *pass;
} verdicts[] = {{"ok", "1"}, {"FAIL", "0"}, {"xfail", "xfail"}, {"-", "unchecked"}};

/* A pass within a bound of the whole sum or more (a result of 0 would pass too), or, for an fp32-or-wider
 * accumulator, of TIGHT_BOUND of it or more, is ST_UNCHECKED. */
#define TIGHT_BOUND 1e-3
double unchecked_from(Acc a) { return a != ACC_F16 && a != ACC_BF16 ? TIGHT_BOUND : 1.0; }

double bytes_of(const Bench *b, uint64_t n, Dtype t, int row_results)
{
    return n * (double)dtypes[t].bytes + (b->row_stage ? b->run.rows * 4.0 * row_results : 0.0);
}

/* What a kernel's result is checked against: ref, but of a maximum the largest input, and of an exact sum
 * (ACC_EXACT_SUM) the sum rounded once to the result's format. */
static Reference checked_reference(const Kernel *k, const Reference *ref)
{
    Reference want = *ref;
    if (k->op == OP_MAX) want.sum = ref->max;
    /* bit for bit (bound 0): fp32, or fp64 for fp64 input */
    if (k->acc == ACC_EXACT_SUM && k->dtype != DT_F64) want.sum = ref->sum32;
    return want;
}

/* An integer accumulator (the table's .acc) is exact: its bound, and its overflow check, say so. */
static void mark_exact(const Kernel *k, AddChain *s)
{
    if (k->acc == ACC_I32 || k->acc == ACC_EXACT_SUM) s->acc_bits = ACC_EXACT;
}

/* The bound a result is checked within, from the AddChain its launcher declared in r (an integer
 * accumulator's made exact there); a maximum's is 0 (a maximum rounds nothing). */
static double declared_tolerance(const Kernel *k, Run *r, const Reference *want, const float *values)
{
    mark_exact(k, &r->chain);
    return k->op == OP_MAX ? 0.0 : sum_tolerance(r->chain, want, values, r->n);
}

/* The CSV's rel_bound of a bound tol on a sum: relative to it, or tol itself where the sum is 0. */
static double relative_bound(double tol, double sum) { return sum != 0.0 ? tol / fabs(sum) : tol; }

/* The CSV's chain: the most additions on one input's path (none where the accumulator is exact). */
static double chain_of(const AddChain *s) { return s->acc_bits == ACC_EXACT ? 0.0 : s->serial + s->tree + s->wide + s->atomic; }

/* The runs of one kernel, the Work of the timing loop (TimedLaunch<KernelRuns>): what runs, what every
 * run is checked against, and what the runs gave. */
typedef struct {
    Bench *b;             /* what runs: the harness's buffers and the size (b->run), */
    const Kernel *k;      /* and the kernel */
    const float *values;  /* the check: the input as the kernel reads it, in fp32 (for the stagnation term), */
    Reference want;       /* the fp64 reference (of a maximum: the largest input, exactly), */
    double tol;           /* and the bound, from the chain the launcher declared in the first run */
    double result;        /* this run's sum (a row stage: a hash of the bits of its row sums) */
    double shown;         /* this run's result as the table and the CSV show it (a row stage: its worst row's) */
    ResultType type;      /* the type the kernel computed it in */
    int runs;
    int pass;             /* every run within the tolerance */
    Measurement *row;     /* result: the first run's; same_bits: every run gave its bits; a row stage's
                             rel_err and rel_bound: of the worst row of the first run */
} KernelRuns;

/* Untimed, before each run: the input of an in-place kernel restored, the Run reset. */
static void prepare_run(KernelRuns *c)
{
    Run *r = &c->b->run;
    if (c->k->flags & IN_PLACE)
        CUDA_CHECK(cudaMemcpyAsync(r->in, c->b->pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    r->host_partial_count = 0;
    r->has_host_result = 0;
    r->blocks_per_sm = c->k->blocks_per_sm;
    r->refuse = NULL;
    memset(&r->chain, 0, sizeof r->chain);
}

/* Timed, from "input in device memory": the launches (a CPU row: its loop). */
static void run_kernel(KernelRuns *c)
{
    c->k->launch(&c->b->run);
}

/* Timed, after the launched event, up to "sum available": for a kernel that leaves partial sums, the copy
 * of them and their sum on the CPU (in fp64). */
static void finish_run(KernelRuns *c)
{
    Run *r = &c->b->run;
    if (r->refuse || !r->host_partial_count) return;
    if (r->host_partial_count > c->b->capacity) {
        fprintf(stderr, "error: kernel %s wrote %llu partials, more than the harness's room (%llu)\n", c->k->name,
                (unsigned long long)r->host_partial_count, (unsigned long long)c->b->capacity);
        exit(EXIT_GPU);
    }
    float *partials = c->b->h_partials;
    CUDA_CHECK(cudaMemcpy(partials, r->partials, r->host_partial_count * sizeof(float), cudaMemcpyDeviceToHost));
    c->result = 0.0;
    for (uint64_t i = 0; i < r->host_partial_count; i++) c->result += partials[i];
}

/* Untimed, after each run: its result read back and checked, its bits compared with the first run's. */
static void check_run(KernelRuns *c)
{
    Run *r = &c->b->run;
    if (r->refuse) return; /* nothing was launched */
    mark_exact(c->k, &r->chain);
    if (c->b->row_stage) {
        double err = 0.0, bound = 0.0;
        c->pass &= rows_pass(&c->b->rows, r, c->values, c->k->op, c->runs == 0, &err, &bound, &c->shown, &c->result);
        if (c->runs == 0) c->row->rel_err = err, c->row->rel_bound = bound;
        c->type = RESULT_F32;
    } else {
        c->type = RESULT_F64; /* the CPU's sum of a kernel's partials, or an fp64 result */
        if (r->has_host_result) {
            c->result = r->host_result;
            if (c->k->acc != ACC_F64) c->type = RESULT_F32; /* a CPU loop's fp32 (or Kahan fp32) sum */
        } else if (!r->host_partial_count) { /* a float, an int (ACC_I32), or a double (fp64 input) */
            union {
                float f;
                int i;
                double d;
            } out;
            CUDA_CHECK(cudaMemcpy(&out, r->out, c->k->dtype == DT_F64 ? 8 : 4, cudaMemcpyDeviceToHost));
            c->result = c->k->dtype == DT_F64 ? out.d : c->k->acc == ACC_I32 ? (double)out.i : (double)out.f;
            if (c->k->dtype != DT_F64) c->type = c->k->acc == ACC_I32 ? RESULT_I32 : RESULT_F32;
        }
        c->shown = c->result;
        if (c->runs == 0) c->tol = declared_tolerance(c->k, r, &c->want, c->values);
        c->pass &= result_passes(c->result, &c->want, c->tol);
        if (c->k->acc == ACC_EXACT_SUM && c->result == 0.0) c->pass &= !signbit(c->result) == !signbit(c->want.sum); /* bits */
    }
    if (c->runs == 0) c->row->result = c->result, c->row->shown = c->shown, c->row->result_type = c->type;
    else if (memcmp(&c->row->result, &c->result, sizeof c->result)) c->row->same_bits = 0;
    c->runs++;
}

/* A row of kernel k at size n, nothing in it yet. */
static Measurement kernel_row(const Kernel *k, uint64_t n)
{
    Measurement row;
    memset(&row, 0, sizeof row);
    row.kernel = k->name;
    row.dtype = dtypes[k->dtype].name;
    row.n = n;
    return row;
}

Measurement measure(Bench *b, const Kernel *k, const Reference *ref, const float *values, const Options *o)
{
    Run *r = &b->run;
    Measurement row = kernel_row(k, r->n);
    if (k->min_cc > b->cc) {
        row.status = ST_SKIP;
        return row;
    }
    KernelRuns c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.k = k;
    c.values = values;
    c.want = checked_reference(k, ref);
    c.pass = row.same_bits = 1;
    c.row = &row;
    TimedLaunch<KernelRuns> t = {prepare_run, run_kernel, finish_run, check_run, &c, b->warm ? NULL : &b->flush};
    /* The first run, checked with the partials poisoned with NaN, so a partial that no block wrote shows. */
    CUDA_CHECK(cudaMemset(r->partials, 0xff, PARTIALS_CAPACITY(r->n) * sizeof(float)));
    CUDA_CHECK(cudaMemset(r->out, 0xff, sizeof(double)));
    if (b->row_stage) CUDA_CHECK(cudaMemset(r->row_sums, 0xff, 2 * r->rows * sizeof(float)));
    double first_us = time_runs(&t, 0, 1, NULL, NULL);
    if (r->refuse) {
        row.status = ST_SKIP;
        row.refused = r->refuse;
        return row;
    }
    AddChain shape = r->chain;
    int host_finish = r->host_partial_count > 0; /* the launcher says so, the same in every run of this N */
    if (!host_finish) t.finish = NULL;
    /* A run of tens of milliseconds (a CPU loop, an atomic per element at large N) varies by far less
     * than its length: the checked run has warmed it up, and the median of a few runs is enough. */
    int slow = first_us > SLOW_RUN_US;
    RunParts parts;
    row.median_us = time_runs(&t, slow ? 0 : o->warmup, slow && o->reps > SLOW_REPS ? SLOW_REPS : o->reps, &row.spread,
                              &parts);
    if (host_finish) row.gpu_us = parts.gpu_us, row.finish_us = parts.finish_us;
    row.gbps = bytes_of(b, r->n, k->dtype, shape.welford ? 2 : 1) / (row.median_us * 1e-6) / 1e9;
    row.bytes_read = r->n * (double)dtypes[k->dtype].bytes;
    row.chain = chain_of(&shape);
    if (!b->row_stage) {
        row.rel_err = relative_error(row.result, c.want.sum);
        row.rel_bound = relative_bound(c.tol, c.want.sum);
    }
    if (k->flags & IN_PLACE) /* leave the input as the next kernel expects it */
        CUDA_CHECK(cudaMemcpy(r->in, b->pristine, r->n * sizeof(float), cudaMemcpyDeviceToDevice));
    row.status = c.pass ? ST_OK
               : !b->row_stage && k->op == OP_SUM && overflow_possible(k, &shape, ref, values, r->n) ? ST_XFAIL : ST_FAIL;
    /* Without float atomics the order of the additions is fixed, so every run must give the same bits;
     * a result that moves between runs is a race (or reads memory nothing wrote). */
    row.unexpected_vary = !row.same_bits && !(shape.atomic > 0 && k->acc != ACC_I32);
    if (row.status == ST_OK && isfinite(c.want.sum) && !(row.rel_bound < unchecked_from(k->acc)))
        row.status = ST_UNCHECKED; /* NaN, Inf: exact */
    if (row.unexpected_vary) row.status = ST_FAIL;
    return row;
}

Measurement declared_row(Bench *b, const Kernel *k, const Reference *ref, const float *values)
{
    Run *r = &b->run;
    Measurement row = kernel_row(k, r->n);
    KernelRuns c;
    memset(&c, 0, sizeof c);
    c.b = b;
    c.k = k;
    prepare_run(&c);
    gpu_hidden->query = NULL; /* a launcher that asks the hidden GPU a question is left there: no answer */
    if (!setjmp(gpu_hidden->escape)) k->launch(r);
    row.refused = gpu_hidden->query ? gpu_hidden->query : r->refuse;
    if (row.refused) {
        row.status = ST_SKIP;
        return row;
    }
    Reference want = checked_reference(k, ref);
    row.rel_bound = relative_bound(declared_tolerance(k, r, &want, values), want.sum);
    row.chain = chain_of(&r->chain);
    return row;
}

/* "2.5x" of a time against this one, "-" without it. */
static const char *times_text(char *buf, size_t cap, double other_us, double us)
{
    if (other_us > 0 && us > 0) snprintf(buf, cap, "%.*fx", other_us / us < 0.1 ? 3 : 2, other_us / us);
    else snprintf(buf, cap, "-");
    return buf;
}

void report(const Bench *b, const Kernel *k, Measurement *row, const Device *d, double baseline_us, double cub_us,
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
    row->cols = b->row_stage ? b->run.cols : 0;
    row->warm = b->warm;
    row->speedup = baseline_us > 0 ? baseline_us / row->median_us : 0.0;
    row->x_cub = cub_us > 0 ? cub_us / row->median_us : 0.0;
    row->fill = b->data.input >= 0 ? "input" : fill_name(b->data.fill);
    char result[32], parts[40] = "", speedup[16], x_cub[16];
    if (b->row_stage) snprintf(result, sizeof result, "%u rows", (unsigned)b->run.rows); /* the worst row's errors */
    else result_decimal(result, sizeof result, row->shown, row->result_type);
    if (row->gpu_us > 0) snprintf(parts, sizeof parts, "%.1f+%.1f", row->gpu_us, row->finish_us);
    printf("%-34s %24s %9.2e %9.2e %5s %10.1f %15s %8.1f %6.1f %8s %7s %5s\n", k->name, result, row->rel_err,
           row->rel_bound, verdicts[row->status].check, row->median_us, parts, row->gbps, row->pct_peak,
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

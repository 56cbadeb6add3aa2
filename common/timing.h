/* The one timing loop of every program (timing.cu): runs between the L2 flush and CUDA events, their
 * median and spread. */
#ifndef REDUCE_TIMING_H
#define REDUCE_TIMING_H

#include <stdint.h>

#include "gpu.h"

/* A run's two parts, medians over the runs of the batch kept: gpu_us from the start event to the
 * launched event (the launches alone: the GPU's work), finish_us from there to the stop event (the
 * host's finish). */
typedef struct {
    double gpu_us, finish_us;
} RunParts;

/* One run as the timing loop times it, over the caller's Work (what its steps read and change): prepare
 * (untimed: restoring an in-place input, ...), the L2 flush (or, with the input left warm,
 * keep_gpu_busy), the start event, run (the launches), the launched event, finish (the host's part of the
 * work up to the final scalar: copying partial sums back and adding them), the stop event; then after
 * (untimed: reading back and checking what the run gave). prepare, finish and after may be NULL. */
template <typename Work>
struct TimedLaunch {
    void (*prepare)(Work *w);
    void (*run)(Work *w);
    void (*finish)(Work *w);
    void (*after)(Work *w);
    Work *work;
    const L2Flush *flush;  /* NULL: no flush, the input left in L2 (--l2 warm) */
};

/* The loop's own part, the same whatever the Work (timing.cu): the events and the times of a batch of
 * runs, and the batch kept. */
typedef struct {
    cudaEvent_t start, launched, stop;
    int reps;
    double *us, *gpu, *fin;  /* this batch's runs: whole, launches, finishes */
    double median, spread;   /* the batch kept: the one with the smallest spread */
    RunParts parts;
} Timings;
/* Before the first batch: the GPU's clocks brought up if it has been idle, the events and the room made. */
void timings_open(Timings *t, int reps);
/* Around the caller's steps of run i (< 0: untimed): the flush and the start event; the launched event;
 * the stop event, waited for, and the run's times kept. */
void timing_start(Timings *t, const L2Flush *flush);
void timing_launched(Timings *t);
void timing_stop(Timings *t, int i, int finished);
/* After batch number `batch`: kept if its spread is the smallest yet; 1 to measure another batch. */
int timings_batch_end(Timings *t, int batch);
/* The kept batch's median, and its spread and parts where wanted (NULL: not); the room freed. */
double timings_close(Timings *t, double *spread, RunParts *parts);

/* The one timing loop: warmup untimed runs, then reps timed ones; the median of the whole run (start to
 * stop event) in microseconds, in *spread (NULL: not wanted) the runs' interquartile range over their
 * median, and in *parts (NULL: not wanted) its two parts. Before it, a GPU idle for IDLE_S seconds (or
 * never timed) is brought to its working clocks: WARM_CLOCKS_MS of work on every SM. A batch whose
 * spread is above NOISY_SPREAD is measured again, twice at most, and the batch with the smallest spread
 * is kept; the tables mark a row whose spread stays above it. */
#define NOISY_SPREAD 0.10
#define IDLE_S 0.05
#define WARM_CLOCKS_MS 100.0
template <typename Work>
double time_runs(const TimedLaunch<Work> *t, int warmup, int reps, double *spread, RunParts *parts)
{
    Timings tm;
    timings_open(&tm, reps);
    for (int batch = 0;; batch++) {
        for (int i = batch ? -1 : -warmup; i < reps; i++) {
            if (t->prepare) t->prepare(t->work);
            timing_start(&tm, t->flush);
            t->run(t->work);
            if (t->finish) { /* a run without one records no third event: its whole is the GPU's part */
                timing_launched(&tm);
                t->finish(t->work);
            }
            timing_stop(&tm, i, t->finish != NULL);
            if (t->after) t->after(t->work);
        }
        if (!timings_batch_end(&tm, batch)) break;
    }
    return timings_close(&tm, spread, parts);
}

/* A hash of the bits of the 4-byte words in [p, p + bytes) on the current GPU, for an untimed check
 * that every run wrote the same output (not a checksum of its values: only equal bits hash equal). */
uint64_t device_bits_hash(const void *p, uint64_t bytes);

#endif

/* The one timing loop of every program (timing.cu): runs between the L2 flush and CUDA events, their
 * median and spread. */
#ifndef REDUCE_TIMING_H
#define REDUCE_TIMING_H

#include <stdint.h>
#include <stdlib.h>

#include "gpu.h"
#include "result.h"

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

/* The one timing loop: warmup untimed runs, then reps timed ones; the median of the whole run (start to
 * stop event) in microseconds, in *spread (NULL: not wanted) the runs' interquartile range over their
 * median, and in *parts (NULL: not wanted) its two parts. Before it, a GPU idle for IDLE_S seconds (or
 * never timed) is brought to its working clocks: WARM_CLOCKS_MS of work on every SM (timing_begin). A
 * batch whose spread is above NOISY_SPREAD is measured again, twice at most, and the batch with the
 * smallest spread is kept; the tables mark a row whose spread stays above it. */
#define NOISY_SPREAD 0.10
#define IDLE_S 0.05
#define WARM_CLOCKS_MS 100.0
void timing_begin(void);
void timing_end(void); /* the loop's end: the GPU busy until now */
double elapsed_us(cudaEvent_t from, cudaEvent_t to);
template <typename Work>
double time_runs(const TimedLaunch<Work> *t, int warmup, int reps, double *spread, RunParts *parts)
{
    timing_begin();
    cudaEvent_t start, launched, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&launched));
    CUDA_CHECK(cudaEventCreate(&stop));
    double *us = (double *)host_alloc(sizeof(double) * 3 * (reps > 0 ? reps : 1), "the timings");
    double *gpu = us + reps, *fin = gpu + reps, kept = 0.0, kept_spread = 0.0;
    RunParts kept_parts = {0.0, 0.0};
    for (int batch = 0;; batch++) {
        for (int i = batch ? -1 : -warmup; i < reps; i++) {
            if (t->prepare) t->prepare(t->work);
            if (t->flush) l2_flush(t->flush, 0);
            else keep_gpu_busy(50.0, 0);
            CUDA_CHECK(cudaEventRecord(start));
            t->run(t->work);
            if (t->finish) { /* a run without one records no third event: its whole is the GPU's part */
                CUDA_CHECK(cudaEventRecord(launched));
                t->finish(t->work);
            }
            CUDA_CHECK(cudaEventRecord(stop));
            CUDA_CHECK(cudaEventSynchronize(stop));
            if (i >= 0) {
                us[i] = elapsed_us(start, stop);
                gpu[i] = t->finish ? elapsed_us(start, launched) : us[i];
                fin[i] = t->finish ? elapsed_us(launched, stop) : 0.0;
            }
            if (t->after) t->after(t->work);
        }
        double m = median(us, reps), s = reps >= 4 && m > 0 ? (us[3 * reps / 4] - us[reps / 4]) / m : 0.0;
        if (batch == 0 || s < kept_spread) {
            kept = m;
            kept_spread = s;
            kept_parts = {median(gpu, reps), median(fin, reps)};
        }
        if (batch == 2 || kept_spread <= NOISY_SPREAD || reps < 4) break;
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(launched));
    CUDA_CHECK(cudaEventDestroy(stop));
    free(us);
    if (spread) *spread = kept_spread;
    if (parts) *parts = kept_parts;
    timing_end();
    return kept;
}

/* A hash of the bits of the 4-byte words in [p, p + bytes) on the current GPU, for an untimed check
 * that every run wrote the same output (not a checksum of its values: only equal bits hash equal). */
uint64_t device_bits_hash(const void *p, uint64_t bytes);

#endif

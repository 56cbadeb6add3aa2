/* The speed-up column's baseline (baseline.cu): the stage whose first GPU kernel every stage program
 * times beside its own kernels, so that every table's speed-ups are against the same kernel. */
#ifndef REDUCE_BASELINE_H
#define REDUCE_BASELINE_H

#include "stage.h"

/* The first stage's table; the program's own in the first stage's program and the record build (baseline.cu). */
const Stage *baseline_stage(void);

#endif

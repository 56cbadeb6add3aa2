/* The speed-up column's baseline (baseline.h), the first stage in sort order; the Makefile compiles this file twice:
 *
 *   build/baseline.o: with FIRST_STAGE_SOURCE, the path of that stage's reduce.cu, which is included here
 *     whole, its table renamed first_stage so that it links beside the program's own reduce_stage; the
 *     Makefile then makes every name of it local but baseline_stage, so another stage may reuse them.
 *   build/baseline_own.o: without it, for the first stage's own program, which holds those kernels
 *     already, and for the record build: the program's own table is the baseline.
 *
 * The baseline kernel is compiled from the same source with the same flags as in its own stage, and
 * launched through its own table entry: what it measures is the same in every program. */
#include "baseline.h"

#ifdef FIRST_STAGE_SOURCE
#define reduce_stage first_stage
#include FIRST_STAGE_SOURCE
#undef reduce_stage

const Stage *baseline_stage(void) { return &first_stage; }
#else
const Stage *baseline_stage(void) { return &reduce_stage; }
#endif

/* The tree program's work (make stage-NN tree, record.cu): the harness built with -DRECORD_TREE calls it
 * in place of its measurements. */
#ifndef REDUCE_RECORD_H
#define REDUCE_RECORD_H

#include "options.h"
#include "stage.h"

/* Block 0 of the one kernel --kernel names, run with its shared memory, shuffles and traced loads recorded
 * (tree.h), the record written as a CSV to path (NULL: stdout). Exits EXIT_USAGE without one kernel,
 * EXIT_NO_RECORD (saying why) for a kernel that cannot be recorded, EXIT_GPU without a usable GPU. */
int record_tree(const Stage *stage, const Options *o, const char *path, const char *prog);

#endif

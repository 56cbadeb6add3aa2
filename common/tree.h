/* What a stage file writes for its record build (make stage-NN tree): a shared array declared
 * `__shared__ TRACED(float) s_x[BLOCK]`, a global load written TRACED_LD(x[i]). In the ordinary build they are
 * the plain array and load; built with -DRECORD_TREE, recording proxies (tree_record.h says how). */
#ifndef REDUCE_TREE_H
#define REDUCE_TREE_H

/* Why a kernel built on CUB cannot be recorded, for the no_tree of its table entry. */
#define CUB_UNRECORDED "CUB's shuffles are inline PTX and its shared memory an opaque TempStorage, which the record cannot follow"

#ifdef RECORD_TREE
#include "tree_record.h"
#else
#define TRACED(T) T
#define TRACED_LD(x) (x)
#define TREE_BIND
#endif

#endif

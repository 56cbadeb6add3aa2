/* CUB's row beside every input type's kernels (cub.cu): cub::DeviceReduce on the same data, as a user of
 * the library would write it, measured as the kernels are; its time is the x CUB column. A row stage's is
 * cub::DeviceSegmentedReduce::Sum, one segment per row. */
#ifndef REDUCE_CUB_H
#define REDUCE_CUB_H

#include "stage.h"

/* CUB's accumulator for an input type: int32 for the integer types, fp64 for fp64, else fp32. */
Acc cub_acc(Dtype t);
/* CUB's sum of n elements of type t at in into out (one value of cub_acc(t)), on the default stream, with
 * temp_bytes of temporary storage at temp; temp NULL: sets temp_bytes to what it needs, and sums nothing. */
cudaError_t cub_reduce(Dtype t, void *temp, size_t &temp_bytes, const void *in, void *out, uint64_t n);
/* make sum's exact sum of n integers of type t (i8 to u32) in int64, each widened first; as cub_reduce. */
cudaError_t cub_int64_sum(Dtype t, void *temp, size_t &temp_bytes, const void *in, long long *out, uint64_t n);
/* The temporary storage CUB needs to sum n elements of type t, and to sum `rows` rows. */
size_t cub_temp_bytes(Dtype t, uint64_t n);
size_t cub_rows_temp_bytes(uint64_t rows);
/* CUB's table entry for input type t (a row stage's when rows), measured like any kernel: its launcher
 * works in Run.scratch (of the size cub_temp_bytes said) and a row stage's Run.row_offsets. */
Kernel cub_kernel(Dtype t, int rows);

#endif

/* The chain of additions of a kernel (chain.c): the longest path of additions any input takes to the
 * result, which its launcher declares and its error bound (bounds.h) grows with. */
#ifndef REDUCE_CHAIN_H
#define REDUCE_CHAIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a kernel's additions are arranged: the longest path of floating-point additions any input
 * takes to the result is serial + tree (in the kernel's accumulator) + wide (fp32, where a narrow
 * accumulator is widened before the block's sum is done) + atomic (fp32 atomicAdds). An input first
 * meets the first of them that is not 0: a thread's loop, a tree, or (an atomicAdd per element) the
 * atomic chain itself.
 * A kernel whose order is unknown uses chain_unknown(n): any order of n terms needs at most n - 1
 * additions on one path. CUB's device-wide sum has a documented shape: chain_cub_reduce. */
typedef struct {
    double serial;   /* adds in a thread's own loop (elements per thread) */
    double tree;     /* levels of the pairwise tree in shared memory / shuffles */
    double atomic;   /* length of the chain of fp32 atomicAdds onto one address */
    int acc_bits;    /* significand bits of the serial+tree accumulator: 0 = fp32 (24), 53 = fp64, 11 = fp16,
                        8 = bf16, ACC_EXACT = integers (exact) */
    double span;     /* elements summed in that accumulator before it is widened to fp32 (0: all) */
    double wide;     /* fp32 adds after the narrow accumulator, before the atomics (0 where acc_bits is 0) */
    double exps;     /* a log-sum-exp's: expf results that multiply one term on its path (0 or 1: the term's
                        own exp(x - max); an online max rescales the running sum, up to one more per addition) */
    int welford;     /* 1: a row stage's kernel that merges Welford states (count, mean, M2) where others add
                        (serial: merges in a thread's loop, tree: levels after it); it writes each row's mean to
                        row_sums[row] and its variance to row_sums[rows + row] (see moments_tolerance) */
    int wide_bits;   /* significand bits of the wide and atomic additions: 0 = fp32 (24), 53 = fp64 atomics */
} AddChain;
#define ACC_EXACT (-1)
AddChain chain_unknown(uint64_t n);
/* cub::DeviceReduce's sum of n items with a 4-byte accumulator on a GPU of sm_count SMs, or with
 * sm_count 0 one segment of n items of DeviceSegmentedReduce (chain.c gives CUB's source for it). */
AddChain chain_cub_reduce(uint64_t n, int sm_count);

/* Unit roundoff of an accumulator with p significand bits: 2^-p (fp32: 2^-24, fp64: 2^-53). */
double unit_roundoff(int significand_bits);

#ifdef __cplusplus
}
#endif
#endif

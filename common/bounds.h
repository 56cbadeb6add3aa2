/* The error bounds (bounds.c): how far a correct kernel's result may be from its reference, from the
 * chain of additions its launcher declares; and the check of a result within one. */
#ifndef REDUCE_BOUNDS_H
#define REDUCE_BOUNDS_H

#include <stdint.h>

#include "chain.h"
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest error of a correct kernel that added x[0..n) (ref: their reference), in absolute terms: see
 * bounds.c for where the formula comes from. x NULL: without the inputs, no stagnation term (for callers
 * whose chains cannot absorb an input, or that do not hold the inputs). */
double sum_tolerance(AddChain s, const Reference *ref, const float *x, uint64_t n);

/* How far the fp64 reference itself may be from the exact sum of the inputs it read: its one rounding,
 * at most u64 |sum| (u64 = 2^-53). Every bound above includes it. */
double reference_error(const Reference *ref);

/* Largest error of a correct fp32 sum of squares (ref from reference_sum_squares) whose loop forms each
 * square inside an fmaf (one rounding per term, the addition's): see bounds.c. */
double sum_squares_tolerance(AddChain s, const Reference *ref, uint64_t n);

/* The same for a log-sum-exp computed in fp32 (ref from reference_logsumexp): absolute, on the LSE. */
double logsumexp_tolerance(AddChain s, const Reference *ref, uint64_t n);

/* The largest sum of |x_i| over consecutive chunks of `span` elements (span 0: the whole array), NaN and
 * Inf left out: what a kernel's narrow accumulator may have to hold. */
double max_chunk_abs_sum(const float *x, uint64_t n, double span);

/* Absolute bounds on the mean and the variance of a correct fp32 kernel of Welford merges (s.welford), which
 * bounds.c derives. 0 where ref is not finite (the result must be the same NaN or Inf); INFINITY past 2^24
 * elements in a row (fp32 counts are no longer exact integers there). */
typedef struct {
    double mean, var;
} MomentsTolerance;
MomentsTolerance moments_tolerance(AddChain s, const Moments *ref);

/* Does result pass against ref within tol? A non-finite reference passes only when the result is the
 * same non-finite value (NaN for NaN, +Inf for +Inf, ...); a NaN result never passes otherwise. */
int result_passes(double result, const Reference *ref, double tol);
/* The same against a value that is not a Reference's sum (a row's mean, its variance). */
int value_passes(double result, double want, double tol);

#ifdef __cplusplus
}
#endif
#endif

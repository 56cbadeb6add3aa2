/* What a result is checked against (reference.c): the exact sum of what the kernel read rounded once,
 * and the other reductions' references (a log-sum-exp, a largest |x|, a sum of squares, a row's moments). */
#ifndef REDUCE_REFERENCE_H
#define REDUCE_REFERENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The reference of what the kernel read: its exact sum rounded once to fp64 (an integer sum of the
 * inputs in units of 2^-1074, independent of any kernel's method and of order; NaN and Inf by IEEE's
 * rules), the sum of the finite values' absolute values (scales the error bound; beside a NaN or an Inf,
 * what the other values' sums can reach) and whether every value is an integer. */
typedef struct {
    double sum;
    double abs_sum;
    int all_integers;
    int non_finite;       /* a NaN or an Inf among the inputs */
    double max;           /* the largest value, for max reductions (exact: no rounding) */
    double arg_error;     /* a log-sum-exp's: sum of exp(t_i) expm1(u |t_i|), t_i = x_i - max, u = 2^-24 */
    double max_abs;       /* the largest |x_i| (a sum's: what one input can add to a partial sum) */
    int structured;       /* data whose rounding errors need not look random (a file's: --input): the bound
                             is the worst case alone (see sum_tolerance) */
    float sum32;          /* reference_sum's: the exact sum rounded once to fp32 (Inf past FLT_MAX) */
} Reference;
Reference reference_sum(const float *x, uint64_t n);
/* The same of fp64 values, by the same integer sum: rounded once to fp64 (sum) and once to fp32 (sum32),
 * both to nearest, ties to even, Inf past the format's largest value; an exact total of 0 is -0 only
 * where every input is -0, as IEEE's additions give (fp32 input's is +0). */
Reference reference_sum_f64(const double *x, uint64_t n);

/* The sum of |x_i| over the inputs smaller than `below` in magnitude, in chunks added in order as
 * reference_sum's are: sum_tolerance's inputs that may stagnate, the same bits for any number of threads. */
double abs_sum_below(const float *x, uint64_t n, double below);

/* The log-sum-exp of x[0..n), LSE = max + log(sum exp(x_i - max)) (softmax's max and sum in one number),
 * in fp64: sum is the LSE, abs_sum the sum of exp(x_i - max) (positive terms, at least 1), max the
 * largest value exactly, arg_error what rounding x_i - max in fp32 can do to the terms (see
 * logsumexp_tolerance). A NaN input makes it NaN; otherwise an infinite max is the LSE (+Inf in, +Inf out). */
Reference reference_logsumexp(const float *x, uint64_t n);

/* The largest |x_i| of x[0..n) (a KV cache's quantisation scale of a group), in sum: exact, as a maximum
 * rounds nothing; NaN where a NaN is read (a kernel's maximum must carry it). */
Reference reference_abs_max(const float *x, uint64_t n);

/* The sum of squares of x[0..n) (RMSNorm's reduction), by reference_sum_f64 of the squares, each exact
 * in fp64 (24-bit significands square to at most 48 bits); +Inf where the exact sum rounds past fp32's
 * largest value, as an fp32 kernel's must. abs_sum is the sum itself (every term is positive). */
Reference reference_sum_squares(const float *x, uint64_t n);

/* LayerNorm's statistics of a row x[0..n), in fp64: mean, the exact sum rounded once (reference_sum)
 * divided by n; m2 = sum (x_i - mean)^2, a second pass over the values (compensated); var = m2 / n, the
 * population variance. Where a NaN or an Inf is read, the mean follows IEEE's rules as the sum does (NaN,
 * or the infinity) and m2 and var are NaN (x_i - mean is Inf - Inf, or NaN). */
typedef struct {
    double mean, m2, var;
    double max_abs;   /* the largest |x_i| */
    double range;     /* the largest x_i minus the smallest */
    uint64_t n;
} Moments;
Moments reference_moments(const float *x, uint64_t n);

#ifdef __cplusplus
}
#endif
#endif

/* A measured result (result.c): the median of its runs, its error relative to the reference, and its
 * decimal and bits, exact in the type it was computed in. */
#ifndef REDUCE_RESULT_H
#define REDUCE_RESULT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Median of n values (sorts v in place). n >= 1. */
double median(double *v, int n);

/* |result - ref| / |ref| (or the absolute error when ref is 0). */
double relative_error(double result, double ref);

/* The type a result was computed in, which decides how many digits show it (RESULT_NONE: no result, its
 * columns left empty). An int32 accumulator's sum is held exactly in a double, and so is every fp16 and
 * bf16 value (make sum's sums of such files). */
typedef enum { RESULT_NONE, RESULT_F32, RESULT_F64, RESULT_I32, RESULT_F16, RESULT_BF16 } ResultType;
/* v rounded once to the float type t (fp16, bf16, fp32 or fp64): to nearest, ties to even, an infinity past
 * the type's largest finite value, the type's subnormals below its least normal one; NaN and the
 * infinities as they are. A value of t, held exactly by the double returned. */
double result_round(double v, ResultType t);
/* The shortest correctly rounded decimal that reads back to v in type t (strtod, or strtof for fp32, then
 * rounded once to t): at most 9 significant digits for fp32, 17 for fp64, 5 for fp16, 4 for bf16; an
 * integer's digits; "nan", "inf", "-inf" and "-0" as they are. v is a value of t. Returns buf ("" for
 * RESULT_NONE). */
const char *result_decimal(char *buf, size_t cap, double v, ResultType t);
/* v's bits in type t as hex: 8 digits for fp32 and int32 (two's complement), 16 for fp64, 4 for fp16 and
 * bf16, "0x" first. Returns buf ("" for RESULT_NONE). */
const char *result_bits(char *buf, size_t cap, double v, ResultType t);

#ifdef __cplusplus
}
#endif
#endif

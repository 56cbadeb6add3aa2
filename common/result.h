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
 * columns left empty). An int32 accumulator's sum is held exactly in a double. */
typedef enum { RESULT_NONE, RESULT_F32, RESULT_F64, RESULT_I32 } ResultType;
/* The shortest correctly rounded decimal that reads back (strtof, strtod) to v in type t: at most 9
 * significant digits for fp32, 17 for fp64; an integer's digits; "nan", "inf", "-inf" and "-0" as they
 * are. Returns buf ("" for RESULT_NONE). */
const char *result_decimal(char *buf, size_t cap, double v, ResultType t);
/* v's bits in type t as hex: 8 digits for fp32 and int32 (two's complement), 16 for fp64, "0x" first.
 * Returns buf ("" for RESULT_NONE). */
const char *result_bits(char *buf, size_t cap, double v, ResultType t);

#ifdef __cplusplus
}
#endif
#endif

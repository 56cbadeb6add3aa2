/* A measured result (result.h). */
#include "result.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double relative_error(double result, double ref)
{
    if (isnan(result) || isnan(ref)) return NAN;
    if (result == ref) return 0.0;
    return ref != 0.0 ? fabs(result - ref) / fabs(ref) : fabs(result);
}

const char *result_decimal(char *buf, size_t cap, double v, ResultType t)
{
    if (t == RESULT_NONE || !isfinite(v) || t == RESULT_I32) {
        snprintf(buf, cap, t == RESULT_NONE ? "" : t == RESULT_I32 ? "%.0f" : "%g", v);
        return buf;
    }
    /* The correctly rounded decimal of 1, 2, ... digits, until one reads back to v itself: 9 digits always
     * do for an fp32 value, 17 for an fp64 one. */
    int most = t == RESULT_F32 ? 9 : 17;
    for (int digits = 1; digits <= most; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (t == RESULT_F32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    return buf;
}

const char *result_bits(char *buf, size_t cap, double v, ResultType t)
{
    if (t == RESULT_F64) {
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        snprintf(buf, cap, "0x%016llx", (unsigned long long)bits);
    } else if (t == RESULT_F32 || t == RESULT_I32) {
        float f = (float)v;
        int32_t i = (int32_t)v;
        uint32_t bits;
        if (t == RESULT_F32) memcpy(&bits, &f, sizeof bits);
        else memcpy(&bits, &i, sizeof bits);
        snprintf(buf, cap, "0x%08x", (unsigned)bits);
    } else {
        snprintf(buf, cap, "%s", "");
    }
    return buf;
}

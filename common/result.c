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

/* The float types' significant bits, least normal exponent and largest exponent, by ResultType. */
static const struct {
    int bits, emin, emax;
} formats[] = {[RESULT_F32] = {24, -126, 127}, [RESULT_F64] = {53, -1022, 1023}, [RESULT_F16] = {11, -14, 15},
               [RESULT_BF16] = {8, -126, 127}};

double result_round(double v, ResultType t)
{
    if (!isfinite(v) || v == 0.0 || t == RESULT_F64) return v;
    /* In units of the last place of v's binade (the least normal one's below it): rint rounds to nearest,
     * ties to even; both scalings by a power of two are exact. */
    int e = ilogb(v), unit = (e > formats[t].emin ? e : formats[t].emin) - (formats[t].bits - 1);
    double r = ldexp(rint(ldexp(v, -unit)), unit);
    return fabs(r) >= ldexp(1.0, formats[t].emax + 1) ? copysign(INFINITY, v) : r;
}

const char *result_decimal(char *buf, size_t cap, double v, ResultType t)
{
    if (t == RESULT_NONE || !isfinite(v) || t == RESULT_I32) {
        snprintf(buf, cap, t == RESULT_NONE ? "" : t == RESULT_I32 ? "%.0f" : "%g", v);
        return buf;
    }
    /* The correctly rounded decimal of 1, 2, ... digits, until one reads back to v: as strtof reads an fp32
     * value, strtod an fp64 one, and strtod then one rounding an fp16 or bf16 one (the decimal a nearest double,
     * then that double's nearest value of t: a double rounding, which gives the decimal's own nearest value of t
     * at their few digits). */
    int most = t == RESULT_F32 ? 9 : t == RESULT_F64 ? 17 : t == RESULT_F16 ? 5 : 4;
    for (int digits = 1; digits <= most; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (t == RESULT_F32 ? strtof(buf, NULL) == (float)v : result_round(strtod(buf, NULL), t) == v) break;
    }
    return buf;
}

/* An fp16 value's bits: sign, 5 exponent bits (biased by 15; 0 for the subnormals), 10 fraction bits. */
static unsigned f16_bits(double v)
{
    unsigned sign = signbit(v) ? 0x8000u : 0u;
    double m = fabs(v);
    if (isnan(v)) return sign | 0x7e00u;
    if (isinf(v)) return sign | 0x7c00u;
    if (m < 0x1p-14) return sign | (unsigned)ldexp(m, 24);
    int e = ilogb(m);
    return sign | (unsigned)(e + 15) << 10 | (unsigned)ldexp(ldexp(m, -e) - 1.0, 10);
}

const char *result_bits(char *buf, size_t cap, double v, ResultType t)
{
    float f = (float)v;
    uint64_t b64;
    uint32_t b32;
    memcpy(&b64, &v, sizeof b64);
    memcpy(&b32, &f, sizeof b32);
    if (t == RESULT_F64) snprintf(buf, cap, "0x%016llx", (unsigned long long)b64);
    else if (t == RESULT_F32) snprintf(buf, cap, "0x%08x", (unsigned)b32);
    else if (t == RESULT_I32) snprintf(buf, cap, "0x%08x", (unsigned)(int32_t)v); /* two's complement */
    else if (t == RESULT_BF16) snprintf(buf, cap, "0x%04x", (unsigned)(b32 >> 16)); /* the top half of its fp32 bits */
    else if (t == RESULT_F16) snprintf(buf, cap, "0x%04x", f16_bits(v));
    else snprintf(buf, cap, "%s", "");
    return buf;
}

/* The data a stage program sums (data.h). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "data.h"
#include "options.h"

/* An element of a file's type as a float (exact: every value of these types but fp64 is an fp32 value). */
static float decode(Dtype t, const unsigned char *bytes, uint64_t i)
{
    switch (t) {
    case DT_F16: return __half2float(((const __half *)bytes)[i]);
    case DT_BF16: return __bfloat162float(((const __nv_bfloat16 *)bytes)[i]);
    case DT_FP8_E4M3:
    case DT_FP8_E5M2:
        return __half2float(__half(__nv_cvt_fp8_to_halfraw(bytes[i], t == DT_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2)));
    case DT_I8: return (float)(int8_t)bytes[i];
    case DT_I32: return (float)((const int32_t *)bytes)[i];
    case DT_F64: return (float)((const double *)bytes)[i];
    default: return ((const float *)bytes)[i];
    }
}

/* v rounded to type t, stored as element i of bytes; returns the value stored, as a float. */
static float encode(Dtype t, float v, unsigned char *bytes, uint64_t i)
{
    switch (t) {
    case DT_F16:
        ((__half *)bytes)[i] = __float2half_rn(v);
        break;
    case DT_BF16:
        ((__nv_bfloat16 *)bytes)[i] = __float2bfloat16_rn(v);
        break;
    case DT_FP8_E4M3:
    case DT_FP8_E5M2:
        bytes[i] = __nv_cvt_float_to_fp8(v, __NV_SATFINITE, t == DT_FP8_E4M3 ? __NV_E4M3 : __NV_E5M2);
        break;
    case DT_I8: {
        float q = isfinite(v) ? fminf(fmaxf(floorf(v), -128.0f), 127.0f) : 0.0f; /* int8 has no NaN or Inf */
        ((int8_t *)bytes)[i] = (int8_t)q;
        return q;
    }
    case DT_I32: { /* the integer is the float's value, so the fp32 copy (the reference's) is exact too */
        float q = isfinite(v) ? fminf(fmaxf(floorf(v), -2147483648.0f), 2147483520.0f) : 0.0f;
        ((int32_t *)bytes)[i] = (int32_t)q;
        return q;
    }
    default:
        ((float *)bytes)[i] = v;
        return v;
    }
    return decode(t, bytes, i);
}

/* The fill in type t, n elements of it: random values in [-1, 1) rounded to t (integers in [-128, 127]
 * for int8 and int32; fp64's with 53 significant bits), ones, seq, mod100, or large values near t's
 * maximum. Made in h's memory, which holds the largest N of the widest type run from its first use on: the
 * memory of a large input is touched once, not once per type. */
static void make_fill(ArrayFile *out, Dtype t, const Data *d, uint64_t n)
{
    Fill fill = d->fill;
    uint64_t seed = d->seed;
    ArrayFile h = *out;
    if (!h.bytes) {
        h.bytes = (unsigned char *)malloc(d->max_n * (t == DT_F32 ? sizeof(float) : d->widest));
        h.values = t == DT_F32 ? (float *)h.bytes : (float *)malloc(d->max_n * sizeof(float)); /* fp32: the same values */
        if (!h.bytes || !h.values) {
            fprintf(stderr, "error: could not allocate %llu bytes of host memory for the input\n",
                    (unsigned long long)(d->max_n * (sizeof(float) + d->widest)));
            exit(EXIT_USAGE);
        }
    }
    double scale = fill == FILL_LARGE ? dtypes[t].max : (t == DT_I8 || t == DT_I32) && fill == FILL_RANDOM ? 128.0
                 : (t == DT_I8 || t == DT_I32) && fill == FILL_SHIFTED ? 4.0 : 1.0; /* -2 ... 5: int32 holds 2^30 of them */
    if (fill == FILL_COND) fill_cond(h.values, n, seed, d->cond ? d->cond : DEFAULT_COND);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        if (t == DT_F64) { /* fill_value64's 53 bits (the cond fill's fp32 values as they are); its float rounded */
            double v = fill == FILL_COND ? h.values[i] : fill_value64(fill, seed, (uint64_t)i) * scale;
            ((double *)h.bytes)[i] = v;
            h.values[i] = (float)v;
            continue;
        }
        float v = fill == FILL_COND ? h.values[i] : (float)(fill_value(fill, seed, (uint64_t)i) * scale);
        h.values[i] = encode(t, v, h.bytes, (uint64_t)i);
    }
    h.type = t;
    h.count = n;
    *out = h;
}

/* fp32 is made once, for the largest N (the baseline and the in-place kernels' copy read it at every
 * size); another type is made for the size being run, in the memory of the type before it. Each size's
 * data is a prefix of a larger size's, so a run over many sizes makes each type about once over, not once
 * per size at the largest N; the upload is the prefix the size reads. */
const ArrayFile *use_dtype(Data *d, Run *r, Dtype t)
{
    ArrayFile *h = t == DT_F32 ? &d->f32 : &d->other;
    uint64_t n = t == DT_F32 ? d->max_n : r->n;
    if (!h->values || h->type != t || h->count < n) make_fill(h, t, d, n);
    if (d->uploaded != (int)t || d->uploaded_n != r->n) {
        r->data = d->base + (size_t)d->offset * dtypes[t].bytes;
        r->in = (float *)r->data;
        CUDA_CHECK(cudaMemcpy((void *)r->data, h->bytes, r->n * dtypes[t].bytes, cudaMemcpyHostToDevice));
        d->uploaded = t;
        d->uploaded_n = r->n;
    }
    return h;
}

void use_file(Data *d, const ArrayFile *a, const char *path, const char *prog)
{
    Dtype t = (Dtype)a->type;
    float *values = t == DT_F32 ? (float *)a->bytes : (float *)malloc(a->count * sizeof(float));
    if (!values) usage_error(prog, "%s: out of host memory for its values as floats", "--input");
    for (uint64_t i = 0; i < a->count; i++) {
        values[i] = decode(t, a->bytes, i);
        if (t == DT_I32 && fabsf(values[i]) > 16777216.0f) {
            char msg[768];
            snprintf(msg, sizeof msg, "--input %s: element %llu is %d, past 2^24: the fp32 copy the reference reads "
                     "would not be exact", path, (unsigned long long)i, ((const int32_t *)a->bytes)[i]);
            usage_error(prog, "%s", msg);
        }
    }
    d->input = t;
    d->other = *a;
    d->other.values = values;
    d->f32 = d->other;
    d->f32.type = DT_F32;
    d->f32.bytes = (unsigned char *)values;
}

Reference data_reference(const Data *d, const ArrayFile *a, uint64_t n)
{
    Reference r = a->type == DT_F64 ? reference_sum_f64((const double *)a->bytes, n) : reference_sum(a->values, n);
    r.structured = d->input >= 0 || a->type == DT_F64;
    return r;
}

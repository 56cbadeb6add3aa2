/* The data a stage program sums (data.cu): a fill made in each input type its kernels read, or the file
 * of --input, held in host memory as the kernels' bytes and as floats (what the fp64 reference reads). */
#ifndef REDUCE_DATA_H
#define REDUCE_DATA_H

#include "array_file.h"
#include "fill.h"
#include "reference.h"
#include "stage.h"

/* The options that choose the data (main sets them), the host arrays, and the device buffer. */
typedef struct {
    Fill fill;
    uint64_t seed;
    double cond;         /* --cond: the condition number of --fill cond (0: DEFAULT_COND) */
    int offset;          /* --offset: elements the input starts past an aligned address (0..15) */
    int input;           /* --input: the file's type (its kernels alone run), -1: a fill */
    uint64_t max_n;      /* the largest size run */
    int widest;          /* the bytes of an element of the widest type run */
    ArrayFile f32;       /* the fp32 data, for the largest N (bytes and values the same memory) */
    ArrayFile other;     /* another type's, for the size being run */
    char *base;          /* the device buffer: the largest N in fp32, and 64 bytes for --offset */
    int uploaded;        /* the type whose data is in it, -1: none */
    uint64_t uploaded_n; /* and how many of its elements */
} Data;

/* The data of type t for the size being run (r->n), in host memory and uploaded to r->in and r->data. */
const ArrayFile *use_dtype(Data *d, Run *r, Dtype t);
/* The data of --input: the file's values, a.count of them, decoded to floats; exits EXIT_USAGE (before the
 * GPU is opened) for an int32 past 2^24, which the reference's fp32 copy would not hold exactly. */
void use_file(Data *d, const ArrayFile *a, const char *path, const char *prog);
/* The fp64 reference of a's first n values, the values a kernel reads. A file's data are marked structured
 * (bounds.h: the worst-case bound alone, since nothing says their rounding errors look random), and so are
 * fp64 data: the probabilistic bound's stagnation term reads fp32 values, which fp64's are not. */
Reference data_reference(const Data *d, const ArrayFile *a, uint64_t n);

#endif

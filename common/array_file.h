/* Arrays read whole from a NumPy .npy file or raw bytes (--input), and .npy files written (--out). */
#ifndef REDUCE_ARRAY_FILE_H
#define REDUCE_ARRAY_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An array of one input type in host memory, as a file holds it: what --input reads, and what a stage
 * program makes of a fill in each type its kernels read (data.cu). */
typedef struct {
    int type;                   /* a Dtype */
    uint64_t count, rows, cols; /* its elements; a 2-D array's shape (rows 0: one dimension) */
    unsigned char *bytes;       /* count elements (malloc'd; free it) */
    float *values;              /* the same count values as floats, where the program needs them: the reference
                                   reads them (NULL: not made); exact for every kernel's type but f64, whose reference
                                   reads its bytes (reference_sum_f64) */
} ArrayFile;
/* Reads PATH whole into out (values NULL), or nothing: a NumPy .npy file (format 1.0, 2.0 or 3.0, C order,
 * little-endian, one or two dimensions, of float32, float64, float16, or a signed or unsigned integer of 8,
 * 16, 32 or 64 bits) or, with raw_type (a dtype's name), raw bytes of that type. Returns 0, or -1 with a
 * one-line reason in err (malformed header, a type the programs do not read, a --dtype the file contradicts,
 * truncated or trailing bytes, unreadable, empty), or ARRAY_FILE_NO_MEMORY with one where host memory for the
 * data cannot be allocated (no fault of the file's). */
enum { ARRAY_FILE_NO_MEMORY = -2 };
int read_array_file(const char *path, const char *raw_type, ArrayFile *out, char *err, size_t err_size);
/* Writes rows x cols values of type t (cols 0: a vector of rows) from data to PATH as a NumPy .npy file
 * (format 1.0, little-endian, C order), which read_array_file reads back. Returns 0, or -1 with a one-line
 * reason in err. */
int write_array_file(const char *path, Dtype t, const void *data, uint64_t rows, uint64_t cols, char *err,
                     size_t err_size);

#ifdef __cplusplus
}
#endif
#endif

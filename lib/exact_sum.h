/* The exact sum of an array in GPU memory, as a C library (make lib: build/lib/libexactsum.a and .so).
 * The sum of every value, exact whatever their order, magnitudes and signs, rounded once: to fp64, and
 * to the input's own type. The kernels are stage 13's (stages/13_exact/exact_sum.cuh): the same bits on
 * any GPU, any grid, any run. NaN, +Inf and -Inf give what IEEE addition gives (NaN, or +Inf and -Inf
 * together: NaN; one infinity: itself); a sum past the largest finite value of a type is an infinity in it.
 * Errors come back as return codes: nothing here exits or prints. */
#ifndef EXACT_SUM_H
#define EXACT_SUM_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The element types it sums. */
typedef enum { EXACT_SUM_F64 = 0, EXACT_SUM_F32 = 1, EXACT_SUM_F16 = 2, EXACT_SUM_BF16 = 3 } ExactSumType;

/* What exact_sum returns. */
enum {
    EXACT_SUM_OK = 0,
    EXACT_SUM_BAD_ARGUMENT = 1, /* a NULL result pointer, an unknown type, a NULL or misaligned array (or, from
                                   host memory, more bytes than size_t counts) */
    EXACT_SUM_TOO_LARGE = 2,    /* fp64: more than 2^29 values for each block the GPU holds at once */
    EXACT_SUM_CUDA_ERROR = 3,   /* a CUDA call failed (e.g. x is not device memory): cudaGetLastError says which */
    EXACT_SUM_NO_MEMORY = 4     /* exact_sum_host: no room on the GPU for the copy of the values (the error cleared) */
};

/* The exact sum of the n values of type t at x (device memory, aligned to the type's size), rounded once to
 * fp64 into *sum64 and, where in_type is not NULL, rounded once to t into *in_type (a value of t, held
 * exactly by a double); n = 0 gives +0. The kernels run on stream (0: the default stream) on the current
 * device, and the call returns when the results are read back. Calls on one device share its counters, so
 * they run one at a time: on one stream, or one after another. */
int exact_sum(const void *x, uint64_t n, ExactSumType t, double *sum64, double *in_type, cudaStream_t stream);

/* exact_sum in its two halves, for a caller that times the GPU's part alone or overlaps it with other work:
 * exact_sum_launch checks its arguments as exact_sum does and starts the kernels on stream, returning at once
 * (the roundings stay on the device, in the library's counters: n = 0 leaves +0 there); exact_sum_result waits
 * for them on stream and reads them back, as exact_sum's results, for the type t the launch was given. A
 * launch's results are there until the next launch on the device; exact_sum is the two in a row. */
int exact_sum_launch(const void *x, uint64_t n, ExactSumType t, cudaStream_t stream);
int exact_sum_result(ExactSumType t, double *sum64, double *in_type, cudaStream_t stream);

/* The same of n values of type t in host memory (no alignment asked): copied to memory this call allocates on
 * the current device and frees (EXACT_SUM_NO_MEMORY where there is no room), summed on the default stream. The Python call (lib/exact_sum.py) takes a
 * NumPy array through it. */
int exact_sum_host(const void *x, uint64_t n, ExactSumType t, double *sum64, double *in_type);

/* A return code in words ("ok", "bad argument", ...). */
const char *exact_sum_status(int code);

/* The number of a name this header defines, as it spells it: a type ("EXACT_SUM_F16") or a return code
 * ("EXACT_SUM_NO_MEMORY"); -1 for any other name or NULL. A caller through a foreign-function interface
 * (lib/exact_sum.py) takes the numbers from here rather than restating them. */
int exact_sum_code(const char *name);

#ifdef __cplusplus
}
#endif
#endif

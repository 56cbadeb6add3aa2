/* Host-only helpers of the harness: size parsing, statistics, data fill, the fp64 reference and the
 * verification tolerance. Plain C, no CUDA, so that tests/test_host.c checks them on any machine. */
#ifndef REDUCE_HOST_H
#define REDUCE_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes of every stage program (documented in README.md). */
enum { EXIT_OK = 0, EXIT_VERIFY = 1, EXIT_USAGE = 2, EXIT_GPU = 3, EXIT_NO_RECORD = 5 };
/* EXIT_NO_RECORD: the tree program (make stage-NN tree) cannot record the kernel asked for (it says why). */

/* The largest size any option accepts (2^40 elements). */
#define MAX_ELEMENTS (1ull << 40)

/* "1000003", "16M", "1G", "64K", "2^24+1": a count of elements. Suffixes are binary (K = 1024).
 * Returns 0 and sets *out on success, -1 on anything else (empty, junk, zero, negative, overflow). */
int parse_size(const char *s, uint64_t *out);

/* "SxK" (e.g. "4096x2048", "2^21x32") is the product S*K, for row-by-column grids. */

/* "SxK": S rows of K columns; a plain size N is one row of N. Returns 0 on success, -1 otherwise. */
int parse_matrix(const char *s, uint64_t *rows, uint64_t *cols);

/* A comma-separated list of sizes ("1,31,1M"); at most max entries. Returns the count, -1 on error. */
int parse_size_list(const char *s, uint64_t *out, int max);

/* A whole number in [lo, hi]; returns 0 on success, -1 otherwise. */
int parse_int(const char *s, long lo, long hi, long *out);

/* The input element types: a kernel's (Kernel.dtype; stage 07 uses most, the others fp32, and int32 where
 * an article sums integers) and a file's (--input, --dtype). Their one table, dtypes (host.c), in this
 * order: the name --describe, the CSV and --dtype use, the bytes of an element, the largest finite value
 * (--fill large scales [0.5, 1) to it). */
typedef enum { DT_F32, DT_F16, DT_BF16, DT_FP8_E4M3, DT_FP8_E5M2, DT_I8, DT_I32, DT_F64, DT_COUNT } Dtype;
typedef struct {
    const char *name;
    int bytes;
    double max;
} DtypeInfo;
extern const DtypeInfo dtypes[DT_COUNT];

/* An array of one input type in host memory, as a file holds it: what --input reads, and what a stage
 * program makes of a fill in each type its kernels read (data.cu). */
typedef struct {
    int type;                   /* a Dtype */
    uint64_t count, rows, cols; /* its elements; a 2-D array's shape (rows 0: one dimension) */
    unsigned char *bytes;       /* count elements (malloc'd; free it) */
    float *values;              /* the same count values as floats, where the program needs them: the reference
                                   reads them (NULL: not made); exact for every type but f64, whose reference
                                   reads its bytes (reference_sum_f64) */
} ArrayFile;
/* Reads PATH whole into out (values NULL), or nothing: a NumPy .npy file (format 1.0, 2.0 or 3.0, C order,
 * little-endian, one or two dimensions, of float32, float64, float16, int8 or int32) or, with raw_type (a dtype's
 * name), raw bytes of that type. Returns 0, or -1 with a one-line reason in err (malformed header, a type
 * the programs do not read, a --dtype the file contradicts, truncated or trailing bytes, unreadable, empty). */
int read_array_file(const char *path, const char *raw_type, ArrayFile *out, char *err, size_t err_size);
/* Writes rows x cols values of type t (cols 0: a vector of rows) from data to PATH as a NumPy .npy file
 * (format 1.0, little-endian, C order), which read_array_file reads back. Returns 0, or -1 with a one-line
 * reason in err. */
int write_array_file(const char *path, Dtype t, const void *data, uint64_t rows, uint64_t cols, char *err,
                     size_t err_size);

/* Median of n values (sorts v in place). n >= 1. */
double median(double *v, int n);

/* The data a stage program can sum (--fill). Their names, one table in host.c, in this order: the order
 * --help and --describe list them in, shifted first (the default and the bench's, data whose sum a check
 * can hold to account). */
typedef enum { FILL_SHIFTED, FILL_RANDOM, FILL_ONES, FILL_SEQ, FILL_MOD100, FILL_LARGE, FILL_NAN, FILL_INF, FILL_WIDE,
               FILL_COND, FILL_BINADES, FILL_COUNT } Fill;
/* A fill's name -> 0 and *out, else -1. */
int parse_fill(const char *s, Fill *out);
const char *fill_name(Fill f);

/* The value of element i: a pure function of (fill, seed, i), so any prefix or any machine gives the
 * same data. random: uniform in [-1, 1) with 24 significant bits (exact in fp32), mean 0; shifted: the
 * same plus 1/2, uniform in [-1/2, 3/2), mean 1/2, so that the sum grows like N/2 and its condition
 * number sum|x_i| / |sum x_i| stays near 5/4 (the bench's data: a result of 0, or one missing an element,
 * is far from it; random's sum is a random walk of size sqrt(N), tiny beside sum|x_i|); ones: 1;
 * seq: i mod 16 (0, 1, ..., 15, 0, 1, ...); mod100: i mod 100 (the warp shuffle article's data); large: uniform in [0.5, 1), which the harness scales
 * to the largest value of the input type (to show accumulators overflowing); nan, inf: shifted, but
 * element NONFINITE_INDEX is a NaN (+Inf), which the result must show; binades: data without a range, a
 * random sign, a random fraction and an exponent field drawn uniformly from 0 (the subnormals) up to values
 * below 2^47, so that a few neighbouring values span more binades than stage 13's windows hold (its bench
 * data for the digits' path), every value exact and every sum of up to 2^32 of them finite (host.c says
 * why). */
#define NONFINITE_INDEX 777
float fill_value(Fill f, uint64_t seed, uint64_t i);
/* The same fills in fp64, with fp64's 53 significant bits where fill_value has 24 (random, shifted, wide:
 * the same distributions, every value exact in fp64; binades: fp64's own fields, values below 2^991);
 * the others are fill_value's values. */
double fill_value64(Fill f, uint64_t seed, uint64_t i);
void fill_array(float *x, uint64_t n, Fill f, uint64_t seed);

/* The accuracy fills (course chapter §7.7.4: "values near 1e-6 and 1e6, small ones are lost").
 * wide: half the values are near 1e6 (2^19 to 2^20, three in four positive: large values of both signs
 * cancel, and the sum still grows with N as real data's does), half near 1e-6 (2^-20 to 2^-19, either
 * sign); every value exact in fp32, a pure function of (seed, i) like the fills above.
 * cond: a sum whose condition number sum|x_i| / |sum x_i| is `cond` (at least COND_MIN): the first
 * half are random values of either sign in [0.5, 1), the second half the same values negated, each
 * plus a small multiple of 2^-23 (exact in fp32), the multiples adding up to what makes the sum
 * sum|x_i| / cond. The halves cancel only when the second is added: every prefix sum of the first half
 * is as large as random data makes it. Unlike the others, element i depends on n (not a prefix of a
 * longer fill). An odd n ends with a 0; n = 1 is one random value (condition number 1). */
#define COND_MIN 10.0
#define DEFAULT_COND 1e8
void fill_cond(float *x, uint64_t n, uint64_t seed, double cond);

/* The reference of what the kernel read: its exact sum rounded once to fp64 (an integer sum of the
 * inputs in units of 2^-1074, independent of any kernel's method and of order; NaN and Inf by IEEE's
 * rules), the sum of absolute values (scales the error bound) and whether every value is an integer. */
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

/* How a kernel's additions are arranged: the longest path of floating-point additions any input
 * takes to the result is serial + tree (in the kernel's accumulator) + wide (fp32, where a narrow
 * accumulator is widened before the block's sum is done) + atomic (fp32 atomicAdds). An input first
 * meets the first of them that is not 0: a thread's loop, a tree, or (an atomicAdd per element) the
 * atomic chain itself.
 * A kernel whose order is unknown uses shape_unknown(n): any order of n terms needs at most n - 1
 * additions on one path. CUB's device-wide sum has a documented shape: shape_cub_reduce. */
typedef struct {
    double serial;   /* adds in a thread's own loop (elements per thread) */
    double tree;     /* levels of the pairwise tree in shared memory / shuffles */
    double atomic;   /* length of the chain of fp32 atomicAdds onto one address */
    int acc_bits;    /* significand bits of the serial+tree accumulator: 0 = fp32 (24), 53 = fp64, 11 = fp16,
                        8 = bf16, ACC_EXACT = integers (exact) */
    double span;     /* elements summed in that accumulator before it is widened to fp32 (0: all) */
    double wide;     /* fp32 adds after the narrow accumulator, before the atomics (0 where acc_bits is 0) */
    double exps;     /* a log-sum-exp's: expf results that multiply one term on its path (0 or 1: the term's
                        own exp(x - max); an online max rescales the running sum, up to one more per addition) */
    int welford;     /* 1: a row stage's kernel that merges Welford states (count, mean, M2) where others add
                        (serial: merges in a thread's loop, tree: levels after it); it writes each row's mean to
                        row_sums[row] and its variance to row_sums[rows + row] (see moments_tolerance) */
    int wide_bits;   /* significand bits of the wide and atomic additions: 0 = fp32 (24), 53 = fp64 atomics */
} Shape;
#define ACC_EXACT (-1)
Shape shape_unknown(uint64_t n);
/* cub::DeviceReduce's sum of n items with a 4-byte accumulator on a GPU of sm_count SMs, or with
 * sm_count 0 one segment of n items of DeviceSegmentedReduce (host.c gives CUB's source for it). */
Shape shape_cub_reduce(uint64_t n, int sm_count);

/* Unit roundoff of an accumulator with p significand bits: 2^-p (fp32: 2^-24, fp64: 2^-53). */
double unit_roundoff(int significand_bits);

/* Largest error of a correct kernel that added x[0..n) (ref: their reference), in absolute terms: see
 * host.c for where the formula comes from. x NULL: without the inputs, no stagnation term (for callers
 * whose chains cannot absorb an input, or that do not hold the inputs). */
double sum_tolerance(Shape s, const Reference *ref, const float *x, uint64_t n);

/* How far the fp64 reference itself may be from the exact sum of the inputs it read: its one rounding,
 * at most u64 |sum| (u64 = 2^-53). Every bound above includes it. */
double reference_error(const Reference *ref);

/* Largest error of a correct fp32 sum of squares (ref from reference_sum_squares) whose loop forms each
 * square inside an fmaf (one rounding per term, the addition's): see host.c. */
double sum_squares_tolerance(Shape s, const Reference *ref, uint64_t n);

/* The sum of |x_i| over the inputs smaller than `below` in magnitude. */
double small_abs_sum(const float *x, uint64_t n, double below);
/* The same for a log-sum-exp computed in fp32 (ref from reference_logsumexp): absolute, on the LSE. */
double logsumexp_tolerance(Shape s, const Reference *ref, uint64_t n);

/* The largest sum of |x_i| over consecutive chunks of `span` elements (span 0: the whole array):
 * what a kernel's narrow accumulator may have to hold. */
double max_chunk_abs_sum(const float *x, uint64_t n, double span);

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

/* Absolute bounds on the mean and the variance of a correct fp32 kernel of Shape s (s.welford): Chan,
 * Golub and LeVeque's merges, s.serial of them in a thread's loop, then s.tree levels; host.c derives
 * them. 0 where ref is not finite (the result must be the same NaN or Inf); INFINITY past 2^24 elements
 * in a row (fp32 counts are no longer exact integers there). */
typedef struct {
    double mean, var;
} MomentsTolerance;
MomentsTolerance moments_tolerance(Shape s, const Moments *ref);

/* Does result pass against ref within tol? A non-finite reference passes only when the result is the
 * same non-finite value (NaN for NaN, +Inf for +Inf, ...); a NaN result never passes otherwise. */
int result_passes(double result, const Reference *ref, double tol);
/* The same against a value that is not a Reference's sum (a row's mean, its variance). */
int value_passes(double result, double want, double tol);

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

/* The element types of an input (dtype.c): a kernel's, a file's, CUB's. */
#ifndef REDUCE_DTYPE_H
#define REDUCE_DTYPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The input element types: a kernel's (Kernel.dtype; stage 07 uses most, the others fp32, and int32 where
 * an article sums integers) and a file's (--input, --dtype). The integer types after f64 are files' alone,
 * which make sum takes (docs/exact-sum.md): no kernel reads them. Their one table, dtypes (dtype.c), in
 * this order: the name --describe, the CSV and --dtype use, the bytes of an element, the largest finite
 * value (--fill large scales [0.5, 1) to it), whether it is an integer type. */
typedef enum {
    DT_F32, DT_F16, DT_BF16, DT_FP8_E4M3, DT_FP8_E5M2, DT_I8, DT_I32, DT_F64,
    DT_U8, DT_I16, DT_U16, DT_U32, DT_I64, DT_U64, DT_COUNT
} Dtype;
typedef struct {
    const char *name;
    int bytes;
    double max;
    int integer;
} DtypeInfo;
extern const DtypeInfo dtypes[DT_COUNT];
/* The Dtype of a type's name ("f16"), or -1. */
int dtype_by_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif

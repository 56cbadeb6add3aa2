/* The element types (dtype.h). */
#include "dtype.h"

#include <float.h>
#include <string.h>

const DtypeInfo dtypes[DT_COUNT] = {
    {"f32", 4, FLT_MAX, 0}, {"f16", 2, 65504.0, 0}, {"bf16", 2, 3.3895313892515355e38, 0}, {"fp8_e4m3", 1, 448.0, 0},
    {"fp8_e5m2", 1, 57344.0, 0}, {"i8", 1, 127.0, 1}, {"i32", 4, 2147483520.0, 1}, {"f64", 8, DBL_MAX, 0},
    {"u8", 1, 255.0, 1}, {"i16", 2, 32767.0, 1}, {"u16", 2, 65535.0, 1}, {"u32", 4, 4294967295.0, 1},
    {"i64", 8, 9223372036854775807.0, 1}, {"u64", 8, 18446744073709551615.0, 1},
};

int dtype_by_name(const char *name)
{
    for (int t = 0; t < DT_COUNT; t++)
        if (!strcmp(name, dtypes[t].name)) return t;
    return -1;
}

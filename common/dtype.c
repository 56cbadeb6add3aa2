/* The element types (dtype.h). */
#include "dtype.h"

#include <float.h>
#include <string.h>

const DtypeInfo dtypes[DT_COUNT] = {
    {"f32", 4, FLT_MAX}, {"f16", 2, 65504.0}, {"bf16", 2, 3.3895313892515355e38}, {"fp8_e4m3", 1, 448.0},
    {"fp8_e5m2", 1, 57344.0}, {"i8", 1, 127.0}, {"i32", 4, 2147483520.0}, {"f64", 8, DBL_MAX},
};

int dtype_by_name(const char *name)
{
    for (int t = 0; t < DT_COUNT; t++)
        if (!strcmp(name, dtypes[t].name)) return t;
    return -1;
}

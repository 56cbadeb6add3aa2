/* .npy and raw files read and written (array_file.h). */
#include "array_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* The value of KEY in a .npy header (a Python dict literal): a pointer just past "'KEY':" and its spaces. */
static const char *npy_value(const char *header, const char *key)
{
    char quoted[32];
    snprintf(quoted, sizeof quoted, "'%s':", key);
    const char *at = strstr(header, quoted);
    if (!at) return NULL;
    at += strlen(quoted);
    while (*at == ' ') at++;
    return at;
}

/* The .npy type strings the programs read, and their types' names (the first of a type is the one written). */
static const char *const descr[][2] = {
    {"'<f4'", "f32"}, {"'<f2'", "f16"}, {"'|i1'", "i8"}, {"'<i1'", "i8"}, {"'<i4'", "i32"}, {"'<f8'", "f64"},
    {"'|u1'", "u8"},  {"'<u1'", "u8"},  {"'<i2'", "i16"}, {"'<u2'", "u16"}, {"'<u4'", "u32"}, {"'<i8'", "i64"},
    {"'<u8'", "u64"}};

/* The .npy header's descr, fortran_order and shape: 0, or -1 with err. */
static int npy_header(const char *header, ArrayFile *a, char *err, size_t err_size)
{
    const char *d = npy_value(header, "descr"), *f = npy_value(header, "fortran_order"), *sh = npy_value(header, "shape");
    if (!d || !f || !sh || *sh != '(') return snprintf(err, err_size, "a malformed .npy header (no descr, fortran_order or shape)"), -1;
    a->type = -1;
    for (size_t i = 0; i < sizeof descr / sizeof descr[0]; i++)
        if (!strncmp(d, descr[i][0], strlen(descr[i][0]))) a->type = dtype_by_name(descr[i][1]);
    if (a->type < 0) {
        int len = (int)strcspn(d, ",}");
        return snprintf(err, err_size, "a .npy of dtype %.*s: the programs read float32, float64, float16 and the "
                                       "integers of 8 to 64 bits, signed and unsigned (little-endian; bf16 and fp8 as "
                                       "raw bytes with --dtype)", len, d), -1;
    }
    if (strncmp(f, "False", 5)) return snprintf(err, err_size, "a .npy in Fortran order: save it in C order (numpy.ascontiguousarray)"), -1;
    uint64_t dims[3];
    int count = 0;
    for (const char *c = sh + 1; *c && *c != ')';) {
        while (*c == ' ' || *c == ',') c++;
        if (*c == ')') break;
        char *end;
        unsigned long long v = strtoull(c, &end, 10);
        if (end == c || count == 3) return snprintf(err, err_size, "a malformed .npy shape"), -1;
        dims[count++] = v;
        c = end;
    }
    if (count < 1 || count > 2) return snprintf(err, err_size, "a .npy of %d dimensions: give one (a vector) or two (rows)", count), -1;
    a->rows = count == 2 ? dims[0] : 0;
    a->cols = count == 2 ? dims[1] : dims[0];
    if (a->cols && (count == 2 ? dims[0] : 1) > MAX_ELEMENTS / a->cols)
        return snprintf(err, err_size, "a .npy of more than 2^40 elements"), -1;
    a->count = (count == 2 ? dims[0] : 1) * a->cols;
    return 0;
}

int read_array_file(const char *path, const char *raw_type, ArrayFile *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return snprintf(err, err_size, "cannot read it: %s", strerror(errno)), -1;
    unsigned char magic[12] = {0};
    uint64_t data_at = 0;
    ArrayFile a = {0};
    int status = -1;
    if (fread(magic, 1, sizeof magic, f) >= 10 && !memcmp(magic, "\x93NUMPY", 6)) {
        int major = magic[6];
        uint64_t len = (uint64_t)magic[8] | (uint64_t)magic[9] << 8;
        if (major != 1) len |= (uint64_t)magic[10] << 16 | (uint64_t)magic[11] << 24;
        data_at = (major == 1 ? 10 : 12) + len;
        char *header = major >= 1 && major <= 3 && len < 65536 ? calloc(len + 1, 1) : NULL;
        if (!header) snprintf(err, err_size, "a .npy of format %d or a header of %llu bytes: not one this reads", major, (unsigned long long)len);
        else if (fseek(f, (long)(major == 1 ? 10 : 12), SEEK_SET) || fread(header, 1, len, f) != len)
            snprintf(err, err_size, "a truncated .npy header");
        else if (!npy_header(header, &a, err, err_size)) {
            if (raw_type && dtype_by_name(raw_type) != a.type)
                snprintf(err, err_size, "a .npy of %s, but --dtype says %s", dtypes[a.type].name, raw_type);
            else status = 0;
        }
        free(header);
    } else if (!raw_type) {
        snprintf(err, err_size, "not a .npy file (no \\x93NUMPY at its start): for raw bytes, give their --dtype");
    } else {
        a.type = dtype_by_name(raw_type);
        if (a.type >= 0) status = 0;
        else {
            int len = snprintf(err, err_size, "--dtype %s: give one of", raw_type);
            for (int t = 0; t < DT_COUNT && len > 0 && (size_t)len < err_size; t++)
                len += snprintf(err + len, err_size - (size_t)len, " %s", dtypes[t].name);
        }
    }
    if (status == 0) { /* the data: exactly count elements after data_at (raw: the whole file, a whole number of them) */
        status = -1;
        fseek(f, 0, SEEK_END);
        long end = ftell(f);
        uint64_t bytes = end > (long)data_at ? (uint64_t)end - data_at : 0, size = (uint64_t)dtypes[a.type].bytes;
        if (!data_at) a.count = a.cols = bytes / size; /* raw: one dimension, as a 1-D .npy */
        if (!data_at && bytes % size)
            snprintf(err, err_size, "%llu bytes: not a whole number of %s elements (truncated?)", (unsigned long long)bytes, dtypes[a.type].name);
        else if (a.count == 0) snprintf(err, err_size, "no elements in it");
        else if (a.count > MAX_ELEMENTS) snprintf(err, err_size, "more than 2^40 elements");
        else if (bytes != a.count * size)
            snprintf(err, err_size, "%s: the header says %llu elements (%llu bytes), the file holds %llu bytes",
                     bytes < a.count * size ? "truncated" : "bytes after the array", (unsigned long long)a.count,
                     (unsigned long long)(a.count * size), (unsigned long long)bytes);
        else if (!(a.bytes = malloc(bytes)))
            status = ARRAY_FILE_NO_MEMORY, snprintf(err, err_size, "out of host memory for %llu bytes", (unsigned long long)bytes);
        else if (fseek(f, (long)data_at, SEEK_SET) || fread(a.bytes, 1, bytes, f) != bytes)
            snprintf(err, err_size, "a read error: %s", strerror(errno));
        else status = 0;
    }
    fclose(f);
    if (status) free(a.bytes);
    else *out = a;
    return status;
}

int write_array_file(const char *path, Dtype t, const void *data, uint64_t rows, uint64_t cols, char *err,
                     size_t err_size)
{
    const char *type = NULL;
    for (size_t i = 0; i < sizeof descr / sizeof descr[0] && !type; i++)
        if (!strcmp(descr[i][1], dtypes[t].name)) type = descr[i][0];
    if (!type) return snprintf(err, err_size, "no .npy type holds %s values", dtypes[t].name), -1;
    char header[256], shape[64];
    if (cols) snprintf(shape, sizeof shape, "%llu, %llu", (unsigned long long)rows, (unsigned long long)cols);
    else snprintf(shape, sizeof shape, "%llu,", (unsigned long long)rows);
    /* The magic, the version, the header's length, then the header, padded with spaces to a multiple of 64
     * bytes in all and ended by a newline. */
    int len = snprintf(header, sizeof header, "{'descr': %s, 'fortran_order': False, 'shape': (%s), }", type, shape);
    int padded = (10 + len + 1 + 63) / 64 * 64 - 10;
    memset(header + len, ' ', (size_t)(padded - len - 1));
    header[padded - 1] = '\n';
    unsigned char lead[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(padded & 0xff), (unsigned char)(padded >> 8)};
    uint64_t bytes = rows * (cols ? cols : 1) * (uint64_t)dtypes[t].bytes;
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(lead, 1, sizeof lead, f) == sizeof lead &&
             fwrite(header, 1, (size_t)padded, f) == (size_t)padded && fwrite(data, 1, bytes, f) == bytes;
    if (!f || fclose(f) || !ok) return snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno)), -1;
    return 0;
}

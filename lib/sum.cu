/* The exact sum of a file: make sum FILE=x.npy, or build/lib/sum FILE [options] (docs/exact-sum.md). It reads
 * the file with the stage programs' reader (common/array_file.c), sums it on the GPU with the exact-sum library
 * (exact_sum.h) or, for integers of up to 32 bits, in 64-bit integers, and prints the sum rounded once to the
 * file's type and to fp64, its GPU time (median of timed runs, each after an L2 flush: the input read from
 * DRAM) and CUB's ordinary sum of the same data in the same run. A 2-D file gives one sum a row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cub.h"
#include "exact_sum.h"
#include "array_file.h"
#include "check.h"
#include "exit_codes.h"
#include "gpu.h"
#include "result.h"
#include "timing.h"

#define TIMED_RUNS 9
/* --csv's columns (docs/exact-sum.md lists them; --help prints them). */
#define SUM_CSV_HEADER "file,dtype,rows,cols,row,result,result_bits,result64,result64_bits,median_us,gpu_us,gbps,cub_us,cub_gbps,cub_result"

/* --help, around the list of the types it takes (types_text). */
static const char *USAGE =
    "usage: sum FILE [--dtype T] [--csv] [--out ROWS.npy]\n"
    "  FILE            a .npy file of one or two dimensions or, with --dtype, raw bytes (bf16 only as raw bytes)\n"
    "  --dtype T       the element type of a raw FILE: %s\n"
    "  --csv           named columns in place of the table, a line a row: " SUM_CSV_HEADER "\n"
    "  --out ROWS.npy  every row's sum rounded once to fp64, as a 1-D .npy file\n"
    "exit: 0 summed; 2 bad usage or input (one line on stderr); 3 no usable GPU, a CUDA error, or out of GPU or\n"
    "      host memory\n";

static void usage_error(const char *what, const char *detail)
{
    fprintf(stderr, "error: %s%s%s (sum --help says how to use it)\n", what, detail ? ": " : "", detail ? detail : "");
    exit(EXIT_USAGE);
}

/* The types it takes, in the order its messages list them: the library's float types, and the integer types
 * it sums exactly in int64 (cub_int64_sum). i64 and u64 are refused: their exact sum can need more than 64 bits. */
static const Dtype taken_types[] = {DT_F64, DT_F32, DT_F16, DT_BF16, DT_I8, DT_U8, DT_I16, DT_U16, DT_I32, DT_U32};
static int takes(Dtype t)
{
    for (size_t i = 0; i < sizeof taken_types / sizeof taken_types[0]; i++)
        if (taken_types[i] == t) return 1;
    return 0;
}
/* The names of the types it takes, "f64, f32, ...". */
static const char *types_text(void)
{
    static char text[128];
    text[0] = '\0';
    for (size_t i = 0; i < sizeof taken_types / sizeof taken_types[0]; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%s", i ? ", " : "", dtypes[taken_types[i]].name);
    return text;
}
static int is_integer(Dtype t) { return dtypes[t].integer; }
/* The largest magnitude of a value of integer type t: 2^(bits-1) if signed, else 2^bits - 1. A signed type's
 * largest value (dtypes' max) is at most 2^(bits-1) (i64's rounds to it as a double), an unsigned type's past it.
 * A row of at most 2^63 / that many values cannot pass int64 (u8, i8, i16 and u16 cannot at any size the reader
 * takes, 2^40; i32 past 2^32 values and u32 past 2^31 could, and such a row is refused, never wrapped). */
static uint64_t integer_magnitude(Dtype t)
{
    const uint64_t half = 1ull << (8 * dtypes[t].bytes - 1);
    return dtypes[t].max <= (double)half ? half : half - 1 + half;
}

static ExactSumType library_type(Dtype t) { return t == DT_F64 ? EXACT_SUM_F64 : t == DT_F32 ? EXACT_SUM_F32 : t == DT_F16 ? EXACT_SUM_F16 : EXACT_SUM_BF16; }

/* A row's sums: in the file's type (held exactly by a double, or an int64 for integers) and in fp64. */
typedef struct {
    double in_type, sum64;
    long long integer;
} RowSum;

/* Everything a timed pass needs: the file on the GPU, its rows, CUB's scratch, where results land. */
typedef struct {
    Dtype type;
    const unsigned char *dev;
    uint64_t rows, cols;
    void *temp;
    size_t temp_bytes;
    long long *int_out;
    double *cub_out;
    RowSum *sums;
} Pass;

/* A library call's status: a refusal is the file's (exit 2), a CUDA error exit 3 (with CUDA's words where it
 * has them); never a result left unread. */
static void library_status(int status)
{
    if (status == EXACT_SUM_OK) return;
    if (status != EXACT_SUM_CUDA_ERROR) usage_error("the exact sum refuses this file", exact_sum_status(status));
    CUDA_CHECK(cudaGetLastError());
    fprintf(stderr, "error: the exact sum: %s\n", exact_sum_status(status));
    exit(EXIT_GPU);
}

/* Row r's exact sum started on the GPU: a library launch (exact_sum_launch), or CUB's int64 sum of integers. */
static void start_row(Pass *p, uint64_t r)
{
    const void *x = p->dev + r * p->cols * dtypes[p->type].bytes;
    if (is_integer(p->type)) {
        size_t bytes = p->temp_bytes;
        CUDA_CHECK(cub_int64_sum(p->type, p->temp, bytes, x, p->int_out, p->cols));
        return;
    }
    library_status(exact_sum_launch(x, p->cols, library_type(p->type), 0));
}

/* Row r's sums read back into p->sums[r] (exact_sum_result, or the int64 sum). */
static void read_row(Pass *p, uint64_t r)
{
    RowSum *s = &p->sums[r];
    if (is_integer(p->type)) {
        CUDA_CHECK(cudaMemcpy(&s->integer, p->int_out, sizeof s->integer, cudaMemcpyDeviceToHost));
        s->in_type = s->sum64 = (double)s->integer; /* one rounding: int64 to double is correctly rounded */
        return;
    }
    library_status(exact_sum_result(library_type(p->type), &s->sum64, &s->in_type, 0));
}

/* A timed run's launches: every row started, each read back before the next starts (a device holds one launch's
 * results); the last row's read-back is the run's finish, so that the run's GPU part (timing.h's gpu_us) is, for
 * a 1-D file, the kernels alone, as stage 13's table times them. */
static void exact_launches(Pass *p)
{
    for (uint64_t r = 0; r < p->rows; r++) {
        if (r) read_row(p, r - 1);
        start_row(p, r);
    }
}
static void exact_finish(Pass *p) { read_row(p, p->rows - 1); }

/* CUB's ordinary sum of every row (its accumulator: cub.h's cub_acc), left on the GPU. */
static void cub_pass(Pass *p)
{
    size_t row_bytes = p->cols * dtypes[p->type].bytes;
    for (uint64_t r = 0; r < p->rows; r++) {
        size_t bytes = p->temp_bytes;
        CUDA_CHECK(cub_reduce(p->type, p->temp, bytes, p->dev + r * row_bytes, p->cub_out, p->cols));
    }
}

/* The median time in ms of TIMED_RUNS runs after one untimed, each after an L2 flush: the programs' one timing
 * loop (timing.h), of the launches and then the finish (NULL: none); *gpu_ms the median of the launches' part. */
static double median_ms(void (*launches)(Pass *), void (*finish)(Pass *), Pass *p, const L2Flush *flush, double *gpu_ms)
{
    TimedLaunch<Pass> t = {NULL, launches, finish, NULL, p, flush};
    RunParts parts;
    const double whole = time_runs(&t, 1, TIMED_RUNS, NULL, &parts) / 1e3;
    if (gpu_ms) *gpu_ms = parts.gpu_us / 1e3;
    return whole;
}

/* A sum in the file's type, as the shortest decimal that reads back to it in that type (integers: every digit)
 * and its bits in that type's width. */
static void in_type_text(const RowSum *s, Dtype t, char *decimal, char *bits, size_t cap)
{
    if (is_integer(t)) {
        snprintf(decimal, cap, "%lld", s->integer);
        snprintf(bits, cap, "0x%016llx", (unsigned long long)s->integer);
        return;
    }
    const ResultType r = t == DT_F64 ? RESULT_F64 : t == DT_F32 ? RESULT_F32 : t == DT_F16 ? RESULT_F16 : RESULT_BF16;
    result_decimal(decimal, cap, s->in_type, r);
    result_bits(bits, cap, s->in_type, r);
}

int main(int argc, char **argv)
{
    const char *path = NULL, *raw_type = NULL, *out_path = NULL;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf(USAGE, types_text());
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--csv")) {
            csv = 1;
        } else if (!strcmp(argv[i], "--dtype") || !strcmp(argv[i], "--out")) {
            if (i + 1 == argc) usage_error(argv[i], "give it a value");
            *(!strcmp(argv[i], "--dtype") ? &raw_type : &out_path) = argv[i + 1];
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            usage_error("an unknown option", argv[i]);
        } else if (path) {
            usage_error("one file at a time, and a second was given", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) usage_error("name the file to sum", NULL);
    ArrayFile a;
    char err[512];
    int read = read_array_file(path, raw_type, &a, err, sizeof err);
    if (read != 0) {
        fprintf(stderr, "error: %s: %s\n", path, err);
        return read == ARRAY_FILE_NO_MEMORY ? EXIT_GPU : EXIT_USAGE; /* as device_alloc and host_alloc */
    }
    const Dtype t = (Dtype)a.type;
    if (t == DT_I64 || t == DT_U64) {
        fprintf(stderr, "error: %s: %s values, whose exact sum can need more than the 64 bits sum holds: it does not "
                "take them\n", path, dtypes[t].name);
        return EXIT_USAGE;
    }
    if (!takes(t)) {
        fprintf(stderr, "error: %s: %s values, which sum does not take (%s)\n", path, dtypes[t].name, types_text());
        return EXIT_USAGE;
    }
    const uint64_t rows = a.rows ? a.rows : 1, cols = a.rows ? a.cols : a.count;
    if (is_integer(t) && cols > (1ull << 63) / integer_magnitude(t)) {
        fprintf(stderr, "error: %s: more than %llu %s values a row, whose sum could pass 64 bits\n", path,
                (unsigned long long)((1ull << 63) / integer_magnitude(t)), dtypes[t].name);
        return EXIT_USAGE;
    }

    GpuInfo gpu;
    open_gpu(&gpu);
    L2Flush flush;
    l2_flush_init(&flush, &gpu);
    const size_t bytes = a.count * dtypes[t].bytes;
    Pass p = {t, (const unsigned char *)device_alloc(bytes, "the file"), rows, cols};
    CUDA_CHECK(cudaMemcpy((void *)p.dev, a.bytes, bytes, cudaMemcpyHostToDevice));
    size_t int_bytes = 0;
    CUDA_CHECK(cub_reduce(t, NULL, p.temp_bytes, NULL, NULL, cols));
    if (is_integer(t)) CUDA_CHECK(cub_int64_sum(t, NULL, int_bytes, NULL, NULL, cols));
    p.temp_bytes = p.temp_bytes > int_bytes ? p.temp_bytes : int_bytes;
    p.temp = device_alloc(p.temp_bytes, "CUB's scratch");
    p.int_out = (long long *)device_alloc(sizeof(long long), "the integer sum");
    p.cub_out = (double *)device_alloc(sizeof(double), "CUB's sum");
    p.sums = (RowSum *)host_alloc(rows * sizeof(RowSum), "the rows' sums");
    double *sums64 = (double *)host_alloc(rows * sizeof(double), "the rows' sums in fp64");
    double gpu_ms;
    const double exact_ms = median_ms(exact_launches, exact_finish, &p, &flush, &gpu_ms);
    const double cub_ms = median_ms(cub_pass, NULL, &p, &flush, NULL);
    double cub_last = 0.0; /* CUB's sum of the last row, as its accumulator holds it */
    if (cub_acc(t) == ACC_F64) {
        CUDA_CHECK(cudaMemcpy(&cub_last, p.cub_out, sizeof cub_last, cudaMemcpyDeviceToHost));
    } else {
        unsigned word;
        CUDA_CHECK(cudaMemcpy(&word, p.cub_out, sizeof word, cudaMemcpyDeviceToHost));
        float f;
        memcpy(&f, &word, sizeof f);
        cub_last = cub_acc(t) == ACC_I32 ? (double)(int)word : (double)f;
    }
    const ResultType cub_type = cub_acc(t) == ACC_F64 ? RESULT_F64 : cub_acc(t) == ACC_I32 ? RESULT_I32 : RESULT_F32;
    for (uint64_t r = 0; r < rows; r++) sums64[r] = p.sums[r].sum64;
    if (out_path && write_array_file(out_path, DT_F64, sums64, rows, 0, err, sizeof err) != 0) {
        fprintf(stderr, "error: --out %s: %s\n", out_path, err);
        return EXIT_USAGE;
    }

    const double gbps = bytes / (exact_ms * 1e6), cub_gbps = bytes / (cub_ms * 1e6);
    char decimal[64], bits[32], decimal64[64], bits64[32], cub_text[64];
    result_decimal(cub_text, sizeof cub_text, cub_last, cub_type);
    if (csv) {
        printf(SUM_CSV_HEADER "\n");
        for (uint64_t r = 0; r < rows; r++) {
            in_type_text(&p.sums[r], t, decimal, bits, sizeof decimal);
            printf("%s,%s,%llu,%llu,%llu,%s,%s,%s,%s,%.2f,%.2f,%.1f,%.2f,%.1f,%s\n", path, dtypes[t].name,
                   (unsigned long long)(a.rows ? rows : 0), (unsigned long long)cols, (unsigned long long)r, decimal, bits,
                   result_decimal(decimal64, sizeof decimal64, sums64[r], RESULT_F64),
                   result_bits(bits64, sizeof bits64, sums64[r], RESULT_F64), exact_ms * 1e3, gpu_ms * 1e3, gbps, cub_ms * 1e3,
                   cub_gbps, r + 1 == rows ? cub_text : "");
        }
        return EXIT_OK;
    }
    printf("%s: %llu %s values", path, (unsigned long long)a.count, dtypes[t].name);
    if (a.rows) printf(", %llu rows of %llu: a sum a row%s", (unsigned long long)rows, (unsigned long long)cols,
                       out_path ? "" : " (--out writes them all)");
    printf("\n");
    /* One row's sums; of several, the first and the one of largest magnitude. */
    uint64_t largest = 0;
    for (uint64_t r = 1; r < rows; r++)
        if (fabs(sums64[r]) > fabs(sums64[largest]) || (isnan(sums64[r]) && !isnan(sums64[largest]))) largest = r;
    const uint64_t shown[2] = {0, largest};
    for (int k = 0; k < (rows > 1 && largest ? 2 : 1); k++) {
        char label[64] = "";
        if (a.rows) snprintf(label, sizeof label, k ? "row %llu (largest), " : "row %llu, ", (unsigned long long)shown[k]);
        in_type_text(&p.sums[shown[k]], t, decimal, bits, sizeof decimal);
        if (t != DT_F64) printf("  %sexact sum in %-4s %s (%s)\n", label, dtypes[t].name, decimal, bits);
        printf("  %sexact sum in f64  %s (%s)\n", label, result_decimal(decimal64, sizeof decimal64, sums64[shown[k]], RESULT_F64),
               result_bits(bits64, sizeof bits64, sums64[shown[k]], RESULT_F64));
    }
    printf("  GPU time          %.2f us, %.1f GB/s (median of %d runs, input from DRAM; the result read back)\n",
           exact_ms * 1e3, gbps, TIMED_RUNS);
    printf("  up to read-back   %.2f us (the %s read-back left out: stage 13's table's measure)\n", gpu_ms * 1e3,
           rows > 1 ? "last row's" : "result's");
    printf("  CUB's sum         %.2f us, %.1f GB/s, in its %s accumulator: %s%s\n", cub_ms * 1e3, cub_gbps,
           cub_type == RESULT_F64 ? "fp64" : cub_type == RESULT_I32 ? "int32" : "fp32", cub_text, a.rows ? " (last row)" : "");
    return EXIT_OK;
}

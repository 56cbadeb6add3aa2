/* The CSV's result columns as csv_write (common/csv.cu) writes them, on any machine: a row of each
 * result type, a row with no result and a device row, appended to the file named by argv[1]. It calls no
 * CUDA function; tests/test_csv.py builds it and reads the file. */
#include <float.h>

#include "csv.h"
#include "exit_codes.h"
#include "options.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.csv\n", argv[0]);
        return EXIT_USAGE;
    }
    Program p = {.stage = "00_test"};
    program_defaults(&p, argv[0], NULL, NULL, NULL);
    FILE *csv = open_csv(argv[1], argv[0]);
    const struct {
        const char *kernel;
        ResultType type;
        double value;
    } results[] = {
        {"f64_sum", RESULT_F64, 5000035.76601307}, {"f64_third", RESULT_F64, 1.0 / 3.0},
        {"f64_max", RESULT_F64, -DBL_MAX},         {"f64_tiny", RESULT_F64, 0x1p-1074},
        {"f32_tenth", RESULT_F32, (double)0.1f},   {"f32_max", RESULT_F32, FLT_MAX},
        {"f32_negative_zero", RESULT_F32, -0.0},   {"i32_sum", RESULT_I32, -2147483648.0},
        {"no_result", RESULT_NONE, 1.0},
    };
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++) {
        Measurement row = {results[i].kernel, "f32", 1000, 1.5, 2.5, 0.1, "1", 0.0, 0, 0, 1, 4000.0, 1.0, 1.0, "shifted", 1e-7, 0.01, 10};
        row.result_type = results[i].type;
        row.shown = results[i].value;
        csv_write(csv, "Test GPU", &p, &row);
    }
    Measurement device = {"dram_peak", "f32", 0, 0, 1000.0, 100.0};
    csv_write(csv, "Test GPU", &p, &device);
    fclose(csv);
    return EXIT_OK;
}

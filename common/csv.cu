/* Every program's CSV (csv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "exit_codes.h"

FILE *open_csv(const char *path, const char *prog)
{
    if (!path) return NULL;
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "error: cannot write the CSV file '%s': %s\n(try %s --help)\n", path, strerror(errno), prog);
        exit(EXIT_USAGE);
    }
    fseek(f, 0, SEEK_END); /* the header goes in with the first row: a run that fails early adds nothing */
    return f;
}

void csv_write(FILE *csv, const char *gpu, const Program *p, const Measurement *r)
{
    if (!csv) return;
    if (ftell(csv) == 0) fprintf(csv, "%s\n", CSV_HEADER);
    fprintf(csv, "%s,%s,%s,%s,%llu,", gpu, r->pass ? p->stage : "device", r->kernel, r->dtype, (unsigned long long)r->n);
    if (r->median_us > 0) fprintf(csv, "%.3f", r->median_us);
    fprintf(csv, ",");
    if (r->gpu_us > 0) fprintf(csv, "%.3f,%.3f", r->gpu_us, r->finish_us);
    else fprintf(csv, ",");
    if (r->gbps > 0) fprintf(csv, ",%.2f,", r->gbps);
    else fprintf(csv, ",,");
    if (r->gbps > 0 && r->pct_peak > 0) fprintf(csv, "%.2f", r->pct_peak);
    if (!r->pass) {
        fprintf(csv, ",,,,,,,,,,,,,,\n");
        fflush(csv);
        return;
    }
    fprintf(csv, ",%.3e,%s,", r->rel_err, r->pass);
    if (r->cols) fprintf(csv, "%llu", (unsigned long long)r->cols);
    fprintf(csv, ",%s,%s,%.0f,", r->warm ? "warm" : "flushed", r->same_bits ? "same" : "vary", r->bytes_read);
    if (r->speedup > 0) fprintf(csv, "%.3f", r->speedup);
    fprintf(csv, ",");
    if (r->x_cub > 0) fprintf(csv, "%.3f", r->x_cub);
    fprintf(csv, ",%s,", r->fill ? r->fill : "");
    if (r->rel_bound > 0) fprintf(csv, "%.3e", r->rel_bound);
    fprintf(csv, ",");
    if (r->spread >= 0) fprintf(csv, "%.3f", r->spread);
    fprintf(csv, ",");
    if (r->chain > 0) fprintf(csv, "%.0f", r->chain);
    char decimal[32], bits[24];
    fprintf(csv, ",%s,%s\n", result_decimal(decimal, sizeof decimal, r->shown, r->result_type),
            result_bits(bits, sizeof bits, r->shown, r->result_type));
    fflush(csv);
}

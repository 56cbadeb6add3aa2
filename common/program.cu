/* The command line, --describe, the CSV writer, the timing loop and the memory check of every
 * program (program.h). The speed of light is speed_of_light.cu; the GPU, allocation and the flush gpu.cu. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "program.h"

/* ---- the command line ------------------------------------------------------------------------- */

void usage_error(const char *prog, const char *fmt, const char *arg)
{
    fprintf(stderr, "error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try %s --help)\n", prog);
    exit(EXIT_USAGE);
}

typedef enum { OPT_N, OPT_KERNEL, OPT_LIST, OPT_DESCRIBE, OPT_FILL, OPT_SEED, OPT_REPS, OPT_WARMUP, OPT_CSV,
               OPT_CHECK, OPT_L2, OPT_HELP } CommonFlag;

typedef struct {
    CommonFlag id;
    const char *flag, *value, *help;
} CommonOption;

/* The common rows of --help (help_row fills in %F and %D). */
static const CommonOption common_options[] = {
    {OPT_N, "--n", "N[,N...]", "sizes (default %D); suffixes K M G (x1024), 2^k[+c]"},
    {OPT_KERNEL, "--kernel", "NAME[,NAME...]|all", "run the kernels of --list named, or every default one (default all)"},
    {OPT_LIST, "--list", NULL, "list the kernels and exit"},
    {OPT_DESCRIBE, "--describe", NULL, "print what this program is (kernels, sizes, fills, charts) as key: value lines, for scripts"},
    {OPT_FILL, "--fill", "F", "input data: %F (default the first)"},
    {OPT_SEED, "--seed", "S", "seed of the random data (default 1)"},
    {OPT_REPS, "--reps", "R", "timed runs, the median reported (default 20, at most 100000)"},
    {OPT_WARMUP, "--warmup", "W", "untimed runs before them (default 3, at most 1000)"},
    {OPT_CSV, "--csv", "FILE", "append one row per measurement to FILE"},
    {OPT_CHECK, "--check", NULL, "exit 1 if any check fails"},
    {OPT_L2, "--l2", "flushed|warm", "flushed (default): L2 flushed before every timed run, the input read from DRAM;\n"
                                     "warm: no flush, so an input that fits in L2 is read from it (rows labelled warm)"},
    {OPT_HELP, "--help", NULL, "this text"},
};
#define COMMON_COUNT (int)(sizeof common_options / sizeof common_options[0])

/* "  --flag VALUE" padded to a column, then the help, later lines indented to the same column; %F, %D and
 * %T in the help become the program's fills, its default sizes and the input types (dtype.h). */
static void help_row(const char *flag, const char *value, const char *help, const Program *p)
{
    char head[64];
    snprintf(head, sizeof head, "  %s%s%s", flag, value ? " " : "", value ? value : "");
    printf("%-28s", head);
    if (strlen(head) >= 28) printf("\n%-28s", "");
    for (const char *c = help; *c; c++) {
        if (*c == '\n') printf("\n%-28s", "");
        else if (c[0] == '%' && c[1] == 'F') printf("%s", p->fills), c++;
        else if (c[0] == '%' && c[1] == 'D') printf("%s", p->default_sizes), c++;
        else if (c[0] == '%' && c[1] == 'T') {
            for (int t = 0; t < DT_COUNT; t++) printf("%s%s", t ? " " : "", dtypes[t].name);
            c++;
        }
        else putchar(*c);
    }
    putchar('\n');
}

static void print_help(const char *prog, const Program *p)
{
    printf("usage: %s [options]   (stage %s)\n", prog, p->stage);
    if (p->usage_note) printf("%s\n", p->usage_note);
    for (int i = 0; i < COMMON_COUNT; i++)
        help_row(common_options[i].flag, common_options[i].value, common_options[i].help, p);
    if (p->own_count) printf("options of this program:\n");
    for (int i = 0; i < p->own_count; i++) help_row(p->own[i].flag, p->own[i].value, p->own[i].help, p);
    printf("exit codes: 0 ok, 1 a check failed (with --check), 2 usage error, 3 no usable GPU or a CUDA error\n");
}

/* "key: value", or "key:" alone for an empty value. */
static void describe_line(const char *key, const char *value)
{
    printf("%s:%s%s\n", key, *value ? " " : "", value);
}

static void describe(const Program *p)
{
    describe_line("stage", p->stage);
    describe_line("program", p->program);
    describe_line("gpus", p->several_gpus ? "several" : "one");
    p->describe_kernels();
    describe_line("fills", p->fills);
    describe_line("check fills", p->check_fills);
    describe_line("bench fills", p->bench_fills);
    describe_line("default sizes", p->default_sizes);
    describe_line("bench sizes", p->bench_sizes);
    describe_line("check sizes", p->check_sizes);
    describe_line("edge sizes", p->edge_sizes);
    describe_line("row stage", p->rows ? "yes" : "no");
    describe_line("baseline", p->baseline);
    describe_line("warm-L2 kernels", p->warm_l2);
    describe_line("flush probes", p->flush_probes);
    describe_line("accuracy kernels", p->accuracy);
    describe_line("limit kernels", p->limits);
    describe_line("tree kernels", p->trees);
    describe_line("charts", p->charts);
    describe_line("csv", p->csv);
    describe_line("library launches", p->library_launches);
    describe_line("grade sizes", p->grade_sizes);
    describe_line("grade time", p->grade_time);
    describe_line("grade promises", p->grade_promises);
    char noisy[16];
    snprintf(noisy, sizeof noisy, "%.2f", NOISY_SPREAD);
    describe_line("noisy spread", noisy);
}

/* Is word (length len) one of the space-separated words of list? */
static int in_words(const char *list, const char *word, size_t len)
{
    for (const char *w = list; *w; w += strcspn(w, " ")) {
        w += strspn(w, " ");
        if (strcspn(w, " ") == len && !strncmp(w, word, len)) return 1;
    }
    return 0;
}

void program_defaults(Program *p, const char *argv0, void (*list)(void), void (*describe_kernels)(void),
                      int (*kernel_exists)(const char *name))
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    p->program = slash ? slash + 1 : argv0 ? argv0 : p->stage;
    const char **unset_shifted[] = {&p->fills, &p->check_fills, &p->bench_fills};
    for (int i = 0; i < 3; i++)
        if (!*unset_shifted[i]) *unset_shifted[i] = "shifted";
    const char **unset_empty[] = {&p->edge_sizes, &p->baseline, &p->warm_l2, &p->flush_probes, &p->charts,
                                  &p->accuracy, &p->limits, &p->trees};
    for (int i = 0; i < 8; i++)
        if (!*unset_empty[i]) *unset_empty[i] = "";
    if (!p->csv) p->csv = "results.csv";
    if (!p->library_launches) p->library_launches = "DeviceReduce SingleTile";
    if (!p->grade_sizes) p->grade_sizes = GRADE_SIZES;
    if (!p->grade_time) p->grade_time = "2^24";
    if (!p->grade_promises) p->grade_promises = "";
    p->list = list;
    p->describe_kernels = describe_kernels;
    p->kernel_exists = kernel_exists;
}

void program_init(Program *p, const char *stage, const char *argv0, void (*list)(void),
                  void (*describe_kernels)(void), int (*kernel_exists)(const char *name))
{
    memset(p, 0, sizeof *p);
    p->stage = stage;
    program_defaults(p, argv0, list, describe_kernels, kernel_exists);
}

Options parse_command_line(int argc, char **argv, const Program *p)
{
    const char *prog = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time through a pipe too: make bench's progress follows the tables */
    Options o;
    memset(&o, 0, sizeof o);
    static char first_fill[32];
    snprintf(first_fill, sizeof first_fill, "%.*s", (int)strcspn(p->fills, " "), p->fills);
    o.sizes = p->default_sizes;
    o.fill = first_fill;
    o.seed = 1;
    o.reps = 20;
    o.warmup = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const CommonOption *c = NULL;
        const ProgramOption *own = NULL;
        for (int k = 0; k < COMMON_COUNT; k++)
            if (!strcmp(a, common_options[k].flag)) c = &common_options[k];
        for (int k = 0; k < p->own_count; k++)
            if (!strcmp(a, p->own[k].flag)) own = &p->own[k];
        if (!strcmp(a, "-h")) c = &common_options[COMMON_COUNT - 1];
        if (!c && !own) usage_error(prog, "unknown option '%s'", a);
        const char *v = NULL;
        if (c ? c->value != NULL : own->value != NULL) {
            if (i + 1 >= argc) usage_error(prog, "option %s needs a value", a);
            v = argv[++i];
        }
        if (own) {
            own->take(prog, v);
            continue;
        }
        long num;
        switch (c->id) {
        case OPT_HELP: print_help(prog, p); exit(EXIT_OK);
        case OPT_LIST: p->list(); exit(EXIT_OK);
        case OPT_DESCRIBE: describe(p); exit(EXIT_OK);
        case OPT_CHECK: o.check = 1; break;
        case OPT_N: {
            uint64_t sizes[64];
            if (parse_size_list(v, sizes, 64) < 0)
                usage_error(prog, "--n '%s': give element counts >= 1 such as 1000003, 16M, 2^24+1 or 4096x4096 "
                                  "(comma-separated, at most 64)", v);
            o.sizes = v;
            break;
        }
        case OPT_KERNEL:
            for (const char *s = v; strcmp(v, "all") && *s;) {
                char name[128];
                int len = (int)strcspn(s, ",");
                snprintf(name, sizeof name, "%.*s", len, s);
                if (!p->kernel_exists(name))
                    usage_error(prog, "unknown kernel '%s' (--list shows this program's kernels)", name);
                s += len + (s[len] == ',');
            }
            o.kernels = strcmp(v, "all") ? v : NULL;
            break;
        case OPT_FILL:
            if (!*v || !in_words(p->fills, v, strlen(v))) {
                fprintf(stderr, "error: unknown fill '%s' (this program's fills: %s)\n(try %s --help)\n", v, p->fills, prog);
                exit(EXIT_USAGE);
            }
            o.fill = v;
            break;
        case OPT_SEED:
            if (parse_int(v, 0, 0x7fffffffL, &num)) usage_error(prog, "--seed '%s': give a whole number >= 0", v);
            o.seed = (uint64_t)num;
            break;
        case OPT_REPS:
            if (parse_int(v, 1, 100000, &num)) usage_error(prog, "--reps '%s': give a whole number from 1 to 100000", v);
            o.reps = (int)num;
            break;
        case OPT_WARMUP:
            if (parse_int(v, 0, 1000, &num)) usage_error(prog, "--warmup '%s': give a whole number from 0 to 1000", v);
            o.warmup = (int)num;
            break;
        case OPT_CSV: o.csv_path = v; break;
        case OPT_L2:
            if (strcmp(v, "flushed") && strcmp(v, "warm")) usage_error(prog, "--l2 '%s': give flushed or warm", v);
            o.warm = !strcmp(v, "warm");
            break;
        }
    }
    return o;
}

int kernel_selected(const Options *o, const char *name, int is_default)
{
    if (!o->kernels) return is_default;
    size_t len = strlen(name);
    for (const char *s = o->kernels; *s; s += strcspn(s, ",") + (s[strcspn(s, ",")] == ','))
        if (strcspn(s, ",") == len && !strncmp(s, name, len)) return 1;
    return 0;
}

int option_sizes(const Options *o, uint64_t *sizes, int max, const char *prog)
{
    int count = parse_size_list(o->sizes, sizes, max);
    if (count < 0) usage_error(prog, "--n '%s': give at most 64 element counts >= 1, comma-separated", o->sizes);
    return count;
}

/* ---- the CSV ---------------------------------------------------------------------------------- */

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

/* ---- timing ----------------------------------------------------------------------------------- */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The events of one run: start, launched (after the launches) and stop. */
typedef struct {
    cudaEvent_t start, launched, stop;
} RunEvents;

static float elapsed_us(cudaEvent_t from, cudaEvent_t to)
{
    float ms;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return ms * 1e3f;
}

/* One batch: warmup untimed runs, then reps timed ones: the whole runs into us[] (sorted), their
 * launches into gpu[] and their finishes into fin[]; returns the whole runs' median. */
static double time_batch(const TimedRun *t, int warmup, int reps, double *us, double *gpu, double *fin, const RunEvents *e)
{
    for (int i = -warmup; i < reps; i++) {
        if (t->prepare) t->prepare(t->ctx);
        if (t->flush) l2_flush(t->flush, 0);
        else keep_gpu_busy(50.0, 0);
        CUDA_CHECK(cudaEventRecord(e->start));
        t->run(t->ctx);
        if (t->finish) { /* a run without one records no third event: its whole is the GPU's part */
            CUDA_CHECK(cudaEventRecord(e->launched));
            t->finish(t->ctx);
        }
        CUDA_CHECK(cudaEventRecord(e->stop));
        CUDA_CHECK(cudaEventSynchronize(e->stop));
        if (i >= 0) {
            us[i] = elapsed_us(e->start, e->stop);
            gpu[i] = t->finish ? elapsed_us(e->start, e->launched) : us[i];
            fin[i] = t->finish ? elapsed_us(e->launched, e->stop) : 0.0;
        }
        if (t->after) t->after(t->ctx);
    }
    return median(us, reps);
}

double time_runs(const TimedRun *t, int warmup, int reps, double *spread, RunParts *parts)
{
    static double last_end = -1.0;
    int count = reps > 0 ? reps : 1;
    double *us = (double *)malloc(sizeof(double) * 3 * count);
    if (!us) {
        fprintf(stderr, "error: out of host memory for %d timings\n", reps);
        exit(EXIT_GPU);
    }
    double *gpu = us + count, *fin = us + 2 * count;
    /* A GPU left idle (the CPU computing a reference, allocating) lowers its clocks: bring them back up. */
    if (last_end < 0 || seconds_now() - last_end > IDLE_S) warm_gpu_clocks(WARM_CLOCKS_MS);
    RunEvents e;
    CUDA_CHECK(cudaEventCreate(&e.start));
    CUDA_CHECK(cudaEventCreate(&e.launched));
    CUDA_CHECK(cudaEventCreate(&e.stop));
    double m = 0.0, s = 0.0;
    RunParts kept = {0.0, 0.0};
    /* A noisy batch is measured again (at most twice); the batch with the smallest spread is kept. */
    for (int batch = 0; batch < 3; batch++) {
        double bm = time_batch(t, batch ? 1 : warmup, reps, us, gpu, fin, &e);
        double bs = reps >= 4 && bm > 0 ? (us[3 * reps / 4] - us[reps / 4]) / bm : 0.0;
        if (batch == 0 || bs < s) {
            m = bm;
            s = bs;
            kept.gpu_us = median(gpu, reps);
            kept.finish_us = median(fin, reps);
        }
        if (s <= NOISY_SPREAD || reps < 4) break;
    }
    CUDA_CHECK(cudaEventDestroy(e.start));
    CUDA_CHECK(cudaEventDestroy(e.launched));
    CUDA_CHECK(cudaEventDestroy(e.stop));
    free(us);
    if (spread) *spread = s;
    if (parts) *parts = kept;
    last_end = seconds_now();
    return m;
}

/* Each word mixed with its index (splitmix64), the mixes combined with XOR: the order of the atomics
 * does not matter, the position of every word does. */
__global__ void common_bits_hash(const unsigned *x, uint64_t words, unsigned long long *out)
{
    unsigned long long h = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i << 32 | x[i]) + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        h ^= z ^ (z >> 31);
    }
    atomicXor(out, h);
}

uint64_t device_bits_hash(const void *p, uint64_t bytes)
{
    unsigned long long *out = (unsigned long long *)device_alloc(sizeof *out, "the output hash");
    CUDA_CHECK(cudaMemset(out, 0, sizeof *out));
    uint64_t words = bytes / 4;
    unsigned blocks = (unsigned)(words / 256 < 1024 ? words / 256 + 1 : 1024);
    common_bits_hash<<<blocks, 256>>>((const unsigned *)p, words, out);
    LAUNCH_CHECK("common_bits_hash");
    uint64_t h;
    CUDA_CHECK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(out));
    return h;
}

/* ---- memory ----------------------------------------------------------------------------------- */

const char *input_path, *input_dtype;
void take_input_path(const char *, const char *v) { input_path = v; }
void take_input_dtype(const char *, const char *v) { input_dtype = v; }

/* The input types of the program at path, as its --describe says them ("input types: f32 f64"), each led
 * and followed by a space; "" where it cannot be run. It is started without a shell, its errors unread. */
static void input_types_of(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    int fd[2];
    if (pipe(fd)) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fd[0]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)path, (char *)"--describe", NULL};
    pid_t pid;
    int started = posix_spawn(&pid, path, &actions, NULL, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "input types:", 12))
            snprintf(out, cap, "%.*s ", (int)strcspn(line + 12, "\n"), line + 12);
    if (f) fclose(f);
    else close(fd[0]);
    if (started) waitpid(pid, NULL, 0);
}

/* The stages whose programs take files of `type`, as their --describe says: every program the Makefile
 * builds (PROGRAMS, their paths in the build folder, which holds this program's folder) that is built here
 * is asked. Their folders, each led by a space, into out; "" where none is. */
static void stages_taking(const char *type, char *out, size_t cap)
{
    char build[4096], path[4200], types[256], padded[24];
    out[0] = '\0';
    ssize_t len = readlink("/proc/self/exe", build, sizeof build - 1);
    if (len <= 0) return;
    build[len] = '\0';
    for (int up = 0; up < 2; up++) { /* build/<stage>/<program> -> build */
        char *slash = strrchr(build, '/');
        if (slash) *slash = '\0';
    }
    snprintf(padded, sizeof padded, " %s ", type);
    for (const char *p = PROGRAMS; *p;) {
        int word = (int)strcspn(p, " ");
        snprintf(path, sizeof path, "%s/%.*s", build, word, p);
        input_types_of(path, types, sizeof types);
        if (strstr(types, padded)) {
            int stage = (int)strcspn(p, "/");
            snprintf(out + strlen(out), cap - strlen(out), " %.*s", stage, p);
        }
        p += word + (p[word] == ' ');
    }
}

int read_input(const char *prog, const Options *o, const Program *p, const char *taken, ArrayFile *a)
{
    char err[384], msg[1536];
    if (input_dtype && !input_path) usage_error(prog, "%s names the type of a raw --input file", "--dtype");
    if (!input_path) return 0;
    size_t fill_len = strcspn(p->fills, " ");
    if (o->sizes != p->default_sizes) usage_error(prog, "%s: the file's length is N; give no --n", "--input");
    if (strlen(o->fill) != fill_len || strncmp(o->fill, p->fills, fill_len))
        usage_error(prog, "%s: the file is the data; give no --fill", "--input");
    if (read_array_file(input_path, input_dtype, a, err, sizeof err)) {
        snprintf(msg, sizeof msg, "--input %s: %s", input_path, err);
        usage_error(prog, "%s", msg);
    }
    const char *type = dtypes[a->type].name;
    char name[24];
    snprintf(name, sizeof name, " %s ", type);
    char padded[128];
    snprintf(padded, sizeof padded, "%s ", taken);
    if (!strstr(padded, name)) {
        char takers[512];
        stages_taking(type, takers, sizeof takers);
        const char *run = "make stage-NN run ARGS=\"--input FILE\"";
        int n = snprintf(msg, sizeof msg, "--input %s holds %s values; this program's kernels take:%s. "
                         "Sum it with a stage whose kernels take %s (%s: %s)", input_path, type, taken, type,
                         *takers ? takers + 1 : "none built", run);
        if (strstr(padded, " f32 ") && n < (int)sizeof msg) /* a type this program takes */
            snprintf(msg + n, sizeof msg - n, ", or convert it, rounding each value to float32: python3 -c "
                     "\"import numpy as np; np.save('x32.npy', np.load('%s').astype(np.float32))\"",
                     input_path);
        usage_error(prog, "%s", msg);
    }
    return 1;
}

void require_gpu_memory(size_t need, const char *what, const GpuInfo *d)
{
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (need <= free_b) return;
    fprintf(stderr, "error: %s needs about %zu bytes of GPU memory; %s has %zu bytes free (of %zu): "
                    "choose smaller sizes\n", what, need, d->name, free_b, total_b);
    exit(EXIT_USAGE);
}

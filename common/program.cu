/* The command line, --help and --describe of every program (program.h, options.h). */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "program.h"
#include "timing.h"

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
    {OPT_DESCRIBE, "--describe", NULL, "print what this program is (kernels, sizes, fills, charts) as one JSON document, for scripts"},
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

void describe_kernel(JsonWriter *w, const char *name, const char *dtype, const char *role, const char *accumulator,
                     double unchecked_from)
{
    json_open(w, NULL, '{');
    json_string(w, "name", name);
    json_string(w, "dtype", dtype);
    json_string(w, "role", role);
    json_string(w, "accumulator", accumulator);
    if (isnan(unchecked_from)) json_string(w, "unchecked_from", NULL);
    else json_number(w, "unchecked_from", unchecked_from);
    json_close(w, '}');
}

/* --describe: one JSON document, its fields in the order of docs/developers.md's table (scripts/describe.py's
 * SCHEMA). */
static void describe(const Program *p)
{
    JsonWriter w = {stdout, 0, {0}};
    json_open(&w, NULL, '{');
    json_string(&w, "stage", p->stage);
    json_string(&w, "program", p->program);
    json_bool(&w, "several_gpus", p->several_gpus);
    p->describe_kernels(&w);
    json_words(&w, "fills", p->fills, " ");
    json_words(&w, "check_fills", p->check_fills, " ");
    json_words(&w, "bench_fills", p->bench_fills, " ");
    json_words(&w, "default_sizes", p->default_sizes, ",");
    json_words(&w, "bench_sizes", p->bench_sizes, ",");
    json_words(&w, "check_sizes", p->check_sizes, ",");
    json_words(&w, "edge_sizes", p->edge_sizes, ",");
    json_bool(&w, "row_stage", p->rows);
    json_string(&w, "baseline", *p->baseline ? p->baseline : NULL);
    json_words(&w, "warm_l2_kernels", p->warm_l2, " ");
    json_open(&w, "flush_probes", '[');
    for (const FlushProbe *f = p->flush_probes; f < p->flush_probes + MAX_LISTED && f->kernel; f++) {
        json_open(&w, NULL, '{');
        json_string(&w, "kernel", f->kernel);
        json_string(&w, "function", f->function);
        json_string(&w, "loads", f->loads);
        json_close(&w, '}');
    }
    json_close(&w, ']');
    json_words(&w, "accuracy_kernels", p->accuracy, " ");
    json_words(&w, "limit_kernels", p->limits, " ");
    json_open(&w, "tree_kernels", '[');
    for (const TreeKernel *t = p->trees; t < p->trees + MAX_LISTED && t->kernel; t++) {
        json_open(&w, NULL, '{');
        json_string(&w, "kernel", t->kernel);
        json_string(&w, "n", t->n);
        json_close(&w, '}');
    }
    json_close(&w, ']');
    json_open(&w, "charts", '[');
    for (const Chart *c = p->charts; c < p->charts + MAX_CHARTS && c->name; c++) {
        json_open(&w, NULL, '{');
        json_string(&w, "name", c->name);
        json_bool(&w, "owned", c->role == OWNS);
        json_words(&w, "also_dtypes", c->also_dtypes ? c->also_dtypes : "", " ");
        json_close(&w, '}');
    }
    json_close(&w, ']');
    json_string(&w, "csv", p->csv);
    json_open(&w, "library_launches", '{');
    json_string(&w, "first", p->library_launches.first);
    json_string(&w, "last", p->library_launches.last);
    json_close(&w, '}');
    json_words(&w, "grade_sizes", p->grade_sizes, ",");
    json_string(&w, "grade_time", p->grade_time);
    json_words(&w, "grade_promises", p->grade_promises, " ");
    json_number(&w, "noisy_spread", NOISY_SPREAD);
    json_close(&w, '}');
}

/* Is word one of the words of list, which are separated by any of seps? */
static int in_list(const char *list, const char *word, const char *seps)
{
    size_t len = strlen(word);
    for (const char *w = list + strspn(list, seps); *w; w += strspn(w, seps)) {
        if (strcspn(w, seps) == len && !strncmp(w, word, len)) return 1;
        w += strcspn(w, seps);
    }
    return 0;
}

void program_defaults(Program *p, const char *argv0, void (*list)(void), void (*describe_kernels)(JsonWriter *w),
                      int (*kernel_exists)(const char *name))
{
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    p->program = slash ? slash + 1 : argv0 ? argv0 : p->stage;
    const char **unset_shifted[] = {&p->fills, &p->check_fills, &p->bench_fills};
    for (int i = 0; i < 3; i++)
        if (!*unset_shifted[i]) *unset_shifted[i] = "shifted";
    const char **unset_empty[] = {&p->edge_sizes, &p->baseline, &p->warm_l2, &p->accuracy, &p->limits};
    for (int i = 0; i < 5; i++)
        if (!*unset_empty[i]) *unset_empty[i] = "";
    if (!p->csv) p->csv = "results.csv";
    if (!p->library_launches.first) p->library_launches.first = "DeviceReduce";
    if (!p->library_launches.last) p->library_launches.last = "SingleTile";
    if (!p->grade_sizes) p->grade_sizes = GRADE_SIZES;
    if (!p->grade_time) p->grade_time = "2^24";
    if (!p->grade_promises) p->grade_promises = "";
    p->list = list;
    p->describe_kernels = describe_kernels;
    p->kernel_exists = kernel_exists;
}

void set_sizes(Options *o, const char *text, const char *prog)
{
    int count = 0;
    for (const char *s = text;; s += strcspn(s, ",") + 1) {
        size_t len = strcspn(s, ",");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)len, s);
        if (len == 0 || len >= sizeof item || count == MAX_SIZES || parse_matrix(item, &o->rows[count], &o->cols[count]))
            usage_error(prog, "--n '%s': give element counts >= 1 such as 1000003, 16M, 2^24+1 or 4096x4096 "
                              "(comma-separated, at most 64)", text);
        o->n[count] = o->rows[count] * o->cols[count];
        snprintf(o->size_text[count++], sizeof o->size_text[0], "%.31s", item);
        if (!s[len]) break;
    }
    o->sizes = text;
    o->size_count = count;
}

Options parse_command_line(int argc, char **argv, const Program *p, void *own_options)
{
    const char *prog = argv[0];
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time through a pipe too: make bench's progress follows the tables */
    Options o;
    memset(&o, 0, sizeof o);
    o.own = own_options;
    snprintf(o.fill, sizeof o.fill, "%.*s", (int)strcspn(p->fills, " "), p->fills);
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
            own->take(prog, v, &o);
            continue;
        }
        long num;
        switch (c->id) {
        case OPT_HELP: print_help(prog, p); exit(EXIT_OK);
        case OPT_LIST: p->list(); exit(EXIT_OK);
        case OPT_DESCRIBE: describe(p); exit(EXIT_OK);
        case OPT_CHECK: o.check = 1; break;
        case OPT_N:
            set_sizes(&o, v, prog);
            o.sizes_given = 1;
            break;
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
            if (!*v || !in_list(p->fills, v, " ")) {
                fprintf(stderr, "error: unknown fill '%s' (this program's fills: %s)\n(try %s --help)\n", v, p->fills, prog);
                exit(EXIT_USAGE);
            }
            snprintf(o.fill, sizeof o.fill, "%s", v);
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
    if (o.input_dtype && !o.input_path) usage_error(prog, "%s names the type of a raw --input file", "--dtype");
    if (!o.sizes_given) set_sizes(&o, p->default_sizes, prog);
    return o;
}

int kernel_selected(const Options *o, const char *name, int is_default)
{
    return o->kernels ? in_list(o->kernels, name, ",") : is_default;
}

void take_input_path(const char *, const char *v, Options *o) { o->input_path = v; }
void take_input_dtype(const char *, const char *v, Options *o) { o->input_dtype = v; }

/* The stages whose programs take files of `type`, as the build says: each stage program's input types, written
 * beside it as it is built (build/<stage>/<program>.types, one line; build/ is this program's folder's
 * parent). Their folders, each led by a space, into out; "" where none is. */
static void stages_taking(const char *type, char *out, size_t cap)
{
    char pattern[4096], line[1024];
    out[0] = '\0';
    ssize_t len = readlink("/proc/self/exe", pattern, sizeof pattern - 32);
    if (len <= 0) return;
    pattern[len] = '\0';
    for (int up = 0; up < 2; up++) { /* build/<stage>/<program> -> build */
        char *slash = strrchr(pattern, '/');
        if (slash) *slash = '\0';
    }
    strcat(pattern, "/*/*.types");
    glob_t found;
    if (glob(pattern, 0, NULL, &found)) return;
    for (size_t i = 0; i < found.gl_pathc; i++) {
        const char *path = found.gl_pathv[i];
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int got = fgets(line, sizeof line, f) != NULL;
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        if (!got || !in_list(line, type, " ")) continue;
        const char *end = strrchr(path, '/'), *stage = end;
        while (stage > path && stage[-1] != '/') stage--;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, " %.*s", (int)(end - stage), stage);
    }
    globfree(&found);
}

int read_input(const char *prog, const Options *o, const Program *p, const char *taken, ArrayFile *a)
{
    char err[384], msg[1536];
    if (!o->input_path) return 0;
    size_t fill_len = strcspn(p->fills, " ");
    if (o->sizes_given) usage_error(prog, "%s: the file's length is N; give no --n", "--input");
    if (strlen(o->fill) != fill_len || strncmp(o->fill, p->fills, fill_len))
        usage_error(prog, "%s: the file is the data; give no --fill", "--input");
    if (read_array_file(o->input_path, o->input_dtype, a, err, sizeof err)) {
        snprintf(msg, sizeof msg, "--input %s: %s", o->input_path, err);
        usage_error(prog, "%s", msg);
    }
    const char *type = dtypes[a->type].name;
    if (!in_list(taken, type, " ")) {
        char takers[512];
        stages_taking(type, takers, sizeof takers);
        const char *run = "make stage-NN run ARGS=\"--input FILE\"";
        int n = snprintf(msg, sizeof msg, "--input %s holds %s values; this program's kernels take:%s. "
                         "Sum it with a stage whose kernels take %s (%s: %s)", o->input_path, type, taken, type,
                         *takers ? takers + 1 : "none built", run);
        if (in_list(taken, "f32", " ") && n < (int)sizeof msg)
            snprintf(msg + n, sizeof msg - n, ", or convert it, rounding each value to float32: python3 -c "
                     "\"import numpy as np; np.save('x32.npy', np.load('%s').astype(np.float32))\"",
                     o->input_path);
        usage_error(prog, "%s", msg);
    }
    return 1;
}

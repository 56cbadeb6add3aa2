/* The command line of every program (program.cu): the common options parsed once into Options, a
 * program's own beside them, and --input's file; a Program's defaults and its --describe. */
#ifndef REDUCE_OPTIONS_H
#define REDUCE_OPTIONS_H

#include <stdint.h>

#include "array_file.h"
#include "exit_codes.h"
#include "json.h"
#include "parse.h"
#include "program.h"

/* "error: <fmt with arg>" and the --help hint, then exit with EXIT_USAGE. */
void usage_error(const char *prog, const char *fmt, const char *arg);

/* The most sizes one --n names. */
#define MAX_SIZES 64

/* The common options, the same flags, defaults and meaning in every program, each parsed once. */
typedef struct Options {
    const char *sizes;     /* --n: the list of sizes as given (default: the program's default sizes) */
    int sizes_given;       /* --n was given */
    int size_count;        /* the sizes of that list, parsed: */
    uint64_t n[MAX_SIZES], rows[MAX_SIZES], cols[MAX_SIZES]; /* elements, and ROWSxCOLS (a plain N: 1 x N) */
    char size_text[MAX_SIZES][32]; /* each as written, e.g. "4096x2048" */
    const char *kernels;   /* --kernel NAME[,NAME...]; NULL: every default kernel (--kernel all) */
    char fill[32];         /* --fill: one of the program's fills (default: its first) */
    uint64_t seed;         /* --seed (default 1) */
    int reps;              /* --reps: timed runs, the median reported (default 20) */
    int warmup;            /* --warmup: untimed runs before them (default 3) */
    const char *csv_path;  /* --csv FILE: rows appended */
    int check;             /* --check: exit EXIT_VERIFY if anything fails */
    int warm;              /* --l2 warm: no flush before the timed runs (default flushed) */
    const char *input_path, *input_dtype; /* --input FILE, --dtype T (INPUT_OPTIONS; NULL: not given) */
    void *own;             /* the program's own options, which the takes of its rows fill in */
} Options;

/* Parses argv once: the common options and p->own (taken into own, the program's own options struct, or
 * NULL); --help, --list and --describe print and exit 0; anything else wrong exits EXIT_USAGE with a
 * message naming it. */
Options parse_command_line(int argc, char **argv, const Program *p, void *own);
/* Sets the sizes to run to the list `text` (parsed: o->n, o->rows, o->cols, o->size_text); exits
 * EXIT_USAGE on a bad list. */
void set_sizes(Options *o, const char *text, const char *prog);
/* Is the kernel `name` run? Named in --kernel, or (without --kernel) a default one. */
int kernel_selected(const Options *o, const char *name, int is_default);

/* The defaults of the fields of P left NULL (the fill "shifted" for everything, "" for the lists, rows in
 * results.csv, CUB's library launches), its name from argv0 (NULL: the stage's) and the callbacks. */
void program_defaults(Program *p, const char *argv0, void (*list)(void), void (*describe_kernels)(JsonWriter *w),
                      int (*kernel_exists)(const char *name));

/* One of --describe's kernels: its name, input type, role (default, wrong, cpu, library or other: a kernel
 * not run by default), accumulator (NULL: the program names none) and the relative bound from which a pass
 * is unchecked (NaN: the program's own checks, none such). */
void describe_kernel(JsonWriter *w, const char *name, const char *dtype, const char *role, const char *accumulator,
                     double unchecked_from);

/* --input and --dtype, the same two rows in the option table of every program that reads a file (what: what
 * it does with the file), taken into o->input_path and o->input_dtype. */
void take_input_path(const char *prog, const char *v, Options *o);
void take_input_dtype(const char *prog, const char *v, Options *o);
#define INPUT_OPTIONS(what)                                                                                      \
    {"--input", "FILE", what, take_input_path},                                                                  \
    {"--dtype", "T", "the element type of a raw --input file: %T", take_input_dtype}
/* Reads the file of --input whole into *a and returns 1; returns 0 without --input. Every problem is a
 * one-line usage error (EXIT_USAGE), found before the GPU is opened: --n or --fill beside it (the file is
 * the data); a file read_array_file refuses; a type outside `taken` (the program's
 * kernels' input types, each led by a space, as the refusal lists them). */
int read_input(const char *prog, const Options *o, const Program *p, const char *taken, ArrayFile *a);

#endif

/* What every program of the project shares around its kernels (program.cu): one command line (the common
 * options and a program's own rows, --help printed from the table), one description for scripts
 * (--describe), one CSV writer, one timing loop and one memory-budget check. The stage harness (harness.cu)
 * and the programs of their own (scan and histogram, several GPUs) are all built on it. */
#ifndef REDUCE_PROGRAM_H
#define REDUCE_PROGRAM_H

#include <stdio.h>

#include "gpu.h"
#include "array_file.h"
#include "exit_codes.h"
#include "parse.h"
#include "result.h"

/* ---- the command line ------------------------------------------------------------------------- */

/* "error: <fmt with arg>" and the --help hint, then exit with EXIT_USAGE. */
void usage_error(const char *prog, const char *fmt, const char *arg);

/* A program's own option: its flag, what follows it in --help (NULL: a flag without a value), the help
 * text (later lines indented by the caller), and what takes it (value NULL for a flag); take reports a
 * bad value with usage_error. */
typedef struct {
    const char *flag;
    const char *value;
    const char *help;
    void (*take)(const char *prog, const char *value);
} ProgramOption;

/* What a program is, for the command line and for scripts (--describe prints it; scripts/ read it). A
 * stage declares its own in STAGE(...) (stage.h); NULL fields take their defaults (program_defaults). */
typedef struct {
    const char *stage;          /* its stage folder, e.g. "11_scan_histogram" */
    const char *program;        /* the binary's name in build/<stage>/ */
    int several_gpus;           /* 1: drives several GPUs (not a single-GPU program for the tools) */
    const char *fills;          /* --fill values, space-separated; the first is the default */
    const char *check_fills;    /* what `make stage-NN check` and the tests verify with */
    const char *bench_fills;    /* what `make bench` runs */
    const char *default_sizes;  /* --n when none is given (a stage: also the sizes of `make bench`) */
    const char *bench_sizes;    /* the sizes of `make bench` */
    const char *check_sizes;    /* the sizes `make check` and the tests verify */
    const char *edge_sizes;     /* 64-bit index sizes the audit runs */
    int rows;                   /* 1: a row stage (sizes ROWSxCOLS) */
    const char *baseline;       /* the kernel timed for the speed-up column ("": none) */
    const char *warm_l2;        /* kernels `make bench` also runs with --l2 warm ("": none) */
    const char *flush_probes;   /* TABLE_KERNEL@GPU_FUNCTION@LOADS for the flush check ("": none) */
    const char *charts;         /* the charts its rows go on (--describe; the reports read it from there) */
    const char *accuracy;       /* kernels on the accuracy chart (make accuracy; "": none) */
    const char *limits;         /* kernels make limits profiles (scripts/limits.sh; "": none) */
    const char *trees;          /* kernels whose recorded tree its READMEs show (make stage-NN tree; "": none);
                                   a stage may write NAME@N: recorded at --n N when no --n is given (default 1024) */
    const char *csv;            /* the file `make bench` collects its rows in */
    const char *library_launches; /* "FIRST LAST": a run of the library's baseline under a profiler is its launches
                                     whose names hold FIRST, up to the one whose name holds LAST (default: CUB's) */
    /* make stage-NN grade (an exercise's program; docs/classroom.md), what the exercise asks of a task: */
    const char *grade_sizes;    /* the sizes it is checked at: fixed ones, and LO..HI ranges the grader draws from its
                                   seed (a row stage: ROWSxCOLS, either side a range); default: GRADE_SIZES */
    const char *grade_time;     /* the size its time is taken at, against the solution's (default 2^24) */
    const char *grade_promises; /* what its text promises besides the sum: same-bits (every run gives the same bits),
                                   no-float-atomics:KERNEL[,KERNEL...] (no float atomic in the kernels named); "": none */
    const char *usage_note;     /* printed under the usage line of --help (NULL: none) */
    void (*list)(void);         /* --list: the kernels, for people */
    void (*describe_kernels)(void); /* the "kernel: NAME DTYPE default|wrong|cpu|library ACC" lines */
    int (*kernel_exists)(const char *name);
    const ProgramOption *own;   /* the program's own options */
    int own_count;
} Program;

/* The grader's sizes when an exercise declares none: the edges 1, 31 and 33, a prime above 2^20, and four
 * drawn from the seed up to 2^22. */
#define GRADE_SIZES "1,31,33,1048583,2..2^22,2..2^22,2..2^22,2..2^22"

/* The common options, the same flags, defaults and meaning in every program. */
typedef struct {
    const char *sizes;     /* --n: a list of sizes as given (default: the program's default sizes) */
    const char *kernels;   /* --kernel NAME[,NAME...]; NULL: every default kernel (--kernel all) */
    const char *fill;      /* --fill: one of the program's fills (default: its first) */
    uint64_t seed;         /* --seed (default 1) */
    int reps;              /* --reps: timed runs, the median reported (default 20) */
    int warmup;            /* --warmup: untimed runs before them (default 3) */
    const char *csv_path;  /* --csv FILE: rows appended */
    int check;             /* --check: exit EXIT_VERIFY if anything fails */
    int warm;              /* --l2 warm: no flush before the timed runs (default flushed) */
} Options;

/* The defaults of the fields P leaves NULL: the fill "shifted" for everything, empty baseline, warm-L2
 * kernels, flush probes, edge sizes, charts and limits, rows in results.csv; its name from argv0 (NULL:
 * the stage's) and the callbacks. */
void program_defaults(Program *p, const char *argv0, void (*list)(void), void (*describe_kernels)(void),
                      int (*kernel_exists)(const char *name));
/* A Program with only its stage and the defaults, one GPU; the caller sets the sizes, the charts and what
 * differs. */
void program_init(Program *p, const char *stage, const char *argv0, void (*list)(void),
                  void (*describe_kernels)(void), int (*kernel_exists)(const char *name));

/* Parses argv: the common options and p->own; --help, --list and --describe print and exit 0; anything
 * else wrong exits EXIT_USAGE with a message naming it. */
Options parse_command_line(int argc, char **argv, const Program *p);
/* Is the kernel `name` run? Named in --kernel, or (without --kernel) a default one. */
int kernel_selected(const Options *o, const char *name, int is_default);
/* The sizes of --n (at most max); exits EXIT_USAGE on a bad list. */
int option_sizes(const Options *o, uint64_t *sizes, int max, const char *prog);

/* ---- --input FILE: a program's own data ------------------------------------------------------- */

/* --input and --dtype, the same two rows in the option table of every program that reads a file (what: what
 * it does with the file), read into input_path and input_dtype. */
extern const char *input_path, *input_dtype;
void take_input_path(const char *prog, const char *v);
void take_input_dtype(const char *prog, const char *v);
#define INPUT_OPTIONS(what)                                                                                      \
    {"--input", "FILE", what, take_input_path},                                                                  \
    {"--dtype", "T", "the element type of a raw --input file: %T", take_input_dtype}
/* Reads the file of --input whole into *a and returns 1; returns 0 without --input. Every problem is a
 * one-line usage error (EXIT_USAGE), found before the GPU is opened: --dtype without --input; --n or --fill
 * beside it (the file is the data); a file read_array_file refuses; a type outside `taken` (the program's
 * kernels' input types, each led by a space, as the refusal lists them). */
int read_input(const char *prog, const Options *o, const Program *p, const char *taken, ArrayFile *a);

/* ---- the CSV ---------------------------------------------------------------------------------- */

/* Every program's CSV columns. median_us: the whole run, from the input in device memory to the final
 * scalar; gpu_us and finish_us (a kernel whose partial sums the CPU finishes; empty for the others, whose
 * whole run is the GPU's): its launches alone, and the copy of the partials and their sum; bits: "same" when every timed run gave the same bits; bytes_read: the
 * input bytes the kernel must read; speedup: the baseline's time over this row's (same N, same run);
 * x_cub: CUB's time over this row's (same input type and N, same run); fill: the data (--fill); rel_bound:
 * the error bound the check used, relative to the reference (rel_err is checked against it); spread: the
 * timed runs' interquartile range over their median (time_runs); chain: the most additions on one input's
 * path to the result (AddChain: serial + tree + wide + atomic), the length the bound grows with; result: the
 * result as the shortest decimal that reads back to it in its own type (a row stage: its worst row's), and
 * result_bits its bits in hex (both empty where a program has no single result). A device row
 * (the GPU's own figures, stage "device": no stage folder's name) leaves the measurement columns after
 * gbps/pct_peak empty, pass too: readers tell a device row by its empty pass. */
#define CSV_HEADER "gpu,stage,kernel,dtype,n,median_us,gpu_us,finish_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub,fill,rel_bound,spread,chain,result,result_bits"

/* One measurement: a kernel at one size (or, a device row, one of the device's ceilings), as a row of
 * the CSV and of a program's table. csv_write writes the fields down to finish_us and the result's two, in
 * CSV_HEADER's order (gpu_us and finish_us after median_us); the rest are what the stage harness
 * (harness.cu) prints beside them. */
typedef struct {
    const char *kernel, *dtype;
    uint64_t n;
    double median_us;      /* <= 0: empty */
    double gbps, pct_peak; /* gbps <= 0: both empty */
    const char *pass;      /* "1", "0", "xfail" or "unchecked" (a bound a result of 0 passes); NULL: a device row (no check, no l2, no bits) */
    double rel_err;        /* |result - reference| / |reference| (a row stage: its worst row's) */
    uint64_t cols;         /* a row stage's row length; 0: empty */
    int warm;              /* l2: warm (1) or flushed (0) */
    int same_bits;         /* every timed run gave the bits of the first */
    double bytes_read;
    double speedup, x_cub; /* <= 0: empty */
    const char *fill;      /* the data's --fill (NULL: empty) */
    double rel_bound;      /* the check's tolerance relative to the reference (<= 0: empty) */
    double spread;         /* the timed runs' interquartile range over their median (< 0: empty) */
    double chain;          /* the longest path of additions (<= 0: empty) */
    double gpu_us;         /* the launches of a run finished on the host (<= 0: empty, and finish_us too) */
    double finish_us;      /* the host's finish of such a run */
    /* Not in the CSV: */
    int status;            /* the harness's verdict (ok, FAIL, xfail, unchecked, or not run), of which pass is
                              the CSV's word */
    double result;         /* what the first run gave (a row stage: a hash of the bits of its row results) */
    const char *refused;   /* not run: why the launcher refused the input (Run.refuse) */
    int unexpected_vary;   /* the bits varied between runs with no float atomics to explain it: a FAIL */
    /* The CSV's result columns, last: */
    ResultType result_type; /* the type the result was computed in (RESULT_NONE: both columns empty) */
    double shown;           /* the first run's result (a row stage: its worst row's), exact in result_type */
} Measurement;

/* Opens FILE for appending (exit EXIT_USAGE if it cannot be written); NULL path: no CSV. */
FILE *open_csv(const char *path, const char *prog);
/* Appends one row (the header first into an empty file) and flushes it. */
void csv_write(FILE *csv, const char *gpu, const Program *p, const Measurement *r);

/* ---- timing ----------------------------------------------------------------------------------- */

/* One run as the timing loop times it: prepare (untimed: restoring an in-place input, ...), the L2
 * flush (or, with the input left warm, keep_gpu_busy), the start event, run (the launches), the
 * launched event, finish (the host's part of the work up to the final scalar: copying partial sums
 * back and adding them), the stop event; then after (untimed: reading back and checking what the run
 * gave). prepare, finish and after may be NULL. */
typedef struct {
    void (*prepare)(void *ctx);
    void (*run)(void *ctx);
    void (*finish)(void *ctx);
    void (*after)(void *ctx);
    void *ctx;
    const L2Flush *flush;  /* NULL: no flush, the input left in L2 (--l2 warm) */
} TimedRun;

/* A run's two parts, medians over the runs of the batch kept: gpu_us from the start event to the
 * launched event (the launches alone: the GPU's work), finish_us from there to the stop event (the
 * host's finish). */
typedef struct {
    double gpu_us, finish_us;
} RunParts;

/* The one timing loop: warmup untimed runs, then reps timed ones; the median of the whole run (start to
 * stop event) in microseconds, in *spread (NULL: not wanted) the runs' interquartile range over their
 * median, and in *parts (NULL: not wanted) its two parts. Before it, a GPU idle for IDLE_S seconds (or
 * never timed) is brought to its working clocks: WARM_CLOCKS_MS of work on every SM. A batch whose
 * spread is above NOISY_SPREAD is measured again, twice at most, and the batch with the smallest spread
 * is kept; the tables mark a row whose spread stays above it. */
#define NOISY_SPREAD 0.10
#define IDLE_S 0.05
#define WARM_CLOCKS_MS 100.0
double time_runs(const TimedRun *t, int warmup, int reps, double *spread, RunParts *parts);

/* A hash of the bits of the 4-byte words in [p, p + bytes) on the current GPU, for an untimed check
 * that every run wrote the same output (not a checksum of its values: only equal bits hash equal). */
uint64_t device_bits_hash(const void *p, uint64_t bytes);

/* ---- memory ----------------------------------------------------------------------------------- */

/* Exits with EXIT_USAGE, saying what the run needs and what the GPU has free, unless `need` bytes fit
 * in the current GPU's free memory; `what` names the size that needs them (e.g. "N = 2^30"). */
void require_gpu_memory(size_t need, const char *what, const GpuInfo *d);

#endif

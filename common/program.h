/* What a program is (program.cu): its Program, which a stage declares in STAGE(...) (stage.h) and a
 * program of its own fills in; --help, --list and --describe print it, and scripts read it from there. */
#ifndef REDUCE_PROGRAM_H
#define REDUCE_PROGRAM_H

struct Options;
struct JsonWriter;

/* A program's own option: its flag, what follows it in --help (NULL: a flag without a value), the help
 * text (later lines indented by the caller), and what takes it into the options being parsed (value NULL
 * for a flag; a program's own fields are o->own's); take reports a bad value with usage_error. */
typedef struct {
    const char *flag;
    const char *value;
    const char *help;
    void (*take)(const char *prog, const char *value, struct Options *o);
} ProgramOption;

/* A kernel the flush check profiles (scripts/flush_check.sh): its name in the table, the GPU function ncu
 * sees it launch (a regular expression) and how it loads its input. */
typedef struct {
    const char *kernel, *function, *loads;
} FlushProbe;
/* A chart a stage's rows go on: its name, whether the stage owns it (OWNS: its rows are the chart's own;
 * JOINS: it adds its best kernel) and the input types whose rows are drawn beside the fp32 ones
 * (space-separated; NULL: none). */
typedef enum { JOINS, OWNS } ChartRole;
typedef struct {
    const char *name;
    ChartRole role;
    const char *also_dtypes;
} Chart;
/* A kernel whose recorded tree its READMEs show (make stage-NN tree), and the --n it is recorded at when
 * none is given (NULL: 1024). */
typedef struct {
    const char *kernel, *n;
} TreeKernel;
#define MAX_CHARTS 8
#define MAX_LISTED 4

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
    FlushProbe flush_probes[MAX_LISTED]; /* the flush check's probes (none: the check skips the stage) */
    Chart charts[MAX_CHARTS];   /* the charts its rows go on (--describe; the reports read it from there) */
    const char *accuracy;       /* kernels on the accuracy chart (make accuracy; "": none) */
    const char *limits;         /* kernels make limits profiles (scripts/limits.sh; "": none) */
    TreeKernel trees[MAX_LISTED]; /* kernels whose recorded tree its READMEs show (none: no tree) */
    const char *csv;            /* the file `make bench` collects its rows in */
    struct {
        const char *first, *last;
    } library_launches;         /* a run of the library's baseline under a profiler: its launches whose names hold
                                   first, up to the one whose name holds last (default: CUB's) */
    /* make stage-NN grade (an exercise's program; docs/classroom.md), what the exercise asks of a task: */
    const char *grade_sizes;    /* the sizes it is checked at: fixed ones, and LO..HI ranges the grader draws from its
                                   seed (a row stage: ROWSxCOLS, either side a range); default: GRADE_SIZES */
    const char *grade_time;     /* the size its time is taken at, against the solution's (default 2^24) */
    const char *grade_promises; /* what its text promises besides the sum: same-bits (every run gives the same bits),
                                   no-float-atomics:KERNEL[,KERNEL...] (no float atomic in the kernels named); "": none */
    const char *usage_note;     /* printed under the usage line of --help (NULL: none) */
    void (*list)(void);         /* --list: the kernels, for people */
    void (*describe_kernels)(struct JsonWriter *w); /* --describe's "kernels" (describe_kernel each), "input_types" */
    int (*kernel_exists)(const char *name);
    const ProgramOption *own;   /* the program's own options */
    int own_count;
} Program;

/* The grader's sizes when an exercise declares none: the edges 1, 31 and 33, a prime above 2^20, and four
 * drawn from the seed up to 2^22. */
#define GRADE_SIZES "1,31,33,1048583,2..2^22,2..2^22,2..2^22,2..2^22"

#endif

/* The tree program's work (record.h): the record written as a CSV that scripts/tree.sh draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "record.h"
#include "tree_record.h"

#define TREE_CAPACITY (1u << 20) /* events: a 1024-thread block's tree takes a few ten thousand */

static int by_step(const void *a, const void *b)
{
    const TreeEvent *x = (const TreeEvent *)a, *y = (const TreeEvent *)b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *op_names[] = {"", "ld", "st", "shfl_down", "shfl_up", "shfl_xor", "shfl_idx", "bar", "gld"};

static void no_record(const char *prog, const char *kernel, const char *why)
{
    fprintf(stderr, "%s: %s cannot be recorded: %s\n", prog, kernel, why);
    exit(EXIT_NO_RECORD);
}

int record_tree(const Stage *stage, const Options *o, const char *path, const char *prog)
{
    if (!o->kernels || strchr(o->kernels, ',') || !strcmp(o->kernels, "all"))
        usage_error(prog, "%s: name the one kernel to record, e.g. --kernel NAME (--list shows them)", "--kernel");
    const Kernel *k = NULL;
    for (int i = 0; i < stage->count; i++)
        if (!strcmp(stage->kernels[i].name, o->kernels)) k = &stage->kernels[i];
    if (!k) usage_error(prog, "unknown kernel '%s' (--list shows them)", o->kernels);
    if (k->flags & ON_CPU) no_record(prog, k->name, "it is a loop on the CPU: no block runs on the GPU");
    if (k->no_tree) no_record(prog, k->name, k->no_tree);
    if (o->size_count != 1) usage_error(prog, "--n '%s': give one size (a row stage: ROWSxCOLS)", o->sizes);
    uint64_t n = o->n[0], rows = stage->program.rows ? o->rows[0] : 1, cols = stage->program.rows ? o->cols[0] : n;
    if (n > (1u << 26)) usage_error(prog, "--n '%s': one block is recorded; give at most 2^26 elements", o->sizes);
    FILE *out = path ? fopen(path, "w") : stdout;
    if (!out) usage_error(prog, "cannot write the record to '%s'", path);

    GpuInfo g;
    open_gpu(&g);
    if (k->min_cc > g.cc_major * 10 + g.cc_minor) no_record(prog, k->name, k->needs ? k->needs : "a newer GPU");
    /* The input: ones (the record does not depend on the values); every type but fp32 as zero bits. */
    float *host = (float *)malloc(n * sizeof(float));
    if (!host) usage_error(prog, "out of host memory for --n '%s'", o->sizes);
    for (uint64_t i = 0; i < n; i++) host[i] = 1.0f;
    Run r = {};
    r.in = (float *)device_alloc(n * sizeof(float), "the input");
    CUDA_CHECK(cudaMemcpy(r.in, host, n * sizeof(float), cudaMemcpyHostToDevice));
    void *data = device_alloc(n * sizeof(float), "the input in its type");
    CUDA_CHECK(cudaMemset(data, 0, n * sizeof(float)));
    r.data = k->dtype == DT_F32 ? r.in : data;
    r.n = n;
    r.rows = rows;
    r.cols = cols;
    r.partials = (float *)device_alloc(PARTIALS_CAPACITY(n) * sizeof(float), "the partial sums");
    r.out = (float *)device_alloc(2 * sizeof(double), "the result");
    r.row_sums = (float *)device_alloc(rows * sizeof(float), "the row sums");
    r.sm_count = g.sm_count;
    r.blocks_per_sm = k->blocks_per_sm;
    r.host_in = host;
    r.chain = chain_unknown(n);

    TreeLog log = {};
    log.capacity = TREE_CAPACITY;
    log.events = (TreeEvent *)device_alloc(TREE_CAPACITY * sizeof(TreeEvent), "the record");
    TreeLog *dev_log = (TreeLog *)device_alloc(sizeof log, "the record's counters");
    CUDA_CHECK(cudaMemcpy(dev_log, &log, sizeof log, cudaMemcpyHostToDevice));
    tree_bind(dev_log);
    k->launch(&r);
    if (r.refuse) no_record(prog, k->name, r.refuse);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(&log, dev_log, sizeof log, cudaMemcpyDeviceToHost));
    if (log.count > log.capacity) no_record(prog, k->name, "its block made more events than the record holds");
    if (log.count == 0)
        no_record(prog, k->name, "its block made no shared-memory access and no shuffle that the record follows "
                                 "(it works in global memory or with atomics, or its shared arrays are not TRACED)");
    TreeEvent *ev = (TreeEvent *)malloc(log.count * sizeof(TreeEvent));
    if (!ev) usage_error(prog, "out of host memory for the record of %s", k->name);
    CUDA_CHECK(cudaMemcpy(ev, log.events, log.count * sizeof(TreeEvent), cudaMemcpyDeviceToHost));
    qsort(ev, log.count, sizeof *ev, by_step);
    /* A global load's address becomes its element's index in the input, the same wherever the input lands. */
    for (unsigned i = 0; i < log.count; i++)
        if (ev[i].op == TREE_GLD) ev[i].addr -= (uint32_t)((uintptr_t)r.data / ev[i].bytes);

    fprintf(out, "# tree record: stage %s, kernel %s, block 0 of %llu elements, %u threads, %s (sm_%d%d)\n",
            stage->program.stage, k->name, (unsigned long long)n, log.threads, g.name, g.cc_major, g.cc_minor);
    fprintf(out, "step,thread,seq,op,bytes,addr,src\n");
    for (unsigned i = 0; i < log.count; i++)
        fprintf(out, "%u,%u,%u,%s,%u,%u,%d\n", ev[i].step, ev[i].thread, ev[i].seq, op_names[ev[i].op], ev[i].bytes,
                ev[i].addr, ev[i].src);
    if (path && fclose(out)) usage_error(prog, "cannot write the record to '%s'", path);
    fprintf(stderr, "%s: recorded %u events of block 0 (%u threads)%s%s\n", k->name, log.count, log.threads,
            path ? " into " : "", path ? path : "");
    free(ev);
    free(host);
    return EXIT_OK;
}

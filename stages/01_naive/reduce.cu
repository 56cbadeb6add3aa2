/* Stage 01: naive reductions. The CPU loop the articles start from, then three starting points on the
 * GPU, each correct for any N: every block reduces its slice to one partial sum (finished on the CPU),
 * or every element is atomically added to the result. */
#include "stage.h"
#include "levels.h"

#define BLOCK 256
#define LOG2_BLOCK tree_levels(BLOCK)
#define LEETCUDA_BLOCK 128 /* the LeetCUDA article's block size (its §3.5 counts 7 = log2 128 steps) */
#define LOG2_LEETCUDA_BLOCK tree_levels(LEETCUDA_BLOCK)

/* LeetCUDA reduce article §二: one fp32 accumulator, one element after another. Every addition waits
 * for the one before (the compiler may not reorder floating-point additions), and once the sum is
 * large each new element loses its low bits: the error grows with N. It runs on the CPU, between the
 * same events as the kernels: the wait for the GPU first, so that the clock starts after the flush. */
static void run_cpu_sequential(Run *r)
{
    CUDA_CHECK(cudaStreamSynchronize(0));
    float sum = 0.0f;
    for (uint64_t i = 0; i < r->n; i++) sum += r->host_in[i];
    r->host_result = sum;
    r->has_host_result = 1;
    r->chain.serial = (double)r->n;
}

/* LeetCUDA reduce article §3.1: each block halves its slice of x in place, in global memory.
 * Unlike the article, the last block stops at n (its slice may be short), so it reads nothing past
 * the end; the input is destroyed, so the harness restores it before every run. */
__global__ void reduce_global_inplace(float *x, float *partials, uint64_t n)
{
    unsigned tid = threadIdx.x;
    uint64_t base = (uint64_t)blockIdx.x * blockDim.x;
    float *bx = x + base;
    unsigned len = n - base < blockDim.x ? (unsigned)(n - base) : blockDim.x;
    for (unsigned offset = blockDim.x / 2; offset > 0; offset /= 2) {
        if (tid < offset && tid + offset < len) bx[tid] += bx[tid + offset];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = bx[0];
}

static void run_global_inplace(Run *r)
{
    unsigned blocks = grid_for(r->n, LEETCUDA_BLOCK, "reduce_global_inplace");
    reduce_global_inplace<<<blocks, LEETCUDA_BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_global_inplace");
    r->host_partial_count = blocks;
    r->chain.tree = LOG2_LEETCUDA_BLOCK;
}

/* Course chapter v1: the block's slice in shared memory, pairs combined at distance s = 1, 2, 4, ...
 * by the threads with tid % (2*s) == 0 (an AND: nvcc unrolls the loop, so 2*s is a constant power of
 * two). Only 1/2, 1/4, ... of a warp's lanes work: divergence, each warp running every level to s = 16. */
__global__ void reduce_interleaved(const float *x, float *partials, uint64_t n)
{
    __shared__ TRACED(float) s_x[BLOCK];
    unsigned tid = threadIdx.x;
    uint64_t i = (uint64_t)blockIdx.x * BLOCK + tid;
    s_x[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned s = 1; s < BLOCK; s *= 2) {
        if (tid % (2 * s) == 0) s_x[tid] += s_x[tid + s];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = s_x[0];
}

static void run_interleaved(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_interleaved");
    reduce_interleaved<<<blocks, BLOCK>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_interleaved");
    r->host_partial_count = blocks;
    r->chain.tree = LOG2_BLOCK;
}

/* "Hand-written operators: reduce" blog §1: one atomicAdd per element, all onto the same address.
 * The GPU serialises them: N additions in a chain, in whatever order the atomics arrive. */
__global__ void reduce_atomic_per_element(const float *x, float *out, uint64_t n)
{
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

static void run_atomic_per_element(Run *r)
{
    unsigned blocks = grid_for(r->n, BLOCK, "reduce_atomic_per_element");
    CUDA_CHECK(cudaMemsetAsync(r->out, 0, sizeof(float))); /* the atomics add onto a zero */
    reduce_atomic_per_element<<<blocks, BLOCK>>>(r->in, r->out, r->n);
    LAUNCH_CHECK("reduce_atomic_per_element");
    r->chain.atomic = (double)r->n;
}

static const Kernel kernels[] = {
    {"cpu_sequential", "LeetCUDA reduce §二: a sequential fp32 loop on the CPU",
     run_cpu_sequential, .flags = ON_CPU},
    {"reduce_global_inplace", "LeetCUDA reduce §3.1 (128 threads): halve in place in global memory, partials on the CPU",
     run_global_inplace, .flags = IN_PLACE, .no_tree = "it halves its slice in global memory; the record follows shared memory and shuffles"},
    {"reduce_interleaved", "course chapter 7 v1: shared memory, tid % (2*s), divergent", run_interleaved},
    {"reduce_atomic_per_element", "reduce blog §1: one atomicAdd per element", run_atomic_per_element,
     .no_tree = "it has no tree: every element is one atomicAdd onto the result, in the order the atomics arrive"},
};

STAGE("01_naive", kernels, .accuracy = "cpu_sequential", .trees = {{"reduce_interleaved"}});

/* A stage made by a test (tests/test_new_stage.py): one kernel, named as a kernel of the first stage is, to
 * show that the names of the first stage (the speed-up column's) do not reach another stage's program. */
#include "stage.h"

/* Each warp sums 128 consecutive inputs, four a lane and then five shuffles; the CPU adds the warps' sums. */
__global__ void reduce_interleaved(const float *x, float *partials, uint64_t n)
{
    uint64_t warp = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32, first = warp * 128;
    float v = 0.0f;
    for (uint64_t i = first + threadIdx.x % 32; i < n && i < first + 128; i += 32) v += x[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (threadIdx.x % 32 == 0) partials[warp] = v;
}

static void run_warps(Run *r)
{
    uint64_t warps = (r->n + 127) / 128;
    unsigned blocks = grid_for(warps * 32, 256, "reduce_interleaved");
    reduce_interleaved<<<blocks, 256>>>(r->in, r->partials, r->n);
    LAUNCH_CHECK("reduce_interleaved");
    r->host_partial_count = warps;
    r->chain.serial = 4;
    r->chain.tree = 5;
}

static const Kernel kernels[] = {
    {"reduce_warps", "a warp's 128 inputs, partials on the CPU", run_warps},
};

STAGE("NN_NAME", kernels);

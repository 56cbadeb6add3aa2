/* The last block to finish: a grid's sum finished in one launch, with no second kernel and no grid-wide
 * barrier. Each block leaves its result (its sum in partials[blockIdx.x], or an atomicAdd onto a total),
 * then takes a ticket; the block that takes the last one knows that every other block's result is there,
 * and finishes the sum. No block waits for another, so any grid works. Read after stage.h: the record
 * build (tree.h) follows its barriers. */
#ifndef REDUCE_LAST_BLOCK_H
#define REDUCE_LAST_BLOCK_H

#include <cuda/atomic>

/* Blocks that have finished. The last one to arrive sets it back to 0, so it is 0 before every launch
 * (launches on one stream run one after another). */
__device__ unsigned blocks_done;

/* Whether this block is the last of the grid to get here, in every thread of the block. Thread 0 takes
 * the ticket, so thread 0 writes the block's result. Release: what the thread wrote before (the block's
 * sum) is visible before the count says so. Acquire: the last block sees what every other block wrote.
 * (Cheaper than a full __threadfence on each side.) */
__device__ __forceinline__ bool last_block_to_finish()
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(blocks_done);
        last = count.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
        if (last) count.store(0u, cuda::memory_order_relaxed);
    }
    __syncthreads();
    return last;
}

#endif

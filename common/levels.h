/* The levels of a reduction tree, for the shape a launcher declares (AddChain in chain.h: the error bound's
 * longest path of additions). A stage names its trees' levels from the sizes its kernels really use,
 * e.g. #define LOG2_BLOCK tree_levels(BLOCK), so that a block size changed changes the shape with it. */
#ifndef REDUCE_LEVELS_H
#define REDUCE_LEVELS_H

/* Levels of a pairwise tree over n values, ceil(log2 n): 256 values halved down to one take 8. */
__host__ __device__ constexpr int tree_levels(unsigned n) { return n > 1 ? 1 + tree_levels((n + 1) / 2) : 0; }

/* A warp's tree, shuffles or shared memory over its 32 lanes. */
#define LOG2_WARP tree_levels(32)

#endif

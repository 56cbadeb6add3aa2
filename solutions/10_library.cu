/* Solution of stages/10_library/exercise.cu (compiled in place of its stub): the fp32 sum in the
 * GPU's order on the CPU. A range of at most LEAF values is added in a plain loop (its first addition,
 * to 0, is exact: at most LEAF - 1 roundings); a longer one is the sum of its two halves. The larger
 * half has ceil(n / 2) values, so a value meets one more addition per halving: LEAF - 1 +
 * ceil(log2(n / LEAF)) in all, where the plain loop has up to n - 1. */
#include "stage.h"

static float pairwise_sum(const float *x, uint64_t n)
{
    if (n <= LEAF) {
        float s = 0.0f;
        for (uint64_t i = 0; i < n; i++) s += x[i];
        return s;
    }
    uint64_t half = n / 2;
    return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
}

/* What each warp shuffle returns, lane by lane (warp shuffle article §1-3). Every lane offers its own
 * lane id, so the table shows which lane each lane read from. The program checks every value against
 * the rule the CUDA programming guide gives for it and exits 1 if one differs. */
#include <stdio.h>

#include "common.h"

#define FULL_MASK 0xffffffffu
#define CASES 11

static const char *case_names[CASES] = {
    "__shfl_sync(srcLane 5)",           "__shfl_sync(srcLane 5, width 16)",
    "__shfl_sync(srcLane 17, width 16)", "__shfl_up_sync(delta 2, width 16)",
    "__shfl_down_sync(delta 2, width 16)", "__shfl_xor_sync(laneMask 1)",
    "__shfl_xor_sync(laneMask 3)",       "__shfl_xor_sync(laneMask 16)",
    "__shfl_down_sync(delta 16)",        "__shfl_xor_sync(laneMask 16, width 16)",
    "__shfl_xor_sync(laneMask 8, width 8)",
};

__global__ void shuffle_demo(int *out)
{
    int lane = threadIdx.x;
    int v = lane;
    out[0 * 32 + lane] = __shfl_sync(FULL_MASK, v, 5);
    out[1 * 32 + lane] = __shfl_sync(FULL_MASK, v, 5, 16);
    out[2 * 32 + lane] = __shfl_sync(FULL_MASK, v, 17, 16);
    out[3 * 32 + lane] = __shfl_up_sync(FULL_MASK, v, 2, 16);
    out[4 * 32 + lane] = __shfl_down_sync(FULL_MASK, v, 2, 16);
    out[5 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 1);
    out[6 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 3);
    out[7 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 16);
    out[8 * 32 + lane] = __shfl_down_sync(FULL_MASK, v, 16);
    out[9 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 16, 16);
    out[10 * 32 + lane] = __shfl_xor_sync(FULL_MASK, v, 8, 8);
}

/* xor with width < 32, the programming guide's rule (the warp shuffle article's §3 words it wrongly:
 * see the README): a lane may read a lane of its own group or of an earlier group; a source in a later
 * group gives the lane back its own value. */
static int xor_in_groups(int lane, int mask, int width)
{
    int source = lane ^ mask;
    return source < (lane / width + 1) * width ? source : lane;
}

/* The source lane of each case, as the programming guide defines it. A lane whose source would fall
 * outside its group of `width` lanes keeps its own value (up/down). */
static int expected(int c, int lane)
{
    int group = lane / 16 * 16, in_group = lane % 16;
    switch (c) {
    case 0: return 5;
    case 1: return group + 5;
    case 2: return group + 17 % 16;
    case 3: return in_group >= 2 ? lane - 2 : lane;
    case 4: return in_group + 2 < 16 ? lane + 2 : lane;
    case 5: return lane ^ 1;
    case 6: return lane ^ 3;
    case 7: return lane ^ 16;
    case 8: return lane + 16 < 32 ? lane + 16 : lane;
    case 9: return xor_in_groups(lane, 16, 16);
    default: return xor_in_groups(lane, 8, 8);
    }
}

int main(void)
{
    require_gpu();
    int *d_out, h_out[CASES * 32];
    CUDA_CHECK(cudaMalloc(&d_out, sizeof h_out));
    shuffle_demo<<<1, 32>>>(d_out);
    LAUNCH_CHECK("shuffle_demo");
    CUDA_CHECK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));

    printf("Each lane offers its lane id; a row shows what lanes 0..31 get back.\n\n%-40s", "lane");
    for (int lane = 0; lane < 32; lane++) printf("%3d", lane);
    printf("\n");
    int wrong = 0;
    for (int c = 0; c < CASES; c++) {
        printf("%-40s", case_names[c]);
        for (int lane = 0; lane < 32; lane++) {
            int ok = h_out[c * 32 + lane] == expected(c, lane);
            wrong += !ok;
            printf("%3d%s", h_out[c * 32 + lane], ok ? "" : "!");
        }
        printf("\n");
    }
    printf("\nsrcLane >= width reads lane srcLane %% width of the group; up/down leave a lane unchanged when\n"
           "its source is outside its group of width lanes; xor swaps lanes whose ids differ in laneMask's bits,\n"
           "and with width < 32 a lane whose partner is in a later group keeps its own value.\n");
    if (wrong) {
        printf("%d values differ from the programming guide's rule (marked !)\n", wrong);
        return EXIT_VERIFY;
    }
    printf("all %d values match the programming guide's rules\n", CASES * 32);
    return EXIT_OK;
}

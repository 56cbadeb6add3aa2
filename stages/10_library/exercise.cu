/* Exercise 10: the long loop in the GPU's order.
 * One fp32 loop over N values is one chain of N additions. On the wide fill (values near 1e6 and near
 * 1e-6, the chapter's example) its sum reaches 2e11 at N = 1000003, where a unit in its last place is
 * 2^14, so each value near 1e6 it adds is rounded by up to 2^13: the error grows with N. cpu_kahan_f32
 * (reduce.cu's KahanSum) keeps it near one rounding with a compensation, four additions per value. The
 * stage's GPU kernels come close without one: every value passes through a short loop and a few tree
 * levels. Write pairwise_sum, the CPU loop in that order: a range of at most LEAF values is added in a
 * plain loop; a longer one is cut in two halves, each summed the same way, and the two sums added. No
 * value then passes through more than LEAF - 1 + ceil(log2(N / LEAF)) additions (24 at N = 1000003,
 * where the plain loop has a million), and that is the bound cpu_pairwise_f32 is held to. Then run
 * both rows on --fill cond --n 1000003 (halves that cancel): the shorter chains do not bring back what
 * the cancellation exposes, the compensation does.
 * Hint: half = n / 2; the sum is pairwise_sum(x, half) + pairwise_sum(x + half, n - half), and a plain
 *   loop once n <= LEAF. The larger half has ceil(n / 2) values, so N = 2^24 + 1 is halved 22 times
 *   before its ranges hold LEAF values or fewer.
 * Hint: the stub below is the plain loop: right, and within the bound on the random and ones data, but
 *   on the wide data at N = 1000003 and 2^24 + 1 its error is several times the bound (the FAIL rows).
 * 提示：half = n / 2；和为 pairwise_sum(x, half) + pairwise_sum(x + half, n - half)，当 n <= LEAF 时改用普通循环。较大的一半有 ceil(n / 2) 个值，所以 N = 2^24 + 1 要对半切 22 次，每段才不超过 LEAF 个值。
 * 提示：下面的桩就是普通循环：结果是对的，在 random 和 ones 数据上也在界内；但在 wide 数据上，N = 1000003 和 2^24 + 1 时它的误差是界的好几倍（就是那几行 FAIL）。 */
#include "stage.h"

#define LEAF 8 /* values a leaf of the pairwise sum adds in a plain loop */

#ifdef SOLUTION_FILE
#include SOLUTION_FILE
#else
static float pairwise_sum(const float *x, uint64_t n)
{
    float s = 0.0f; /* TODO: the pairwise order; this is one chain of n additions */
    for (uint64_t i = 0; i < n; i++) s += x[i];
    return s;
}
#endif

/* reduce.cu's Kahan-compensated accumulator, for the row beside the exercise's. */
struct KahanSum {
    float s = 0.0f, c = 0.0f;
    void add(float x)
    {
        float y = x - c;
        float t = s + y;
        c = isfinite(t) ? (t - s) - y : 0.0f;
        s = t;
    }
    float value() const { return s - c; }
};

/* The chapter's listing: one Kahan loop on the CPU (its bound: 3 additions however long the loop). */
static void run_cpu_kahan(Run *r)
{
    CUDA_CHECK(cudaStreamSynchronize(0));
    KahanSum acc;
    for (uint64_t i = 0; i < r->n; i++) acc.add(r->host_in[i]);
    r->host_result = acc.value();
    r->has_host_result = 1;
    r->chain.serial = 3;
}

/* The exercise, timed the same way. Its bound: LEAF - 1 additions in a leaf, one per level above it;
 * after L levels of halving the largest range holds ceil(n / 2^L) values. */
static void run_cpu_pairwise(Run *r)
{
    CUDA_CHECK(cudaStreamSynchronize(0));
    r->host_result = pairwise_sum(r->host_in, r->n);
    r->has_host_result = 1;
    int levels = 0;
    while (((r->n + (1ull << levels) - 1) >> levels) > LEAF) levels++;
    r->chain.serial = (LEAF - 1) + levels;
}

static const Kernel kernels[] = {
    {"cpu_kahan_f32", "§7.7.4 method 2 (reduce.cu): one Kahan-compensated fp32 loop, on the CPU", run_cpu_kahan,
     .flags = ON_CPU, .acc = ACC_KAHAN},
    {"cpu_pairwise_f32", "exercise: the same values in fp32, added in halves of halves (pairwise), on the CPU",
     run_cpu_pairwise, .flags = ON_CPU},
};

STAGE("10_library", kernels, .charts = {{"library", OWNS}});

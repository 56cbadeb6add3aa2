/* The error bounds (bounds.h). */
#include "bounds.h"

#include <math.h>

/* Two bounds on the error of a floating-point sum in which every input reaches the result through at
 * most d additions, each rounded to nearest with unit roundoff u (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., §4.2):
 *   worst case:     |s_hat - s| <= gamma_d * sum|x_i|,  gamma_d = d u / (1 - d u);
 *   probabilistic:  |s_hat - s| <= (exp(lambda sqrt(d) u + d u^2 / (1 - u)) - 1) * sum|x_i|,
 *                   failing with probability at most 2 n exp(-lambda^2 (1 - u)^2 / 2) when the
 *                   rounding errors are independent with mean zero (Higham and Mary, SIAM J. Sci.
 *                   Comput. 41(5), 2019, Theorem 3.1).
 * lambda = 9 keeps that probability below 1e-6 for n up to 2^32. Long chains (an atomicAdd per
 * element, a long serial loop) take the probabilistic bound, short trees the worst case.
 * The mean-zero assumption fails where an input is smaller than a unit in the last place of the
 * partial sum it joins (below 2u |partial|): it is then lost whole, or rounded up to that unit, the
 * same way every time, and a long loop of such additions stagnates (an fp32 loop over 2^28 values of
 * mean 1/2 stops growing near 2^25). So the probabilistic bound adds, at their full size, the inputs
 * below 2u P, P the largest partial sum an input can join (each of those additions errs by less than
 * its addend). Where an input joins depends on the shape: a thread's loop of `serial` additions holds at
 * most (serial + 1) max|x_i|; a tree's first level (no loop) pairs it with one other input, at most
 * 2 max|x_i|; an atomicAdd per element (no loop, no tree) joins the running total, up to sum|x_i|.
 * The partial sums that later levels and atomics add are sums of a warp's or a block's inputs, taken
 * not to stagnate: larger than half a unit in the last place of what they join. That holds for the
 * shifted data at the bench's sizes (32 inputs sum to about 16; a total below 2^27 has half-units of at
 * most 8) and for the check fills; data made of whole blocks of tiny values among huge ones would break
 * it, which is what the worst-case bound and the accuracy lab are for.
 * A path through d1 additions in one precision (u1) and d2 in another (u2: a half-precision pack or
 * tree, then fp32 additions and fp32 atomics, d2 = wide + atomic; fp64 atomics where AddChain.wide_bits says
 * so) uses d u -> d1 u1 + d2 u2 and d u^2 -> d1 u1^2 + d2 u2^2 in both formulas (the same first-order
 * argument, term by term); the stagnation threshold takes the larger u. The reference adds its own error, its one rounding (reference_error).
 * The probabilistic bound needs rounding errors that behave as random, which the fills' random
 * significands give. Integer data (past 2^p) and data of unknown make (a file, Reference.structured) need
 * not: values on a coarse grid, repeating, round the same way at every addition (a file of values k/8 summed
 * in one fp32 loop of 10^6 exceeds the probabilistic bound). They take the worst case alone.
 * Inputs that are all integers with sum|x_i| <= 2^p, p the narrowest significand on the path, are
 * summed exactly in any order (every partial sum is an integer of at most p bits): the bound is 0
 * there, so `--fill ones` must give exactly N. Integer accumulators are exact. */
#define LAMBDA 9.0

double sum_tolerance(AddChain s, const Reference *ref, const float *x, uint64_t n)
{
    if (s.acc_bits == ACC_EXACT) return 0.0;
    int narrow = s.acc_bits ? s.acc_bits : 24;
    if (ref->all_integers && ref->abs_sum <= ldexp(1.0, narrow < 24 ? narrow : 24)) return 0.0;
    double u1 = unit_roundoff(narrow), u2 = unit_roundoff(s.wide_bits ? s.wide_bits : 24);
    double d1 = s.serial + s.tree, d2 = s.wide + s.atomic;
    if (d1 + d2 < 1.0) d1 = 1.0;
    double du = d1 * u1 + d2 * u2, du2 = d1 * u1 * u1 + d2 * u2 * u2;
    double worst = du < 1.0 ? du / (1.0 - du) * ref->abs_sum : INFINITY;
    double prob = ref->all_integers || ref->structured ? INFINITY
                                                       : expm1(LAMBDA * sqrt(du2) + du2 / (1.0 - fmax(u1, u2))) * ref->abs_sum;
    double joined = s.serial >= 1.0 ? (s.serial + 1.0) * ref->max_abs : s.tree >= 1.0 ? 2.0 * ref->max_abs : ref->abs_sum;
    if (prob < worst && x) prob += abs_sum_below(x, n, 2.0 * fmax(u1, u2) * fmin(joined, ref->abs_sum));
    return fmin(worst, prob) + reference_error(ref);
}

/* A sum of squares as stage 09's RMSNorm kernel computes it: s = fmaf(x_i, x_i, s) in a thread's loop
 * (the square is exact inside the fmaf: one rounding per term, that of the addition), then a tree of
 * fp32 additions. Each term x_i^2 is positive and goes through at most d = serial + tree roundings, so
 * the worst case of sum_tolerance's first formula holds: d u / (1 - d u) times the sum itself. Only the
 * worst case: the partial sums all grow, so their errors need not cancel (as logsumexp_tolerance says of
 * its positive terms). Where a square or a partial sum falls below fp32's normal range the error is
 * absolute instead, at most 2^-150 an operation: 2^-150 times the at most 2n operations. */
double sum_squares_tolerance(AddChain s, const Reference *ref, uint64_t n)
{
    if (!isfinite(ref->sum) || (ref->all_integers && ref->sum <= ldexp(1.0, 24))) return 0.0;
    double du = (s.serial + s.tree > 1.0 ? s.serial + s.tree : 1.0) * unit_roundoff(24);
    if (du >= 1.0) return INFINITY;
    return du / (1.0 - du) * ref->sum + 2.0 * (double)n * ldexp(1.0, -150) + reference_error(ref);
}

double reference_error(const Reference *ref)
{
    return unit_roundoff(53) * fabs(ref->sum);
}

/* A log-sum-exp as a kernel computes it in fp32: m = max x_i (exact: a maximum rounds nothing),
 * t_i = x_i - m rounded, e_i = expf(t_i), S = sum e_i along paths of d = serial + tree additions,
 * L = logf(S), LSE = m + L rounded. Every e_i lies in (0, 1] and the largest input's is exactly 1,
 * so S >= 1 and L >= 0. With u = 2^-24 and the fp64 reference's S, L and T (Reference.arg_error):
 * - One term: rounding t_i multiplies e_i by exp(eta) with |eta| <= u |t_i|. An online softmax
 *   rounds several differences on the way (x_i - m_a, then m_a - m_b, ...), all of one sign, and
 *   they add up to t_i: the same bound. The term is also multiplied by (1 + delta) once for each
 *   expf result it is multiplied by (AddChain.exps of them: CUDA's expf is within 2 ulps, |delta| <= 4u),
 *   each product (exps - 1) and each addition (d): k roundings whose unit roundoffs add up to
 *   du = (d + exps - 1) u + exps 4u move it by at most rho = du / (1 - du) (Higham, Lemma 3.1, the
 *   unit roundoffs added up).
 *   Only this worst case holds: the terms are all positive, so the partial sums grow with every
 *   addition and their rounding errors do not cancel on average, and the probabilistic bound that
 *   sum_tolerance also takes fails (a serial fp32 sum of a few million such terms exceeds it).
 *   Summed over the terms: |S_hat - S| <= sum e_i ((1 + rho) expm1(u |t_i|) + rho) = (1 + rho) T + rho S,
 *   plus, for terms in fp32's subnormal range, where the error is absolute, 2^-148 per operation.
 * - With R = |S_hat - S| / S < 1: |log S_hat - log S| <= -log(1 - R). Where R >= 1 (du near 1: paths of
 *   millions of additions, a thread's share of a row of hundreds of millions) nothing is bounded: INFINITY.
 * - logf is within 1 ulp: at most 2u |log S_hat|. The final m + L: one rounding, u |LSE|.
 * - The fp64 reference: a few units of 2^-53 of |LSE| and L, and its own t_i rounding, T / u in 2^-53.
 * The ulp figures are the CUDA Programming Guide's table of single-precision functions (without
 * --use_fast_math, as the Makefile builds). The bound is absolute, on the LSE. */
#define EXPF_ULPS 2.0
#define LOGF_ULPS 1.0

double logsumexp_tolerance(AddChain s, const Reference *ref, uint64_t n)
{
    if (!isfinite(ref->sum)) return 0.0; /* NaN or an infinite LSE: result_passes wants the same value */
    double u = unit_roundoff(24), u_exp = 2.0 * EXPF_ULPS * u, u64 = unit_roundoff(53);
    double exps = s.exps > 1.0 ? s.exps : 1.0, roundings = s.serial + s.tree + exps - 1.0;
    double du = roundings * u + exps * u_exp, rho = du < 1.0 ? du / (1.0 - du) : INFINITY;
    double S = ref->abs_sum, T = ref->arg_error, L = log(S);
    double subnormal = (double)n * (exps + roundings) * 0x1p-148;
    double R = ((1.0 + rho) * (T + subnormal) + rho * S) / S;
    if (!(R < 1.0)) return INFINITY;
    double e_sum = -log1p(-R), e_log = 2.0 * LOGF_ULPS * u * (L + e_sum);
    double e_add = u * (fabs(ref->sum) + e_sum + e_log);
    double e_ref = 8.0 * u64 * (fabs(ref->sum) + L + 1.0) + T / S * (u64 / u);
    return e_sum + e_log + e_add + e_ref;
}

/* A row's mean and variance as a Welford kernel computes them in fp32 (u = 2^-24): every element is the
 * state (1, x, 0), and two states merge by Chan, Golub and LeVeque's rule ("Updating formulae and a pairwise
 * algorithm for computing sample variances", Stanford STAN-CS-79-773, 1979):
 *   n = na + nb, w = nb / n, d = mb - ma, m = ma + d w, M2 = (M2a + M2b) + d d na w,
 * s.serial merges on a thread's path (its loop: Welford's update is the merge with nb = 1), then s.tree
 * levels. Up to 2^24 elements a row every count is an exact fp32 integer; past that nothing is derived
 * (INFINITY). A merge with an empty side is exact. Write d_max = serial + tree (merges on any element's
 * path), a = (serial + 1) / 2 + tree (the sum of |S| / n over the merges, S the elements a merge joins: a
 * loop of k elements joins 2, 3, ..., k of them, a tree level each element once) and b = 1 + tree (merges
 * in which an element is on the b side: its own in the loop, one a level).
 * - The mean. A merge rounds d, w, d w and the sum: m_hat = (ma' + d' w (1 + t3)) (1 + e), |t3| <= g3 =
 *   3u / (1 - 3u), e <= u, where ma', mb' are the computed inputs and d' = mb' - ma'. The inputs' errors
 *   pass on with the weights na / n and nb / n, so a merge's own error reaches the row's mean scaled by
 *   |S| / n (times (1 + u) per later merge: at most grow = 1 / (1 - d_max u)). Its own error is at most
 *   g3 w |d'| + u |m_hat|, with |d'| <= range + 2E and |m_hat| <= max|x| + E, E the largest error of any
 *   computed mean; summed over the merges with sum |S| / n <= a and sum w |S| / n <= b:
 *     E <= (g3 b range + a u max|x|) / (1 / grow - 2 g3 b - a u):
 *   a recursive sum's error, about d u max|x|, and a term for the weights.
 * - M2. Exactly, M2 = sum over the merges of d_S^2 c_S, c_S = na nb / n (the merge formula, telescoped from
 *   single elements whose M2 is 0). The kernel's d' = d_S + D_S with |D_S| <= 2E, so by Cauchy-Schwarz
 *   sum d'^2 c_S lies between (sqrt(M2) - 2E sqrt(C))^2 and (sqrt(M2) + 2E sqrt(C))^2: it is within
 *   moved = 2E sqrt(C) (2 sqrt(M2) + 2E sqrt(C)) of M2, C = sum c_S <= n (1 + tree / 4) (a loop's c_S < 1
 *   each, a tree level's sum at most n / 4). Each term d' d' na w is rounded 6 times (d' twice, three
 *   products, w), added once where it is made, then once in each later loop merge and twice a level
 *   (M2a + M2b, then the term), and the variance is one division by n: k = 6 + 1 + serial + 2 tree + 1
 *   roundings at most. Every addition adds nonnegative numbers, so the total is within g_k (M2 + moved)
 *   (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Lemma 3.1). FMAs round less.
 * With max|x| ~ |mean|, 2E sqrt(C) / sqrt(M2) is about 2 d u sqrt(1 + tree / 4) |mean| sqrt(n / M2): Chan,
 * Golub and LeVeque's condition number of the variance, kappa = sqrt(1 + mean^2 n / M2) ("Algorithms for
 * computing the sample variance: analysis and recommendations", The American Statistician 37(3), 1983),
 * times the chain length and u. The one-pass sum and sum of squares loses kappa^2 u instead.
 * Underflow: a product or quotient below 2^-126 in magnitude may err by up to 2^-150 (half fp32's smallest
 * subnormal) instead of u of itself (Higham, §2.1; a sum or difference there is exact). A merge's d w is one,
 * and its error reaches the row's mean scaled by |S| / n, as the merge's own does: over the merges a 2^-150
 * beside u max|x| in E. M2's term, ((d d) na) w, has three, 2^-150 (na w + w + 1) <= 2^-150 (c_S + 2) a merge,
 * over at most n - 1 merges with two sides, and the division by n one more: on the variance
 * 2^-150 ((C / n + 2) (1 + g_k) + 1). Only a row whose moments lie near fp32's subnormals notices: two values
 * near 1e-24 have a variance near 1e-48, which fp32 holds as 0.
 * The reference adds its own: 2 units of 2^-53 on the mean, and on the variance 8 units plus (mean
 * 2^-52)^2, what its rounded mean adds to M2 / n. */
MomentsTolerance moments_tolerance(AddChain s, const Moments *ref)
{
    if (!isfinite(ref->var)) return (MomentsTolerance){0}; /* NaN or Inf read: value_passes wants the same value */
    double n = (double)ref->n;
    if (n > 0x1p24) return (MomentsTolerance){INFINITY, INFINITY};
    double u = unit_roundoff(24), u64 = unit_roundoff(53), under = 0x1p-150;
    double d = s.serial + s.tree, a = (s.serial + 1.0) / 2.0 + s.tree, b = 1.0 + s.tree, g3 = 3.0 * u / (1.0 - 3.0 * u);
    double room = 1.0 - d * u - 2.0 * g3 * b - a * u; /* 1 / grow = 1 - d u */
    double e = room > 0.0 ? (g3 * b * ref->range + a * (u * ref->max_abs + under)) / room : INFINITY;
    double c = n * (1.0 + s.tree / 4.0), spread = 2.0 * e * sqrt(c);
    double moved = spread * (2.0 * sqrt(ref->m2) + spread);
    double k = 6.0 + 1.0 + s.serial + 2.0 * s.tree + 1.0, gk = k * u < 1.0 ? k * u / (1.0 - k * u) : INFINITY;
    return (MomentsTolerance){.mean = e + 2.0 * u64 * fabs(ref->mean),
                              .var = (moved + gk * (ref->m2 + moved)) / n + 8.0 * u64 * ref->var +
                                     pow(2.0 * u64 * ref->mean, 2.0) + under * ((c / n + 2.0) * (1.0 + gk) + 1.0)};
}

double max_chunk_abs_sum(const float *x, uint64_t n, double span)
{
    uint64_t len = span >= 1.0 && span < (double)n ? (uint64_t)span : n;
    double best = 0.0;
    for (uint64_t start = 0; start < n; start += len) {
        double s = 0.0;
        for (uint64_t i = start; i < n && i < start + len; i++)
            if (isfinite(x[i])) s += fabs(x[i]);
        if (s > best) best = s;
    }
    return best;
}

int result_passes(double result, const Reference *ref, double tol)
{
    if (!isfinite(ref->sum)) return isnan(ref->sum) ? isnan(result) : result == ref->sum;
    return isfinite(result) && fabs(result - ref->sum) <= tol;
}

int value_passes(double result, double want, double tol)
{
    return result_passes(result, &(Reference){.sum = want}, tol);
}

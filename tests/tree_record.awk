# A tree record made up on the CPU, in the tree program's format, for the tests of scripts/tree.sh: the
# accesses of a block of `threads` threads (a power of two) reducing s_x[0..threads) with the stride
# `form` names, as the kernels of the first stages and their exercise write them:
#   interleaved  if (tid % (2*s) == 0) s_x[tid] += s_x[tid + s]
#   strided      index = 2*s*tid; if (index < threads) s_x[index] += s_x[index + s]
#   sequential   if (tid < offset) s_x[tid] += s_x[tid + offset]
#   shuffle      v = s_x[tid]; then warp 0's v += __shfl_down_sync(FULL_MASK, v, offset), offset 16 ... 1
#   shuffle_first  shuffle first (stage 05's reduce_warp_shuffle): each warp's shuffle down from registers,
#                lane 0 writes warp_sums[warp], __syncthreads, then warp 0 shuffles down again, its lanes
#                past the last warp with a zero (v = lane < warps ? warp_sums[lane] : 0)
# usage: awk -v form=FORM -v threads=N -f tests/tree_record.awk
function ev(step, t, op, addr, src) { printf "%d,%d,%d,%s,%d,%d,%d\n", step, t, seq[t]++, op, op ~ /^shfl/ ? 0 : 4, addr, src }
BEGIN {
    printf "# tree record: stage test, kernel %s, block 0 of %d elements, %d threads, made up on the CPU\n", form, threads, threads
    print "step,thread,seq,op,bytes,addr,src"
    if (form == "shuffle_first") {
        step = 0
        for (d = 16; d > 0; d = int(d / 2)) { for (t = 0; t < threads; t++) ev(step, t, "shfl_down", d, t % 32 + d < 32 ? t % 32 + d : -1); step++ }
        for (t = 0; t < threads; t += 32) ev(step, t, "st", 4 * (t / 32), -1)
        for (t = 0; t < threads; t++) ev(step, t, "bar", 0, -1)
        step++
        for (t = 0; t < threads / 32; t++) ev(step, t, "ld", 4 * t, -1)
        for (d = 16; d > 0; d = int(d / 2)) { for (t = 0; t < 32; t++) ev(step, t, "shfl_down", d, t + d < 32 ? t + d : -1); step++ }
        exit
    }
    for (t = 0; t < threads; t++) ev(0, t, "st", 4 * t, -1)
    step = 1
    if (form == "shuffle") {
        for (t = 0; t < 32; t++) ev(step, t, "ld", 4 * t, -1)
        for (d = 16; d > 0; d = int(d / 2)) { for (t = 0; t < 32; t++) ev(step, t, "shfl_down", d, t + d < 32 ? t + d : -1); step++ }
        exit
    }
    for (s = 1; s < threads; s *= 2) {
        for (t = 0; t < threads; t++) {
            if (form == "interleaved") { if (t % (2 * s)) continue; a = t; b = t + s }
            else if (form == "strided") { a = 2 * s * t; if (a >= threads) continue; b = a + s }
            else { off = threads / (2 * s); if (t >= off) continue; a = t; b = t + off }
            ev(step, t, "ld", 4 * b, -1); ev(step, t, "ld", 4 * a, -1); ev(step, t, "st", 4 * a, -1)
        }
        step++
    }
}

"""A tree record made up on the CPU, in the tree program's format, for the tests of scripts/tree.sh: the
accesses of a block of THREADS threads (a power of two) reducing s_x[0..THREADS) with the stride FORM
names, as the kernels of the first stages and their exercise write them:
  interleaved    if (tid % (2*s) == 0) s_x[tid] += s_x[tid + s]
  strided        index = 2*s*tid; if (index < threads) s_x[index] += s_x[index + s]
  sequential     if (tid < offset) s_x[tid] += s_x[tid + offset]
  shuffle        v = s_x[tid]; then warp 0's v += __shfl_down_sync(FULL_MASK, v, offset), offset 16 ... 1
  shuffle_first  stage 05's reduce_warp_shuffle: each warp's shuffle down from registers, lane 0 writes
                 warp_sums[warp], __syncthreads, then warp 0 shuffles down again, its lanes past the last
                 warp with a zero (v = lane < warps ? warp_sums[lane] : 0)
  loop_shuffle_first  the same after a loop: each thread first loads 4 elements, THREADS apart (TRACED_LD),
                 and adds them in registers (stage 06's kernels)
usage: python3 tests/tree_record.py FORM THREADS"""
import sys


def record(form, threads):
    """The record's lines."""
    lines = [f"# tree record: stage test, kernel {form}, block 0 of {threads} elements, {threads} threads, "
             "made up on the CPU", "step,thread,seq,op,bytes,addr,src"]
    seq = {}

    def ev(step, t, op, addr, src=-1):
        lines.append(f"{step},{t},{seq.get(t, 0)},{op},{0 if op.startswith('shfl') else 4},{addr},{src}")
        seq[t] = seq.get(t, 0) + 1

    def shuffle_down(step, lanes):
        for d in (16, 8, 4, 2, 1):
            for t in range(lanes):
                ev(step, t, "shfl_down", d, t % 32 + d if t % 32 + d < 32 else -1)
            step += 1
        return step

    first = 0
    if form == "loop_shuffle_first":
        for t in range(threads):
            for k in range(4):
                ev(0, t, "gld", t + k * threads)
        form, first = "shuffle_first", 1
    if form == "shuffle_first":
        step = shuffle_down(first, threads)
        for t in range(0, threads, 32):
            ev(step, t, "st", 4 * (t // 32))
        for t in range(threads):
            ev(step, t, "bar", 0)
        for t in range(threads // 32):
            ev(step + 1, t, "ld", 4 * t)
        shuffle_down(step + 1, 32)
        return lines
    for t in range(threads):
        ev(0, t, "st", 4 * t)
    if form == "shuffle":
        for t in range(32):
            ev(1, t, "ld", 4 * t)
        shuffle_down(1, 32)
        return lines
    step, s = 1, 1
    while s < threads:
        for t in range(threads):
            if form == "interleaved":
                if t % (2 * s):
                    continue
                a, b = t, t + s
            elif form == "strided":
                a = 2 * s * t
                if a >= threads:
                    continue
                b = a + s
            else:
                off = threads // (2 * s)
                if t >= off:
                    continue
                a, b = t, t + off
            ev(step, t, "ld", 4 * b)
            ev(step, t, "ld", 4 * a)
            ev(step, t, "st", 4 * a)
        step, s = step + 1, s * 2
    return lines


if __name__ == "__main__":
    print("\n".join(record(sys.argv[1], int(sys.argv[2]))))

"""make stage-NN sass's summary: a line per kernel of what its SASS holds (load widths, shuffles,
barriers, atomics) and, from the assembler's report (nvcc -Xptxas -v), its registers and shared memory.
usage: python3 scripts/report sass PTXAS_REPORT SASS   (SASS: cuobjdump --dump-sass of the same object)"""
import argparse
import re
import sys

from common import fail

# (column, SASS pattern); a load counts once, at its widest pattern.
LOADS = (("ldg128", r" LDG\.E\.128"), ("ldg64", r" LDG\.E\.64"), ("ldg32", r" LDG\.E"))
OTHERS = (("bfly", r" SHFL\.BFLY"), ("down", r" SHFL\.DOWN"), ("bar", r" BAR\.SYNC"), ("warpsync", r" WARPSYNC"),
          ("atom", r" (RED|REDG|ATOM|ATOMG|ATOMS)\."))

def summary(report, sass):
    """A line per kernel, in the order of the SASS."""
    resources, counts, order, kernel = {}, {}, [], ""
    for line in report.split("\n"):
        m = re.search(r"Compiling entry function.*?(_Z[A-Za-z0-9_]+)", line)
        kernel = m.group(1) if m else kernel
        m = re.search(r"Used ([0-9]+) registers", line)
        if m and kernel:
            smem = re.search(r"([0-9]+) bytes smem", line)
            resources[kernel] = (m.group(1), smem.group(1) if smem else "0")
    kernel = ""
    for line in sass.split("\n"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            kernel = m.group(1)
            order.append(kernel)
            counts[kernel] = dict.fromkeys([c for c, _ in LOADS + OTHERS], 0)
        elif kernel:
            load = next((c for c, pattern in LOADS if re.search(pattern, line)), None)
            if load:
                counts[kernel][load] += 1
            else:
                for c, pattern in OTHERS:
                    counts[kernel][c] += bool(re.search(pattern, line))
    out = ""
    for k in order:
        c, (regs, smem) = counts[k], resources.get(k, ("?", "?"))
        out += (f"{k}\n    LDG<=32 {c['ldg32']}  LDG.64 {c['ldg64']}  LDG.128 {c['ldg128']} | SHFL.BFLY {c['bfly']}  "
                f"SHFL.DOWN {c['down']} | BAR.SYNC {c['bar']}  WARPSYNC {c['warpsync']} | RED/ATOM {c['atom']} | "
                f"{regs} registers, {smem} bytes shared\n")
    return out

def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report sass", description=__doc__.split("\n")[0])
    parser.add_argument("ptxas")
    parser.add_argument("sass")
    args = parser.parse_args(argv[1:])
    try:
        report, sass = (open(p, encoding="utf-8", errors="replace").read() for p in (args.ptxas, args.sass))
    except OSError as e:
        fail(f"{e.filename}: {e.strerror}")
    sys.stdout.write(summary(report, sass))
    return 0

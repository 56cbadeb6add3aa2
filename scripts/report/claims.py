"""Checked claims: the comparisons of measured results that a stage's README makes in prose, held to
the committed results of every reference GPU. A stage declares them in stages/NN_name/claims.csv,
one a line, with the columns
  claim    a name for it, which the README's sentence can be found by
  a, b     two kernels, STAGE:KERNEL (the stage's folder name and the kernel's name as in the CSV)
  is       faster: a's median time is below b's by the factor `by` at least (time b / time a >= by);
           level: the two are within the factor `by` of each other (max/min <= by)
  n        the sizes: all (every N both kernels were measured at), or a list (2^24 2^28, 1048576)
  by       the factor (1 for plainly faster)
  gpus     all (every plots/reference/<gpu>/), or the GPU folders it holds on, space-separated
Rows read: fp32 input, L2 flushed, the bench's random data (the rows the tables show).
usage: python3 scripts/report claims: every claim on every committed results.csv; exit 1 if one fails."""
import argparse
import glob
import os

from common import fail, read_csv


def parse_size(text):
    """2^28, 2^24+1 or a plain count."""
    base, _, rest = text.partition("^")
    power, _, plus = rest.partition("+")
    return int(base) ** int(power) + int(plus or 0) if "^" in text else int(text)


def times_of(csv):
    """{(stage:kernel, N): median µs} of a results CSV's rows that the tables show."""
    times = {}
    for r in read_csv(csv, "stage kernel dtype n median_us l2 fill"):
        if r["dtype"] == "f32" and r["l2"] == "flushed" and r["fill"] in ("random", ""):
            times[(f"{r['stage']}:{r['kernel']}", int(float(r["n"])))] = float(r["median_us"])
    return times


def check(claim, times, gpu):
    """The lines that say whether CLAIM holds on one GPU's times, and whether all of it holds."""
    a, b, by = claim["a"], claim["b"], float(claim["by"])
    sizes = sorted({n for (k, n) in times if k == a} & {n for (k, n) in times if k == b})
    if claim["n"] != "all":
        wanted = [parse_size(t) for t in claim["n"].split()]
        missing = [n for n in wanted if n not in sizes]
        if missing:
            return [f"FAIL {claim['claim']} on the {gpu}: {a} and {b} were not both measured at N = {missing}"], False
        sizes = wanted
    if not sizes:
        return [f"FAIL {claim['claim']} on the {gpu}: no N at which both {a} and {b} were measured"], False
    lines = []
    for n in sizes:
        ta, tb = times[(a, n)], times[(b, n)]
        if not (tb / ta >= by if claim["is"] == "faster" else max(ta, tb) / min(ta, tb) <= by):
            lines.append(f"FAIL {claim['claim']} on the {gpu}, N = {n}: {a} {ta:.1f} µs, {b} {tb:.1f} µs "
                         f"(b/a = {tb / ta:.3f}; claimed: {claim['is']}, by {by:g})")
    return lines or [f"ok   {claim['claim']} on the {gpu} at {len(sizes)} N"], not lines


def claims(results):
    """Every stage's claims against every GPU's results; the report's lines and the exit status."""
    by_gpu = {os.path.basename(os.path.dirname(csv)): times_of(csv) for csv in results}
    lines, status = [], 0
    for path in sorted(glob.glob("stages/*/claims.csv")):
        for claim in read_csv(path, "claim a b is n by gpus"):
            if claim["is"] not in ("faster", "level"):
                fail(f"{path}: claim {claim['claim']}: is '{claim['is']}' (faster or level)")
            for gpu in sorted(by_gpu) if claim["gpus"] == "all" else claim["gpus"].split():
                got, held = check(claim, by_gpu[gpu], gpu) if gpu in by_gpu else (
                    [f"FAIL {claim['claim']}: no results of {gpu} (plots/reference/{gpu}/results.csv)"], False)
                lines += got
                status |= 0 if held else 1
    return lines, status


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report claims", description=__doc__.split("\n")[0])
    parser.parse_args(argv[1:])
    lines, status = claims(sorted(glob.glob("plots/reference/*/results.csv")))
    print("\n".join(lines))
    return status

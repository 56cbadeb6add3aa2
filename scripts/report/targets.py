"""A stage's targets (stages/NN_*/targets.csv) against the results CSVs of every GPU given.
Columns read: gpu, stage, kernel, dtype, n, median_us, gbps, l2, bytes_read, x_cub, cols. One row
per target (what it measures, its sizes, the least ratio that meets it), one column per GPU: "met" or
"not met", with the worst ratio over the target's sizes and the N where it is (the ratios are defined
in the targets file's header). Rows with the input left in L2 are not counted; a size the run does
not have is not counted either.
usage: python3 scripts/report targets --stage NN_name --targets stages/NN_name/targets.csv [--lang en|zh] CSV..."""
import argparse
import sys

from common import exponent, fail, num, read_csv, say



def size(s):
    """A size of the targets file: 2^K or a number."""
    parts = s.split("^")
    return 2 ** num(parts[1]) if len(parts) == 2 else num(s)


def read_targets(path, lang):
    """The targets of the file PATH: (what, n_min, n_max, at_least, label in LANG), in its order."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    found = []
    for line in lines:
        if line.startswith("#") or line.startswith("what,") or line == "":
            continue
        f = line.split(",") + [""] * 4
        label = f[4].split(" | ") + [""]
        found.append((f[0], size(f[1]), size(f[2]), num(f[3]), say(lang, label[0], label[1])))
    return found


class Run:
    """One GPU's rows: its device limits, the times of the stage's kernels and the fastest of the
    other stages' by N, the sizes in the order of its rows. CUB's rows and row stages' are not counted;
    a repeated row: the last one wins."""

    def __init__(self):
        self.sol, self.floor = 0, None
        self.ns = {}  # a dict for its order
        self.other, self.time, self.xcub, self.bytes = {}, {}, {}, {}
        self.best, self.typebest, self.det = {}, {}, set()

    def add(self, r, stage):
        """Row R of this GPU's results."""
        k, n, us, t = r["kernel"], num(r["n"]), num(r["median_us"]), r["dtype"]
        self.ns[n] = True
        if r["stage"] != stage:
            if t == "f32" and (n not in self.other or us < self.other[n]):
                self.other[n] = us
            return
        self.time[k, n], self.xcub[k, n], self.bytes[k, n] = us, r["x_cub"], r["bytes_read"]
        if k.endswith("_deterministic"):
            self.det.add(k)
            return
        # The fastest kernel so far, compared at its latest time: a repeated row may have changed it.
        if t == "f32" and (n not in self.best or us < self.time[self.best[n], n]):
            self.best[n] = k
        if (t, n) not in self.typebest or us < self.time[self.typebest[t, n], n]:
            self.typebest[t, n] = k

    def ratio(self, what, n):
        """The ratio WHAT at size N; None where the run lacks what it needs."""
        if n not in self.best:
            return None
        b = self.best[n]
        if what == "sol":
            return ((self.floor or 0) + num(self.bytes[b, n]) / self.sol / 1e3) / self.time[b, n] if self.sol > 0 else None
        if what == "cub":
            return num(self.xcub[b, n]) if self.xcub[b, n] != "" else None
        if what == "repository":
            return self.other[n] / self.time[b, n] if n in self.other else None
        if what == "cub_types":
            found = [num(self.xcub[k, m]) for (t, m), k in self.typebest.items() if m == n and self.xcub[k, m] != ""]
        elif what == "deterministic":
            found = [self.time[b, n] / self.time[k, n] for k in self.det if (k, n) in self.time]
        else:
            found = []
        return min(found, default=None)

    def verdict(self, target, lang):
        """The cell of TARGET: met or not, with the worst ratio over its sizes (the first N of the
        run's order where it is); "-" where the run has none of them."""
        what, lo, hi, least, _ = target
        worst, at = None, 0
        for n in self.ns:
            r = self.ratio(what, n) if lo <= n <= hi else None
            if r is not None and (worst is None or r < worst):
                worst, at = r, n
        if worst is None:
            return " - |"
        met = say(lang, "met", "达成") if worst >= least else say(lang, "**not met**", "**未达成**")
        return " %s (%.3f %s %s) |" % (met, worst, say(lang, "at", "于"), exponent(at))


def read_runs(csv_paths, stage):
    """Each GPU's Run, in the order of the GPUs' first rows."""
    runs = {}
    for path in csv_paths:
        for r in read_csv(path, "gpu stage kernel dtype n median_us l2 bytes_read x_cub cols"):
            if r["l2"] == "warm":
                continue
            run = runs.setdefault(r["gpu"], Run())
            if r["stage"] == "00_device":
                us = num(r["median_us"])
                # gbps is not a required column (the awk program did not ask for it): no gbps, no speed of light.
                if r["kernel"] == "read_sol" and num(r.get("gbps", "")) > run.sol:
                    run.sol = num(r["gbps"])
                if r["kernel"] == "launch_floor" and (run.floor is None or us < run.floor):
                    run.floor = us
            elif r["cols"] == "" and r["kernel"] != "cub" and r["median_us"] != "":
                run.add(r, stage)
    return runs


def targets(csv_paths, stage, targets_path, lang="en"):
    """The table of STAGE's targets (the file TARGETS_PATH) on the results CSVs CSV_PATHS."""
    found = read_targets(targets_path, lang)
    runs = read_runs(csv_paths, stage)
    out = say(lang, "| target | N | needs |", "| 目标 | N | 要求 |") + "".join(f" {g} |" for g in runs) + "\n"
    out += "|---|---|---:|" + "---|" * len(runs) + "\n"
    for target in found:
        _, lo, hi, least, label = target
        sizes = exponent(lo) + ("–" + exponent(hi) if hi > lo else "")
        out += f"| {label} | {sizes}" + " | ≥ %.3f |" % least + "".join(run.verdict(target, lang) for run in runs.values()) + "\n"
    return out


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report targets", description=__doc__.split("\n")[0])
    parser.add_argument("--stage", required=True, help="the stage, NN_name")
    parser.add_argument("--targets", required=True, help="its targets file, stages/NN_name/targets.csv")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("csv", nargs="+", help="every GPU's results CSV")
    args = parser.parse_args(argv[1:])
    sys.stdout.write(targets(args.csv, args.stage, args.targets, args.lang))
    return 0

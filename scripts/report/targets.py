"""A stage's targets (stages/NN_*/targets.csv, whose header defines the ratios) on every GPU's results
CSV: a row per target, a column per GPU, "met" or "not met" with the worst ratio over its sizes and the N where it
is. Rows with L2 warm, and sizes a run lacks, are not counted."""
from common import bilingual, command, device, exponent, flushed, num, read_csv, read_lines, rule, text

def size(s):
    """A size of the targets file: 2^K or a number."""
    parts = s.split("^")
    return 2 ** num(parts[1]) if len(parts) == 2 else num(s)

class Run:
    """One GPU's rows: the times of the stage's kernels and the fastest of the other stages' by N, the
    sizes in the order of its rows. CUB's rows and row stages' are not counted; a repeated row: the last
    one wins."""

    def __init__(self, rows, stage):
        self.dev, self.ns, self.other, self.time, self.xcub, self.bytes = device(rows), {}, {}, {}, {}, {}
        self.best, self.typebest, self.det = {}, {}, set()
        for r in rows:
            if r["stage"] != "00_device" and r["cols"] == "" and r["kernel"] != "cub" and r["median_us"] != "":
                self.add(r, stage)

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
        b, sol = self.best[n], self.dev["sol"]
        if what == "sol":
            return ((self.dev["floor"] or 0) + num(self.bytes[b, n]) / sol / 1e3) / self.time[b, n] if sol > 0 else None
        if what == "cub":
            return num(self.xcub[b, n]) if self.xcub[b, n] != "" else None
        if what == "repository":
            return self.other[n] / self.time[b, n] if n in self.other else None
        found = []
        if what == "cub_types":
            found = [num(self.xcub[k, m]) for (t, m), k in self.typebest.items() if m == n and self.xcub[k, m] != ""]
        elif what == "deterministic":
            found = [self.time[b, n] / self.time[k, n] for k in self.det if (k, n) in self.time]
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
        met = text(lang, "met" if worst >= least else "not met")
        return " %s (%.3f %s %s) |" % (met, worst, text(lang, "at"), exponent(at))

def targets(csv, stage, targets, lang="en"):
    """The table of STAGE's targets (the file TARGETS) on the results CSVs CSV (a list), a column per GPU
    in the order of their first rows."""
    lines, need = read_lines(targets), "gpu stage kernel dtype n median_us l2 bytes_read x_cub cols"
    rows = [r for path in csv for r in flushed(read_csv(path, need))]
    runs = {gpu: Run([r for r in rows if r["gpu"] == gpu], stage) for gpu in dict.fromkeys(r["gpu"] for r in rows)}
    out = text(lang, "targets head") + "".join(f" {g} |" for g in runs) + "\n" + rule("llr" + "l" * len(runs))
    for line in lines:
        if line.startswith("#") or line.startswith("what,") or line == "":
            continue
        f = line.split(",") + [""] * 4
        target = (f[0], size(f[1]), size(f[2]), num(f[3]), bilingual(f[4], lang))
        sizes = exponent(target[1]) + ("–" + exponent(target[2]) if target[2] > target[1] else "")
        out += f"| {target[4]} | {sizes} | ≥ %.3f |" % target[3]
        out += "".join(run.verdict(target, lang) for run in runs.values()) + "\n"
    return out

def cli(argv):
    return command(argv, __doc__, targets, ("--stage", {"required": True, "help": "the stage, NN_name"}),
                   ("--targets", {"required": True, "help": "its targets file, stages/NN_name/targets.csv"}),
                   ("csv", {"nargs": "+", "help": "every GPU's results CSV"}))

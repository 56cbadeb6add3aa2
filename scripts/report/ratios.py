"""A stage's targets at every N of a results CSV: x CUB, deterministic against fast, the speed of light.
Columns read: stage, kernel, dtype, n, median_us, gbps, l2, bytes_read, x_cub. Each kernel's speed
against CUB on the same input type (x_cub: CUB's median time over the kernel's), every kernel
X_deterministic against X (X's time over X_deterministic's), and the speed of light (the shortest
launch floor plus the bytes the kernel reads over the fastest read-only bandwidth of the run) over
the time of the stage's fastest fp32 kernel at its largest N: 1 is the limit; and, where the run
measured it, the same with the floor of a kernel that waits for one DRAM round trip
(round_trip_floor: a warp's first load after the flush), which no kernel that reads its input
escapes. Rows with the input left in L2 are not counted.
usage: python3 scripts/report ratios --stage NN_name [--lang en|zh] CSV"""
import argparse
import sys

from common import exponent, num, read_csv, say



def cell(v):
    """A ratio as a table cell; "-" for none ("")."""
    return " - |" if v == "" else " %.3f |" % num(v)


class Run:
    """What the ratios need of a results CSV: the device's limits, and the rows of one stage (CUB's
    excepted), by (kernel, n); a repeated row: the last one wins."""

    def __init__(self, csv_path, stage):
        self.sol, self.floor, self.trip = 0, None, None
        self.us, self.x_cub, self.bytes = {}, {}, {}
        self.kernels, self.fp32, ns = {}, set(), set()  # kernels: a dict for its order
        for r in read_csv(csv_path, "stage kernel dtype n median_us gbps l2 bytes_read x_cub"):
            if r["l2"] == "warm":
                continue
            k = r["kernel"]
            if r["stage"] == "00_device":
                self.device(k, num(r["median_us"]), num(r["gbps"]))
            elif r["stage"] == stage and k != "cub":
                n = num(r["n"])
                ns.add(n)
                self.kernels[k] = True
                self.us[k, n], self.x_cub[k, n], self.bytes[k, n] = r["median_us"], r["x_cub"], r["bytes_read"]
                if r["dtype"] == "f32":
                    self.fp32.add(k)
        self.ns = sorted(ns)
        self.maxn = max((n for n in ns if n > 0), default=None)

    def device(self, kernel, us, gbps):
        """The fastest read-only bandwidth and the shortest floors of the run's device rows."""
        if kernel == "read_sol" and gbps > self.sol:
            self.sol = gbps
        if kernel == "launch_floor" and (self.floor is None or us < self.floor):
            self.floor = us
        if kernel == "round_trip_floor" and (self.trip is None or us < self.trip):
            self.trip = us

    def fastest(self):
        """The fp32 kernel with the shortest time at the largest N, None where there is none."""
        best = None
        for k in self.kernels:
            if k in self.fp32 and (k, self.maxn) in self.us and (
                    best is None or num(self.us[k, self.maxn]) < num(self.us[best, self.maxn])):
                best = k
        return best


def deterministic_rows(run):
    """X's time over X_deterministic's at each N, for each X_deterministic whose X the stage has."""
    out = ""
    for det in run.kernels:
        fast = det[:-len("_deterministic")]
        if not det.endswith("_deterministic") or fast not in run.kernels:
            continue
        out += f"| `{det}` / `{fast}` |"
        for n in run.ns:
            a, b = (fast, n), (det, n)
            positive = a in run.us and b in run.us and run.us[b] != "" and num(run.us[b]) > 0
            out += cell(num(run.us[a]) / num(run.us[b]) if positive else "")
        out += "\n"
    return out


def limit_rows(run, fastest, base, label, label2):
    """Two rows: a floor (µs) plus the fastest kernel's bytes over the read-only bandwidth at each N,
    and that over the kernel's time."""
    line, line2 = label, label2
    for n in run.ns:
        if (fastest, n) not in run.us:
            line, line2 = line + cell(""), line2 + cell("")
            continue
        t = (base or 0) + num(run.bytes[fastest, n]) / run.sol / 1e3
        line += " %.1f |" % t
        line2 += cell(t / num(run.us[fastest, n]))
    return line + "\n" + line2 + "\n"


def ratios(csv_path, stage, lang="en"):
    """The table of STAGE's ratios at every N of CSV_PATH."""
    run = Run(csv_path, stage)
    out = say(lang, "| x CUB at N = |", "| x CUB，N = |") + "".join(f" {exponent(n)} |" for n in run.ns) + "\n"
    out += "|---|" + "---:|" * len(run.ns) + "\n"
    for k in run.kernels:
        out += f"| `{k}` |" + "".join(cell(run.x_cub.get((k, n), "")) for n in run.ns) + "\n"
    out += deterministic_rows(run)
    fastest = run.fastest()
    if run.sol <= 0 or fastest is None:
        return out
    out += limit_rows(run, fastest, run.floor, say(lang, "| speed of light (µs) |", "| 光速 (µs) |"),
                      say(lang, f"| speed of light / `{fastest}` |", f"| 光速 / `{fastest}` |"))
    if run.trip is not None:
        out += limit_rows(run, fastest, run.trip,
                          say(lang, "| the same with one DRAM round trip (µs) |", "| 同上，加一次 DRAM 往返 (µs) |"),
                          say(lang, f"| that / `{fastest}` |", f"| 它 / `{fastest}` |"))
    return out


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report ratios", description=__doc__.split("\n")[0])
    parser.add_argument("--stage", required=True, help="the stage, NN_name")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("csv")
    args = parser.parse_args(argv[1:])
    sys.stdout.write(ratios(args.csv, args.stage, args.lang))
    return 0

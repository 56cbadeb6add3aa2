"""The times of chosen kernels of a stage at every N of a results CSV, side by side.
Columns read: stage, kernel, dtype, n, median_us, l2. One row per kernel, in the order given: its
median time in µs at each N of the run (fp32 input, L2 flushed); "-" where the run has none. The
caption gives the shortest launch floor of the run (an empty kernel between the timing events), the
time below which no launch goes.
usage: python3 scripts/report times --stage NN_name --kernels "NAME NAME..." [--lang en|zh] CSV"""
import argparse
import sys

from common import awk_str, fail, num, read_csv, say


def power(n):
    """'2^k' where N is a power of two, N itself otherwise."""
    k = 0
    while 2 ** k < n:
        k += 1
    return f"2^{k}" if 2 ** k == n else awk_str(n)


def times(csv_path, stage, kernels, lang="en"):
    """The table of the kernels KERNELS (space-separated) of STAGE at every N of CSV_PATH."""
    floor, us = None, {}  # us: (kernel, n) -> the row's median_us
    for r in read_csv(csv_path, "stage kernel dtype n median_us l2"):
        if r["l2"] == "warm":
            continue
        if r["stage"] == "00_device":
            if r["kernel"] == "launch_floor" and (floor is None or num(r["median_us"]) < floor):
                floor = num(r["median_us"])
        elif r["stage"] == stage and r["dtype"] == "f32":
            us[r["kernel"], num(r["n"])] = r["median_us"]
    ns = sorted({n for _, n in us})
    if not ns:
        fail(f"no rows of stage {stage}")
    out = say(lang, "Time in µs at every N of the run (medians, L2 flushed); an empty kernel between the timing "
                    "events takes %.1f µs.\n\n",
              "这次运行每个 N 上的时间（µs，中位数，刷新 L2）；计时事件之间的一个空 kernel 需要 %.1f µs。\n\n") % (floor or 0)
    out += say(lang, "| µs at N = |", "| µs，N = |") + "".join(f" {power(n)} |" for n in ns) + "\n"
    out += "|---|" + "---:|" * len(ns) + "\n"
    for name in kernels.split():
        out += f"| `{name}` |" + "".join(" %.1f |" % num(us[name, n]) if (name, n) in us else " - |" for n in ns) + "\n"
    return out


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report times", description=__doc__.split("\n")[0])
    parser.add_argument("--stage", required=True, help="the stage, NN_name")
    parser.add_argument("--kernels", required=True, help="the kernels, space-separated, in the order of the rows")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("csv")
    args = parser.parse_args(argv[1:])
    sys.stdout.write(times(args.csv, args.stage, args.kernels, args.lang))
    return 0

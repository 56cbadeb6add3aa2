"""The accuracy lab (scripts/accuracy.sh): its Markdown tables and its chart, from its CSV, columns
stage, kernel, n, rel_err, pass, fill, rel_bound and cond (the chart also gpu).
Tables: each kernel's relative error on the random and the wide data at every fourth power of two of N,
then on the cond data against the condition number; each cell "error (bound)", the bound being the one
its check used, relative to the reference; a result outside it is marked FAIL (xfail: expected).
Chart (plots/lab/accuracy.gp): three panels, random and wide against N, cond against the condition
number at one N; a line per kernel ("NN kernel") and its bound, dashed.
usage: python3 scripts/report accuracy [--lang en|zh] CSV
       python3 scripts/report plot-accuracy CSV PNG
  plot-accuracy exit codes: 2 bad CSV, 4 gnuplot missing, other: gnuplot failed."""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

from common import num, number, read_csv, say

TABLE_COLUMNS = "stage kernel n rel_err pass fill rel_bound cond"
CHART_COLUMNS = "gpu " + TABLE_COLUMNS
HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def kernel_rows(csv_path, need):
    """The rows of the lab's kernels: not the device's (00_device), not CUB's."""
    return [r for r in read_csv(csv_path, need) if r["stage"] != "00_device" and r["kernel"] != "cub"]


def log2(x):
    """log2 as awk computes it, log(x) / log(2), which is not always exact at a power of two."""
    return math.log(x) / math.log(2)


def every_fourth_power(n):
    """Whether N is a fourth power of two (2^0, 2^4, 2^8, ...), within half a power."""
    x = num(n)
    if x <= 0:
        return False
    e = log2(x)
    return e - int(e / 4) * 4 < 0.5


def by_value(values):
    """VALUES (strings) sorted by their numeric value, equal ones in their order."""
    return sorted(values, key=num)


def cell(found):
    """One cell: "error (bound)", marked where the check failed; " - " where there is no result."""
    if found is None:
        return " - |"
    err, bound, verdict = found
    return " %s (%s)%s |" % ("%.1e" % num(err) if "0" <= err[:1] <= "9" else err,
                             "-" if bound == "" else "%.1e" % num(bound),
                             "" if verdict == "1" else " xfail" if verdict == "xfail" else " FAIL")


def accuracy_tables(csv_path, lang="en"):
    """The lab's tables in LANG: against N (random, wide), then against the condition number (cond)."""
    order, result, ns, conds, condn = [], {}, [], [], ""
    for r in kernel_rows(csv_path, TABLE_COLUMNS):
        label = "`%s %s`" % (number(r["stage"]), r["kernel"])
        if label not in order:
            order.append(label)
        fill = r["fill"]
        x = r["cond"] if fill == "cond" else r["n"]
        result[label, fill, x] = (r["rel_err"], r["rel_bound"], r["pass"])
        if fill == "cond":
            if x not in conds:
                conds.append(x)
            condn = r["n"]
        elif x not in ns and every_fourth_power(x):
            ns.append(x)
    ns, conds = by_value(ns), by_value(conds)
    out = say(lang, "Relative error (bound) against N:", "相对误差（界）随 N 的变化：") + "\n\n"
    out += say(lang, "| kernel | data |", "| kernel | 数据 |") + "".join(" 2^%d |" % (log2(num(n)) + 0.5) for n in ns) + "\n"
    out += "|---|---|" + "---:|" * len(ns) + "\n"
    for fill in ("random", "wide"):
        for label in order:
            out += "| %s | %s |" % (label, fill) + "".join(cell(result.get((label, fill, n))) for n in ns) + "\n"
    if not conds:
        return out
    out += "\n" + say(lang, "Relative error (bound) against the condition number sum|x| / |sum x|, N = %d:",
                      "相对误差（界）随条件数 sum|x| / |sum x| 的变化，N = %d：") % num(condn) + "\n\n"
    out += "| kernel |" + "".join(" %s |" % c for c in conds) + "\n"
    out += "|---|" + "---:|" * len(conds) + "\n"
    for label in order:
        out += "| %s |" % label + "".join(cell(result.get((label, "cond", c))) for c in conds) + "\n"
    return out


def chart_files(csv_path):
    """The chart's data file and variables (gnuplot -e). Data: for each panel (random, wide, cond) and each
    kernel, a block "title", then lines "x rel_err rel_bound" sorted by x (NaN: no point), blocks separated by
    two blank lines, every panel with the same kernels, so that block i + p * series is kernel i's in panel p."""
    order, points, condn, gpu = [], {}, "", ""
    for r in kernel_rows(csv_path, CHART_COLUMNS):
        label = "%s %s" % (number(r["stage"]), r["kernel"])
        if label not in order:
            order.append(label)
        fill = r["fill"]
        points.setdefault((label, fill), []).append("%s %s %s" % (
            r["cond"] if fill == "cond" else r["n"], r["rel_err"] if num(r["rel_err"]) > 0 else "NaN",
            "NaN" if r["rel_bound"] == "" else r["rel_bound"]))
        if fill == "cond":
            condn = r["n"]
        gpu = r["gpu"]
    data = ""
    for panel in ("random", "wide", "cond"):
        for label in order:
            data += '"%s"\n' % label + "".join(line + "\n" for line in by_x(points.get((label, panel), []))) + "\n\n"
    return data, 'series = %d; condn = %.0f; gpu = "%s"\n' % (len(order), num(condn), gpu)


def by_x(lines):
    """LINES sorted by their first word, as a number, by the exchange sort the chart always used (its order
    of equal x is kept to the byte)."""
    lines = list(lines)
    for a in range(len(lines)):
        for b in range(a + 1, len(lines)):
            if num(lines[a].split()[0]) > num(lines[b].split()[0]):
                lines[a], lines[b] = lines[b], lines[a]
    return lines


def plot_accuracy(csv_path, png):
    """Draw the chart into PNG with gnuplot; the exit code (2 bad CSV, 4 gnuplot missing, else gnuplot's)."""
    if not os.path.exists(csv_path) or os.path.getsize(csv_path) == 0:
        print(f"error: {csv_path} is missing or empty", file=sys.stderr)
        return 2
    if not shutil.which("gnuplot"):
        print(f"gnuplot not found: {png} not drawn", file=sys.stderr)
        return 4
    data, chart_vars = chart_files(csv_path)
    with tempfile.TemporaryDirectory() as tmp:
        if data:  # as before: no kernel rows, no data file
            with open(f"{tmp}/data", "w", encoding="utf-8") as f:
                f.write(data)
        with open(f"{tmp}/vars", "w", encoding="utf-8") as f:
            f.write(chart_vars)
        sys.stdout.flush()
        return subprocess.call(["gnuplot", "-e", f"datafile='{tmp}/data'; out='{png}'; load '{tmp}/vars'",
                                f"{HERE}/plots/lab/accuracy.gp"])


def cli(argv):
    if argv[0] == "plot-accuracy":
        p = argparse.ArgumentParser(prog="report plot-accuracy", description="Draw the accuracy lab's chart.")
        p.add_argument("csv", help="the lab's CSV (scripts/accuracy.sh)")
        p.add_argument("png", help="the chart to write")
        a = p.parse_args(argv[1:])
        return plot_accuracy(a.csv, a.png)
    p = argparse.ArgumentParser(prog="report accuracy", description="The accuracy lab's tables, in Markdown.")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("csv", help="the lab's CSV (scripts/accuracy.sh)")
    a = p.parse_args(argv[1:])
    sys.stdout.write(accuracy_tables(a.csv, a.lang))
    return 0

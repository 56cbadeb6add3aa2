"""The accuracy lab (scripts/accuracy.sh): its tables and its chart (plots/lab/accuracy.gp), from its CSV.
Tables: each kernel's "error (bound)" on the random and wide data at every fourth power of two of N, then on the
cond data by condition number; FAIL outside the bound (xfail: expected). plot-accuracy exits 2 on a bad CSV,
4 without gnuplot, else as gnuplot."""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile

from common import command, n_head, num, number, read_csv, rule, text

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def kernel_rows(csv, need):
    """The rows of the lab's kernels (not the device's, not CUB's), each with its label ("NN kernel") and
    its x (cond for the cond data, else n); and the labels in order."""
    rows = [r for r in read_csv(csv, need) if r["stage"] != "00_device" and r["kernel"] != "cub"]
    for r in rows:
        r["label"], r["x"] = f"{number(r['stage'])} {r['kernel']}", r["cond"] if r["fill"] == "cond" else r["n"]
    return rows, list(dict.fromkeys(r["label"] for r in rows))

def every_fourth_power(n):
    """Whether N is a fourth power of two (2^0, 2^4, 2^8, ...), within half a power (log2 as awk has it)."""
    e = math.log(num(n)) / math.log(2) if num(n) > 0 else None
    return e is not None and e - int(e / 4) * 4 < 0.5

def cell(found):
    """One cell: "error (bound)", marked where the check failed; " - " where there is no result."""
    if found is None:
        return " - |"
    err, bound, verdict = found
    return " %s (%s)%s |" % ("%.1e" % num(err) if "0" <= err[:1] <= "9" else err,
                             "-" if bound == "" else "%.1e" % num(bound),
                             "" if verdict == "1" else " xfail" if verdict == "xfail" else " FAIL")

def accuracy_tables(csv, lang="en"):
    """The lab's tables in LANG: against N (random, wide), then against the condition number (cond)."""
    rows, labels = kernel_rows(csv, "stage kernel n rel_err pass fill rel_bound cond")
    result = {(r["label"], r["fill"], r["x"]): (r["rel_err"], r["rel_bound"], r["pass"]) for r in rows}
    ns = sorted(dict.fromkeys(r["x"] for r in rows if r["fill"] != "cond" and every_fourth_power(r["x"])), key=num)
    conds = sorted(dict.fromkeys(r["x"] for r in rows if r["fill"] == "cond"), key=num)
    out = text(lang, "error by N") + "\n\n" + n_head(text(lang, "error head"), ns, left=2)
    for fill in ("random", "wide"):
        for label in labels:
            out += f"| `{label}` | {fill} |" + "".join(cell(result.get((label, fill, n))) for n in ns) + "\n"
    if not conds:
        return out
    condn = [r["n"] for r in rows if r["fill"] == "cond"][-1]
    out += "\n" + text(lang, "error by cond") % num(condn) + "\n\n"
    out += "| kernel |" + "".join(f" {c} |" for c in conds) + "\n" + rule("l" + "r" * len(conds))
    for label in labels:
        out += f"| `{label}` |" + "".join(cell(result.get((label, "cond", c))) for c in conds) + "\n"
    return out

def chart_files(csv):
    """The chart's data file and variables (gnuplot -e). Data: for each panel (random, wide, cond) and each
    kernel, a block "title", then lines "x rel_err rel_bound" sorted by x (NaN: no point), blocks separated by
    two blank lines, every panel with the same kernels, so that block i + p * series is kernel i's in panel p."""
    rows, labels = kernel_rows(csv, "gpu stage kernel n rel_err pass fill rel_bound cond")
    data = ""
    for panel in ("random", "wide", "cond"):
        for label in labels:
            points = sorted((r for r in rows if r["label"] == label and r["fill"] == panel), key=lambda r: num(r["x"]))
            data += f'"{label}"\n' + "".join("%s %s %s\n" % (r["x"], r["rel_err"] if num(r["rel_err"]) > 0 else "NaN",
                                                           r["rel_bound"] or "NaN") for r in points) + "\n\n"
    condn, gpu = ([r["n"] for r in rows if r["fill"] == "cond"] or [""])[-1], rows[-1]["gpu"] if rows else ""
    return data, 'series = %d; condn = %.0f; gpu = "%s"\n' % (len(labels), num(condn), gpu)

def plot_accuracy(csv, png):
    """Draw the chart into PNG with gnuplot; the exit code (2 bad CSV, 4 gnuplot missing, else gnuplot's)."""
    if not os.path.exists(csv) or os.path.getsize(csv) == 0:
        print(f"error: {csv} is missing or empty", file=sys.stderr)
        return 2
    if not shutil.which("gnuplot"):
        print(f"gnuplot not found: {png} not drawn", file=sys.stderr)
        return 4
    data, chart_vars = chart_files(csv)
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in (("data", data), ("vars", chart_vars)):
            if content:  # no kernel rows, no data file
                with open(f"{tmp}/{name}", "w", encoding="utf-8") as f:
                    f.write(content)
        sys.stdout.flush()
        return subprocess.call(["gnuplot", "-e", f"datafile='{tmp}/data'; out='{png}'; load '{tmp}/vars'",
                                f"{HERE}/plots/lab/accuracy.gp"])

def cli(argv):
    return command(argv, "The accuracy lab's tables, in Markdown.", accuracy_tables,
                   ("csv", {"help": "the lab's CSV (scripts/accuracy.sh)"}))

def plot_accuracy_cli(argv):
    p = argparse.ArgumentParser(prog="report plot-accuracy", description="Draw the accuracy lab's chart.")
    p.add_argument("csv", help="the lab's CSV (scripts/accuracy.sh)")
    p.add_argument("png", help="the chart to write")
    a = p.parse_args(argv[1:])
    return plot_accuracy(a.csv, a.png)

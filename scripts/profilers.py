"""The profilers' outputs, read for the scripts that profile (limits.sh, flush_check.sh, stage_tool.sh,
tree.sh): python3 scripts/profilers.py ncu|sass ARGS...; its modes: docs/report.md#profilers. It reads what
ncu and cuobjdump print, and no results CSV: the reporting program (scripts/report) reads what it writes."""
import argparse
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from common import fail, read_text  # noqa: E402 (the reporting program's: an error's form, a file read)

# How many metrics each mode reads (--metrics, in the order of its columns; docs/report.md#profilers).
METRICS = {"limits": 7, "flush": 1, "shared": 4, "profile": 21, "kernels": 1}
# The summary's columns and their SASS patterns; a load counts once, at its widest pattern.
# A global load's width is a part of its name, among modifiers that may come before it (LDG.E.EF.128: a
# streamed 16-byte load, as __ldcs compiles) or after it (LDG.E.128.CONSTANT); no width part: 32 bits or less.
LOADS = (("ldg128", r" LDG(\.\w+)*\.128\b"), ("ldg64", r" LDG(\.\w+)*\.64\b"), ("ldg32", r" LDG\."))
OTHERS = (("bfly", r" SHFL\.BFLY"), ("down", r" SHFL\.DOWN"), ("bar", r" BAR\.SYNC"), ("warpsync", r" WARPSYNC"),
          ("atom", r" (RED|REDG|ATOM|ATOMG|ATOMS)\."))

def value(v):
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return 0

def launches(path):
    """Each launch's kernel and {metric: value}, in the order launched; every field of the CSV is quoted."""
    col, found = {}, {}
    for line in read_text(path, "replace").splitlines():
        fields = re.findall(r'"([^"]*)"', line)
        if line.startswith('"ID"'):
            col.update((name, i) for i, name in enumerate(fields))
        elif col.get("Metric Value", len(fields)) < len(fields):
            launch, kernel, metric, v = ((fields[col.get(name, len(fields)):] + [""])[0]
                                         for name in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
            found.setdefault(launch, (kernel, {}))[1][metric] = value(v)
    return list(found.values())

def runs(launched, library):
    """The metrics of each run's launches: a launch ends one unless the library's and not its last."""
    first, _, last = library.partition(" ")
    found, run = [], []
    for kernel, metrics in launched:
        run.append(metrics)
        if not first or first not in kernel or last in kernel:
            found, run = found + [run], []
    return found

def limits_rows(path, gpu, stage, n, dtype, names, library, metrics):
    (time, read, *longest), want, found = metrics, names.split(), runs(launches(path), library)
    if len(found) != 2 * len(want):
        fail(f"{len(found)} runs profiled, expected {2 * len(want)} (a checked and a timed run of each of "
             f"{names})", 1)
    out = ""
    for name, run in zip(want, found[1::2]):
        times = [counters.get(time, 0) for counters in run]
        top = run[times.index(max(times))]
        out += "%s,%s,%s,%s,%s,%d,%d,%.3f,%.0f,%.1f,%.1f,%.2f,%.2f\n" % (
            gpu, stage, name, dtype, n, len(run), top.get(longest[0], 0), sum(times) / 1000,
            sum(counters.get(read, 0) for counters in run), *(top.get(m, 0) for m in longest[1:]))
    return out

def flush_reading(path, regex, last, library, metric):
    try:
        kernels = re.compile(regex)
    except re.error as e:
        fail(f"--re {regex}: {e}")
    launched = [(k, counters) for k, counters in launches(path) if metric in counters and kernels.search(k)]
    read = [sum(counters[metric] for counters in run) for run in runs(launched, library)]
    judged = read[-last:] if 0 < last < len(read) else read
    return "%d %.0f" % (len(judged), min(judged, default=-1))

def kernels_time(path, runs, metric):
    """One kernel's RUNS runs, its launches alone in the profile (the first run the checked one): the median of
    the timed runs' summed launch times (µs), and the launches a run."""
    times = [counters[metric] for _, counters in launches(path) if metric in counters]
    if runs < 2 or not times or len(times) % runs:
        fail(f"{len(times)} launches profiled: not a whole number of launches for each of {runs} runs (at least 2)", 1)
    each = len(times) // runs
    timed, half = sorted(sum(times[i:i + each]) / 1000 for i in range(each, len(times), each)), (runs - 1) // 2
    return "%.3f %d\n" % (timed[half] if len(timed) % 2 else (timed[half] + timed[half + 1]) / 2, each)

def shared_counts(path, metrics):
    found = {}
    for _, counters in launches(path):
        found.update(counters)
    counts = tuple(found.get(m, 0) for m in metrics)
    return "ld %d %d\nst %d %d\n" % counts if found else "", 0 if found else 1

def profile_table(path, metrics, n=""):
    def per(a, b):
        return "%.2f" % (a / b) if b > 0 else "-"
    last = {}  # each kernel's metrics at its last launch
    for kernel, found in launches(path):
        last.setdefault(re.sub(r"^void ", "", re.sub(r"\(.*", "", kernel, count=1)), {}).update(found)
    elements = value(n)
    out = "%-50s %7s %6s %8s %6s %6s %8s %7s %7s %7s %7s %7s %10s %8s %8s %8s %7s %9s\n" % (
        "kernel", "dram%", "occ%", "thr/inst", "ld wf", "st wf", "sect/req", "ld B/el", "L1 hit%", "L2 hit%",
        "rd B/el", "wr B/el", "atomics", "long_sb", "barrier", "short_sb", "membar", "time(us)")
    for k, found in last.items():
        (dram, occupancy, threads, ld, ld_wf, st, st_wf, requests, sectors, ld_bytes, l1_hit, l2_hit, dram_read,
         dram_write, atom, red, long_sb, barrier, short_sb, membar, time) = (found.get(m, 0) for m in metrics)
        out += "%-50s %7.1f %6.1f %8.1f %6s %6s %8s %7s %7.1f %7.1f %7s %7s %10d %8.2f %8.2f %8.2f %7.2f %9.1f\n" % (
            k[:50], dram, occupancy, threads, per(ld_wf, ld), per(st_wf, st), per(sectors, requests),
            per(ld_bytes, elements), l1_hit, l2_hit, per(dram_read, elements), per(dram_write, elements),
            atom + red, long_sb, barrier, short_sb, membar, time / 1000)
    return out

def ncu(mode, ncu_csv, gpu, stage, n, dtype, names, regex, last, metrics, library):
    metrics = metrics.split(",")
    if len(metrics) != METRICS[mode]:
        fail(f"--metrics names {len(metrics)} metrics; {mode} reads {METRICS[mode]} (docs/report.md)")
    if mode == "limits":
        return limits_rows(ncu_csv, gpu, stage, n, dtype, names, library, metrics)
    if mode == "flush":
        return flush_reading(ncu_csv, regex, last, library, *metrics)
    if mode == "kernels":
        return kernels_time(ncu_csv, last, *metrics)
    return shared_counts(ncu_csv, metrics) if mode == "shared" else profile_table(ncu_csv, metrics, n)

def sass(ptxas, sass):
    """The summary, a line per kernel in the order of the SASS, from it and the assembler's report PTXAS."""
    report, sass = (read_text(path, "replace") for path in (ptxas, sass))
    resources = {}  # kernel: (registers, shared bytes), of its last "Used" line
    for kernel, body in re.findall(r"Compiling entry function[^\n]*?(_Z[A-Za-z0-9_]+)(.*?)(?=Compiling entry|\Z)",
                                   report, re.S):
        for line in re.findall(r".*Used [0-9]+ registers.*", body):
            smem = re.search(r"([0-9]+) bytes smem", line)
            resources[kernel] = (re.search(r"Used ([0-9]+)", line).group(1), smem.group(1) if smem else "0")
    counts, order = {}, []  # a kernel listed again (another architecture) shows its last counts
    for kernel, body in re.findall(r"Function : (\S+)(.*?)(?=Function : |\Z)", sass, re.S):
        counts[kernel], order = Counter(), order + [kernel]
        for line in body.split("\n"):
            load = next((name for name, pattern in LOADS if re.search(pattern, line)), None)
            counts[kernel].update([load] if load else [name for name, pattern in OTHERS if re.search(pattern, line)])
    out = ""
    for kernel in order:
        c, (regs, smem) = counts[kernel], resources.get(kernel, ("?", "?"))
        out += (f"{kernel}\n    LDG<=32 {c['ldg32']}  LDG.64 {c['ldg64']}  LDG.128 {c['ldg128']} | SHFL.BFLY "
                f"{c['bfly']}  SHFL.DOWN {c['down']} | BAR.SYNC {c['bar']}  WARPSYNC {c['warpsync']} | RED/ATOM "
                f"{c['atom']} | {regs} registers, {smem} bytes shared\n")
    return out

def main(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/profilers.py", description=__doc__)
    commands = parser.add_subparsers(metavar="COMMAND", required=True)
    command = commands.add_parser("ncu", help="the metric values of an Nsight Compute CSV")
    command.set_defaults(function=ncu)
    command.add_argument("--mode", choices=tuple(METRICS), required=True)
    for column in ("gpu", "stage", "n", "dtype"):
        command.add_argument(f"--{column}", default="", help=f"limits: the {column} column")
    command.add_argument("--names", default="", help="limits: the runs' kernels, in order (the library's first)")
    command.add_argument("--re", dest="regex", default="", help="flush: the GPU functions to read (a regex)")
    command.add_argument("--last", type=int, default=0,
                         help="flush: judge only the last LAST runs (0: all); kernels: the runs profiled")
    command.add_argument("--metrics", required=True, help="its columns' metrics, comma-separated (docs/report.md)")
    command.add_argument("--library", default="", help="limits, flush: the library's launches, FIRST LAST (--describe)")
    command.add_argument("ncu_csv", help="the output of ncu --csv --print-units base")
    command = commands.add_parser("sass", help="make stage-NN sass's summary line per kernel")
    command.set_defaults(function=sass)
    command.add_argument("ptxas")
    command.add_argument("sass")
    args = vars(parser.parse_args(argv))
    got = args.pop("function")(**args)
    out, status = got if isinstance(got, tuple) else (got, 0)
    sys.stdout.write(out)
    return status

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

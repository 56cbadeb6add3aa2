"""The profilers' outputs, read for the scripts that profile: ncu's modes and sass
(docs/report.md#profilers)."""
import re
from collections import Counter

from common import fail, read_text

TIME, BYTES = "gpu__time_duration.sum", "dram__bytes_read.sum"
# limits.csv's columns from grid on, after time_us and dram_bytes: the counters of a run's longest launch.
LONGEST = ("launch__grid_size", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio")
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
    for line in read_text(path, errors="surrogateescape").splitlines():
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

def limits_rows(path, gpu, stage, n, dtype, names, library):
    want, found = names.split(), runs(launches(path), library)
    if len(found) != 2 * len(want):
        fail(f"{len(found)} runs profiled, expected {2 * len(want)} (a checked and a timed run of each of "
             f"{names})", 1)
    out = ""
    for name, run in zip(want, found[1::2]):
        time = [metrics.get(TIME, 0) for metrics in run]
        longest = run[time.index(max(time))]
        out += "%s,%s,%s,%s,%s,%d,%d,%.3f,%.0f,%.1f,%.1f,%.2f,%.2f\n" % (
            gpu, stage, name, dtype, n, len(run), longest.get(LONGEST[0], 0), sum(time) / 1000,
            sum(metrics.get(BYTES, 0) for metrics in run), *(longest.get(m, 0) for m in LONGEST[1:]))
    return out

def flush_reading(path, regex, last, library):
    try:
        kernels = re.compile(regex)
    except re.error as e:
        fail(f"--re {regex}: {e}")
    read = [sum(metrics[BYTES] for metrics in run) for run in runs(
        [(k, metrics) for k, metrics in launches(path) if BYTES in metrics and kernels.search(k)], library)]
    judged = read[-last:] if 0 < last < len(read) else read
    return "%d %.0f" % (len(judged), min(judged, default=-1))

def shared_counts(path):
    found = {}
    for _, metrics in launches(path):
        found.update(metrics)
    return "".join("%s %d %d\n" % (op, found.get(f"smsp__sass_inst_executed_op_shared_{op}.sum", 0),
                                   found.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", 0))
                   for op in ("ld", "st")) if found else "", 0 if found else 1

def profile_table(path, metrics, n=""):
    def per(a, b):
        return "%.2f" % (a / b) if b > 0 else "-"
    last = {}  # each kernel's metrics at its last launch
    for kernel, found in launches(path):
        last.setdefault(re.sub(r"^void ", "", re.sub(r"\(.*", "", kernel, count=1)), {}).update(found)
    names, elements = metrics.split(","), value(n)
    if len(names) != 21:
        fail(f"--metrics names {len(names)} metrics; the profile table reads 21 (stage_tool.sh's order)")
    out = "%-50s %7s %6s %8s %6s %6s %8s %7s %7s %7s %7s %7s %10s %8s %8s %8s %7s %9s\n" % (
        "kernel", "dram%", "occ%", "thr/inst", "ld wf", "st wf", "sect/req", "ld B/el", "L1 hit%", "L2 hit%",
        "rd B/el", "wr B/el", "atomics", "long_sb", "barrier", "short_sb", "membar", "time(us)")
    for k, found in last.items():
        (dram, occupancy, threads, ld, ld_wf, st, st_wf, requests, sectors, ld_bytes, l1_hit, l2_hit, dram_read,
         dram_write, atom, red, long_sb, barrier, short_sb, membar, time) = (found.get(m, 0) for m in names)
        out += "%-50s %7.1f %6.1f %8.1f %6s %6s %8s %7s %7.1f %7.1f %7s %7s %10d %8.2f %8.2f %8.2f %7.2f %9.1f\n" % (
            k[:50], dram, occupancy, threads, per(ld_wf, ld), per(st_wf, st), per(sectors, requests),
            per(ld_bytes, elements), l1_hit, l2_hit, per(dram_read, elements), per(dram_write, elements),
            atom + red, long_sb, barrier, short_sb, membar, time / 1000)
    return out

def ncu(mode, ncu_csv, gpu, stage, n, dtype, names, regex, last, metrics, library):
    if mode == "limits":
        return limits_rows(ncu_csv, gpu, stage, n, dtype, names, library)
    if mode == "flush":
        return flush_reading(ncu_csv, regex, last, library)
    return shared_counts(ncu_csv) if mode == "shared" else profile_table(ncu_csv, metrics, n)

def sass(ptxas, sass):
    """The summary, a line per kernel in the order of the SASS, from it and the assembler's report PTXAS."""
    report, sass = (read_text(path, errors="replace") for path in (ptxas, sass))
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

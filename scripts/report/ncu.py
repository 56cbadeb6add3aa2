"""Nsight Compute's CSV (ncu --csv --print-units base) read for the scripts that profile. A run is one launch,
or for CUB its kernels up to its single-tile one.
  --mode limits (limits.sh): limits.csv's rows of the timed runs (every second run) of --names, in order: a CUB
    run's kernels' time and bytes together, the other counters of its longest launch. Exit 1 unless 2 runs each.
  --mode flush (flush_check.sh): "RUNS LEAST": how many runs of the kernels matching --re are judged (the --last
    ones, 0: all) and the least DRAM bytes one of them read (-1: none).
  --mode shared (tree.sh agree): "ld I W" and "st I W", the shared-memory instructions and wavefronts of loads
    and stores. Exit 1 where the profile has no reading."""
import argparse
import re
import sys

from common import fail, num

TIME, BYTES = "gpu__time_duration.sum", "dram__bytes_read.sum"
# limits.csv's columns from grid on, after time_us and dram_bytes: the counters of a run's longest launch.
LONGEST = ("launch__grid_size", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
           "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio")

def metric_rows(path):
    """(launch ID, kernel, metric, value without its commas) of each metric row; every field is quoted."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    col = {}
    for line in lines:
        fields = re.findall(r'"([^"]*)"', line)
        if line.startswith('"ID"'):
            col.update((name, i) for i, name in enumerate(fields))
        elif col.get("Metric Value", len(fields)) < len(fields):
            got = [fields[col[name]] if col.get(name, len(fields)) < len(fields) else ""
                   for name in ("ID", "Kernel Name", "Metric Name", "Metric Value")]
            yield got[0], got[1], got[2], got[3].replace(",", "")

def ends_run(kernel):
    """Whether a launch of KERNEL ends a run: CUB's single-tile kernel, or any launch not CUB's."""
    return "DeviceReduce" not in kernel or "SingleTile" in kernel

def limits_rows(path, gpu, stage, n, dtype, names):
    kernel_of, value, runs, run = {}, {}, [], []
    for launch, kernel, metric, v in metric_rows(path):
        kernel_of.setdefault(launch, kernel)
        value[launch, metric] = num(v)
    for launch, kernel in kernel_of.items():
        run.append(launch)
        if ends_run(kernel):
            runs, run = runs + [run], []
    want = names.split()
    if len(runs) != 2 * len(want):
        fail(f"{len(runs)} runs profiled, expected {2 * len(want)} (a checked and a timed run of each of {names})", 1)
    out = ""
    for name, run in zip(want, runs[1::2]):
        reading = [[value.get((launch, metric), 0) for launch in run] for metric in (TIME, BYTES)]
        longest = run[reading[0].index(max(reading[0]))]
        out += "%s,%s,%s,%s,%s,%d,%d,%.3f,%.0f,%.1f,%.1f,%.2f,%.2f\n" % (
            gpu, stage, name, dtype, n, len(run), value.get((longest, LONGEST[0]), 0), sum(reading[0]) / 1000,
            sum(reading[1]), *(value.get((longest, metric), 0) for metric in LONGEST[1:]))
    return out, 0

def flush_reading(path, regex, last=0):
    try:
        kernels = re.compile(regex)
    except re.error as e:
        fail(f"--re {regex}: {e}")
    runs, acc = [], 0
    for _, kernel, metric, v in metric_rows(path):
        if metric == BYTES and kernels.search(kernel):
            acc += num(v)
            if ends_run(kernel):
                runs, acc = runs + [acc], 0
    judged = runs[-last:] if 0 < last < len(runs) else runs
    return "%d %.0f" % (len(judged), min(judged, default=-1)), 0

def shared_counts(path):
    value = {metric: v for _, _, metric, v in metric_rows(path)}
    return "".join("%s %d %d\n" % (op, num(value.get(f"smsp__sass_inst_executed_op_shared_{op}.sum", "0")),
                                   num(value.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", "0")))
                   for op in ("ld", "st")) if value else "", 0 if value else 1

def cli(argv):
    p = argparse.ArgumentParser(prog="report ncu", description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--mode", choices=("limits", "flush", "shared"), required=True)
    for column in ("gpu", "stage", "n", "dtype"):
        p.add_argument(f"--{column}", default="", help=f"limits: the {column} column")
    p.add_argument("--names", default="", help="limits: the kernels of the runs, in order, e.g. 'cub roofline_f32'")
    p.add_argument("--re", default="", help="flush: the GPU functions to read (a regex)")
    p.add_argument("--last", type=int, default=0, help="flush: judge only the last LAST runs (0: all)")
    p.add_argument("ncu_csv", help="the output of ncu --csv --print-units base")
    a = p.parse_args(argv[1:])
    out, status = (limits_rows(a.ncu_csv, a.gpu, a.stage, a.n, a.dtype, a.names) if a.mode == "limits" else
                   flush_reading(a.ncu_csv, a.re, a.last) if a.mode == "flush" else shared_counts(a.ncu_csv))
    sys.stdout.write(out)
    return status

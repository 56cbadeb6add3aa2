"""The readings of Nsight Compute's CSV (ncu --csv --print-units base: its header line starts with "ID";
columns ID, Kernel Name, Metric Name and Metric Value), for the scripts that profile under ncu:
  --mode limits (scripts/limits.sh): the profile of a program's checked and timed run of each of NAMES
    (CUB first), as the rows of limits.csv, one per timed run: GPU,STAGE,kernel,DTYPE,N,launches,grid,
    time_us,dram_bytes,dram_pct,occupancy,long_sb,membar (a CUB run: its kernels' time and bytes
    together, the other counters of its longest kernel). Exit 1 where the runs are not two of each.
  --mode flush (scripts/flush_check.sh): the DRAM bytes read by the runs of the kernels matching RE, as
    "RUNS LEAST": how many runs are judged (the LAST ones, 0: all) and the least bytes any of them read
    (-1: none), with no newline.
  --mode shared (scripts/tree.sh agree): the shared-memory instructions and wavefronts of a one-launch
    profile, of loads and of stores, as the lines "ld I W" and "st I W". Exit 1 where there is no reading.
A run is one launch, or for CUB its kernels up to its single-tile one.
usage: python3 scripts/report ncu --mode limits --gpu GPU --stage STAGE --n N --dtype DTYPE --names NAMES NCU_CSV
       python3 scripts/report ncu --mode flush --re RE [--last LAST] NCU_CSV
       python3 scripts/report ncu --mode shared NCU_CSV"""
import argparse
import re
import sys

from common import fail, num

QUOTED = re.compile(r'"[^"]*"')
TIME, BYTES = "gpu__time_duration.sum", "dram__bytes_read.sum"


def metric_rows(path):
    """The metric rows of an ncu output, as (launch ID, kernel, metric, value with its commas removed).
    Every field is quoted (a value may hold commas); the lines that are not a metric row (the program's own
    output, the header) are left out."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if lines and lines[-1] == "":
        lines.pop()
    col = {}
    for line in lines:
        fields = [q[1:-1] for q in QUOTED.findall(line)]
        if line.startswith('"ID"'):
            col.update((name, i) for i, name in enumerate(fields))
            continue
        if "Metric Value" not in col or len(fields) <= col["Metric Value"]:
            continue

        def field(name):
            return fields[col[name]] if col.get(name, len(fields)) < len(fields) else ""
        yield field("ID"), field("Kernel Name"), field("Metric Name"), field("Metric Value").replace(",", "")


def ends_run(kernel):
    """Whether a launch of KERNEL ends a run of the harness: a CUB run ends with its single-tile kernel,
    any other launch is a run by itself."""
    return "DeviceReduce" not in kernel or "SingleTile" in kernel


def runs_of(launches):
    """The launches (ID, kernel), in order, grouped into runs (lists of IDs); a last run left unended is not one."""
    runs, run = [], []
    for launch, kernel in launches:
        run.append(launch)
        if ends_run(kernel):
            runs.append(run)
            run = []
    return runs


def limits_rows(path, gpu, stage, n, dtype, names):
    """limits.csv's rows of the timed runs (every second run) of NAMES (space-separated, in the order run)."""
    kernel_of, value = {}, {}
    for launch, kernel, metric, v in metric_rows(path):
        kernel_of.setdefault(launch, kernel)
        value[launch, metric] = v
    runs, want = runs_of(kernel_of.items()), names.split()
    if len(runs) != 2 * len(want):
        fail(f"{len(runs)} runs profiled, expected {2 * len(want)} (a checked and a timed run of each of {names})", 1)

    def reading(launch, metric):
        return num(value.get((launch, metric), ""))
    out = ""
    for name, run in zip(want, runs[1::2]):
        t, b, longest = 0, 0, ""
        for launch in run:
            t += reading(launch, TIME)
            b += reading(launch, BYTES)
            if longest == "" or reading(launch, TIME) > reading(longest, TIME):
                longest = launch
        out += "%s,%s,%s,%s,%s,%d,%d,%.3f,%.0f,%.1f,%.1f,%.2f,%.2f\n" % (
            gpu, stage, name, dtype, n, len(run), reading(longest, "launch__grid_size"), t / 1000, b,
            reading(longest, "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            reading(longest, "sm__warps_active.avg.pct_of_peak_sustained_active"),
            reading(longest, "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
            reading(longest, "smsp__average_warps_issue_stalled_membar_per_issue_active.ratio"))
    return out


def flush_reading(path, regex, last=0):
    """"RUNS LEAST" of the runs of the kernels matching REGEX: the last LAST runs (0: all), and the least
    DRAM bytes one of them read (-1 where there is none)."""
    try:
        kernels = re.compile(regex)
    except re.error as e:
        fail(f"--re {regex}: {e}")
    bytes_of, acc = [], 0
    for _, kernel, metric, v in metric_rows(path):
        if metric != BYTES or not kernels.search(kernel):
            continue
        acc += num(v)
        if ends_run(kernel):
            bytes_of.append(acc)
            acc = 0
    judged = bytes_of[-last:] if 0 < last < len(bytes_of) else bytes_of
    least = -1
    for b in judged:
        if least < 0 or b < least:
            least = b
    return "%d %.0f" % (len(judged), least)


SHARED = {"ld": ("smsp__sass_inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
          "st": ("smsp__sass_inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")}


def shared_counts(path):
    """"ld I W" and "st I W": the shared-memory instructions and wavefronts of loads and stores."""
    value = {metric: v for _, _, metric, v in metric_rows(path)}
    if not value:
        return None
    return "".join("%s %d %d\n" % (op, num(value.get(i, "0")), num(value.get(w, "0"))) for op, (i, w) in SHARED.items())


def cli(argv):
    p = argparse.ArgumentParser(prog="report ncu", description="The readings of an Nsight Compute CSV (ncu --csv).")
    p.add_argument("--mode", choices=("limits", "flush", "shared"), required=True,
                   help="limits: limits.csv rows (scripts/limits.sh); flush: RUNS LEAST (scripts/flush_check.sh); "
                        "shared: ld/st instructions and wavefronts (scripts/tree.sh agree)")
    p.add_argument("--gpu", default="", help="limits: the GPU column")
    p.add_argument("--stage", default="", help="limits: the stage column")
    p.add_argument("--n", default="", help="limits: the n column")
    p.add_argument("--dtype", default="", help="limits: the dtype column")
    p.add_argument("--names", default="", help="limits: the kernels of the runs, in order, e.g. 'cub roofline_f32'")
    p.add_argument("--re", default="", help="flush: the GPU functions to read (a regex)")
    p.add_argument("--last", type=int, default=0, help="flush: judge only the last LAST runs (0: all)")
    p.add_argument("ncu_csv", help="the output of ncu --csv --print-units base")
    a = p.parse_args(argv[1:])
    if a.mode == "limits":
        sys.stdout.write(limits_rows(a.ncu_csv, a.gpu, a.stage, a.n, a.dtype, a.names))
    elif a.mode == "shared":
        counts = shared_counts(a.ncu_csv)
        if counts is None:
            return 1
        sys.stdout.write(counts)
    else:
        sys.stdout.write(flush_reading(a.ncu_csv, a.re, a.last))
    return 0

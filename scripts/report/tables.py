"""Markdown tables of a results CSV. Columns read: gpu, stage, kernel, dtype, n, median_us, gbps,
rel_err, pass, cols, l2, bytes_read, fill; and each stage's charts from its description.
  all    every fp32 kernel of the progression, then CUB (the median of the progression's CUB rows)
         and the speed of light
  best   the fastest fp32 kernel of each stage of the progression, then CUB and the speed of light
  stage  every kernel of one stage, its CUB rows included, at the stage's largest N, with each row's
         relative error against the fp64 sum; a row stage (rows with a cols value) gets GB/s by row
         length instead
The progression is the stages whose charts have bandwidth or bandwidth+, read at the largest N of its
first stage (the stage of the speed-up baseline). The ratios are computed here, from one row per N, so
that within a table at one N the faster kernel always has the larger ones: speed-up, the baseline's
time (the first stage's baseline kernel, as its description names it) over the row's, for the rows
whose program has a speed-up (a sum, not a scan); x CUB, CUB's time (the median of the progression's
CUB rows of the row's input type) over the row's; a stage's own table keeps its program's x CUB, CUB
timed in the same run ("-" where there is none). A stage's rows are those of its first fill (the bench's first); a repeated row: the last
one wins.
Rows timed with the input left in L2 (l2 = warm) are not in these tables. The speed of light: the
shortest launch floor plus the bytes over the fastest read-only bandwidth any program of the run measured.
usage: python3 scripts/report table --mode all|best|stage [--stage NN_name] [--lang en|zh] CSV"""
import argparse
import re
import sys

from common import awk_str, chart_tokens, description, fail, num, number, passed, read_csv, say




def check(p):
    """A row's check as the stage tables print it (an expected overflow is xfail)."""
    return "ok" if passed(p) else "xfail" if p == "xfail" else "FAIL"


def divide(a, b):
    """a / b as awk divides: by zero gives inf (or nan), as on a CSV without device rows."""
    if b:
        return a / b
    return float("nan") if a == 0 else float("inf") if a > 0 else float("-inf")


def fixed(spec, x):
    """x formatted as C's printf does: a NaN (awk's 0 / 0, on x86) prints as -nan."""
    return "-nan" if x != x else spec % x


def times(v):
    """A ratio as the tables print it, from a value of the CSV or one computed here."""
    if v == "":
        return "-"
    return fixed("%.3f", num(v)) + "x" if num(v) < 0.1 else fixed("%.2f", num(v)) + "x"


def median(values):
    """The median of the non-empty values; "" for none."""
    a = sorted((v for v in values if v != ""), key=num)
    if not a:
        return ""
    k = len(a)
    return a[k // 2] if k % 2 else (num(a[k // 2 - 1]) + num(a[k // 2])) / 2


class Run:
    """What the tables need of a results CSV: the device's limits, the kernel rows that MODE (and
    STAGE) keeps by (stage, kernel, dtype) and n, and a row stage's GB/s by (kernel, cols)."""

    def __init__(self, csv_path, mode, stage):
        self.peak, self.copy, self.sol, self.floor = "", "", 0, None
        self.baseline_stage, self.gpu = "", ""
        self.rows, self.keys, self.writes = {}, {}, set()  # keys: a dict for its order
        self.first_stage, self.first_maxn, self.maxn = None, None, None
        self.first_type, self.repeats = {}, set()
        self.rg, self.rok, self.rkernels, self.rcols, self.rtotal = {}, {}, {}, {}, ""
        self.base, self.cubs, first_fill, baseline = {}, {}, {}, None
        rows = read_csv(csv_path, "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub")
        tokens = chart_tokens(csv_path, list(dict.fromkeys(r["stage"] for r in rows if r["stage"] != "00_device")))
        for r in rows:
            if r["l2"] == "warm":
                continue
            if r["stage"] == "00_device":
                self.device(r["kernel"], r["median_us"], r["gbps"])
                continue
            if first_fill.setdefault(r["stage"], r.get("fill", "")) != r.get("fill", ""):
                continue
            # The speed-up baseline: the first stage's (the CSV's first kernel row's), as its description
            # names it, on the input type of that row.
            if baseline is None:
                named = description(csv_path, r["stage"]).get("baseline", [r["kernel"]])[0] or r["kernel"]
                baseline = (r["stage"], named, r["dtype"])
                self.baseline_stage = number(r["stage"])
            if r["cols"] == "" and (r["stage"], r["kernel"], r["dtype"]) == baseline:
                self.base[num(r["n"])] = num(r["median_us"])
            if r["cols"] == "" and r["kernel"] == "cub" and re.search(r" bandwidth\+? ", f" {tokens[r['stage']]} "):
                self.cubs.setdefault((r["dtype"], num(r["n"])), []).append(r["median_us"])
            if r["cols"] != "":
                if mode == "stage" and r["stage"] == stage:
                    self.row_stage(r)
            elif mode == "stage" and r["stage"] == stage or mode != "stage" and progression(r, tokens):
                self.kernel(r)

    def ratios(self, r, own_cub=False):
        """The row's speed-up over the one baseline row at its N, where its program has that ratio (a
        sum; not a scan), and its x CUB: OWN_CUB, the program's own (its CUB, same run: a stage's table),
        else over the progression's CUB at that N ("" where there is none)."""
        n, us = num(r["n"]), num(r["median_us"])
        cub = median(self.cubs.get((r["dtype"], n), []))
        speedup = divide(self.base[n], us) if n in self.base and r.get("speedup", "x") != "" else ""
        return speedup, (r["x_cub"] if own_cub else divide(num(cub), us) if cub != "" else "")

    def device(self, kernel, us, gbps):
        """The DRAM peak, the copy, the fastest read-only bandwidth and the shortest launch floor."""
        if kernel == "dram_peak":
            self.peak = gbps
        if kernel == "d2d_copy":
            self.copy = gbps
        if kernel == "read_sol" and num(gbps) > self.sol:
            self.sol = num(gbps)
        if kernel == "launch_floor" and (self.floor is None or num(us) < self.floor):
            self.floor = num(us)

    def row_stage(self, r):
        self.gpu, self.rtotal, c = r["gpu"], r["n"], num(r["cols"])
        self.rkernels[r["kernel"]] = True
        self.rcols[c] = True
        self.rg[r["kernel"], c], self.rok[r["kernel"], c] = r["gbps"], r["pass"]

    def kernel(self, r):
        s, n, self.gpu = r["stage"], num(r["n"]), r["gpu"]
        if self.first_stage is None:
            self.first_stage = s
        if s == self.first_stage and n > (self.first_maxn or 0):
            self.first_maxn = n
        if n > (self.maxn or 0):
            self.maxn = n
        key = (s, r["kernel"], r["dtype"])
        self.keys[key] = True
        self.rows[key, n] = r
        # GB/s of more than the input (a scan writes its output too): the caption says so.
        if num(r["gbps"]) * num(r["median_us"]) * 1e3 > 1.01 * num(r["bytes_read"]):
            self.writes.add(s)
        first = self.first_type.setdefault((s, r["kernel"]), r["dtype"])
        if first != r["dtype"]:
            self.repeats.add((s, r["kernel"]))

    def label(self, key):
        """The kernel's name. Where a kernel other than CUB runs on several input types (the data sets
        of a histogram), every row of its stage also names its input type; otherwise only the rows of
        a kernel measured on several types do (CUB beside each type's kernels), except its fp32 one,
        the type the stages start from."""
        s, k, dtype = key
        by_type = any(rs == s and rk != "cub" for rs, rk in self.repeats)
        return f"{k} ({dtype})" if by_type or ((s, k) in self.repeats and dtype != "f32") else k


def progression(r, tokens):
    """An fp32 row of a stage whose charts have bandwidth or bandwidth+."""
    return r["dtype"] == "f32" and re.search(r" bandwidth\+? ", f" {tokens[r['stage']]} ") is not None


def row(run, label, us, gbps, speedup, x_cub, ok, err=None):
    """A table row; ERR, where given, is a column of its own (the stage tables)."""
    err_cell = "" if err is None else ("-" if err == "-" else "0" if num(err) == 0 else "%.1e" % num(err)) + " | "
    return "| %s | %s | %s | %s | %s | %s | %s%s |\n" % (label, fixed("%.1f", num(us)), fixed("%.0f", num(gbps)),
        fixed("%.1f", divide(100 * num(gbps), num(run.peak))), times(speedup), times(x_cub), err_cell, ok)


def rows_table(run, lang):
    """A row stage's table: GB/s by kernel and row length, then the crossover."""
    cols = sorted(run.rcols)
    out = say(lang, "%s, %d fp32 elements as rows of each length; GB/s of the matrix read and the row sums written, medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s.\n\n",
              "%s，%d 个 fp32 元素按各行长排成矩阵；GB/s 按读取的矩阵与写出的行和计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s。\n\n") % (
        run.gpu, num(run.rtotal), num(run.peak))
    out += "| kernel |" + "".join(f" {awk_str(c)} |" for c in cols) + "\n"
    out += "|---|" + "---:|" * len(cols) + "\n"
    for k in run.rkernels:
        out += f"| `{k}` |"
        for c in cols:
            cell = "%.0f%s" % (num(run.rg[k, c]), "" if passed(run.rok[k, c]) else " FAIL") if (k, c) in run.rg else "-"
            out += f" {cell} |"
        out += "\n"
    cross = crossover(run, cols)
    if cross:
        return out + say(lang, "\nCrossover: from %d columns per row on, the fastest block-per-row kernel beats the fastest warp-per-row kernel.\n",
                         "\n交叉点：从每行 %d 列起，最快的每行一个线程块的 kernel 胜过最快的每行一个 warp 的 kernel。\n") % cross
    return out + say(lang, "\nNo crossover in this range: the fastest warp-per-row kernel is at least as fast at every row length.\n",
                     "\n此范围内没有交叉点：在每个行长上，最快的每行一个 warp 的 kernel 都至少一样快。\n")


def crossover(run, cols):
    """The shortest row from which the best block-per-row kernel beats the best warp-per-row one, and
    stays ahead (the article's kernels by name: not the sub-warp groups, the chooser or the softmax
    kernels); 0 for none."""
    cross = 0
    for c in cols:
        def best(prefix):
            return max([num(run.rg.get((k, c), "")) for k in run.rkernels if k.startswith(prefix)] + [0])
        w, b = best("rows_warp_per_row"), best("rows_block_per_row")
        if b > w and not cross:
            cross = c
        if b <= w:
            cross = 0
    return cross


def caption(run, mode, stage, maxn, lang):
    moved = (say(lang, "the bytes each kernel must read and write (a scan's output too)", "每个 kernel 必须读写的字节（扫描还包括它的输出）")
             if mode == "stage" and stage in run.writes else say(lang, "input bytes", "输入字节"))
    return say(lang, "%s, N = %d; GB/s of %s, medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s, measured device-to-device copy %.0f GB/s.\n\n",
               "%s，N = %d；GB/s 按%s计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s，实测设备内拷贝 %.0f GB/s。\n\n") % (
        run.gpu, maxn or 0, moved, num(run.peak), num(run.copy))


def header(mode, base, lang):
    if mode == "best":
        return say(lang, f"| stage | best kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB | check |",
                   f"| 阶段 | 最快的 kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 检查 |") + "\n|---|---|---:|---:|---:|---:|---:|---|\n"
    if mode == "stage":
        return say(lang, f"| kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB | rel. error | check |",
                   f"| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 相对误差 | 检查 |") + "\n|---|---:|---:|---:|---:|---:|---:|---|\n"
    return say(lang, f"| kernel | time (µs) | GB/s | % of peak | speed-up vs {base} | x CUB | check |",
               f"| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 {base} 加速 | x CUB | 检查 |") + "\n|---|---:|---:|---:|---:|---:|---|\n"


def stage_rows(run, maxn):
    out = ""
    for key in run.keys:
        if (key, maxn) in run.rows:
            r = run.rows[key, maxn]
            out += row(run, f"`{run.label(key)}`", r["median_us"], r["gbps"], *run.ratios(r, own_cub=True), check(r["pass"]),
                       r["rel_err"] or "-")
    return out


def progression_rows(run, mode, maxn, lang):
    """Every kernel (all) or each stage's fastest (best), then CUB's median and the speed of light."""
    out, best, cub, base_us, sol_bytes = "", {}, [], "", ""
    at_maxn = [(key, run.rows[key, maxn]) for key in run.keys if (key, maxn) in run.rows]
    if at_maxn:  # the baseline's time and the bytes of every row
        base_us = run.base.get(maxn, "")
        sol_bytes = at_maxn[0][1]["bytes_read"]
    for key, r in at_maxn:
        s, k, _ = key
        if k == "cub":
            cub.append(r)
        elif mode == "all":
            out += row(run, f"{s} `{k}`", r["median_us"], r["gbps"], *run.ratios(r), "ok" if passed(r["pass"]) else "FAIL")
        elif s not in best or num(r["gbps"]) > num(best[s][1]["gbps"]):
            best[s] = (k, r)
    for s, (k, r) in best.items():
        out += row(run, f"{s} | `{k}`", r["median_us"], r["gbps"], *run.ratios(r), "ok" if passed(r["pass"]) else "FAIL")
    cub_us = median(r["median_us"] for r in cub)
    if cub_us != "":
        out += row(run, say(lang, "library", "库") + " | `cub::DeviceReduce::Sum`" if mode == "best" else "`cub::DeviceReduce::Sum`",
                   cub_us, median(r["gbps"] for r in cub), *run.ratios({"n": maxn, "median_us": cub_us, "dtype": "f32"}),
                   "ok" if all(passed(r["pass"]) for r in cub) else "FAIL")
    if run.sol > 0 and sol_bytes != "":
        sol_us = (run.floor or 0) + num(sol_bytes) / run.sol / 1e3
        out += row(run, say(lang, "limit | speed of light", "极限 | 光速") if mode == "best" else say(lang, "speed of light", "光速"),
                   sol_us, divide(num(sol_bytes), sol_us) / 1e3, "" if base_us == "" else divide(base_us, sol_us),
                   "" if cub_us == "" else divide(num(cub_us), sol_us), "-")
    return out


def table(csv_path, mode, stage="", lang="en"):
    """The MODE table (all, best or stage: STAGE's) of CSV_PATH, in LANG."""
    run = Run(csv_path, mode, stage)
    if mode == "stage" and run.rkernels:
        return rows_table(run, lang)
    if not run.keys:
        fail("no kernel rows")
    maxn = run.maxn if mode == "stage" else run.first_maxn
    out = caption(run, mode, stage, maxn, lang) + header(mode, run.baseline_stage, lang)
    return out + (stage_rows(run, maxn) if mode == "stage" else progression_rows(run, mode, maxn, lang))


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report table", description=__doc__.split("\n")[0])
    parser.add_argument("--mode", required=True, choices=("all", "best", "stage"))
    parser.add_argument("--stage", default="", help="the stage of --mode stage, NN_name")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("csv")
    args = parser.parse_args(argv[1:])
    sys.stdout.write(table(args.csv, args.mode, args.stage, args.lang))
    return 0

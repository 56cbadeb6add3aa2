"""Markdown tables of a results CSV. Columns read: gpu, stage, kernel, dtype, n, median_us, gbps,
rel_err, pass, cols, l2, bytes_read, fill; and each stage's charts from its description.
  all    every fp32 kernel of the progression (the stages whose charts have bandwidth or bandwidth+),
         then CUB (the median of its CUB rows) and the speed of light, at the largest N of its first stage
  best   the same with the fastest fp32 kernel of each stage
  stage  every kernel of one stage at its largest N, with the relative error against the fp64 sum; a row
         stage (rows with a cols value): GB/s by row length
Speed-up: the time of the first stage's baseline kernel (its description names it) over the row's; x CUB:
CUB's time over the row's (a stage's table: its program's own x_cub). Of each kernel, input type and N, the
rows of its first fill; a repeated row: the last one wins; rows with l2 = warm are left out. A time whose
spread (the CSV's spread, where it has one) is above its program's "noisy spread" is marked ~.
usage: python3 scripts/report table --mode all|best|stage [--stage NN_name] [--lang en|zh] CSV"""
import re

from common import awk_str, chart_tokens, command, description, device, fail, first_fills, flushed, num, number, passed
from common import read_csv, rule, text

NEED = "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub"

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
    return fixed("%.3f" if num(v) < 0.1 else "%.2f", num(v)) + "x"

def check(r, xfail=False):
    """Row R's check: ok, FAIL, or (XFAIL: a stage's table) xfail for an expected overflow; with the bound
    it was held to, relative to the reference, where the CSV has it (rel_bound)."""
    verdict = "ok" if passed(r["pass"]) else "xfail" if xfail and r["pass"] == "xfail" else "FAIL"
    bound = r.get("rel_bound", "")
    return verdict if bound == "" else "%s (≤ %.1e)" % (verdict, num(bound)) if num(bound) > 0 else verdict + " (exact)"

def median(values):
    """The median of the non-empty values; "" for none."""
    a = sorted((v for v in values if v != ""), key=num)
    if not a:
        return ""
    k = len(a)
    return a[k // 2] if k % 2 else (num(a[k // 2 - 1]) + num(a[k // 2])) / 2

class Run:
    """What a table needs of a results CSV: the device's limits, the baseline's and CUB's times, the rows it keeps."""

    def __init__(self, csv_path, mode, stage):
        rows = flushed(read_csv(csv_path, NEED))
        self.dev, self.base, self.cubs, self.baseline_stage = device(rows), {}, {}, ""
        rows = [r for r in first_fills(rows) if r["stage"] != "00_device"]
        self.csv_path, self.noisy_rows = csv_path, 0
        tokens = chart_tokens(csv_path, list(dict.fromkeys(r["stage"] for r in rows)))
        progression = {s for s, t in tokens.items() if re.search(r" bandwidth\+? ", f" {t} ")}
        baseline = None
        if rows:  # the speed-up baseline: the first row's stage's, as its description names it, on its type
            b = rows[0]
            named = description(csv_path, b["stage"]).get("baseline", [""])[0] or b["kernel"]
            baseline = (b["stage"], named, b["dtype"])
            self.baseline_stage = number(b["stage"])
        for r in (r for r in rows if r["cols"] == ""):
            if (r["stage"], r["kernel"], r["dtype"]) == baseline:
                self.base[num(r["n"])] = num(r["median_us"])
            if r["kernel"] == "cub" and r["stage"] in progression:
                self.cubs.setdefault((r["dtype"], num(r["n"])), []).append(r["median_us"])
        mine = [r for r in rows if (r["stage"] == stage if mode == "stage" else
                                    r["cols"] == "" and r["dtype"] == "f32" and r["stage"] in progression)]
        self.gpu = mine[-1]["gpu"] if mine else ""
        grid, kept = [r for r in mine if r["cols"]], [r for r in mine if not r["cols"]]
        self.rkernels = list(dict.fromkeys(r["kernel"] for r in grid))
        self.rcols = sorted({num(r["cols"]) for r in grid})
        self.rg = {(r["kernel"], num(r["cols"])): (r["gbps"], r["pass"]) for r in grid}
        self.rtotal = grid[-1]["n"] if grid else ""
        self.keys = list(dict.fromkeys((r["stage"], r["kernel"], r["dtype"]) for r in kept))
        self.rows = {((r["stage"], r["kernel"], r["dtype"]), num(r["n"])): r for r in kept}
        # GB/s of more than the input (a scan writes its output too): the caption says so.
        self.writes = {r["stage"] for r in kept
                       if num(r["gbps"]) * num(r["median_us"]) * 1e3 > 1.01 * num(r["bytes_read"])}
        self.repeats = {key[:2] for key in self.keys if [k[:2] for k in self.keys].count(key[:2]) > 1}
        # The largest N of the first stage (a stage's table: of its own rows).
        self.maxn = max((num(r["n"]) for r in kept if r["stage"] == kept[0]["stage"] and num(r["n"]) > 0), default=None)

    def ratios(self, r, own_cub=False):
        """The row's speed-up (where its program has one: a sum, not a scan) and x CUB (OWN_CUB: its own)."""
        n, us = num(r["n"]), num(r["median_us"])
        cub = median(self.cubs.get((r["dtype"], n), []))
        speedup = divide(self.base[n], us) if n in self.base and r.get("speedup", "x") != "" else ""
        return speedup, (r["x_cub"] if own_cub else divide(num(cub), us) if cub != "" else "")

    def noisy(self, r):
        """Whether row R's spread is above its program's noisy spread (counted for the table's note)."""
        limit = description(self.csv_path, r["stage"]).get("noisy spread", [""])[0] if r.get("spread") else ""
        self.noisy_rows += limit != "" and num(r["spread"]) > num(limit)
        return limit != "" and num(r["spread"]) > num(limit)

    def label(self, key):
        """The kernel's name, with its input type on every row of a stage where a kernel other than CUB runs on
        several (a histogram's data sets), else on the rows but fp32 of a kernel that does (CUB)."""
        s, k, dtype = key
        by_type = any(rs == s and rk != "cub" for rs, rk in self.repeats)
        return f"{k} ({dtype})" if by_type or ((s, k) in self.repeats and dtype != "f32") else k

    def row(self, label, us, gbps, speedup, x_cub, ok, err=None, noisy=False):
        """A table row; ERR, where given, is a column of its own (the stage tables); NOISY: the time marked ~."""
        err_cell = "" if err is None else ("-" if err == "-" else "0" if num(err) == 0 else "%.1e" % num(err)) + " | "
        pct = divide(100 * num(gbps), self.dev["peak"])
        return "| %s | %s | %s | %s | %s | %s | %s%s |\n" % (
            label, fixed("%.1f", num(us)) + ("~" if noisy else ""), fixed("%.0f", num(gbps)), fixed("%.1f", pct), times(speedup), times(x_cub),
            err_cell, ok)

def rows_table(run, lang):
    """A row stage's table: GB/s by kernel and row length, then the shortest row from which the best of the
    article's block-per-row kernels beats its best warp-per-row one and stays ahead."""
    out = text(lang, "rows caption") % (run.gpu, num(run.rtotal), run.dev["peak"])
    out += "| kernel |" + "".join(f" {awk_str(c)} |" for c in run.rcols) + "\n" + rule("l" + "r" * len(run.rcols))
    for k in run.rkernels:
        out += f"| `{k}` |"
        for g in (run.rg.get((k, c)) for c in run.rcols):
            out += " - |" if g is None else " %.0f%s |" % (num(g[0]), "" if passed(g[1]) else " FAIL")
        out += "\n"
    cross = 0
    for c in run.rcols:
        w, b = ([num(run.rg.get((k, c), ("",))[0]) for k in run.rkernels if k.startswith(p)] + [0]
                for p in ("rows_warp_per_row", "rows_block_per_row"))
        cross = (cross or c) if max(b) > max(w) else 0
    return out + (text(lang, "crossover") % cross if cross else text(lang, "no crossover"))

def table(csv, mode, stage="", lang="en"):
    """The MODE table (all, best or stage: STAGE's) of the results CSV, in LANG."""
    run = Run(csv, mode, stage)
    if mode == "stage" and run.rkernels:
        return rows_table(run, lang)
    if not run.keys:
        fail("no kernel rows")
    moved = text(lang, "bytes moved" if mode == "stage" and stage in run.writes else "bytes read")
    out = text(lang, "caption") % (run.gpu, run.maxn or 0, moved, run.dev["peak"], run.dev["copy"])
    out += text(lang, "head " + mode).format(base=run.baseline_stage) + "\n"
    out += rule({"best": "llrrrrrl", "all": "lrrrrrl", "stage": "lrrrrrrl"}[mode])
    at_maxn, best, cub = [(key, run.rows[key, run.maxn]) for key in run.keys if (key, run.maxn) in run.rows], {}, []
    for key, r in at_maxn:
        s, k = key[:2]
        if mode == "stage":
            out += run.row(f"`{run.label(key)}`", r["median_us"], r["gbps"], *run.ratios(r, own_cub=True),
                           check(r, xfail=True), r["rel_err"] or "-", run.noisy(r))
        elif k == "cub":
            cub.append(r)
        elif mode == "all":
            out += run.row(f"{s} `{k}`", r["median_us"], r["gbps"], *run.ratios(r), check(r), None, run.noisy(r))
        elif s not in best or num(r["gbps"]) > num(best[s][1]["gbps"]):
            best[s] = (k, r)
    if mode == "stage":
        return out + (text(lang, "noisy note") if run.noisy_rows else "")
    for s, (k, r) in best.items():
        out += run.row(f"{s} | `{k}`", r["median_us"], r["gbps"], *run.ratios(r), check(r), None, run.noisy(r))
    cub_us = median(r["median_us"] for r in cub)
    if cub_us != "":
        label = text(lang, "library") if mode == "best" else "`cub::DeviceReduce::Sum`"
        out += run.row(label, cub_us, median(r["gbps"] for r in cub), *run.ratios({"n": run.maxn, "median_us": cub_us,
                       "dtype": "f32"}), check({"pass": "1" if all(passed(r["pass"]) for r in cub) else "0",
                       "rel_bound": max((r.get("rel_bound", "") for r in cub), key=lambda b: (b != "", num(b)))}))
    sol_bytes = at_maxn[0][1]["bytes_read"] if at_maxn else ""
    if run.dev["sol"] > 0 and sol_bytes != "":
        sol_bytes, base_us = num(sol_bytes), run.base.get(run.maxn, "")
        sol_us = (run.dev["floor"] or 0) + sol_bytes / run.dev["sol"] / 1e3
        out += run.row(text(lang, "limit" if mode == "best" else "sol"), sol_us, divide(sol_bytes, sol_us) / 1e3,
                       "" if base_us == "" else divide(base_us, sol_us),
                       "" if cub_us == "" else divide(num(cub_us), sol_us), "-")
    return out + (text(lang, "noisy note") if run.noisy_rows else "")

def cli(argv):
    return command(argv, __doc__, table, ("--mode", {"required": True, "choices": ("all", "best", "stage")}),
                   ("--stage", {"default": "", "help": "the stage of --mode stage, NN_name"}), ("csv", {}))

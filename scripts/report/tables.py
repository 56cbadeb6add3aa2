"""The Markdown tables of the results CSVs (read by column name; rows timed with the L2 warm left out):
  table: all (every fp32 kernel of the progression, the stages charted on bandwidth or bandwidth+, then CUB,
    its rows' median, and the speed of light, at the largest N of the first stage), best (each stage's
    fastest) or stage (one stage's kernels with their error against the fp64 sum; a row stage: GB/s by row
    length). Speed-up: over the first stage's baseline kernel; x CUB: over CUB (a stage's table: its own
    x_cub). Each kernel's first fill; of a repeated row the last wins. A time whose spread is above its
    program's "noisy spread" is marked ~.
  times, ratios, limits_table, targets and accuracy_tables: the other tables of a stage's README."""
import math
import os
import re
from operator import itemgetter

from common import awk_str, bilingual, chart_tokens, description, device, exponent, fail, first_fills, flushed
from common import median, n_head, num, number, parse_size, passed, read_csv, read_lines, rel, rule, text
from common import phrase, verdict
from provenance import excused

NEED = "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub"
key = itemgetter("stage", "kernel", "dtype")

def divide(a, b):
    """a / b as awk divides: by zero gives inf, -inf or (0 / 0) nan, as on a CSV without device rows."""
    return a / b if b else a * float("inf")

def fixed(spec, x):
    """x formatted as C's printf does: a NaN (awk's 0 / 0, on x86) prints as -nan."""
    return "-nan" if x != x else spec % x

def cells(values, fmt):
    """Table cells of VALUES, each as FMT formats it; "-" for None."""
    return "".join(" - |" if v is None else " %s |" % (fmt % v) for v in values)

def rows_table(grid, gpu, peak, lang):
    """A row stage's GB/s by kernel and row length; the row length from which block-per-row stays ahead."""
    kernels, cols = list(dict.fromkeys(r["kernel"] for r in grid)), sorted({num(r["cols"]) for r in grid})
    at = {(r["kernel"], num(r["cols"])): r for r in grid}
    out = text(lang, "rows caption") % (gpu, num(grid[-1]["n"]), peak)
    out += "| kernel |" + "".join(f" {awk_str(c)} |" for c in cols) + "\n" + rule("l" + "r" * len(cols))
    for k in kernels:
        out += f"| `{k}` |" + "".join(" - |" if (k, c) not in at else " %.0f%s |" % (
            num(at[k, c]["gbps"]), "" if passed(at[k, c]["pass"]) else " FAIL") for c in cols) + "\n"
    cross = 0
    for c in cols:
        w, b = ([num(at[k, c]["gbps"] if (k, c) in at else "") for k in kernels if k.startswith(p)] + [0]
                for p in ("rows_warp_per_row", "rows_block_per_row"))
        cross = (cross or c) if max(b) > max(w) else 0
    return out + (text(lang, "crossover") % cross if cross else text(lang, "no crossover"))

def table(csv, mode, stage="", lang="en"):
    """The MODE table (all, best or stage: STAGE's) of the results CSV, in LANG."""
    rows = flushed(read_csv(csv, NEED))
    dev, rows = device(rows), [r for r in first_fills(rows) if r["pass"] != ""]
    tokens = chart_tokens(csv, list(dict.fromkeys(r["stage"] for r in rows)))
    progression = {s for s, t in tokens.items() if re.search(r" bandwidth\+? ", f" {t} ")}
    b = rows[0] if rows else fail("no kernel rows")  # the speed-up's baseline, as its description names it
    baseline = (b["stage"], description(csv, b["stage"]).get("baseline", [""])[0] or b["kernel"], b["dtype"])
    flat, cubs, noisy = [r for r in rows if r["cols"] == ""], {}, []
    base = {num(r["n"]): num(r["median_us"]) for r in flat if key(r) == baseline}
    for r in (r for r in flat if r["kernel"] == "cub" and r["stage"] in progression):
        cubs.setdefault((r["dtype"], num(r["n"])), []).append(r["median_us"])
    mine = [r for r in rows if (r["stage"] == stage if mode == "stage" else
                                r["cols"] == "" and r["dtype"] == "f32" and r["stage"] in progression)]
    grid, kept = [r for r in mine if r["cols"]], [r for r in mine if not r["cols"]]
    gpu = mine[-1]["gpu"] if mine else ""
    if mode == "stage" and grid:
        return rows_table(grid, gpu, dev["peak"], lang)
    keys = list(dict.fromkeys(key(r) for r in kept)) or fail("no kernel rows")
    repeats = {k[:2] for k in keys if [x[:2] for x in keys].count(k[:2]) > 1}  # run on several types
    # The largest N of the first stage (a stage's table: of its own rows), and each kernel's row there.
    maxn = max((num(r["n"]) for r in kept if r["stage"] == kept[0]["stage"] and num(r["n"]) > 0),
               default=None)
    at = {key(r) + (num(r["n"]),): r for r in kept}
    at_maxn = [at[k + (maxn,)] for k in keys if k + (maxn,) in at]

    def row(label, r, speedup, x_cub, ok, err=None):
        """R's time (~: its spread is above its program's noisy spread), GB/s and the cells given."""
        limit = description(csv, r["stage"]).get("noisy spread", [""])[0] if r.get("spread") else ""
        noisy.append(limit != "" and num(r["spread"]) > num(limit))
        us, gbps = fixed("%.1f", num(r["median_us"])) + ("~" if noisy[-1] else ""), num(r["gbps"])
        x = ["-" if v == "" else fixed("%.3f" if num(v) < 0.1 else "%.2f", num(v)) + "x"
             for v in (speedup, x_cub)]
        return "| %s | %s | %s | %s | %s | %s |%s %s |\n" % (
            label, us, fixed("%.0f", gbps), fixed("%.1f", divide(100 * gbps, dev["peak"])), *x,
            "" if err is None else f" {rel(err)} |", ok)

    def line(label, r, own=False):
        """Row R: speed-up (a sum's, not a scan's), x CUB, check; OWN: a stage's (own x CUB, xfail, error)."""
        n, us, cub = num(r["n"]), num(r["median_us"]), median(cubs.get((r["dtype"], num(r["n"])), []))
        bound = r.get("rel_bound", "")
        ok = verdict(r["pass"], own) + ("" if bound == "" else " (≤ %.1e)" % num(bound) if num(bound) > 0
                                        else " (exact)")
        speedup = divide(base[n], us) if n in base and r.get("speedup", "x") != "" else ""
        x_cub = r["x_cub"] if own else divide(num(cub), us) if cub != "" else ""
        return row(label, r, speedup, x_cub, ok, r["rel_err"] if own else None)

    # GB/s is written to 0.01: at the smallest N that rounding alone is more than 1% of the bytes read.
    writes = any((num(r["gbps"]) - 0.005) * num(r["median_us"]) * 1e3 > 1.01 * num(r["bytes_read"]) for r in kept)
    moved = text(lang, "bytes moved" if mode == "stage" and writes else "bytes read")  # a scan writes too
    out = text(lang, "caption") % (gpu, maxn or 0, moved, dev["peak"], dev["copy"])
    out += text(lang, "head " + mode).format(base=number(b["stage"])) + "\n"
    out += rule({"best": "llrrrrrl", "all": "lrrrrrl", "stage": "lrrrrrrl"}[mode])
    best, cub = {}, [r for r in at_maxn if r["kernel"] == "cub" and mode != "stage"]
    for r in (r for r in at_maxn if r not in cub):
        s, k, t = key(r)
        if mode == "stage":  # the type beside the name where a kernel runs on several (CUB: but fp32)
            typed = any(rs == s and rk != "cub" for rs, rk in repeats) or ((s, k) in repeats and t != "f32")
            out += line(f"`{k} ({t})`" if typed else f"`{k}`", r, True)
        elif mode == "all":
            out += line(f"{s} `{k}`", r)
        elif s not in best or num(r["gbps"]) > num(best[s]["gbps"]):
            best[s] = r
    out += "".join(line(f"{s} | `{r['kernel']}`", r) for s, r in best.items())
    cub_us = median(r["median_us"] for r in cub)
    if cub_us != "":  # CUB's rows' medians, ok where every one is
        out += line(text(lang, "library") if mode == "best" else "`cub::DeviceReduce::Sum`", {
            "n": maxn, "dtype": "f32", "median_us": cub_us, "gbps": median(r["gbps"] for r in cub),
            "pass": "1" if all(passed(r["pass"]) for r in cub) else "0",
            "rel_bound": max((r.get("rel_bound", "") for r in cub), key=lambda b: (b != "", num(b)))})
    sol_bytes = at_maxn[0]["bytes_read"] if at_maxn and mode != "stage" else ""
    if dev["sol"] > 0 and sol_bytes != "":
        sol_us = (dev["floor"] or 0) + num(sol_bytes) / dev["sol"] / 1e3
        sol = {"median_us": sol_us, "gbps": divide(num(sol_bytes), sol_us) / 1e3}
        out += row(text(lang, "limit" if mode == "best" else "sol"), sol, divide(base[maxn], sol_us)
                   if maxn in base else "", "" if cub_us == "" else divide(num(cub_us), sol_us), "-")
    return out + (text(lang, "noisy note") if any(noisy) else "")

def times(csv, stage, kernels, lang="en"):
    """The times (µs, fp32) of the kernels KERNELS (space-separated) of STAGE at every N of CSV; the caption
    gives the run's shortest launch floor, below which no launch goes."""
    rows = flushed(read_csv(csv, "stage kernel dtype n median_us l2"))
    us = {(r["kernel"], num(r["n"])): num(r["median_us"]) for r in rows
          if r["stage"] == stage and r["pass"] != "" and r["dtype"] == "f32"}
    ns = sorted({n for _, n in us}) or fail(f"no rows of stage {stage}")
    out = text(lang, "times caption") % (device(rows)["floor"] or 0) + n_head(text(lang, "µs at"), ns)
    return out + "".join(f"| `{k}` |" + cells((us.get((k, n)) for n in ns), "%.1f") + "\n"
                         for k in kernels.split())

def ratios(csv, stage, lang="en"):
    """STAGE's ratios at every N of CSV: each kernel's x CUB; X_deterministic against X (X's time over its
    own); and the speed of light (the shortest launch floor plus the bytes read at the fastest read-only
    bandwidth), then the same with the floor of one DRAM round trip (where measured), each over the time of
    the stage's fastest fp32 kernel at its largest N."""
    rows = flushed(read_csv(csv, "stage kernel dtype n median_us gbps l2 bytes_read x_cub"))
    mine = [r for r in rows if r["stage"] == stage and r["pass"] != "" and r["kernel"] != "cub"]
    at = {(r["kernel"], num(r["n"])): r for r in mine}
    kernels, ns = list(dict.fromkeys(r["kernel"] for r in mine)), sorted({n for _, n in at})
    us = {k: num(r["median_us"]) for k, r in at.items()}
    out = n_head(text(lang, "x CUB at"), ns)
    for k in kernels:
        x_cub = (at[k, n]["x_cub"] if (k, n) in at else "" for n in ns)
        out += f"| `{k}` |" + cells((None if x == "" else num(x) for x in x_cub), "%.3f") + "\n"
    for det, fast in ((k, k[:-len("_deterministic")]) for k in kernels if k.endswith("_deterministic")):
        if fast in kernels:
            over = (us[fast, n] / us[det, n] if (fast, n) in us and us.get((det, n), 0) > 0 else None
                    for n in ns)
            out += f"| `{det}` / `{fast}` |" + cells(over, "%.3f") + "\n"
    dev, maxn = device(rows), max((n for n in ns if n > 0), default=None)
    fp32 = {r["kernel"] for r in mine if r["dtype"] == "f32"}
    fastest = min((k for k in kernels if k in fp32 and (k, maxn) in us), key=lambda k: us[k, maxn], default=None)
    if dev["sol"] <= 0 or fastest is None:
        return out
    for label, over, floor in (("sol µs", "sol over", dev["floor"]), ("trip µs", "trip over", dev["trip"])):
        if label == "trip µs" and floor is None:
            break
        limit = {n: (floor or 0) + num(at[fastest, n]["bytes_read"]) / dev["sol"] / 1e3
                 for n in ns if (fastest, n) in at}
        out += text(lang, label) + cells((limit.get(n) for n in ns), "%.1f") + "\n"
        over_time = (limit[n] / us[fastest, n] if n in limit else None for n in ns)
        out += text(lang, over).format(k=fastest) + cells(over_time, "%.3f") + "\n"
    return out

def limits_table(csv, stage, lang="en"):
    """STAGE's counters from a limits.csv (make limits), a row per counter and kernel (CUB last), a column
    per N: DRAM throughput (% of peak), warps waiting on a global load and on a memory fence per issue, and
    the launch's blocks; empty where the stage has no kernel but CUB."""
    rows = [r for r in read_csv(csv, "stage kernel n launches grid dram_pct long_sb membar")
            if r["stage"] == stage]
    kernels = list(dict.fromkeys(r["kernel"] for r in rows if r["kernel"] != "cub")) + ["cub"]
    ns = sorted(dict.fromkeys(r["n"] for r in rows), key=num)
    value = {(r["kernel"], r["n"]): r for r in rows}
    if len(kernels) == 1:
        return ""
    out = n_head(text(lang, "limits head"), ns, left=2)
    for column, fmt in (("dram_pct", "%.1f"), ("long_sb", "%.2f"), ("membar", "%.2f"), ("grid", "%d")):
        for i, k in enumerate(kernels):
            label = text(lang, "limits " + column) if i == 0 else ""
            values = (num(value[k, n][column]) if (k, n) in value else None for n in ns)
            out += f"| {label} | `{k}` |" + cells(values, fmt) + "\n"
    return out

class Run:
    """One GPU's rows for a stage's targets: the times of the stage's kernels and the fastest fp32 time of
    the other stages by N, the sizes in the order of its rows. CUB's rows and row stages' are not counted;
    of a repeated row the last wins. named: every kernel's time by STAGE:KERNEL[:DTYPE] and N (as claims.csv
    names them; each kernel's first fill, CUB's rows too), and by STAGE:KERNEL[:DTYPE]@FILL and N (that bench
    fill's), for the targets that compare two kernels."""

    def __init__(self, rows, stage):
        self.dev, self.ns, self.other, self.time, self.xcub, self.bytes = device(rows), {}, {}, {}, {}, {}
        self.best, self.typebest, self.det = {}, {}, set()
        timed = [r for r in rows if r["pass"] != "" and r["cols"] == "" and r["median_us"] != ""]
        for r in (r for r in timed if r["kernel"] != "cub"):
            k, n, us, t = r["kernel"], num(r["n"]), num(r["median_us"]), r["dtype"]
            self.ns[n] = True
            if r["stage"] != stage:
                if t == "f32" and us < self.other.get(n, math.inf):
                    self.other[n] = us
                continue
            self.time[k, n], self.xcub[k, n], self.bytes[k, n] = us, r["x_cub"], r["bytes_read"]
            if k.endswith("_deterministic"):
                self.det.add(k)
                continue
            # The fastest kernel so far, compared at its latest time: a repeated row may have changed it.
            if t == "f32" and (n not in self.best or us < self.time[self.best[n], n]):
                self.best[n] = k
            if (t, n) not in self.typebest or us < self.time[self.typebest[t, n], n]:
                self.typebest[t, n] = k
        def name(r):
            return f"{r['stage']}:{r['kernel']}" + ("" if r["dtype"] == "f32" else f":{r['dtype']}")
        kernels = [r for r in rows if r["pass"] != "" and r["cols"] == "" and r["median_us"] != ""]
        self.named = {(name(r), num(r["n"])): num(r["median_us"]) for r in first_fills(kernels)}
        self.named.update({(f"{name(r)}@{r['fill']}", num(r["n"])): num(r["median_us"]) for r in kernels})

    def ratio(self, what, n):
        """The ratio WHAT (a target's what) at size N; None where the run lacks what it needs. WHAT A/B (two
        kernels, named as in claims.csv, each on its first fill or, named NAME@FILL, on that one): B's time
        over A's."""
        if "/" in what:
            a, b = (self.named.get((k, n)) for k in what.split("/"))
            return b / a if a is not None and b is not None else None
        if n not in self.best:
            return None
        b, sol, found = self.best[n], self.dev["sol"], []
        if what == "sol":
            return ((self.dev["floor"] or 0) + num(self.bytes[b, n]) / sol / 1e3) / self.time[b, n] if sol > 0 else None
        if what == "cub":
            return num(self.xcub[b, n]) if self.xcub[b, n] != "" else None
        if what == "repository":
            return self.other[n] / self.time[b, n] if n in self.other else None
        if what == "cub_types":
            found = [num(self.xcub[k, m]) for (t, m), k in self.typebest.items() if m == n and self.xcub[k, m] != ""]
        elif what == "deterministic":
            found = [self.time[b, n] / self.time[k, n] for k in self.det if (k, n) in self.time]
        return min(found, default=None)

    def verdict(self, what, lo, hi, least, lang):
        """A target's cell: met or not, with the worst ratio over the sizes LO..HI (the first N of the run's
        order where it is); "-" where the run has none of them."""
        found = [(r, n) for n in self.ns if lo <= n <= hi and (r := self.ratio(what, n)) is not None]
        if not found:
            return " - |"
        worst, at = min(found, key=itemgetter(0))
        return " %s (%.3f %s %s) |" % (text(lang, "met" if worst >= least else "not met"), worst,
                                       text(lang, "at"), exponent(at))

def targets(csv, stage, targets, lang="en"):
    """STAGE's targets (the file TARGETS: a row per target, its header defines the ratios) on the results
    CSVs CSV (a list): a column per GPU in the order of their first rows, "met" or "not met" with the worst
    ratio over the target's sizes and the N where it is. Sizes a run lacks are not counted. A reference that
    is not the primary is not held to a target that reads a stage changed since its run (provenance.py): its
    cell says so."""
    need = "gpu stage kernel dtype n median_us l2 bytes_read x_cub cols fill"
    rows, excuse = [], {}  # excuse: each GPU's stages changed since its run, where it is not held to them
    for path in csv:
        mine = flushed(read_csv(path, need))
        rows += mine
        for gpu in {r["gpu"] for r in mine} - set(excuse):
            excuse[gpu] = excused(os.path.dirname(path))
    runs = {gpu: Run([r for r in rows if r["gpu"] == gpu], stage)
            for gpu in dict.fromkeys(r["gpu"] for r in rows)}
    stages = {r["stage"] for r in rows if r["pass"] != ""}
    out = text(lang, "targets head") + "".join(f" {g} |" for g in runs) + "\n" + rule("llr" + "l" * len(runs))
    for line in (line for line in read_lines(targets) if line and not line.startswith(("#", "what,"))):
        what, lo, hi, least, label = (line.split(",") + [""] * 4)[:5]
        lo, hi = parse_size(lo), parse_size(hi)
        out += f"| {bilingual(label, lang)} | {exponent(lo)}" + ("–" + exponent(hi) if hi > lo else "")
        out += " | ≥ %.3f |" % num(least)
        read = ({k.split("@")[0].split(":")[0] for k in what.split("/")} if "/" in what
                else stages if what == "repository" else {stage})  # the stages the target reads
        out += "".join(" %s |" % text(lang, "not held").format(
            stage=text(lang, "stage" if len(excuse[g] & read) == 1 else "stages"),
            numbers=phrase([number(s) for s in sorted(excuse[g] & read)], lang))
            if excuse[g] & read else run.verdict(what, lo, hi, num(least), lang) for g, run in runs.items()) + "\n"
    return out

def accuracy_tables(csv, lang="en"):
    """The accuracy lab's tables (make accuracy): each kernel's "error (bound)" on the random and wide data at
    every fourth power of two of N, then on the cond data by condition number; FAIL outside the bound
    (xfail: expected; unchecked: within a bound too wide to hold it to account)."""
    rows, labels = accuracy_rows(csv, "stage kernel n rel_err pass fill rel_bound cond")
    result = {(r["label"], r["fill"], r["x"]): (r["rel_err"], r["rel_bound"], r["pass"]) for r in rows}

    def fourth_power(n):  # 2^0, 2^4, 2^8, ..., within half a power (log2 as awk has it)
        return num(n) > 0 and (e := math.log(num(n)) / math.log(2)) - int(e / 4) * 4 < 0.5

    def cell(found):  # "error (bound)", marked where the check failed; "-" where there is no result
        if found is None:
            return " - |"
        err, bound, ok = found
        return " %s (%s)%s |" % ("%.1e" % num(err) if "0" <= err[:1] <= "9" else err,
                                 "-" if bound == "" else "%.1e" % num(bound),
                                 "" if ok == "1" else f" {ok}" if ok in ("xfail", "unchecked") else " FAIL")
    ns = sorted(dict.fromkeys(r["x"] for r in rows if r["fill"] != "cond" and fourth_power(r["x"])), key=num)
    conds = sorted(dict.fromkeys(r["x"] for r in rows if r["fill"] == "cond"), key=num)
    out = text(lang, "error by N") + "\n\n" + n_head(text(lang, "error head"), ns, left=2)
    for fill in ("random", "wide"):
        for label in labels:
            out += f"| `{label}` | {fill} |" + "".join(cell(result.get((label, fill, n))) for n in ns) + "\n"
    if not conds:
        return out
    out += "\n" + text(lang, "error by cond") % num([r["n"] for r in rows if r["fill"] == "cond"][-1]) + "\n\n"
    out += "| kernel |" + "".join(f" {c} |" for c in conds) + "\n" + rule("l" + "r" * len(conds))
    for label in labels:
        out += f"| `{label}` |" + "".join(cell(result.get((label, "cond", c))) for c in conds) + "\n"
    return out

def accuracy_rows(csv, need):
    """The accuracy lab's rows of kernels (not the device's, not CUB's), each with its label ("NN kernel") and
    its x (cond for the cond data, else n); and the labels in order."""
    rows = [r for r in read_csv(csv, need) if r["pass"] != "" and r["kernel"] != "cub"]
    for r in rows:
        r["label"], r["x"] = f"{number(r['stage'])} {r['kernel']}", r["cond"] if r["fill"] == "cond" else r["n"]
    return rows, list(dict.fromkeys(r["label"] for r in rows))

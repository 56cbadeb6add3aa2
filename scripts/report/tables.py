"""The Markdown tables of the results CSVs (docs/report.md#tables)."""
import fnmatch
import math
from operator import itemgetter

from claims import Run, assertions, us
from common import amount, bilingual, cells, describe, device, fail, first_fills, flushed, kernel_rows, library, median
from common import chart_tokens, exponent, head, number, passed, read_csv, rel, rule, text, verdict

NEED = "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub"
key = itemgetter("stage", "kernel", "dtype")

def rows_table(grid, stage, gpu, peak, lang):
    """A row stage's GB/s by kernel and row length, then where its crossover assertions' B overtakes A."""
    kernels, cols = list(dict.fromkeys(r["kernel"] for r in grid)), sorted({int(r["cols"]) for r in grid})
    at = {(r["kernel"], int(r["cols"])): r for r in grid}
    out = text(lang, "rows caption") % (gpu, int(grid[-1]["n"]), peak) + head("| kernel |", cols) + "".join(
        f"| `{k}` |" + cells(("%.0f%s" % (float(at[k, c]["gbps"]), "" if passed(at[k, c]["pass"]) else " FAIL")
                              if (k, c) in at else None for c in cols), "%s") + "\n" for k in kernels)
    for x in assertions(stage, "crossover"):
        cross, (a, b) = 0, (p.split(":")[1] for p in (x["a"], x["b"]))
        for c in cols:
            fastest = [max([float(at[k, c]["gbps"]) for k in kernels if fnmatch.fnmatch(k, p) and (k, c) in at] + [0])
                       for p in (a, b)]
            cross = (cross or c) if fastest[1] > fastest[0] else 0
        words = dict(zip("ab", bilingual(x["label"], lang).split(" / ")))
        out += text(lang, "crossover").format(c=cross, **words) if cross else text(lang, "no crossover").format(**words)
    return out

def table(csv, mode, stage="", lang="en"):
    own, noisy = mode == "stage", []  # own: a stage's table
    every = read_csv(csv, NEED)
    dev, rows = device(every), first_fills(flushed(every))
    stages = dict.fromkeys(r["stage"] for r in rows)
    lib, progression = library(csv, stages), {s for s in stages if "bandwidth" in chart_tokens(csv, s)}
    mine = [r for r in rows if (r["stage"] == stage if own else
                                r["cols"] == "" and r["dtype"] == "f32" and r["stage"] in progression)]
    grid, kept = [r for r in mine if r["cols"]], [r for r in mine if not r["cols"]]
    if own and grid:
        return rows_table(grid, stage, mine[-1]["gpu"], dev["peak"], lang)
    keys = list(dict.fromkeys(key(r) for r in kept)) or fail("no kernel rows")
    b = rows[0]  # the speed-up's baseline, as its description names it
    baseline = (b["stage"], describe(csv, b["stage"], "baseline") or b["kernel"], b["dtype"])
    base = {int(r["n"]): float(r["median_us"]) for r in rows if r["cols"] == "" and key(r) == baseline}
    libs = [r for r in rows if r["cols"] == "" and r["kernel"] in lib and r["stage"] in progression]  # x CUB's
    repeats = {k[:2] for k in keys if [x[:2] for x in keys].count(k[:2]) > 1}  # run on several types
    # The largest N of the first stage (a stage's table: of its own rows), and each kernel's row there.
    maxn = max((int(r["n"]) for r in kept if r["stage"] == kept[0]["stage"] and int(r["n"]) > 0), default=None)
    at = {key(r) + (int(r["n"]),): r for r in kept}
    at_maxn = [at[k + (maxn,)] for k in keys if k + (maxn,) in at]
    split = any(r.get("gpu_us") for r in at_maxn)  # a column for the parts of the runs that the CPU finishes

    def line(label, r):
        """R's time (~: its spread is above its program's noisy spread), GB/s, speed-up (a sum's, not a scan's),
        x CUB and check (none without a pass: the speed of light's); a stage's: its own x CUB, xfail and error."""
        n, us, gbps = int(r["n"]), float(r["median_us"]), float(r["gbps"])
        limit = describe(csv, r["stage"], "noisy_spread") if r.get("spread") else None
        noisy.append(limit is not None and float(r["spread"]) > limit)
        libs_us = median(x["median_us"] for x in libs if (x["dtype"], int(x["n"])) == (r["dtype"], n))
        speedup = base[n] / us if n in base and r.get("speedup", "x") != "" else ""
        x_cub = r["x_cub"] if own else float(libs_us) / us if libs_us != "" else ""
        x = ["-" if v == "" else ("%.3f" if float(v) < 0.1 else "%.2f") % float(v) + "x" for v in (speedup, x_cub)]
        bound = r.get("rel_bound", "")
        ok = "-" if "pass" not in r else verdict(r["pass"], own) + (
            "" if bound == "" else " (≤ %.1e)" % float(bound) if float(bound) > 0 else " (exact)")
        parts = "%.1f + %.1f" % (float(r["gpu_us"]), float(r["finish_us"])) if r.get("gpu_us") else ""  # kernels, finish
        return "| %s | %.1f%s |%s %.0f | %s | %s | %s |%s %s |\n" % (
            label, us, "~" if noisy[-1] else "", f" {parts} |" * split, gbps,
            "%.1f" % (100 * gbps / dev["peak"]) if dev["peak"] else "-", *x, f" {rel(r['rel_err'])} |" if own else "", ok)

    # GB/s is written to 0.01: at the smallest N that rounding alone is more than 1% of the bytes read.
    writes = any((amount(r["gbps"]) - 0.005) * float(r["median_us"]) * 1e3 > 1.01 * amount(r["bytes_read"]) for r in kept)
    moved = text(lang, "bytes moved" if own and writes else "bytes read")  # a scan writes too
    out = text(lang, "caption") % (mine[-1]["gpu"], maxn or 0, moved, dev["peak"], dev["copy"])
    out += text(lang, "parts note") if split else ""
    out += text(lang, "head " + mode).format(base=number(b["stage"]), parts=text(lang, "parts col") if split else "")
    out += "\n" + rule({"best": "llrrrrrl", "all": "lrrrrrl", "stage": "lrrrrrrl"}[mode].replace("r", "rr" if split else "r", 1))
    lib_rows = [r for r in at_maxn if r["kernel"] in lib and not own]
    shown = [r for r in at_maxn if r["kernel"] not in lib or own]
    if mode == "best":  # each stage's fastest
        shown = [max((r for r in shown if r["stage"] == s), key=lambda r: float(r["gbps"]))
                 for s in dict.fromkeys(r["stage"] for r in shown)]
    for r in shown:  # a stage's: the type beside the name where a kernel runs on several (the library's: but fp32)
        s, k, t = key(r)
        typed = any(rs == s and rk not in lib for rs, rk in repeats) or ((s, k) in repeats and t != "f32")
        label = {"best": f"{s} | `{k}`", "all": f"{s} `{k}`", "stage": f"`{k} ({t})`" if typed else f"`{k}`"}[mode]
        out += line(label, r)
    if (lib_us := median(r["median_us"] for r in lib_rows)) != "":  # the library's rows' medians, ok where every one is
        out += line(text(lang, "library" if mode == "best" else "library kernel"), {
            "n": maxn, "dtype": "f32", "median_us": lib_us, "gbps": median(r["gbps"] for r in lib_rows),
            "pass": "1" if all(passed(r["pass"]) for r in lib_rows) else "0",
            "rel_bound": max((r.get("rel_bound", "") for r in lib_rows), key=lambda b: (b != "", amount(b)))})
    sol_bytes = at_maxn[0]["bytes_read"] if at_maxn and not own else ""
    if dev["sol"] > 0 and sol_bytes != "":
        sol_us = (dev["floor"] or 0) + float(sol_bytes) / dev["sol"] / 1e3
        out += line(text(lang, "limit" if mode == "best" else "sol"),
                    {"n": maxn, "dtype": "f32", "median_us": sol_us, "gbps": float(sol_bytes) / sol_us / 1e3})
    return out + (text(lang, "noisy note") if any(noisy) else "")

def times(csv, stage, kernels, lang="en"):
    """KERNELS' times (µs, fp32, first bench fill) at every N of STAGE in CSV, under the run's shortest launch floor."""
    every = read_csv(csv, "stage kernel dtype n median_us pass l2 fill")
    us = {(r["kernel"], int(r["n"])): float(r["median_us"]) for r in first_fills(flushed(every))
          if r["stage"] == stage and r["dtype"] == "f32"}
    ns = sorted({n for _, n in us}) or fail(f"no rows of stage {stage}")
    out = text(lang, "times caption") % (device(every)["floor"] or 0) + head(text(lang, "µs at"), map(exponent, ns))
    return out + "".join(f"| `{k}` |" + cells((us.get((k, n)) for n in ns), "%.1f") + "\n" for k in kernels)

def ratios(csv, stage, lang="en"):
    """STAGE's ratios at every N: x CUB, its ratio rows, and its fastest fp32 kernel's speeds of light over its time."""
    every = read_csv(csv, "stage kernel dtype n median_us gbps pass l2 bytes_read x_cub cols fill")
    lib = library(csv, [stage])
    mine = [r for r in flushed(every) if r["stage"] == stage and r["kernel"] not in lib]
    at = {(r["kernel"], int(r["n"])): r for r in mine}
    kernels, ns = list(dict.fromkeys(r["kernel"] for r in mine)), sorted({n for _, n in at})
    out = head(text(lang, "x CUB at"), map(exponent, ns)) + "".join(f"| `{k}` |" + cells(
        (float(at[k, n]["x_cub"]) if (k, n) in at and at[k, n]["x_cub"] else None for n in ns), "%.3f") + "\n"
        for k in kernels) + ratio_rows(Run(every, csv), stage, ns, lang)
    dev, maxn = device(every), max((n for n in ns if n > 0), default=None)
    fp32 = {r["kernel"] for r in mine if r["dtype"] == "f32"}
    fastest = min((k for k in kernels if k in fp32 and (k, maxn) in at), key=lambda k: us(at[k, maxn]), default=None)
    if dev["sol"] <= 0 or fastest is None:
        return out
    for name, floor in [("sol", dev["floor"])] + ([("trip", dev["trip"])] if dev["trip"] is not None else []):
        limit = {n: (floor or 0) + float(at[fastest, n]["bytes_read"]) / dev["sol"] / 1e3 for n in ns if (fastest, n) in at}
        out += text(lang, f"{name} µs") + cells((limit.get(n) for n in ns), "%.1f") + "\n"
        over = (limit[n] / us(at[fastest, n]) if n in limit else None for n in ns)
        out += text(lang, f"{name} over").format(k=fastest) + cells(over, "%.3f") + "\n"
    return out

def ratio_rows(run, stage, ns, lang):
    """STAGE's ratio rows, each under its label or its kernels': B's time over A's at each N of NS in RUN, or "-"."""
    return "".join("| %s |" % (bilingual(x["label"], lang) or " / ".join(f"`{x[k].split(':')[1]}`" for k in "ab"))
                   + cells((run.ratio(x["a"], x["b"], n) for n in ns), "%.3f") + "\n"
                   for x in assertions(stage, "ratio"))

def stage_ratios(csv, stage, lang="en"):
    """The ratio assertions of STAGE (one that does not own the roofline chart) at every N of its rows in CSV."""
    every = read_csv(csv, "stage kernel dtype n median_us pass l2 bytes_read x_cub cols fill")
    ns = sorted({int(r["n"]) for r in flushed(every) if r["stage"] == stage and r["cols"] == ""})
    return head(text(lang, "ratio at"), map(exponent, ns)) + ratio_rows(Run(every, csv), stage, ns, lang)

def limits_table(csv, stage, lang="en"):
    """STAGE's counters from a limits.csv, a row per counter and kernel, a column per N."""
    rows = [r for r in read_csv(csv, "stage kernel n launches grid dram_pct long_sb membar") if r["stage"] == stage]
    lib = library(csv, [stage])
    kernels = sorted(dict.fromkeys(r["kernel"] for r in rows), key=lambda k: k in lib)  # the library's last
    ns, value = sorted({r["n"] for r in rows}, key=int), {(r["kernel"], r["n"]): r for r in rows}
    if all(k in lib for k in kernels):
        return ""
    return head(text(lang, "limits head"), map(exponent, ns), left=2) + "".join(  # a counter's name on its first row
        f"| {text(lang, 'limits ' + column) if k == kernels[0] else ''} | `{k}` |" + cells(
            (float(value[k, n][column]) if (k, n) in value else None for n in ns), fmt) + "\n"
        for column, fmt in (("dram_pct", "%.1f"), ("long_sb", "%.2f"), ("membar", "%.2f"), ("grid", "%d"))
        for k in kernels)

def accuracy_tables(csv, lang="en"):
    """The accuracy lab's tables: "error (bound)" on the random and wide data at N = 2^0, 2^4, 2^8..., then by cond."""
    rows, labels = accuracy_rows(csv, "stage kernel n rel_err pass fill rel_bound cond")
    result = {(r["label"], r["fill"], r["x"]): r for r in rows}

    def cell(r):  # "error (bound)", marked where the check failed; "-" where there is no result
        return " - |" if r is None else " %s (%s)%s |" % (
            "%.1e" % float(r["rel_err"]) if "0" <= r["rel_err"][:1] <= "9" else r["rel_err"],
            "-" if r["rel_bound"] == "" else "%.1e" % float(r["rel_bound"]),
            "" if r["pass"] == "1" else f" {r['pass']}" if r["pass"] in ("xfail", "unchecked") else " FAIL")
    ns = sorted({r["x"] for r in rows if r["fill"] != "cond" and int(r["x"]) > 0
                 and math.log2(int(r["x"])) % 4 < 0.5}, key=int)
    conds = sorted({r["x"] for r in rows if r["fill"] == "cond"}, key=float)
    out = text(lang, "error by N") + "\n\n" + head(text(lang, "error head"), map(exponent, ns), left=2)
    out += "".join(f"| `{label}` | {fill} |" + "".join(cell(result.get((label, fill, n))) for n in ns) + "\n"
                   for fill in ("random", "wide") for label in labels)
    if not conds:
        return out
    out += "\n" + text(lang, "error by cond") % int([r["n"] for r in rows if r["fill"] == "cond"][-1]) + "\n\n"
    return out + head("| kernel |", conds) + "".join(
        f"| `{label}` |" + "".join(cell(result.get((label, "cond", c))) for c in conds) + "\n" for label in labels)

def accuracy_rows(csv, need):
    """The accuracy lab's kernel rows (not the library's), with a label and x (cond or n); the labels."""
    rows = kernel_rows(read_csv(csv, need))
    lib = library(csv, {r["stage"] for r in rows})
    rows = [dict(r, label=f"{number(r['stage'])} {r['kernel']}", x=r["cond"] if r["fill"] == "cond" else r["n"])
            for r in rows if r["kernel"] not in lib]
    return rows, list(dict.fromkeys(r["label"] for r in rows))

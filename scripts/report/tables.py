"""Markdown tables of a results CSV. Columns read: gpu, stage, kernel, dtype, n, median_us, gbps,
rel_err, pass, cols, l2, bytes_read, fill; each stage's charts from its description. all: every fp32 kernel of
the progression (stages charted on bandwidth or bandwidth+), CUB (its rows' median) and the speed of light,
at the largest N of the first stage; best: each stage's fastest; stage: one stage's kernels, with their error
against the fp64 sum (a row stage: GB/s by row length). Speed-up: the first stage's baseline kernel's time
over the row's; x CUB: CUB's (a stage's table: its own x_cub). Each kernel's first fill; a repeated row: the
last wins; no L2-warm rows. A time whose spread is above its program's "noisy spread" is marked ~."""
import re
from operator import itemgetter

from common import awk_str, chart_tokens, command, description, device, fail, first_fills, flushed, num
from common import number, passed, read_csv, rule, text, verdict

NEED = "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub"
key = itemgetter("stage", "kernel", "dtype")

def divide(a, b):
    """a / b as awk divides: by zero gives inf, -inf or (0 / 0) nan, as on a CSV without device rows."""
    return a / b if b else a * float("inf")

def fixed(spec, x):
    """x formatted as C's printf does: a NaN (awk's 0 / 0, on x86) prints as -nan."""
    return "-nan" if x != x else spec % x

def median(values):
    """The median of the non-empty values; "" for none."""
    a = sorted((v for v in values if v != ""), key=num)
    k = len(a) // 2
    return "" if not a else a[k] if len(a) % 2 else (num(a[k - 1]) + num(a[k])) / 2

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
    dev, rows = device(rows), [r for r in first_fills(rows) if r["stage"] != "00_device"]
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
        err = "" if err is None else " %s |" % (
            "-" if err == "-" else "0" if num(err) == 0 else "%.1e" % num(err))
        return "| %s | %s | %s | %s | %s | %s |%s %s |\n" % (
            label, us, fixed("%.0f", gbps), fixed("%.1f", divide(100 * gbps, dev["peak"])), *x, err, ok)

    def line(label, r, own=False):
        """Row R: speed-up (a sum's, not a scan's), x CUB, check; OWN: a stage's (own x CUB, xfail, error)."""
        n, us, cub = num(r["n"]), num(r["median_us"]), median(cubs.get((r["dtype"], num(r["n"])), []))
        ok = verdict(r["pass"], own)
        bound = r.get("rel_bound", "")
        ok += "" if bound == "" else " (≤ %.1e)" % num(bound) if num(bound) > 0 else " (exact)"
        speedup = divide(base[n], us) if n in base and r.get("speedup", "x") != "" else ""
        x_cub = r["x_cub"] if own else divide(num(cub), us) if cub != "" else ""
        return row(label, r, speedup, x_cub, ok, (r["rel_err"] or "-") if own else None)

    writes = any(num(r["gbps"]) * num(r["median_us"]) * 1e3 > 1.01 * num(r["bytes_read"]) for r in kept)
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
        sol_bytes = num(sol_bytes)
        sol_us = (dev["floor"] or 0) + sol_bytes / dev["sol"] / 1e3
        sol = {"median_us": sol_us, "gbps": divide(sol_bytes, sol_us) / 1e3}
        out += row(text(lang, "limit" if mode == "best" else "sol"), sol, divide(base[maxn], sol_us)
                   if maxn in base else "", "" if cub_us == "" else divide(num(cub_us), sol_us), "-")
    return out + (text(lang, "noisy note") if any(noisy) else "")

def cli(argv):
    return command(argv, __doc__, table, ("--mode", {"required": True, "choices": ("all", "best", "stage")}),
                   ("--stage", {"default": "", "help": "the stage of --mode stage, NN_name"}), ("csv", {}))

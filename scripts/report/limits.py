"""A stage's limits table (scripts/limits.sh) in Markdown, from a limits.csv, columns stage, kernel, n,
dram_pct, long_sb, membar and grid: one row per counter and kernel (CUB last), one column per N: DRAM
throughput as % of peak, the warps waiting on a global load and on a memory fence per instruction
issued, and the blocks of the launch.
usage: python3 scripts/report limits --stage STAGE [--lang en|zh] CSV"""
import argparse
import math
import sys

from common import num, read_csv, say

# (column, format, label in English, in Chinese), in the table's order.
COUNTERS = (
    ("dram_pct", "%.1f", "DRAM throughput, % of peak", "DRAM 吞吐，峰值的 %"),
    ("long_sb", "%.2f", "waiting on a global load (long scoreboard), warps per issue",
     "等待全局加载（long scoreboard），每次发射的 warp 数"),
    ("membar", "%.2f", "waiting on a memory fence (membar), warps per issue", "等待内存栅栏（membar），每次发射的 warp 数"),
    ("grid", "%d", "blocks", "线程块数"),
)


def limits_table(csv_path, stage, lang="en"):
    """STAGE's table in LANG; empty where the stage has no kernel but CUB in the CSV."""
    kernels, ns, value = [], [], {}
    for r in read_csv(csv_path, "stage kernel n launches grid dram_pct long_sb membar"):
        if r["stage"] != stage:
            continue
        k, n = r["kernel"], r["n"]
        if k not in kernels and k != "cub":
            kernels.append(k)
        if n not in ns:
            ns.append(n)
        for column, _, _, _ in COUNTERS:
            value[column, k, n] = r[column]
    if not kernels:
        return ""
    kernels.append("cub")
    ns.sort(key=num)
    out = say(lang, "| counter | kernel |", "| 计数器 | kernel |") + "".join(" 2^%d |" % (math.log(num(n)) / math.log(2) + 0.5) for n in ns) + "\n"
    out += "|---|---|" + "---:|" * len(ns) + "\n"
    for column, fmt, en, zh in COUNTERS:
        for i, k in enumerate(kernels):
            out += "| %s | `%s` |" % (say(lang, en, zh) if i == 0 else "", k)
            out += "".join(" %s |" % (fmt % num(value[column, k, n]) if (column, k, n) in value else "-") for n in ns) + "\n"
    return out


def cli(argv):
    p = argparse.ArgumentParser(prog="report limits", description="A stage's limits table (make limits), in Markdown.")
    p.add_argument("--stage", required=True, help="the stage's folder name, e.g. 08_roofline")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("csv", help="a limits.csv (scripts/limits.sh)")
    a = p.parse_args(argv[1:])
    sys.stdout.write(limits_table(a.csv, a.stage, a.lang))
    return 0

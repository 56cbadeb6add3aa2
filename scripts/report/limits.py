"""A stage's limits table (make limits) from a limits.csv (scripts/limits.sh): a row per counter and
kernel (CUB last), a column per N: DRAM throughput (% of peak), warps waiting on a global load and on a memory
fence per issue, and the launch's blocks."""
from common import command, n_head, num, read_csv, text

# (column, format), in the table's order; each column's label is its text "limits COLUMN".
COUNTERS = (("dram_pct", "%.1f"), ("long_sb", "%.2f"), ("membar", "%.2f"), ("grid", "%d"))

def limits_table(csv, stage, lang="en"):
    """STAGE's table in LANG; empty where the stage has no kernel but CUB in the CSV."""
    rows = [r for r in read_csv(csv, "stage kernel n launches grid dram_pct long_sb membar")
            if r["stage"] == stage]
    kernels = list(dict.fromkeys(r["kernel"] for r in rows if r["kernel"] != "cub")) + ["cub"]
    ns = sorted(dict.fromkeys(r["n"] for r in rows), key=num)
    value = {(r["kernel"], r["n"]): r for r in rows}
    if len(kernels) == 1:
        return ""
    out = n_head(text(lang, "limits head"), ns, left=2)
    for column, fmt in COUNTERS:
        for i, k in enumerate(kernels):
            out += "| %s | `%s` |" % (text(lang, "limits " + column) if i == 0 else "", k)
            out += "".join(" %s |" % (fmt % num(value[k, n][column]) if (k, n) in value else "-") for n in ns) + "\n"
    return out

def cli(argv):
    return command(argv, __doc__, limits_table, ("--stage", {"required": True, "help": "the stage, NN_name"}),
                   ("csv", {"help": "a limits.csv (scripts/limits.sh)"}))

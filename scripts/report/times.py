"""The times (µs, fp32, L2 flushed) of chosen kernels of a stage at every N of a results CSV, "-" where
the run has none; the caption gives the run's shortest launch floor, below which no launch goes."""
from common import command, device, fail, flushed, n_head, num, read_csv, text

def times(csv, stage, kernels, lang="en"):
    """The table of the kernels KERNELS (space-separated) of STAGE at every N of CSV."""
    rows = flushed(read_csv(csv, "stage kernel dtype n median_us l2"))
    us = {(r["kernel"], num(r["n"])): r["median_us"] for r in rows if r["stage"] == stage != "00_device"
          and r["dtype"] == "f32"}
    ns = sorted({n for _, n in us})
    if not ns:
        fail(f"no rows of stage {stage}")
    out = text(lang, "times caption") % (device(rows)["floor"] or 0) + n_head(text(lang, "µs at"), ns)
    for k in kernels.split():
        out += f"| `{k}` |" + "".join(" %.1f |" % num(us[k, n]) if (k, n) in us else " - |" for n in ns) + "\n"
    return out

def cli(argv):
    return command(argv, __doc__, times, ("--stage", {"required": True, "help": "the stage, NN_name"}),
                   ("--kernels", {"required": True, "help": "the kernels, space-separated, in the order of the rows"}),
                   ("csv", {}))

"""A stage's ratios at every N of a results CSV (L2 flushed; a repeated row: the last wins): each kernel's
x CUB; X_deterministic against X (X's time over its own); and the speed of light (the shortest launch floor plus
the bytes read at the run's fastest read-only bandwidth), then the same with the floor of one DRAM round trip
(round_trip_floor, where measured), each over the time of the stage's fastest fp32 kernel at its largest N."""
from common import command, device, flushed, n_head, num, read_csv, text

def cell(v):
    """A ratio as a table cell; "-" for none ("")."""
    return " - |" if v == "" else " %.3f |" % num(v)

def ratios(csv, stage, lang="en"):
    """The table of STAGE's ratios at every N of CSV."""
    rows = flushed(read_csv(csv, "stage kernel dtype n median_us gbps l2 bytes_read x_cub"))
    mine = [r for r in rows if r["stage"] == stage != "00_device" and r["kernel"] != "cub"]
    at = {(r["kernel"], num(r["n"])): r for r in mine}
    kernels, ns = list(dict.fromkeys(r["kernel"] for r in mine)), sorted({n for _, n in at})
    us = {key: num(r["median_us"]) for key, r in at.items()}
    out = n_head(text(lang, "x CUB at"), ns)
    for k in kernels:
        out += f"| `{k}` |" + "".join(cell(at[k, n]["x_cub"] if (k, n) in at else "") for n in ns) + "\n"
    for det, fast in ((k, k[:-len("_deterministic")]) for k in kernels if k.endswith("_deterministic")):
        if fast in kernels:
            out += f"| `{det}` / `{fast}` |" + "".join(cell(
                us[fast, n] / us[det, n] if (fast, n) in us and us.get((det, n), 0) > 0 else "") for n in ns) + "\n"
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
        out += text(lang, label) + "".join(" %.1f |" % limit[n] if n in limit else cell("") for n in ns) + "\n"
        out += text(lang, over).format(k=fastest)
        out += "".join(cell(limit[n] / us[fastest, n] if n in limit else "") for n in ns) + "\n"
    return out

def cli(argv):
    return command(argv, __doc__, ratios, ("--stage", {"required": True, "help": "the stage, NN_name"}), ("csv", {}))

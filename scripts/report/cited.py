"""An article's own figures beside this run's, from a stage's cited.csv (its kinds: docs/report.md#cited-figures)."""
import collections
import csv as csvlib
import re

from common import bilingual, cells, fail, flushed, library, read_csv, read_text, rel, rule, text, verdict

KINDS = {"step,stage,kernel,ms,gbps": "chain", "s,k,dtype,printed,kernel,sum,ms": "grid"}
NEED = "stage kernel dtype n median_us gbps pct_peak rel_err pass l2 fill bytes_read"

def ratio(a, b):
    """A over B as a speed-up; "-" unless both are positive numbers ("" is none)."""
    return "%.2fx" % (float(a) / float(b)) if a and b and float(a) > 0 and float(b) > 0 else "-"

def headers(names, first):
    return "".join(f" {first if j == 0 else ''}`{name}` |" for j, name in enumerate(names))

class Figures:
    def __init__(self, path, lang):
        lines = [line for line in read_text(path).splitlines() if line]
        self.path = path
        self.meta = {m[1]: line[m.end():] for line in lines if (m := re.match(r"# ([a-z]+): ", line))}
        body = [line for line in lines if not line.startswith("#")]
        self.kind = KINDS.get(body[0] if body else "") or fail(
            f"{path}: its header line '{body[0] if body else ''}' names no kind of cited figures this script knows")
        self.rows = list(csvlib.DictReader(body)) or fail(f"{path}: no rows")
        self.source, self.gpu = (bilingual(self.meta.get(key, ""), lang) for key in ("source", "gpu"))

def chain(fig, csv, lang):
    """The article's steps beside this run's: speed-ups of the kernels' own time (gpu_us; none for a CPU loop)."""
    n = int(fig.meta.get("n") or fail(f"{fig.path}: a chain needs a '# n: N' line"))
    run = {(r["stage"], r["kernel"]): r for r in flushed(read_csv(csv, NEED)) if r["dtype"] == "f32" and int(r["n"]) == n}
    cpu = {(s, k) for s in {step["stage"] for step in fig.rows} for k in library(csv, [s], "cpu")}
    cited, ms, us, gpu = any(step["ms"] for step in fig.rows), "", None, None  # the step before's ms, µs, kernels' µs
    out = text(lang, "chain caption") % (fig.source, fig.gpu, n) if cited else text(lang, "chain caption uncited") % (fig.source, n)
    out += text(lang, "chain head" + " uncited" * (not cited)) + "\n" + rule("ll" + "rrr" * cited + "rrrrrrl")
    for step in fig.rows:
        r, before = run.get((step["stage"], step["kernel"])), gpu
        gpu = r and (step["stage"], step["kernel"]) not in cpu and float(r.get("gpu_us") or r["median_us"])
        out += "| %(step)s | `%(kernel)s` |" % step + (" %s | %s | %s |" % (step["ms"] or "-", step["gbps"] or "-",
                                                                           ratio(ms, step["ms"]))) * cited
        out += " %.1f | %.0f | %s |" % (gpu, float(r["bytes_read"]) / gpu / 1e3, ratio(before, gpu)) if gpu else " - | - | - |"
        out += cells((float(r["finish_us"]) if r and r.get("gpu_us") else None, r and float(r["median_us"])), "%.1f")
        out += " %s | %s |\n" % (ratio(us, r and r["median_us"]), verdict(r["pass"], False) if r else "-")
        ms, us = step["ms"], r and r["median_us"]
    return out

def grid(fig, csv, stage, lang):
    times = fig.meta.get("times", "").split() or fail(f"{fig.path}: a grid needs a '# times:' line")
    drift = fig.meta.get("drift", "").split()
    ns = {f"{r['s']}x{r['k']}": int(r["s"]) * int(r["k"]) for r in fig.rows}  # the cells "SxK", with their N
    at_n = {n: [c for c in ns if ns[c] == n] for n in ns.values()}  # each N's cells, in the grid's order
    article = {(f"{r['s']}x{r['k']}", r["kernel"], r["dtype"]): (r["sum"], r["ms"]) for r in fig.rows}
    type_of = {r["kernel"]: r["dtype"] for r in reversed(fig.rows)}  # each kernel's first input type
    lib = sorted(library(csv, [stage]))[:1] or fail(f"{csv}: stage {stage} describes no library kernel")
    run, seen = {}, collections.Counter()  # run: (cell, kernel, dtype) -> this run's row
    for r in flushed(read_csv(csv, NEED)):  # of the data the article's table is set beside (# fill:, if given)
        key = (r["kernel"], r["dtype"], int(r["n"]))
        if r["stage"] == stage and key[2] in at_n and fig.meta.get("fill", r["fill"]) == r["fill"]:
            # One N's rows are its cells in turn; the last run wins.
            run[(at_n[key[2]][seen[key] % len(at_n[key[2]])],) + key[:2]] = r
            seen[key] += 1
    in_run = {key[1:] for key in run}

    def mine(c, kernel, dtype, err=False):
        """This run's cell C of KERNEL as shown: its time, or (ERR) its error; FAIL where its check failed."""
        if not (r := run.get((c, kernel, dtype))):
            return "-"
        v = verdict(r["pass"])
        return rel(r["rel_err"]) + ("" if v == "ok" else " " + v) if err else \
            "%.1f" % float(r["median_us"]) + (" FAIL" if v == "FAIL" else "")

    t, last = type_of.get(times[0], ""), times[-1]
    ran = [k for k in times if (k, t) in in_run]
    out = text(lang, "grid caption") % (fig.source, fig.gpu, t, last, last)
    out += "| S×K |" + headers(times, text(lang, "article")) + " torch | x torch |" + headers(
        ran, text(lang, "this run")) + " CUB | x CUB |\n" + rule("l" + "r" * (len(times) + len(ran) + 4))
    for c in ns:
        ms = {k: article[c, k, t][1] for k in times + ["torch.sum"] if (c, k, t) in article}  # the article's
        out += f"| {c} |" + cells((float(ms[k]) * 1000 if k in ms else None for k in times + ["torch.sum"]), "%.1f")
        out += f" {ratio(ms.get('torch.sum', ''), ms.get(last, ''))} |" + "".join(f" {mine(c, k, t)} |" for k in ran + lib)
        out += f" {ratio(*(run.get((c, k, t), {}).get('median_us', '') for k in lib + [last]))} |\n"
    if len(drift) < 2:
        return out
    ref, rt = drift[0], type_of.get(drift[0], "")
    printed, measured = [k for k in drift[1:] if k in type_of], [k for k in drift if (k, rt) in in_run]
    out += text(lang, "drift caption") % (rt, ref) + "| S×K |" + headers(printed, text(lang, "article"))
    out += headers(measured, text(lang, "this run")) + "\n" + rule("l" + "r" * (len(printed) + len(measured)))
    for c in ns:
        r = float(article.get((c, ref, rt), ("0",))[0])  # REF's printed sum: each one's relative difference
        sums = [article.get((c, k, rt), ("",))[0] for k in printed]
        out += f"| {c} |" + "".join(" %s |" % ("-" if v == "" or not r else rel(abs((float(v) - r) / r))) for v in sums)
        out += "".join(f" {mine(c, k, rt, err=True)} |" for k in measured) + "\n"
    return out

def cited(csv, cited_csv, stage, lang="en"):
    fig = Figures(cited_csv, lang)
    return grid(fig, csv, stage, lang) if fig.kind == "grid" else chain(fig, csv, lang)

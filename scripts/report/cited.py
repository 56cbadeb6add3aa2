"""An article's own figures beside this run's, from a stage's cited.csv.
The figures are copied from the article, with its source. Columns read: stage, kernel, dtype, n,
median_us, gbps, pct_peak, rel_err, pass, l2; rows with the input left in L2 are not used.
cited.csv: "# source: EN | ZH" and "# gpu: EN | ZH" lines, other "# key: value" lines its kind reads,
then a header line that says which kind of figures it holds, then the rows:
  step,stage,kernel,ms,gbps   a chain of steps at one N ("# n: N"): each step's time and GB/s, as the
                              article gives them and as measured, and each step's speed-up over the one
                              before, for both.
  s,k,dtype,printed,kernel,sum,ms
                              a benchmark over an S x K grid: each kernel's printed sum and time per
                              cell (kernel "torch.sum": the article's torch rows). "# times: K1 K2 ..."
                              the kernels whose times are set beside torch's, and this run's beside CUB's
                              (x torch, x CUB: their time over the last kernel's); "# drift: REF K1 ..."
                              the kernels whose sums are compared: the article's as the relative
                              difference from REF's printed sum, this run's as its error against the fp64
                              sum. The results CSV has no column for K: the rows of one N are taken to be
                              the cells of that N in the grid's order (the stage's bench sizes, S-major).
  claim,stage,kernel,than_stage,than_kernel,n,times
                              a claim that a kernel is slower than another by a factor at one N, beside
                              the ratio of this run's times (claim: a short label, no commas).
usage: python3 scripts/report cited --cited stages/NN_name/cited.csv [--stage NN_name] [--lang en|zh] CSV"""
import re

from common import bilingual, command, fail, flushed, num, passed, read_csv, read_lines, rule, text

KINDS = {"step,stage,kernel,ms,gbps": "chain", "s,k,dtype,printed,kernel,sum,ms": "grid",
         "claim,stage,kernel,than_stage,than_kernel,n,times": "claim"}
NEED = "stage kernel dtype n median_us gbps pct_peak rel_err pass l2"

def ratio(a, b):
    """A over B as a speed-up; "-" unless both are positive numbers ("" is none)."""
    return "%.2fx" % (num(a) / num(b)) if a != "" and b != "" and num(a) > 0 and num(b) > 0 else "-"

def rel(v):
    """A relative error or difference, "-" for none."""
    return "-" if v == "" else "0" if num(v) == 0 else "%.1e" % num(v)

def headers(names, first):
    """Table headers of the kernels NAMES, the first one's with the prefix FIRST."""
    return "".join(f" {first if j == 0 else ''}`{name}` |" for j, name in enumerate(names))

class Figures:
    """A cited.csv: its "# key: value" lines, its kind, and its rows (fields, 7 at least)."""

    def __init__(self, path, lang):
        self.path, self.meta, self.kind, self.rows = path, {}, None, []
        for line in read_lines(path):
            m = re.match(r"# ([a-z]+): ", line)
            if m:
                self.meta[m.group(1)] = line[m.end():]
            elif line.startswith("#") or line == "":
                continue
            elif self.kind is None:
                if line not in KINDS:
                    self.fail(f"its header line '{line}' names no kind of cited figures this script knows")
                self.kind = KINDS[line]
            else:
                self.rows.append(line.split(",") + [""] * 7)
        if not self.rows:
            self.fail("no rows")
        self.source, self.gpu = bilingual(self.meta.get("source", ""), lang), bilingual(self.meta.get("gpu", ""), lang)

    def fail(self, why):
        fail(f"{self.path}: {why}")

def chain(fig, csv, lang):
    """A chain of steps at one N: each step's time, GB/s and speed-up, the article's and this run's."""
    n = num(fig.meta.get("n", ""))
    if not n:
        fig.fail("a chain needs a '# n:' line")
    rows = flushed(read_csv(csv, NEED))
    run = {(r["stage"], r["kernel"]): r for r in rows if r["dtype"] == "f32" and num(r["n"]) == n}
    out = text(lang, "chain caption") % (fig.source, fig.gpu, n) + text(lang, "chain head") + "\n" + rule("llrrrrrrrl")
    before = [""] * 5  # the step before: none
    for step in fig.rows:
        r, p = run.get((step[1], step[2])), run.get((before[1], before[2]))
        out += "| %s | `%s` | %s | %s | %s |" % (step[0], step[2], step[3], step[4], ratio(before[3], step[3]))
        out += " %.1f | %.0f | %.1f |" % (num(r["median_us"]), num(r["gbps"]), num(r["pct_peak"])) if r else " - |" * 3
        out += " %s | %s |\n" % (ratio(p["median_us"], r["median_us"]) if r and p else "-",
                                 "-" if not r else "ok" if passed(r["pass"]) else "FAIL")
        before = step
    return out

def grid(fig, csv, stage, lang):
    """A benchmark over an S x K grid: the kernels' times beside torch's and CUB's, the article's and
    this run's; then the sums' drift, where the file names the kernels to compare."""
    times, drift = fig.meta.get("times", "").split(), fig.meta.get("drift", "").split()
    if not times:
        fig.fail("a grid needs a '# times:' line")
    cells, count, type_of, sums, ms = {}, {}, {}, {}, {}  # cells: "SxK" -> (N, its place among the cells of N)
    for s, k, dtype, _, kernel, total, t_ms, *_ in fig.rows:
        c = f"{s}x{k}"
        if c not in cells:
            n = num(s) * num(k)
            count[n] = count.get(n, 0) + 1
            cells[c] = (n, count[n])
        sums[c, kernel, dtype], ms[c, kernel, dtype] = total, t_ms
        type_of.setdefault(kernel, dtype)
    run, seen = {}, {}  # run: (kernel, dtype, N, place) -> this run's row
    for r in flushed(read_csv(csv, NEED)):
        key = (r["kernel"], r["dtype"], num(r["n"]))
        if r["stage"] == stage and key[2] in count:
            # The rows of one N are the cells of that N in turn; a repeated run: the last one wins.
            seen[key] = seen.get(key, 0) + 1
            run[key + ((seen[key] - 1) % count[key[2]] + 1,)] = r
    in_run = {key[:2] for key in run}

    def at(c, kernel, dtype, what):
        """This run's cell C of KERNEL: its median_us (time: "" for none), or as shown ("us", "err")."""
        r = run.get((kernel, dtype) + cells[c])
        if not r:
            return "" if what == "time" else "-"
        if what == "time":
            return r["median_us"]
        if what == "us":
            return "%.1f" % num(r["median_us"]) + ("" if passed(r["pass"]) or r["pass"] == "xfail" else " FAIL")
        return rel(r["rel_err"]) + ("" if passed(r["pass"]) else " xfail" if r["pass"] == "xfail" else " FAIL")

    def article_us(c, kernel):
        """The article's time in µs (it prints ms)."""
        return "%.1f" % (num(ms[c, kernel, t]) * 1000) if (c, kernel, t) in ms else "-"

    t, last = type_of.get(times[0], ""), times[-1]
    ran = [k for k in times if (k, t) in in_run]
    out = text(lang, "grid caption") % (fig.source, fig.gpu, t, last, last)
    out += "| S×K |" + headers(times, text(lang, "article")) + " torch | x torch |"
    out += headers(ran, text(lang, "this run")) + " CUB | x CUB |\n" + rule("l" + "r" * (len(times) + len(ran) + 4))
    for c in cells:
        out += f"| {c} |" + "".join(f" {article_us(c, k)} |" for k in times)
        out += f" {article_us(c, 'torch.sum')} | {ratio(ms.get((c, 'torch.sum', t), ''), ms.get((c, last, t), ''))} |"
        out += "".join(f" {at(c, k, t, 'us')} |" for k in ran)
        out += f" {at(c, 'cub', t, 'us')} | {ratio(at(c, 'cub', t, 'time'), at(c, last, t, 'time'))} |\n"
    if len(drift) < 2:
        return out
    ref, rt = drift[0], type_of.get(drift[0], "")
    printed, measured = [k for k in drift[1:] if k in type_of], [k for k in drift if (k, rt) in in_run]
    out += text(lang, "drift caption") % (rt, ref) + "| S×K |" + headers(printed, text(lang, "article"))
    out += headers(measured, text(lang, "this run")) + "\n" + rule("l" + "r" * (len(printed) + len(measured)))
    for c in cells:
        out += f"| {c} |"
        for k in printed:  # the relative difference of K's printed sum from REF's
            v, r = sums.get((c, k, rt), ""), sums.get((c, ref, rt), "")
            out += " %s |" % ("-" if v == "" or r == "" or num(r) == 0 else rel(abs((num(v) - num(r)) / num(r))))
        out += "".join(f" {at(c, k, rt, 'err')} |" for k in measured) + "\n"
    return out

def claims(fig, csv, lang):
    """Claims that a kernel is slower than another by a factor at one N, beside this run's ratio."""
    run = {(r["stage"], r["kernel"], num(r["n"])): r for r in flushed(read_csv(csv, NEED)) if r["dtype"] == "f32"}
    out = text(lang, "claims caption") % fig.source + text(lang, "claims head") + "\n" + rule("lllrrrrrl")
    for claim, stage, kernel, than_stage, than_kernel, n, factor, *_ in fig.rows:
        a, b = run.get((stage, kernel, num(n))), run.get((than_stage, than_kernel, num(n)))
        check = "-" if not a or not b else "ok" if passed(a["pass"]) and passed(b["pass"]) else "FAIL"
        out += "| %s | %s `%s` | %s `%s` | %d | %s | %s | %s | %s | %s |\n" % (
            claim, stage, kernel, than_stage, than_kernel, num(n), text(lang, "about") + factor + "x",
            "%.1f" % num(a["median_us"]) if a else "-", "%.1f" % num(b["median_us"]) if b else "-",
            ratio(a["median_us"] if a else "", b["median_us"] if b else ""), check)
    return out

def cited(csv, cited, stage="", lang="en"):
    """The table(s) of the cited figures CITED beside the run CSV; STAGE (the grid's stage): by default
    the folder of CITED."""
    fig = Figures(cited, lang)
    if fig.kind == "grid":
        return grid(fig, csv, stage or re.sub(r"/cited\.csv$", "", cited).rsplit("/", 1)[-1], lang)
    return (chain if fig.kind == "chain" else claims)(fig, csv, lang)

def cli(argv):
    return command(argv, __doc__, cited,
                   ("--cited", {"required": True, "help": "the stage's cited figures, stages/NN_name/cited.csv"}),
                   ("--stage", {"default": "",
                                "help": "the stage whose rows the grid reads (default: the folder of --cited)"}),
                   ("csv", {}))

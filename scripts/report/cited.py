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
import argparse
import re
import sys

from common import fail, num, passed, read_csv, say

KINDS = {"step,stage,kernel,ms,gbps": "chain", "s,k,dtype,printed,kernel,sum,ms": "grid",
         "claim,stage,kernel,than_stage,than_kernel,n,times": "claim"}
NEED = "stage kernel dtype n median_us gbps pct_peak rel_err pass l2"


def positive(v):
    """Whether the value V of a CSV is a number above 0 ("" is none)."""
    return v != "" and num(v) > 0



def ratio(a, b):
    """A over B as a speed-up; "-" unless both are positive."""
    return "%.2fx" % (num(a) / num(b)) if positive(a) and positive(b) else "-"


def rel(v):
    """A relative error or difference, "-" for none."""
    return "-" if v == "" else "0" if num(v) == 0 else "%.1e" % num(v)


class Figures:
    """A cited.csv: its "# key: value" lines, its kind, and its rows (fields, 7 at least)."""

    def __init__(self, path, lang):
        self.path, self.meta, self.kind, self.rows = path, {}, None, []
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except OSError as e:
            fail(f"{path}: {e.strerror}")
        for line in lines:
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
        self.source, self.gpu = self.pick("source", lang), self.pick("gpu", lang)

    def fail(self, why):
        fail(f"{self.path}: {why}")

    def pick(self, key, lang):
        """The part of the line KEY ("EN | ZH") in LANG; English where it has no Chinese."""
        parts = self.meta.get(key, "").split(" | ") + [""]
        return parts[1] if lang == "zh" and parts[1] != "" else parts[0]


def chain(fig, csv_path, lang):
    """A chain of steps at one N: each step's time, GB/s and speed-up, the article's and this run's."""
    n = num(fig.meta.get("n", ""))
    if not n:
        fig.fail("a chain needs a '# n:' line")
    run = {}  # (stage, kernel) -> the row
    for r in read_csv(csv_path, NEED):
        if r["l2"] != "warm" and r["dtype"] == "f32" and num(r["n"]) == n:
            run[r["stage"], r["kernel"]] = r
    out = say(lang, "%s (%s, N = %d), beside this run at the same N; the speed-up is each step's over the step before:\n\n",
              "%s（%s，N = %d），与本次运行在同一 N 上的结果并列；加速比是每一步相对前一步的：\n\n") % (fig.source, fig.gpu, n)
    out += say(lang, "| step | kernel | article: ms | GB/s | speed-up | this run: µs | GB/s | % of peak | speed-up | check |",
               "| 步骤 | kernel | 文章：ms | GB/s | 加速比 | 本次运行：µs | GB/s | 占峰值 % | 加速比 | 检查 |") + "\n"
    out += "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n"
    before = None
    for step in fig.rows:
        r = run.get((step[1], step[2]))
        p = run.get((before[1], before[2])) if before else None
        out += "| %s | `%s` | %s | %s | %s |" % (step[0], step[2], step[3], step[4], ratio(before[3], step[3]) if before else "-")
        if r:
            out += " %.1f | %.0f | %.1f |" % (num(r["median_us"]), num(r["gbps"]), num(r["pct_peak"]))
        else:
            out += " - | - | - |"
        out += " %s | %s |\n" % (ratio(p["median_us"], r["median_us"]) if r and p else "-",
                                 "-" if not r else "ok" if passed(r["pass"]) else "FAIL")
        before = step
    return out


class Grid:
    """The cells of a grid (S x K, in the file's order), the article's figures by (cell, kernel, dtype),
    and this run's rows by run_key."""

    def __init__(self, fig, csv_path, stage):
        self.times, self.drift = fig.meta.get("times", "").split(), fig.meta.get("drift", "").split()
        if not self.times:
            fig.fail("a grid needs a '# times:' line")
        self.cells = {}  # "SxK" -> (N, its place among the cells of that N)
        cells_of_n, self.type_of, self.sums, self.ms = {}, {}, {}, {}
        for s, k, dtype, _, kernel, total, ms, *_ in fig.rows:
            c = f"{s}x{k}"
            if c not in self.cells:
                n = num(s) * num(k)
                cells_of_n[n] = cells_of_n.get(n, 0) + 1
                self.cells[c] = (n, cells_of_n[n])
            self.sums[c, kernel, dtype], self.ms[c, kernel, dtype] = total, ms
            self.type_of.setdefault(kernel, dtype)
        self.run, self.in_run, seen = {}, set(), {}
        for r in read_csv(csv_path, NEED):
            n = num(r["n"])
            if r["l2"] == "warm" or r["stage"] != stage or n not in cells_of_n:
                continue
            # The rows of one N are the cells of that N in turn; a repeated run: the last one wins.
            key = (r["kernel"], r["dtype"], n)
            seen[key] = seen.get(key, 0) + 1
            self.run[key + ((seen[key] - 1) % cells_of_n[n] + 1,)] = r
            self.in_run.add((r["kernel"], r["dtype"]))

    def run_key(self, c, kernel, dtype):
        """Where this run's row of cell C is kept."""
        return (kernel, dtype) + self.cells[c]

    def article_us(self, c, kernel, dtype):
        """The article's time in µs (it prints ms)."""
        return "%.1f" % (num(self.ms[c, kernel, dtype]) * 1000) if (c, kernel, dtype) in self.ms else "-"

    def us_of(self, c, kernel, dtype):
        """This run's time in µs, marked where its check failed."""
        r = self.run.get(self.run_key(c, kernel, dtype))
        return "-" if not r else "%.1f" % num(r["median_us"]) + ("" if passed(r["pass"]) or r["pass"] == "xfail" else " FAIL")

    def err_of(self, c, kernel, dtype):
        """This run's error against the fp64 sum, marked where its check failed or was expected to."""
        r = self.run.get(self.run_key(c, kernel, dtype))
        if not r:
            return "-"
        return rel(r["rel_err"]) + ("" if passed(r["pass"]) else " xfail" if r["pass"] == "xfail" else " FAIL")

    def difference(self, c, kernel, ref, dtype):
        """The relative difference of KERNEL's printed sum from REF's."""
        v, r = self.sums.get((c, kernel, dtype), ""), self.sums.get((c, ref, dtype), "")
        if v == "" or r == "" or num(r) == 0:
            return "-"
        return rel(abs((num(v) - num(r)) / num(r)))

    def time(self, c, kernel, dtype):
        """This run's median_us ("" for none)."""
        r = self.run.get(self.run_key(c, kernel, dtype))
        return r["median_us"] if r else ""


def headers(names, first):
    """Table headers of the kernels NAMES, the first one's with the prefix FIRST."""
    return "".join(f" {first if j == 0 else ''}`{name}` |" for j, name in enumerate(names))


def grid(fig, csv_path, stage, lang):
    """A benchmark over an S x K grid: the kernels' times beside torch's and CUB's, the article's and
    this run's; then the sums' drift, where the file names the kernels to compare."""
    g = Grid(fig, csv_path, stage)
    t, last = g.type_of.get(g.times[0], ""), g.times[-1]
    ran = [k for k in g.times if (k, t) in g.in_run]
    out = say(lang, "%s (%s), beside this run at each S×K of its grid (N = S·K elements of %s): times in µs (the article's "
                    "printed in ms); x torch and x CUB are torch's and CUB's time over `%s`'s (>1: `%s` is faster).\n\n",
              "%s（%s），与本次运行在其网格的每个 S×K 上并列（N = S·K 个 %s 元素）：时间单位为 µs（文章打印的是 ms）；"
              "x torch 与 x CUB 是 torch 与 CUB 的时间除以 `%s` 的（>1：`%s` 更快）。\n\n") % (fig.source, fig.gpu, t, last, last)
    out += ("| S×K |" + headers(g.times, say(lang, "article: ", "文章：")) + " torch | x torch |"
            + headers(ran, say(lang, "this run: ", "本次运行：")) + " CUB | x CUB |\n")
    out += "|---|" + "---:|" * (len(g.times) + len(ran) + 4) + "\n"
    for c in g.cells:
        out += f"| {c} |" + "".join(f" {g.article_us(c, k, t)} |" for k in g.times)
        out += f" {g.article_us(c, 'torch.sum', t)} | {ratio(g.ms.get((c, 'torch.sum', t), ''), g.ms.get((c, last, t), ''))} |"
        out += "".join(f" {g.us_of(c, k, t)} |" for k in ran)
        out += f" {g.us_of(c, 'cub', t)} | {ratio(g.time(c, 'cub', t), g.time(c, last, t))} |\n"
    if len(g.drift) < 2:
        return out
    ref = g.drift[0]
    rt = g.type_of.get(ref, "")
    printed = [k for k in g.drift[1:] if k in g.type_of]
    measured = [k for k in g.drift if (k, rt) in g.in_run]
    out += say(lang, "\nThe sums of the %s data: the article's as each printed sum's relative difference from `%s`'s; this "
                     "run's as each kernel's error against the fp64 sum of its input.\n\n",
               "\n%s 数据的和：文章的，以每个打印出的和相对 `%s` 的和的相对差表示；本次运行的，以每个 kernel 相对其输入的 fp64 "
               "和的误差表示。\n\n") % (rt, ref)
    out += ("| S×K |" + headers(printed, say(lang, "article: ", "文章："))
            + headers(measured, say(lang, "this run: ", "本次运行：")) + "\n")
    out += "|---|" + "---:|" * (len(printed) + len(measured)) + "\n"
    for c in g.cells:
        out += (f"| {c} |" + "".join(f" {g.difference(c, k, ref, rt)} |" for k in printed)
                + "".join(f" {g.err_of(c, k, rt)} |" for k in measured) + "\n")
    return out


def claims(fig, csv_path, lang):
    """Claims that a kernel is slower than another by a factor at one N, beside this run's ratio."""
    run = {}  # (stage, kernel, n) -> the row
    for r in read_csv(csv_path, NEED):
        if r["l2"] != "warm" and r["dtype"] == "f32":
            run[r["stage"], r["kernel"], num(r["n"])] = r
    out = say(lang, "%s: the article's claims beside this run (slower by: the first kernel's time over the second's, at the same N):\n\n",
              "%s：文章的说法与本次运行并列（慢多少倍：第一个 kernel 的时间除以第二个的，在同一 N 上）：\n\n") % fig.source
    out += say(lang, "| claim | kernel | than | N | article: slower by | this run: µs | than: µs | slower by | check |",
               "| 说法 | kernel | 相比 | N | 文章：慢多少倍 | 本次运行：µs | 相比：µs | 慢多少倍 | 检查 |") + "\n"
    out += "|---|---|---|---:|---:|---:|---:|---:|---|\n"
    for claim, stage, kernel, than_stage, than_kernel, n, factor, *_ in fig.rows:
        a, b = run.get((stage, kernel, num(n))), run.get((than_stage, than_kernel, num(n)))
        check = "-" if not a or not b else "ok" if passed(a["pass"]) and passed(b["pass"]) else "FAIL"
        out += "| %s | %s `%s` | %s `%s` | %d | %s | %s | %s | %s | %s |\n" % (
            claim, stage, kernel, than_stage, than_kernel, num(n), say(lang, "about ", "约 ") + factor + "x",
            "%.1f" % num(a["median_us"]) if a else "-", "%.1f" % num(b["median_us"]) if b else "-",
            ratio(a["median_us"] if a else "", b["median_us"] if b else ""), check)
    return out


def folder(cited_path):
    """The stage a cited.csv belongs to: the name of its folder."""
    if cited_path.endswith("/cited.csv"):
        cited_path = cited_path[:-len("/cited.csv")]
    return cited_path.rsplit("/", 1)[-1]


def cited(csv_path, cited_path, stage="", lang="en"):
    """The table(s) of the cited figures CITED_PATH beside the run CSV_PATH; STAGE (the grid's stage):
    by default the folder of CITED_PATH."""
    fig = Figures(cited_path, lang)
    if fig.kind == "chain":
        return chain(fig, csv_path, lang)
    if fig.kind == "grid":
        return grid(fig, csv_path, stage or folder(cited_path), lang)
    return claims(fig, csv_path, lang)


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report cited", description=__doc__.split("\n")[0])
    parser.add_argument("--cited", required=True, help="the stage's cited figures, stages/NN_name/cited.csv")
    parser.add_argument("--stage", default="", help="the stage whose rows the grid reads (default: the folder of --cited)")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("csv")
    args = parser.parse_args(argv[1:])
    sys.stdout.write(cited(args.csv, args.cited, args.stage, args.lang))
    return 0

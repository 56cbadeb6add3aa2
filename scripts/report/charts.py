"""The charts of a results CSV (results.csv, or multigpu.csv: the same columns), drawn with gnuplot, from its
columns gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read and each stage's chart tokens
(its description: describe-<stage>.txt beside the CSV, or its built program's).
  plot CSV OUTDIR [--dumb]   draws them into OUTDIR/NAME.png; --dumb also prints in the terminal the bar
                             charts that go into the results page
  charts CSV                 names them, one a line, in the order plot draws them (none: no line)
Every plots/*.gp is a chart, and the comment lines it starts with hold its header:
  # chart: NAME    drawn into OUTDIR/NAME.png from the rows of every stage whose chart tokens have NAME (the
                   stage's best fp32 kernel at its largest N) or NAME+ (every kernel: the stage owns the chart)
  # shape: SHAPE   how those rows become series (below; the .gp says its data files' columns)
  # readme: WHERE  front: the front page (README.md) shows it; top: the results page (docs/results.md) and
                   each GPU's page do; stage: the README of each stage that owns it does (drawn only where
                   the CSV has the rows of a stage that owns it; any other chart where a stage names it)
  # alt: EN | ZH   its alt text; {stage}: the numbers of the stages that own it, {others}: the other stages'
Adding a chart is adding a .gp file (and its token to the stages whose rows it draws). The shapes (only l2
and busbw read the rows with the input left in L2, l2 = warm; bars and lines list the stages that own the
chart first, then the others, in the CSV's order):
  bars    GB/s at the largest N of the first stage listed, a bar per fp32 kernel, CUB last
  lines   GB/s of the fp32 kernels against N, CUB last
  l2      the median time against N of each fp32 kernel with rows in L2 both flushed and warm
  cols    GB/s against the row length (cols column) of each kernel
  types   a bar per kernel and input type at the stage's largest N, CUB of each type beside its kernels
  panels  the kernels measured on one input type as lines against N, those measured on several (data sets,
          as u8_uniform and u8_skewed) as bars at the largest N, a column per data set
  busbw   the all-reduce rows (kernel allreduce_gG[_procs]): GB/s against the bytes each GPU holds, and a
          line at NVLINK_GBPS (a published figure the CSV does not hold) labelled NVLINK_LABEL ("NVLink")
Every chart also gets: datafile, out (the PNG), term ('png' or 'dumb'), plotdir (plots/), gpu, peak and copy
(GB/s), sol (the fastest read-only GB/s any program measured), floor (the shortest launch floor, µs), l2n
(elements of fp32 that fill L2), stage and others (as {stage} and {others} above). CUB, where several stages
measured it, is the median of their CUB rows at each N. Of a repeated row (same stage, kernel, input type, N,
cols and l2) the last one wins. A kernel whose check failed is marked (FAIL).
Exit codes: 2 bad CSV, 4 gnuplot missing, 1 a chart file without its header lines, other: gnuplot failed."""
import argparse
import glob
import itertools
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from common import awk_str, chart_tokens, device, fail, first_fills, num, number, passed, read_csv

PLOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plots")
ALLREDUCE = re.compile(r"allreduce_g([0-9]+)(_procs)?")
NEED = "gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read"
VARS = "gpu=%s; peak=%s; copy=%s; sol=%s; floor=%s; l2n=%.0f; stage=%s; others=%s; %s\n"  # a chart's NAME.vars


def header(gp):
    """The keys of the header of the chart file GP ("# KEY: value" among the comment lines it starts
    with): "" where missing, one a line where on several lines; and file, GP."""
    with open(gp, encoding="utf-8", newline="") as f:
        lines = list(itertools.takewhile(lambda line: line.startswith("#"), f.read().split("\n")))
    found = {key: [line[len(key) + 3:].lstrip(" ") for line in lines if line.startswith(f"# {key}:")]
             for key in ("chart", "shape", "readme", "alt")}
    return dict({key: "\n".join(values).rstrip("\n") for key, values in found.items()}, file=gp)


def chart_headers():
    """The header keys of every chart file (plots/*.gp) that names its chart, by name."""
    return {keys["chart"]: keys for keys in map(header, sorted(glob.glob(os.path.join(PLOTS, "*.gp"))))
            if keys["chart"]}


def quote(s):
    """S as a gnuplot string in double quotes."""
    return '"' + re.sub(r'["\\]', lambda m: "\\" + m.group(), s) + '"'


def marked(label, failed):
    return label + (" (FAIL)" if failed else "")


def phrase(words):
    """"a", "a and b", "a, b and c"."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def median(values):
    """The median of VALUES (strings), numerically: the middle one as it is written where their number is
    odd, else the mean of the two middle ones (none: 0, as in awk)."""
    a, k = sorted(values, key=num), len(values)
    return a[k // 2] if k % 2 else sum(map(num, a[k // 2 - 1:k // 2 + 1])) / 2


def size(b):
    """A size in bytes as a tic label: 1K, 2M, 1G."""
    for unit, scale in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)):
        if b >= scale and b % scale == 0:
            return awk_str(b / scale) + unit
    return awk_str(b)


class Row:
    """A row of a stage: its fields as the charts read them."""

    def __init__(self, r):
        self.stage, self.kernel, self.dtype, self.cols = r["stage"], r["kernel"], r["dtype"], r["cols"]
        self.n, self.failed, self.warm = num(r["n"]), not passed(r["pass"]), r["l2"] == "warm"
        self.us, self.gbps, self.pct, self.bytes = r["median_us"], r["gbps"], r["pct_peak"], r["bytes_read"]


class Results:
    """The rows of a results CSV: the device's figures (stage 00_device), and the rows of the stages by
    stage, kernel, input type and N (of each, its first fill's), each list in the order of first appearance."""

    def __init__(self, path):
        rows, self.gpu = read_csv(path, NEED), ""
        dev, l2 = device(rows), [r["n"] for r in rows if r["stage"] == "00_device" and r["kernel"] == "l2_size"]
        self.peak, self.copy, self.sol, self.floor = dev["peak"], dev["copy"], dev["sol"], dev["floor"] or 0
        self.l2n = num(l2[-1]) if l2 else 0
        self.rows = {}      # (stage, kernel, dtype, n, cols, warm): Row; a repeat replaces it in its place
        self.plain = {}     # (stage, kernel, dtype, n): the row without cols, L2 flushed
        self.warm = {}      # the same, L2 warm
        self.kernels = {}   # stage: its kernels
        self.types = {}     # stage: its (kernel, dtype)
        for r in (r for r in first_fills(rows) if r["stage"] != "00_device"):
            row, self.gpu = Row(r), r["gpu"]
            s, k, t, n = row.stage, row.kernel, row.dtype, row.n
            self.rows[s, k, t, n, row.cols, row.warm] = row
            if row.cols == "":
                (self.warm if row.warm else self.plain)[s, k, t, n] = row
            self.kernels.setdefault(s, {})[k] = None
            self.types.setdefault(s, {})[k, t] = None
        self.stages, self.ns = list(self.kernels), sorted({row.n for row in self.rows.values()})
        self.tokens = {s: f" {t} " for s, t in chart_tokens(path, self.stages).items()}  # stage: " its tokens "

    def largest(self, s, t):
        """The largest N of stage s among its rows without cols, of input type t ("": any); None for none."""
        return max((n for n in self.ns if n > 0 and any(
            (s, k, dt, n) in self.plain for k, dt in self.types[s] if t in ("", dt))), default=None)

    def best(self, s):
        """The fastest fp32 kernel of stage s at its largest N, CUB aside ("" for none)."""
        n = self.largest(s, "f32")
        return max((k for k in self.kernels[s] if k != "cub" and (s, k, "f32", n) in self.plain),
                   key=lambda k: num(self.plain[s, k, "f32", n].gbps), default="")


class Drawing:
    """One chart's stages (role: "own" for NAME+, "best" for NAME), and its shapes: each writes the data files
    into FILES (by file name) and returns the chart's variables ("": nothing to draw)."""

    def __init__(self, results, name, files):
        self.r, self.files, self.data, self.hist = results, files, name + ".data", name + ".hist"
        self.role = {s: "own" if f" {name}+ " in tokens else "best" if f" {name} " in tokens else ""
                     for s, tokens in results.tokens.items()}
        self.pick = {s: results.best(s) for s in results.stages if self.role[s] == "best"}
        self.own = [s for s in results.stages if self.role[s] == "own"]
        self.others = [s for s in results.stages if self.role[s] == "best"]
        self.listed, self.minn, self.maxn = self.own + self.others, math.inf, 0

    def on(self, s, k):
        """Kernel k of stage s is on the chart: every kernel of a stage that owns it, the best of another."""
        return self.role[s] == "own" or (self.role[s] == "best" and k == self.pick[s])

    def series(self, title, s, k, t, what):
        """A block of the data file: kernel k of stage s on input type t at every N, WHAT: gbps, flushed (the
        time) or warm (the time, input left in L2); 1, or 0 where it has no row. Widens minn and maxn."""
        table = self.r.warm if what == "warm" else self.r.plain
        rows = [(n, table[s, k, t, n]) for n in self.r.ns if (s, k, t, n) in table]
        if not rows:
            return 0
        self.minn, self.maxn = min(self.minn, rows[0][0]), max(self.maxn, rows[-1][0])
        lines = "".join("%.0f\t%s\n" % (n, row.gbps if what == "gbps" else row.us) for n, row in rows)
        self.files[self.data] += "%s\n%s\n\n" % (quote(marked(title, any(row.failed for _, row in rows))), lines)
        return 1

    def cub(self, n):
        """The median GB/s of the fp32 CUB rows of the chart's stages at N; None for none."""
        values = [self.r.plain[s, "cub", "f32", n].gbps for s in self.listed if (s, "cub", "f32", n) in self.r.plain]
        # Split on blanks, as awk's split: an empty value drops out.
        return median(" ".join(values).split()) if values else None

    def bars(self):
        n, bar = self.r.largest(self.listed[0], "f32"), 0
        for s in self.listed:
            for k in self.r.kernels[s]:
                if k != "cub" and self.on(s, k) and (s, k, "f32", n) in self.r.plain:
                    row, bar = self.r.plain[s, k, "f32", n], bar + 1
                    self.files[self.data] += "%d\t%s\t%s\t%.0f\t%d\n" % (
                        bar, quote(marked(f"{number(s)} {k}", row.failed)), row.gbps, num(row.pct), num(number(s)))
        m = self.cub(n)
        if m is not None:
            bar += 1
            pct = 100 * num(m) / self.r.peak if self.r.peak > 0 else 0
            self.files[self.data] += '%d\t"cub"\t%s\t%.0f\t0\n' % (bar, awk_str(m), pct)
        return "maxn=%.0f;" % n if bar else ""

    def lines(self):
        count = sum(self.series(f"{number(s)} {k}", s, k, "f32", "gbps")
                    for s in self.listed for k in self.r.kernels[s] if k != "cub" and self.on(s, k))
        if not count:
            return ""
        block = "".join("%.0f\t%s\n" % (n, awk_str(self.cub(n))) for n in self.r.ns if self.cub(n) is not None)
        if block:
            self.files[self.data] += '"cub"\n%s\n\n' % block
            count += 1
        return "series=%d; minn=%.0f; maxn=%.0f;" % (count, self.minn, self.maxn)

    def l2(self):
        count = sum(self.series(f"{number(s)} {k}, L2 {what}", s, k, "f32", what)
                    for s in self.r.stages for k in self.r.kernels[s]
                    if self.on(s, k) and any((s, k, "f32", n) in self.r.warm for n in self.r.ns)
                    for what in ("flushed", "warm"))
        return "series=%d;" % count if count else ""

    def cols(self):
        gbps, total, count = {}, None, 0
        for row in self.r.rows.values():
            if self.role[row.stage] == "own" and row.cols != "" and not row.warm:
                gbps[row.stage, row.kernel, num(row.cols)], total = row.gbps, row.n
        lengths = sorted({c for _, _, c in gbps})
        for s in self.r.stages:
            for k in self.r.kernels[s]:
                block = "".join("%d\t%s\n" % (c, gbps[s, k, c]) for c in lengths if (s, k, c) in gbps)
                if block:
                    self.files[self.data] += "%s\n%s\n\n" % (quote(k), block)
                    count += 1
        return "series=%d; total=%.0f;" % (count, total) if count else ""

    def types(self):
        number_of, n, bar = {}, None, 0
        for s in self.own:
            n = self.r.largest(s, "")
            for k, t in self.r.types[s]:
                number_of.setdefault(t, len(number_of) + 1)
                if (s, k, t, n) in self.r.plain:
                    row, bar = self.r.plain[s, k, t, n], bar + 1
                    gelems = n / num(row.us) / 1e3 if num(row.us) else math.inf  # awk divides by 0 into inf
                    label = marked(f"cub {t}" if k == "cub" else k, row.failed)
                    self.files[self.data] += "%d\t%s\t%s\t%.2f\t%d\t%d\n" % (
                        bar, quote(label), row.gbps, gelems, number_of[t], k == "cub")
        return "maxn=%.0f;" % (n or 0) if bar else ""

    def panels(self):
        plain, count, histrows, sets, barn = self.r.plain, 0, 0, {}, None
        for s in self.own:
            types_of = Counter(k for k, _ in self.r.types[s])
            for k, t in self.r.types[s]:
                if types_of[k] == 1:
                    count += self.series(k, s, k, t, "gbps")
                    continue
                sets.setdefault(t.split("_", 1)[-1], len(sets) + 1)  # the data set: u8_skewed's skewed
                for n in self.r.ns:
                    if (s, k, t, n) in plain and n > (barn or 0):
                        barn = n
        for s in self.own:
            for k in (k for k, times in Counter(k for k, _ in self.r.types[s]).items() if times > 1):
                found = [(sets[t.split("_", 1)[-1]], plain[s, k, t, barn]) for kernel, t in self.r.types[s]
                         if kernel == k and (s, k, t, barn) in plain]
                if found:
                    value = dict(found)
                    values = "".join("\t" + (value[i].gbps if i in value else "NaN") for i in range(1, len(sets) + 1))
                    self.files[self.hist] += quote(marked(k, any(row.failed for _, row in found))) + values + "\n"
                    histrows += 1
        if not count and not histrows:
            return ""
        return "series=%d; minn=%.0f; maxn=%.0f; histrows=%d; barn=%.0f; sets=%s;" % (
            count, self.minn if count else 0, self.maxn, histrows, barn or 0, quote(" ".join(sets)))

    def busbw(self):
        at, top = {}, None  # at: (kernel, dtype): {bytes: row}
        for row in self.r.rows.values():
            if self.role[row.stage] == "own" and ALLREDUCE.fullmatch(row.kernel):
                at.setdefault((row.kernel, row.dtype), {})[num(row.bytes)] = row
                if num(row.gbps) > (top or 0):
                    top = num(row.gbps)
        if not at:
            return ""
        sizes = sorted({b for rows in at.values() for b in rows})
        for (kernel, dtype), rows in at.items():
            g, procs = ALLREDUCE.fullmatch(kernel).groups()
            title = f"G={g} {dtype}" + (", one process per GPU" if procs else "") + (
                " (algbw: no link crossed)" if g == "1" else "")
            lines = "".join("%.0f\t%s\t%d\n" % (b, rows[b].gbps, rows[b].failed) for b in sizes if b in rows)
            self.files[self.data] += "%s\n%s\n\n" % (quote(title), lines)
        tics = ", ".join("'%s' %.0f" % (size(b), b) for b in sizes)
        link, label = num(os.environ.get("NVLINK_GBPS", "")), os.environ.get("NVLINK_LABEL") or "NVLink"
        top = link if link > (top or 0) else top
        return "series=%d; minb=%.0f; maxb=%.0f; top=%s; link=%s; link_label=%s; sizetics=%s;" % (
            len(at), sizes[0], sizes[-1], "" if top is None else awk_str(top), awk_str(link), quote(label),
            quote(f"set xtics ({tics})"))


def chart_data(csv):
    """The chart files (their headers, in the order the shell lists them) and the files plot hands gnuplot,
    by file name, for every chart whose rows the CSV has: NAME.vars (its gnuplot variables), NAME.data
    and, for panels, NAME.hist. A chart file without the header lines chart and shape is an error (exit 1)."""
    if not os.path.exists(csv) or os.path.getsize(csv) == 0:
        fail(f"{csv} is missing or empty")
    found = [header(gp) for gp in sorted(glob.glob(os.path.join(PLOTS, "*.gp")))]
    for keys in found:
        if not keys["chart"] or not keys["shape"]:
            fail(f"{keys['file']} lacks the header lines '# chart: NAME' and '# shape: SHAPE'", 1)
    results, files = Results(csv), defaultdict(str)
    for keys in found:
        name, drawing = keys["chart"], Drawing(results, keys["chart"], files)
        if not drawing.own and (not drawing.others or " stage " in f" {keys['readme']} "):
            continue
        if keys["shape"] not in ("bars", "lines", "l2", "cols", "types", "panels", "busbw"):
            fail(f"chart {name}: unknown shape {keys['shape']}", 1)
        variables = getattr(drawing, keys["shape"])()
        if variables:
            own, others = ([number(s) for s in stages if number(s)] for stages in (drawing.own, drawing.others))
            files[name + ".vars"] += VARS % (quote(results.gpu), awk_str(results.peak), awk_str(results.copy),
                                             awk_str(results.sol), awk_str(results.floor), results.l2n,
                                             quote(phrase(own)), quote(phrase(others)), variables)
    return found, files


def chart_names(csv):
    """The names of the charts the results CSV yields, in the order plot draws them (the shell's of NAME.vars)."""
    return [f[:-len(".vars")] for f in sorted(chart_data(csv)[1]) if f.endswith(".vars")]


def gnuplot(assignments, gp):
    """gnuplot -e ASSIGNMENTS GP; its exit code (the shell's 128 + N for a signal N)."""
    sys.stdout.flush()
    rc = subprocess.call(["gnuplot", "-e", assignments, gp])
    return rc if rc >= 0 else 128 - rc


def plot(csv, outdir, dumb=False):
    """Draw the charts of the results CSV into OUTDIR/NAME.png; with DUMB also print in the terminal the
    bar charts of the results page. The exit code: 0, or gnuplot's where it failed."""
    found, files = chart_data(csv)
    names = [f[:-len(".vars")] for f in sorted(files) if f.endswith(".vars")]
    if not names:
        fail(f"{csv} has no rows for any chart of plots/*.gp (a stage's description names its charts)")
    if not shutil.which("gnuplot"):
        fail("gnuplot not found: install it (e.g. apt-get install gnuplot-nox)", 4)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        fail(f"cannot create {outdir}: {e.strerror}", 1)
    gp = {keys["chart"]: keys["file"] for keys in found}
    terminal = {keys["chart"] for keys in found if " top " in f" {keys['readme']} " and keys["shape"] == "bars"}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        for name in names:
            assignments = files[name + ".vars"].rstrip("\n") + f" datafile='{tmp}/{name}.data'; "
            rc = gnuplot(assignments + f"histfile='{tmp}/{name}.hist'; plotdir='{PLOTS}'; term='png'; "
                         f"out='{outdir}/{name}.png'", gp[name])
            if not rc and dumb and name in terminal:
                rc = gnuplot(assignments + f"plotdir='{PLOTS}'; term='dumb'; out=''", gp[name])
                for line in files[name + ".data"].split("\n")[:-1] if not rc else []:  # and a line per bar
                    f = (line.split("\t") + ["", "", "", ""])[:4]
                    print("  %2d %-44s %7.0f GB/s %4d%%" % (num(f[0]), f[1].replace('"', ""), num(f[2]), num(f[3])))
            if rc:
                return rc
    return 0


def cli(argv):
    parser = argparse.ArgumentParser(prog=f"python3 scripts/report {argv[0]}",
                                     description="the charts of a results CSV (plots/*.gp)")
    parser.add_argument("csv", help="results.csv or multigpu.csv")
    if argv[0] == "plot":
        parser.add_argument("outdir", help="where NAME.png go")
        parser.add_argument("--dumb", action="store_true", help="also print the results page's bar charts")
    args = parser.parse_args(argv[1:])
    if argv[0] == "charts":
        for name in chart_names(args.csv):
            print(name)
        return 0
    return plot(args.csv, args.outdir, args.dumb)

"""The charts of a results CSV (results.csv, or multigpu.csv: the same columns), drawn with gnuplot, from
the columns gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read, and each stage's
chart tokens from its description (describe-<stage>.txt beside the CSV, or its built program's).
  plot CSV OUTDIR [--dumb]   draws them into OUTDIR/NAME.png; --dumb also prints in the terminal the bar
                             charts that go into the results page
  charts CSV                 names them, one a line, in the order plot draws them (none: no line)
Every plots/*.gp is a chart. Its header (the comment lines it starts with) says what it draws:
  # chart: NAME    its rows, drawn into OUTDIR/NAME.png: those of every stage whose chart tokens have
                   the token NAME (the stage's best fp32 kernel at its largest N) or NAME+ (every
                   kernel of the stage, which owns the chart)
  # shape: SHAPE   how those rows become series (below)
  # readme: WHERE  front: the front page (README.md) shows it; top: the results page
                   (docs/results.md) and each GPU's page do; stage: the README of each stage that
                   owns it does; or several of these. A chart for a stage's README is drawn only when the
                   CSV has the rows of a stage that owns it; any other when a stage names it.
  # alt: EN | ZH   the image's alt text in English and in Chinese; {stage} stands for the numbers of
                   the stages that own the chart, {others} for those of the other stages on it
Adding a chart is adding a .gp file (and its token to the stages whose rows it draws).
Shapes (the rows with the input left in L2, l2 = warm, are only on the l2 shape and the all-reduce;
bars and lines list the stages that own the chart first, then the others, in the CSV's order):
  bars    GB/s at one N, a bar per fp32 kernel, CUB last: N is the largest N of the first stage
          listed; datafile lines: index, "label", GB/s, % of peak, stage number (0: CUB); maxn
  lines   GB/s of fp32 kernels against N, CUB last; datafile blocks: "title", then lines N GB/s;
          series, minn, maxn
  l2      the median time against N of each fp32 kernel with rows in L2 both flushed and warm;
          datafile blocks alternate flushed and warm: "title", then lines N µs; series
  cols    GB/s against the row length (cols column) of each kernel; datafile blocks: "title", then
          lines cols GB/s; series, total (elements of the matrix)
  types   a bar per kernel and input type at the stage's largest N, CUB of each type beside its
          kernels; datafile lines: index, "label", GB/s, Gelem/s, input type number, 1 for CUB; maxn
  panels  the kernels measured on one input type as lines against N (datafile blocks as for lines;
          series, minn, maxn), those measured on several (data sets, as in u8_uniform and u8_skewed)
          as bars at the largest N, a column per data set (histfile lines: "label", GB/s per data
          set; histrows, sets: the data sets' names, barn: the N)
  busbw   the all-reduce rows (kernel allreduce_gG[_procs]): GB/s against the bytes each GPU holds
          (bytes_read); datafile blocks: "title", then lines bytes GB/s failed; series, minb, maxb,
          top, sizetics (a gnuplot command), link and link_label: a line at NVLINK_GBPS (a published
          figure the CSV does not hold; unset: no line), labelled NVLINK_LABEL (default "NVLink")
Every chart also gets: datafile, out (the PNG), term ('png' or 'dumb'), plotdir (plots/), gpu, peak
and copy (GB/s), sol (the fastest read-only GB/s any program measured), floor (the shortest launch
floor, µs), l2n (elements of fp32 that fill L2), stage and others (as {stage} and {others} above).
CUB, where several stages measured it, is the median of their CUB rows at each N. A repeated row
(same stage, kernel, input type, N, cols and l2): the last one wins. A kernel whose check failed is
marked (FAIL).
Exit codes: 2 bad CSV, 4 gnuplot missing (the code of every missing tool), 1 a chart file without its
header lines, other: gnuplot failed."""
import argparse
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, namedtuple

from common import awk_str, chart_tokens, fail, num, number, read_csv

PLOTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "plots")
NEED = "gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read"
KEYS = ("chart", "shape", "readme", "alt")
# A field awk compares as a number (else as a string).
NUMERIC = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")
ALLREDUCE = re.compile(r"allreduce_g([0-9]+)(_procs)?")

# A chart file: owned, drawn only for a stage that owns it; terminal, a bar chart of the results page.
Chart = namedtuple("Chart", "name shape owned terminal file")


def header(gp):
    """The keys of the header of the chart file GP ("# KEY: value" among the comment lines it starts
    with): "" where missing, one a line where on several lines."""
    found = {key: [] for key in KEYS}
    with open(gp, encoding="utf-8", newline="") as f:
        for line in f.read().split("\n"):
            if not line.startswith("#"):
                break
            for key in KEYS:
                if line.startswith(f"# {key}:"):
                    found[key].append(line[len(key) + 3:].lstrip(" "))
    return {key: "\n".join(values).rstrip("\n") for key, values in found.items()}


def chart_files():
    """Every plots/*.gp, in the order the shell lists them."""
    return sorted(glob.glob(os.path.join(PLOTS, "*.gp")))


def chart_headers():
    """The header keys (chart, shape, readme, alt) of every chart file that names its chart, by name."""
    return {keys["chart"]: keys for keys in map(header, chart_files()) if keys["chart"]}


def charts():
    """The charts plot draws from; a chart file without the header lines chart and shape is an error (exit 1)."""
    found = []
    for gp in chart_files():
        keys = header(gp)
        if not keys["chart"] or not keys["shape"]:
            fail(f"{gp} lacks the header lines '# chart: NAME' and '# shape: SHAPE'", 1)
        readme = f" {keys['readme']} "
        found.append(Chart(keys["chart"], keys["shape"], " stage " in readme,
                           " top " in readme and keys["shape"] == "bars", gp))
    return found


def failed(check):
    """awk's pass != 1: a number where the field looks like one, else the string "1"."""
    return num(check) != 1 if NUMERIC.fullmatch(check) else check != "1"


def quote(s):
    """S as a gnuplot string in double quotes."""
    return '"' + re.sub(r'["\\]', lambda m: "\\" + m.group(), s) + '"'


def phrase(words):
    """"a", "a and b", "a, b and c"."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def median(values):
    """The median of VALUES (strings), numerically: the middle one as it is written where their number is
    odd, else the mean of the two middle ones (none: 0, as in awk)."""
    a = sorted(values, key=num)
    k = len(a)
    return a[k // 2] if k % 2 else sum(map(num, a[k // 2 - 1:k // 2 + 1])) / 2


def dataset(dtype):
    """The data set of an input type: its name after the first "_" (u8_skewed: skewed)."""
    return dtype.split("_", 1)[1] if "_" in dtype else dtype


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
        self.n = num(r["n"])
        self.us, self.gbps, self.pct, self.bytes = r["median_us"], r["gbps"], r["pct_peak"], r["bytes_read"]
        self.failed = failed(r["pass"])
        self.warm = r["l2"] == "warm"


class Results:
    """The rows of a results CSV: the device's figures (stage 00_device), and the rows of the stages by
    stage, kernel, input type and N, each list in the order of first appearance."""

    def __init__(self, path):
        self.peak = self.copy = self.sol = self.l2n = 0
        self.floor = None
        self.gpu = ""
        self.rows = {}      # (stage, kernel, dtype, n, cols, warm): Row; a repeat replaces it in its place
        self.plain = {}     # (stage, kernel, dtype, n): the row without cols, L2 flushed
        self.warm = {}      # the same, L2 warm
        self.tokens = {}    # stage: " its chart tokens " (its description's charts)
        self.kernels = {}   # stage: its kernels
        self.types = {}     # stage: its (kernel, dtype)
        ns = set()
        for r in read_csv(path, NEED):
            if r["stage"] == "00_device":
                self.device(r)
                continue
            row = Row(r)
            s, k, t, n = row.stage, row.kernel, row.dtype, row.n
            self.rows[s, k, t, n, row.cols, row.warm] = row
            if row.cols == "":
                (self.warm if row.warm else self.plain)[s, k, t, n] = row
            self.gpu = r["gpu"]
            self.tokens.setdefault(s, None)
            self.kernels.setdefault(s, {})[k] = None
            self.types.setdefault(s, {})[k, t] = None
            ns.add(n)
        self.stages = list(self.tokens)
        self.tokens = {s: f" {t} " for s, t in chart_tokens(path, self.stages).items()}
        self.ns = sorted(ns)

    def device(self, r):
        name, v = r["kernel"], num(r["gbps"])
        if name == "dram_peak":
            self.peak = v
        elif name == "d2d_copy":
            self.copy = v
        elif name == "read_sol" and v > self.sol:
            self.sol = v
        elif name == "launch_floor" and (self.floor is None or num(r["median_us"]) < self.floor):
            self.floor = num(r["median_us"])
        elif name == "l2_size":
            self.l2n = num(r["n"])

    def largest(self, s, t):
        """The largest N of stage s among its rows without cols, of input type t ("": any); None for none."""
        found = [n for n in self.ns if n > 0 and any(
            (s, k, dt, n) in self.plain for k, dt in self.types[s] if t in ("", dt))]
        return found[-1] if found else None

    def best(self, s):
        """The fastest fp32 kernel of stage s at its largest N, CUB aside ("" for none)."""
        n, b = self.largest(s, "f32"), ""
        for k in self.kernels[s]:
            if k != "cub" and (s, k, "f32", n) in self.plain and (
                    b == "" or num(self.plain[s, k, "f32", n].gbps) > num(self.plain[s, b, "f32", n].gbps)):
                b = k
        return b


class Drawing:
    """One chart's data: the stages on it (role: "own" for NAME+, "best" for NAME), and the methods of its
    shapes, which write the data files into FILES (by file name) and return its variables ("": nothing
    to draw)."""

    def __init__(self, results, chart, files):
        self.r, self.files = results, files
        self.data, self.hist = chart.name + ".data", chart.name + ".hist"
        self.role = {s: "own" if f" {chart.name}+ " in tokens else "best" if f" {chart.name} " in tokens else ""
                     for s, tokens in results.tokens.items()}
        self.pick = {s: results.best(s) for s in results.stages if self.role[s] == "best"}
        self.own = [s for s in results.stages if self.role[s] == "own"]
        self.others = [s for s in results.stages if self.role[s] == "best"]
        self.listed = self.own + self.others
        self.minn, self.maxn = None, 0

    def write(self, file, text):
        self.files[file] = self.files.get(file, "") + text

    def on(self, s, k):
        """Kernel k of stage s is on the chart: every kernel of a stage that owns it, the best of another."""
        return self.role[s] == "own" or (self.role[s] == "best" and k == self.pick[s])

    def series(self, title, s, k, t, what):
        """A block of the data file: kernel k of stage s on input type t at every N, WHAT: gbps, flushed
        (the time) or warm (the time with the input left in L2); 1, or 0 where it has no row. Widens
        minn and maxn."""
        table = self.r.warm if what == "warm" else self.r.plain
        rows = [(n, table[s, k, t, n]) for n in self.r.ns if (s, k, t, n) in table]
        if not rows:
            return 0
        for n, _ in rows:
            if self.minn is None or n < self.minn:
                self.minn = n
            self.maxn = max(self.maxn, n)
        lines = "".join("%.0f\t%s\n" % (n, row.gbps if what == "gbps" else row.us) for n, row in rows)
        bad = " (FAIL)" if any(row.failed for _, row in rows) else ""
        self.write(self.data, "%s\n%s\n\n" % (quote(title + bad), lines))
        return 1

    def cub(self, n):
        """The median GB/s of the fp32 CUB rows of the chart's stages at N; None for none."""
        values = [self.r.plain[s, "cub", "f32", n].gbps for s in self.listed if (s, "cub", "f32", n) in self.r.plain]
        # Split on blanks, as awk's split: an empty value drops out.
        return median(" ".join(values).split()) if values else None

    def bars(self):
        plain, n, bar = self.r.plain, self.r.largest(self.listed[0], "f32"), 0
        for s in self.listed:
            for k in self.r.kernels[s]:
                if k == "cub" or not self.on(s, k) or (s, k, "f32", n) not in plain:
                    continue
                row, bar = plain[s, k, "f32", n], bar + 1
                label = f"{number(s)} {k}" + (" (FAIL)" if row.failed else "")
                self.write(self.data, "%d\t%s\t%s\t%.0f\t%d\n" % (bar, quote(label), row.gbps, num(row.pct), num(number(s))))
        m = self.cub(n)
        if m is not None:
            bar += 1
            pct = 100 * num(m) / self.r.peak if self.r.peak > 0 else 0
            self.write(self.data, '%d\t"cub"\t%s\t%.0f\t0\n' % (bar, awk_str(m), pct))
        return "maxn=%.0f;" % n if bar else ""

    def lines(self):
        self.minn, self.maxn, count = None, 0, 0
        for s in self.listed:
            for k in self.r.kernels[s]:
                if k != "cub" and self.on(s, k):
                    count += self.series(f"{number(s)} {k}", s, k, "f32", "gbps")
        if not count:
            return ""
        medians = [(n, self.cub(n)) for n in self.r.ns]
        block = "".join("%.0f\t%s\n" % (n, awk_str(m)) for n, m in medians if m is not None)
        if block:
            self.write(self.data, '"cub"\n%s\n\n' % block)
            count += 1
        return "series=%d; minn=%.0f; maxn=%.0f;" % (count, self.minn, self.maxn)

    def l2(self):
        count = 0
        for s in self.r.stages:
            for k in self.r.kernels[s]:
                if not self.on(s, k) or not any((s, k, "f32", n) in self.r.warm for n in self.r.ns):
                    continue
                count += self.series(f"{number(s)} {k}, L2 flushed", s, k, "f32", "flushed")
                count += self.series(f"{number(s)} {k}, L2 warm", s, k, "f32", "warm")
        return "series=%d;" % count if count else ""

    def cols(self):
        lengths, gbps, total, count = set(), {}, None, 0
        for row in self.r.rows.values():
            if self.role[row.stage] != "own" or row.cols == "" or row.warm:
                continue
            lengths.add(num(row.cols))
            gbps[row.stage, row.kernel, num(row.cols)] = row.gbps
            total = row.n
        for s in self.r.stages:
            for k in self.r.kernels[s]:
                block = "".join("%d\t%s\n" % (c, gbps[s, k, c]) for c in sorted(lengths) if (s, k, c) in gbps)
                if block:
                    self.write(self.data, "%s\n%s\n\n" % (quote(k), block))
                    count += 1
        return "series=%d; total=%.0f;" % (count, total) if count else ""

    def types(self):
        number_of, n, bar = {}, None, 0
        for s in self.own:
            n = self.r.largest(s, "")
            for k, t in self.r.types[s]:
                number_of.setdefault(t, len(number_of) + 1)
                if (s, k, t, n) not in self.r.plain:
                    continue
                row, bar = self.r.plain[s, k, t, n], bar + 1
                label = (f"cub {t}" if k == "cub" else k) + (" (FAIL)" if row.failed else "")
                gelems = n / num(row.us) / 1e3 if num(row.us) else math.inf  # awk divides by 0 into inf
                self.write(self.data, "%d\t%s\t%s\t%.2f\t%d\t%d\n" % (bar, quote(label), row.gbps, gelems, number_of[t], k == "cub"))
        return "maxn=%.0f;" % (n or 0) if bar else ""

    def panels(self):
        plain, self.minn, self.maxn = self.r.plain, None, 0
        count, histrows, sets, barn, types_of = 0, 0, {}, None, {}
        for s in self.own:
            types_of[s] = Counter(k for k, _ in self.r.types[s])
            for k, t in self.r.types[s]:
                if types_of[s][k] == 1:
                    count += self.series(k, s, k, t, "gbps")
                    continue
                sets.setdefault(dataset(t), len(sets) + 1)
                for n in self.r.ns:
                    if (s, k, t, n) in plain and n > (barn or 0):
                        barn = n
        for s in self.own:
            for k in self.r.kernels[s]:
                if types_of[s][k] < 2:
                    continue
                found = [(sets[dataset(t)], plain[s, k, t, barn]) for kernel, t in self.r.types[s]
                         if kernel == k and (s, k, t, barn) in plain]
                if not found:
                    continue
                value, bad = dict(found), " (FAIL)" if any(row.failed for _, row in found) else ""
                values = "".join("\t" + (value[i].gbps if i in value else "NaN") for i in range(1, len(sets) + 1))
                self.write(self.hist, quote(k + bad) + values + "\n")
                histrows += 1
        if not count and not histrows:
            return ""
        return "series=%d; minn=%.0f; maxn=%.0f; histrows=%d; barn=%.0f; sets=%s;" % (
            count, self.minn or 0, self.maxn, histrows, barn or 0, quote(" ".join(sets)))

    def busbw(self):
        at, top = {}, None  # at: (kernel, dtype): {bytes: row}
        for row in self.r.rows.values():
            if self.role[row.stage] != "own" or not ALLREDUCE.fullmatch(row.kernel):
                continue
            at.setdefault((row.kernel, row.dtype), {})[num(row.bytes)] = row
            if num(row.gbps) > (top or 0):
                top = num(row.gbps)
        if not at:
            return ""
        sizes = sorted({b for rows in at.values() for b in rows})
        for (kernel, dtype), rows in at.items():
            g, procs = ALLREDUCE.fullmatch(kernel).groups()
            title = f"G={g} {dtype}" + (", one process per GPU" if procs else "") + (" (algbw: no link crossed)" if g == "1" else "")
            lines = "".join("%.0f\t%s\t%d\n" % (b, rows[b].gbps, rows[b].failed) for b in sizes if b in rows)
            self.write(self.data, "%s\n%s\n\n" % (quote(title), lines))
        tics = ", ".join("'%s' %.0f" % (size(b), b) for b in sizes)
        link = num(os.environ.get("NVLINK_GBPS", ""))
        label = os.environ.get("NVLINK_LABEL") or "NVLink"
        if link > (top or 0):
            top = link
        return "series=%d; minb=%.0f; maxb=%.0f; top=%s; link=%s; link_label=%s; sizetics=%s;" % (
            len(at), sizes[0], sizes[-1], "" if top is None else awk_str(top), awk_str(link), quote(label),
            quote(f"set xtics ({tics})"))


SHAPES = {"bars": Drawing.bars, "lines": Drawing.lines, "l2": Drawing.l2, "cols": Drawing.cols,
          "types": Drawing.types, "panels": Drawing.panels, "busbw": Drawing.busbw}


def chart_data(csv):
    """The charts (of charts()) and the files plot hands gnuplot, by file name, for every chart whose
    rows the CSV has: NAME.vars (its gnuplot variables), NAME.data and, for panels, NAME.hist."""
    if not os.path.exists(csv) or os.path.getsize(csv) == 0:
        fail(f"{csv} is missing or empty")
    found = charts()
    results, files = Results(csv), {}
    for chart in found:
        drawing = Drawing(results, chart, files)
        if not drawing.own and (not drawing.others or chart.owned):
            continue
        if chart.shape not in SHAPES:
            fail(f"chart {chart.name}: unknown shape {chart.shape}", 1)
        variables = SHAPES[chart.shape](drawing)
        if not variables:
            continue
        own = [number(s) for s in drawing.own if number(s)]
        others = [number(s) for s in drawing.others if number(s)]
        drawing.write(chart.name + ".vars", "gpu=%s; peak=%s; copy=%s; sol=%s; floor=%s; l2n=%.0f; stage=%s; others=%s; %s\n" % (
            quote(results.gpu), awk_str(results.peak), awk_str(results.copy), awk_str(results.sol),
            awk_str(results.floor or 0), results.l2n, quote(phrase(own)), quote(phrase(others)), variables))
    return found, files


def drawn(files):
    """The names of the charts with variables in FILES, in the order the shell lists NAME.vars."""
    return [f[:-len(".vars")] for f in sorted(files) if f.endswith(".vars")]


def chart_names(csv):
    """The names of the charts the results CSV yields, in the order plot draws them."""
    return drawn(chart_data(csv)[1])


def gnuplot(assignments, gp):
    """gnuplot -e ASSIGNMENTS GP; its exit code (the shell's 128 + N for a signal N)."""
    sys.stdout.flush()
    rc = subprocess.call(["gnuplot", "-e", assignments, gp])
    return rc if rc >= 0 else 128 - rc


def bar_lines(data):
    """The bars of a bars data file as terminal lines: index, label, GB/s, % of peak."""
    lines = []
    for line in data.split("\n")[:-1]:
        f = (line.split("\t") + ["", "", "", ""])[:4]
        lines.append("  %2d %-44s %7.0f GB/s %4d%%\n" % (num(f[0]), f[1].replace('"', ""), num(f[2]), num(f[3])))
    return "".join(lines)


def plot(csv, outdir, dumb=False):
    """Draw the charts of the results CSV into OUTDIR/NAME.png; with DUMB also print in the terminal the
    bar charts of the results page. The exit code: 0, or gnuplot's where it failed."""
    found, files = chart_data(csv)
    names = drawn(files)
    if not names:
        fail(f"{csv} has no rows for any chart of plots/*.gp (a stage's description names its charts)")
    if not shutil.which("gnuplot"):
        fail("gnuplot not found: install it (e.g. apt-get install gnuplot-nox)", 4)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        fail(f"cannot create {outdir}: {e.strerror}", 1)
    gp = {chart.name: chart.file for chart in found}
    terminal = {chart.name for chart in found if chart.terminal}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        for name in names:
            assignments = files[name + ".vars"].rstrip("\n") + f" datafile='{tmp}/{name}.data'; "
            rc = gnuplot(assignments + f"histfile='{tmp}/{name}.hist'; plotdir='{PLOTS}'; term='png'; out='{outdir}/{name}.png'", gp[name])
            if rc:
                return rc
            if dumb and name in terminal:
                rc = gnuplot(assignments + f"plotdir='{PLOTS}'; term='dumb'; out=''", gp[name])
                if rc:
                    return rc
                print(bar_lines(files.get(name + ".data", "")), end="")
    return 0


def cli(argv):
    parser = argparse.ArgumentParser(prog=f"python3 scripts/report {argv[0]}",
                                     description="the charts of a results CSV (plots/*.gp)")
    parser.add_argument("csv", help="results.csv or multigpu.csv")
    if argv[0] == "plot":
        parser.add_argument("outdir", help="where NAME.png go")
        parser.add_argument("--dumb", action="store_true", help="also print the results page's bar charts in the terminal")
    args = parser.parse_args(argv[1:])
    if argv[0] == "charts":
        for name in chart_names(args.csv):
            print(name)
        return 0
    return plot(args.csv, args.outdir, args.dumb)

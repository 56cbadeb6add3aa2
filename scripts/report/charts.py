"""The charts of a results CSV, drawn with gnuplot from each plots/*.gp (docs/report.md#charts)."""
import glob
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from common import amount, chart_tokens, device, fail, first_fills, kernel_rows, library, median, number, passed
from common import phrase, ROOT, read_csv, read_text, short, write_files
from tables import accuracy_rows

PLOTS = os.path.join(ROOT, "plots")
NEED = "gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read"
VARS = "gpu=%s; peak=%s; copy=%s; sol=%s; floor=%s; l2n=%.0f; stage=%s; others=%s; %s\n"  # NAME.vars

def chart_headers(check=False):
    """Each chart file's header by name, {key: value, file: its path}; CHECK: one lacking chart or shape exits 1."""
    found = {}
    for gp in sorted(glob.glob(os.path.join(PLOTS, "*.gp"))):
        lines = re.match(r"(#.*\n)*", read_text(gp))[0].splitlines()  # the comment lines it starts with
        keys = {key: "\n".join(line[len(key) + 3:].lstrip(" ") for line in lines if line.startswith(f"# {key}:")).rstrip()
                for key in ("chart", "shape", "readme", "alt")}
        if check and not (keys["chart"] and keys["shape"]):
            fail(f"{gp} lacks the header lines '# chart: NAME' and '# shape: SHAPE'", 1)
        found.update({keys["chart"]: dict(keys, file=gp)} if keys["chart"] else {})
    return found

def owners(csv):
    """{chart: ([the stages that own it (NAME+)], [the others that name it (NAME)])}, in the CSV's order."""
    found = {}
    for stage in dict.fromkeys(r["stage"] for r in kernel_rows(read_csv(csv, "stage pass"))):
        for name, (owns, _) in chart_tokens(csv, stage).items():
            found.setdefault(name, ([], []))[not owns].append(stage)
    return found

def quote(s, failed=False):
    return '"' + re.sub(r'(["\\])', r"\\\1", s + (" (FAIL)" if failed else "")) + '"'

def size(b):
    """A size in bytes as a tic label: 1K, 2M, 1G."""
    units = [(unit, scale) for unit, scale in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)) if b >= scale and b % scale == 0]
    return short(b / units[0][1]) + units[0][0] if units else short(b)

class Results:
    """A results CSV: the device's figures, the kernel rows (first fills; n a number, failed, warm) by stage,
    kernel, input type, N, cols and warm, in order of appearance; width: each input type's bytes an element."""
    def __init__(self, path):
        rows, self.gpu, self.rows, self.types = read_csv(path, NEED), "", {}, {}  # types: stage: {(k, t)}
        self.path, self.dev, self.width = path, device(rows), {}
        for r in first_fills(kernel_rows(rows)):
            r.update(n=int(r["n"]), failed=not passed(r["pass"]), warm=r["l2"] == "warm")
            self.gpu = r["gpu"]
            self.rows[r["stage"], r["kernel"], r["dtype"], r["n"], r["cols"], r["warm"]] = r
            self.types.setdefault(r["stage"], {})[r["kernel"], r["dtype"]] = None
            if r["n"] > 0 and not r["cols"]:
                self.width.setdefault(r["dtype"], float(r["bytes_read"]) / r["n"])
        self.kernels = {s: list(dict.fromkeys(k for k, _ in types)) for s, types in self.types.items()}
        self.ns = sorted({r["n"] for r in self.rows.values()})
        self.owners, self.library = owners(path), library(path, self.types)

    def at(self, s, k, t, n, warm=False):
        return self.rows.get((s, k, t, n, "", warm))

    def largest(self, s, t):
        """The largest N of stage s among its rows without cols, of input type t ("": any)."""
        return max((n for n in self.ns if n > 0 and any(self.at(s, k, dt, n) for k, dt in self.types[s] if t in ("", dt))),
                   default=None)

class Drawing:
    """One chart's stages (own: those that own it; others: those that name it), the input types each is drawn on
    (drawn: f32 and its token's), each other's best kernel on each (pick: the fastest at its largest N); its shapes."""
    def __init__(self, results, name, files):
        self.r, self.files, self.name, self.minn, self.maxn, self.pick = results, files, name, math.inf, 0, {}
        self.own, self.others = results.owners.get(name, ([], []))
        self.listed, self.lib = self.own + self.others, sorted(results.library)
        self.drawn = {s: chart_tokens(results.path, s)[name][1] for s in self.listed}
        self.declared = list(dict.fromkeys(t for s in self.listed for t in self.drawn[s]))
        for s, t in ((s, t) for s in self.others for t in self.drawn[s]):
            n, at = results.largest(s, t), results.at
            self.pick[s, t] = max((k for k in results.kernels[s] if k not in self.lib and at(s, k, t, n)),
                                  key=lambda k: float(at(s, k, t, n)["gbps"]), default="")

    def on(self, s, k, t="f32"):
        """On each type a stage is drawn on, every kernel of a stage that owns the chart, the best of another."""
        return t in self.drawn.get(s, ()) and (s in self.own or k == self.pick.get((s, t)))

    def label(self, t):
        """The library's title on input type t (its name alone where the chart is drawn on one type)."""
        return self.lib[0] if len(self.declared) == 1 else f"{self.lib[0]} {t}"

    def typed(self, types):
        """The variables of the input types drawn (TYPES, in order): their names, bytes an element, a phrase."""
        return "types=%s; widths=%s; typenote=%s;" % (quote(" ".join(types)), quote(" ".join(
            short(self.r.width[t]) for t in types)), quote(phrase(types)))

    def write(self, lines, variables, ext=".data"):
        """LINES into the data file (or .hist); VARIABLES, or "" without LINES."""
        self.files[self.name + ext] += "".join(lines)
        return variables if lines else ""

    def block(self, title, lines, failed=False):
        """A block of the data file: its title, LINES, two blank lines; 1 (a series), or 0 without LINES."""
        return self.write([quote(title, failed) + "\n"] + lines + ["\n\n"], 1) if lines else 0

    def series(self, title, s, k, t, what="gbps"):
        """A block: kernel k of stage s on type t by N (WHAT: gbps, or the time flushed or warm), and its bytes read."""
        rows = [row for row in (self.r.at(s, k, t, n, what == "warm") for n in self.r.ns) if row]
        if rows:
            self.minn, self.maxn = min(self.minn, rows[0]["n"]), max(self.maxn, rows[-1]["n"])
        value = "gbps" if what == "gbps" else "median_us"
        return self.block(title, ["%d\t%s\t%s\n" % (row["n"], row[value], row["bytes_read"]) for row in rows],
                          any(row["failed"] for row in rows))

    def library_gbps(self, n, t):
        """The median GB/s of the library's rows on type t at N of the stages drawn on t."""
        values = [row["gbps"] for row in (self.r.at(s, k, t, n) for s in self.listed if t in self.drawn[s]
                                          for k in self.lib) if row]
        return median(values) if values else None

    def bars(self):
        """Each kernel's GB/s on each type drawn, at the first listed stage's largest N; the library's bars last."""
        n = self.r.largest(self.listed[0], "f32")
        bars = [(quote(f"{number(s)} {k}", row["failed"]), row["gbps"], amount(row["pct_peak"]), int(number(s)), t,
                 short(float(row["bytes_read"]) / float(row["gpu_us"]) / 1e3) if row.get("gpu_us") else "NaN")
                for s in self.listed for k, t in self.r.types[s]
                if k not in self.lib and self.on(s, k, t) and (row := self.r.at(s, k, t, n))]
        bars += [(quote(self.label(t)), short(m), 100 * float(m) / self.r.dev["peak"] if self.r.dev["peak"] > 0 else 0,
                  0, t, "NaN") for t in self.declared if (m := self.library_gbps(n, t)) is not None]
        types = list(dict.fromkeys(bar[4] for bar in bars))
        return self.write(["%d\t%s\t%s\t%.0f\t%d\t%d\t%s\n" % (i + 1, *bar[:4], types.index(bar[4]) + 1, bar[5])
                           for i, bar in enumerate(bars)], "maxn=%.0f; %s" % (n or 0, self.typed(types)))

    def lines(self):
        """A block per kernel on each type drawn, then the library's; kinds: each block's type's number, <0: library."""
        types, kinds = [], []
        for t in self.declared:
            count = sum(self.series(f"{number(s)} {k}", s, k, t) for s in self.listed
                        for k in self.r.kernels[s] if k not in self.lib and self.on(s, k, t))
            if count:
                types.append(t)
                kinds += [len(types)] * count
                points = [(n, gbps) for n in self.r.ns if (gbps := self.library_gbps(n, t)) is not None]
                if points and self.block(self.label(t), ["%d\t%s\t%.0f\n" % (n, short(gbps), n * self.r.width[t])
                                                         for n, gbps in points]):
                    kinds.append(-len(types))
        return "series=%d; minn=%.0f; maxn=%.0f; kinds=%s; %s" % (len(kinds), self.minn, self.maxn, quote(
            " ".join(map(str, kinds))), self.typed(types)) if kinds else ""

    def l2(self):
        count = sum(self.series(f"{number(s)} {k}, L2 {what}", s, k, "f32", what)
                    for s in self.r.types for k in self.r.kernels[s]
                    if self.on(s, k) and any(self.r.at(s, k, "f32", n, True) for n in self.r.ns) for what in ("flushed", "warm"))
        return "series=%d;" % count if count else ""

    def cols(self):
        rows = [r for r in self.r.rows.values() if r["stage"] in self.own and r["cols"] and not r["warm"]]
        gbps = {(r["stage"], r["kernel"], int(r["cols"])): r["gbps"] for r in rows}
        count = sum(self.block(k, ["%d\t%s\n" % (c, gbps[s, k, c]) for c in sorted({c for _, _, c in gbps})
                                   if (s, k, c) in gbps]) for s in self.r.types for k in self.r.kernels[s])
        return "series=%d; total=%.0f;" % (count, rows[-1]["n"]) if count else ""

    def types(self):
        number_of, n, lines = {}, None, []  # number_of: input type: its number
        for s in self.own:
            n = self.r.largest(s, "")
            for k, t in self.r.types[s]:
                number_of.setdefault(t, len(number_of) + 1)
                if row := self.r.at(s, k, t, n):
                    lines.append("%d\t%s\t%s\t%.2f\t%d\t%d\n" % (
                        len(lines) + 1, quote(f"{k} {t}" if k in self.lib else k, row["failed"]), row["gbps"],
                        n / float(row["median_us"]) / 1e3, number_of[t], k in self.lib))
        return self.write(lines, "maxn=%.0f;" % (n or 0))

    def panels(self):
        """Kernels on one input type as lines by N; those on several (data sets: TYPE_SET) as bars at the largest N."""
        several = {s: [k for k, times in Counter(k for k, _ in self.r.types[s]).items() if times > 1] for s in self.own}
        count = sum(self.series(k, s, k, t) for s in self.own for k, t in self.r.types[s] if k not in several[s])
        bars = [(s, k, t, t.split("_", 1)[-1]) for s in self.own for k, t in self.r.types[s] if k in several[s]]
        sets = {name: i + 1 for i, name in enumerate(dict.fromkeys(b[3] for b in bars))}  # bars: (s, k, t, its set)
        barn = max((n for s, k, t, _ in bars for n in self.r.ns if n > 0 and self.r.at(s, k, t, n)), default=None)
        hist = []
        for s, k in dict.fromkeys(b[:2] for b in bars):
            value = {sets[name]: row for stage, kernel, t, name in bars if (stage, kernel) == (s, k)
                     and (row := self.r.at(s, k, t, barn))}
            if value:
                hist.append(quote(k, any(row["failed"] for row in value.values())) + "".join(
                    "\t" + (value[i]["gbps"] if i in value else "NaN") for i in range(1, len(sets) + 1)) + "\n")
        self.write(hist, "", ".hist")
        return "series=%d; minn=%.0f; maxn=%.0f; histrows=%d; barn=%.0f; sets=%s;" % (
            count, self.minn if count else 0, self.maxn, len(hist), barn or 0, quote(" ".join(sets))) if count or hist else ""

    def busbw(self):
        """The owners' warm-L2 rows (an all-reduce on data in place): GB/s by bytes a GPU holds, a series per kernel."""
        mine, at = [r for r in self.r.rows.values() if r["stage"] in self.own and r["warm"]], {}
        for r in mine:  # at: (kernel, dtype): {bytes: row}
            at.setdefault((r["kernel"], r["dtype"]), {})[float(r["bytes_read"])] = r
        sizes = sorted({b for rows in at.values() for b in rows})
        for (kernel, dtype), rows in at.items():
            self.block(f"{kernel} {dtype}", ["%.0f\t%s\t%d\n" % (b, rows[b]["gbps"], rows[b]["failed"])
                                             for b in sizes if b in rows])
        link, label = float(os.environ.get("NVLINK_GBPS") or 0), os.environ.get("NVLINK_LABEL") or "NVLink"
        top = max((v for v in [float(r["gbps"]) for r in mine] + [link] if v > 0), default=None)
        return "series=%d; minb=%.0f; maxb=%.0f; top=%s; link=%s; link_label=%s; sizetics=%s;" % (
            len(at), sizes[0], sizes[-1], "" if top is None else short(top), short(link), quote(label),
            quote("set xtics (%s)" % ", ".join("'%s' %.0f" % (size(b), b) for b in sizes))) if at else ""

def chart_data(csv):
    """The headers of the charts the CSV has rows for (sorted as the shell sorts NAME.vars), and their files by name."""
    headers, files, results = chart_headers(True), defaultdict(str), Results(csv)
    for name, keys in headers.items():
        drawing = Drawing(results, name, files)
        if not drawing.own and (not drawing.others or " stage " in f" {keys['readme']} "):
            continue
        if keys["shape"] not in ("bars", "lines", "l2", "cols", "types", "panels", "busbw"):
            fail(f"chart {name}: unknown shape {keys['shape']}", 1)
        if variables := getattr(drawing, keys["shape"])():
            own, others = (quote(phrase([number(s) for s in stages if number(s)])) for stages in (drawing.own, drawing.others))
            files[name + ".vars"] += VARS % (quote(results.gpu), *(short(results.dev[k] or 0) for k in (
                "peak", "copy", "sol", "floor")), results.dev["l2n"], own, others, variables)
    return {name: headers[name] for name in (f[:-len(".vars")] for f in sorted(files) if f.endswith(".vars"))}, files

def chart_names(csv):
    return list(chart_data(csv)[0])

def charts(csv):
    return "".join(name + "\n" for name in chart_names(csv))

def gnuplot(assignments, gp):
    """gnuplot -e ASSIGNMENTS GP; its exit code (the shell's 128 + N for a signal N)."""
    sys.stdout.flush()
    rc = subprocess.call(["gnuplot", "-e", assignments, gp])
    return rc if rc >= 0 else 128 - rc

def plot(csv, outdir, dumb=False):
    """Draw the charts of the CSV into OUTDIR/NAME.png; DUMB: also print the results page's bar charts."""
    charts, files = chart_data(csv)
    if not charts:
        fail(f"{csv} has no rows for any chart of plots/*.gp (a stage's description names its charts)")
    if not shutil.which("gnuplot"):
        fail("gnuplot not found: install it (e.g. apt-get install gnuplot-nox)", 4)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        fail(f"cannot create {outdir}: {e.strerror}", 1)
    with tempfile.TemporaryDirectory() as tmp:
        write_files(files, tmp)
        for name, keys in charts.items():
            assignments = files[name + ".vars"].rstrip("\n") + f" datafile='{tmp}/{name}.data'; plotdir='{PLOTS}'; "
            rc = gnuplot(assignments + f"histfile='{tmp}/{name}.hist'; term='png'; out='{outdir}/{name}.png'",
                         keys["file"])
            if not rc and dumb and " top " in f" {keys['readme']} " and keys["shape"] == "bars":
                rc = gnuplot(assignments + "term='dumb'; out=''", keys["file"])
                for f in (line.split("\t") for line in files[name + ".data"].splitlines() if not rc):  # a line per bar
                    print("  %2d %-44s %7.0f GB/s %4d%%" % (int(f[0]), f[1].replace('"', ""), float(f[2]), float(f[3])))
            if rc:
                return rc
    return 0

def plot_accuracy(csv, png):
    rows, labels = accuracy_rows(csv, "gpu stage kernel n rel_err pass fill rel_bound cond")
    if not shutil.which("gnuplot"):
        fail(f"gnuplot not found: {png} not drawn (e.g. apt-get install gnuplot-nox)", 4)
    data = "".join(f'"{label}"\n' + "".join("%s %s %s\n" % (  # a block per panel and label
        r["x"], r["rel_err"] if r["rel_err"] and float(r["rel_err"]) > 0 else "NaN", r["rel_bound"] or "NaN")
        for r in sorted((r for r in rows if r["label"] == label and r["fill"] == panel), key=lambda r: float(r["x"])))
        + "\n\n" for panel in ("random", "wide", "cond") for label in labels)
    condn = ([r["n"] for r in rows if r["fill"] == "cond"] or ["0"])[-1]
    variables = 'series = %d; condn = %.0f; gpu = "%s"\n' % (len(labels), float(condn), rows[-1]["gpu"] if rows else "")
    with tempfile.TemporaryDirectory() as tmp:
        write_files({"data": data, "vars": variables} if data else {"vars": variables}, tmp)
        return gnuplot(f"datafile='{tmp}/data'; out='{png}'; load '{tmp}/vars'", f"{PLOTS}/lab/accuracy.gp")

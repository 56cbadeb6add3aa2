"""The stages' assertions about measured times, stages/NN_name/claims.csv (docs/report.md#claims-and-targets)."""
import fnmatch
import glob
import os
import re

from common import bilingual, device, exponent, fail, first_fills, flushed, kernel_rows, library, number, parse_size, passed
from common import phrase, read_csv, read_text, rule, text
from provenance import excused, primary

COLUMNS = "kind label a b is by n cols gpus source"
NEED = "gpu stage kernel dtype n median_us pass l2 bytes_read x_cub cols fill"
KINDS = ("claim", "target", "cited", "ratio", "crossover")
LEVEL = 1.15  # the most two times called level (or about the same) may differ by
IS = ("faster", "level", "less-exact", "as-exact")  # of B's time over A's, then of B's relative error over A's

def assertions(stage, kind):
    path = f"stages/{stage}/claims.csv"
    rows = read_csv(path, COLUMNS, comments=True) if os.path.exists(path) else []
    for r in rows:
        if r["kind"] not in KINDS:
            fail(f"{path}: {r['label']}: kind '{r['kind']}' (one of {', '.join(KINDS)})")
        if r["kind"] == "claim" and r["is"] not in IS:
            fail(f"{path}: claim {r['label']}: is '{r['is']}' ({', '.join(IS)})")
        if r["kind"] == "claim" and r["is"] == "level" and not float(r["by"]) <= LEVEL:
            fail(f"{path}: claim {r['label']}: level by {r['by']}: two times called level differ by at most {LEVEL:g}x")
        if r.get("time") not in (None, "", "whole", "kernels"):
            fail(f"{path}: {r['label']}: time '{r['time']}' (whole, or kernels: the launches alone)")
    return [r for r in rows if r["kind"] == kind]

def us(r, time="whole"):
    """R's whole run (median_us), or (TIME kernels) its launches alone (gpu_us, where the CPU finishes the run)."""
    return float(r.get("gpu_us") or r["median_us"]) if time == "kernels" else float(r["median_us"])

class Run:
    """One GPU's flushed kernel rows by stage, kernel, dtype, fill (None: the first), N, cols (last wins); ns: its N."""
    def __init__(self, rows, csv_path):
        self.folder, self.dev, self.at = os.path.dirname(csv_path), device(rows), {}
        self.rows = [r for r in flushed(rows) if r["median_us"] != ""]
        self.stages = {r["stage"] for r in self.rows}
        self.library = library(csv_path, self.stages)
        for fill, rows in (("fill", self.rows), (None, first_fills(self.rows))):
            self.at.update({(r["stage"], r["kernel"], r["dtype"], fill and r[fill], int(r["n"]), r["cols"]): r for r in rows})
        self.ns = list(dict.fromkeys(int(r["n"]) for r in self.rows if r["cols"] == "" and r["kernel"] not in self.library))

    def named(self, term, n, cols=""):
        """The rows TERM names at N and COLS: [] for none, several for a pattern or fastest:each."""
        stage, _, rest = term.partition(":")
        name, _, fill = rest.partition("@")
        kernel, dtype = (name.split(":") + ["f32"])[:2]
        if kernel == "fastest":  # of DTYPE, or of each input type
            rows = [r for (s, k, t, f, m, c), r in self.at.items() if (s, f, m, c) == (stage, None, n, cols)
                    and k not in self.library and dtype in ("each", t)]
            return [min((r for r in rows if r["dtype"] == t), key=us) for t in dict.fromkeys(r["dtype"] for r in rows)]
        return [r for (s, k, t, f, m, c), r in self.at.items() if (s, t, f, m, c) == (stage, dtype, fill or None,
                                                                                      n, cols) and fnmatch.fnmatch(k, kernel)]

    def ratio(self, a, b, n, cols=""):
        """B's time over A's at N (the worst where A names several rows); None where the run lacks one of them."""
        found = []
        for ra in self.named(a, n, cols):
            if b == "sol" and self.dev["sol"] > 0:
                found.append(((self.dev["floor"] or 0) + float(ra["bytes_read"]) / self.dev["sol"] / 1e3) / us(ra))
            elif b == "library":
                found += [float(ra["x_cub"])] if ra["x_cub"] != "" else []
            elif b == "others":
                other = [us(r) for r in self.rows if r["stage"] != ra["stage"] and int(r["n"]) == n and r["cols"] == ""
                         and r["dtype"] == "f32" and r["kernel"] not in self.library]
                found += [min(other) / us(ra)] if other else []
            elif b != "sol":
                found += [us(rb) / us(ra) for rb in self.named(b, n, cols)]
        return min(found, default=None)

    def changed(self, a):
        """The stages assertion A reads that changed since this run and it is not held to (provenance.py)."""
        reads = {t.split(":")[0] for t in (a["a"], a["b"]) if ":" in t}
        return sorted(excused(self.folder) & (reads | (self.stages if a["b"] == "others" else set())))

def targets(csvs, stage, lang="en", rows=None):
    """STAGE's targets: a column per GPU, met or not with the worst ratio over its sizes and its N."""
    found = {}  # each GPU's run
    for path in csvs:
        every = read_csv(path, NEED)
        found |= {gpu: Run([r for r in every if r["gpu"] == gpu], path)
                  for gpu in dict.fromkeys(r["gpu"] for r in kernel_rows(every))}
    out = text(lang, "targets head") + "".join(f" {g} |" for g in found) + "\n" + rule("llr" + "l" * len(found))
    for t in assertions(stage, "target") if rows is None else rows:
        sizes = [parse_size(s) for s in re.split(r"\.\.| ", t["n"]) if s]  # MIN..MAX, or a list
        lo, hi = min(sizes), max(sizes)
        out += f"| {bilingual(t['label'], lang)} | {exponent(lo)}" + ("–" + exponent(hi) if hi > lo else "")
        by, cells = float(t["by"]), []  # cells: each GPU's, a text or its worst ratio and where
        for gpu, run in found.items():
            if changed := run.changed(t):
                cells.append(text(lang, "not held").format(stage=text(lang, "stage" if len(changed) == 1 else "stages"),
                                                           numbers=phrase([number(s) for s in changed], lang)))
                continue
            ratios = [(r, n) for n in run.ns if lo <= n <= hi and (r := run.ratio(t["a"], t["b"], n)) is not None]
            cells.append(min(ratios, key=lambda x: x[0]) if ratios else "-")
        # Four decimals where three would show a miss equal to the bound.
        fmt = "%.4f" if any(c[0] < by and "%.3f" % c[0] == "%.3f" % by for c in cells if type(c) is tuple) else "%.3f"
        out += f" | ≥ {fmt} |" % by + "".join(f" {c} |" if type(c) is str else f" %s ({fmt} %s %s) |" % (text(
            lang, "met" if c[0] >= by else "not met"), c[0], text(lang, "at"), exponent(c[1])) for c in cells) + "\n"
    return out

def cited(csv, stage, lang="en", rows=None):
    """STAGE's cited figures (ROWS, else its claims.csv's) beside this run: the article's factor and this run's."""
    rows, run = rows or assertions(stage, "cited"), Run(read_csv(csv, NEED), csv)
    out = text(lang, "claims caption") % bilingual(rows[0]["source"], lang) + text(lang, "claims head") + "\n"
    out += rule("lllrrrrrl")
    for c in rows:
        n = parse_size(c["n"])
        a, b = ((run.named(c[k], n) or [{}])[0] for k in "ab")
        check = "-" if not a or not b else "ok" if passed(a["pass"]) and passed(b["pass"]) else "FAIL"
        out += "| %s | %s `%s` | %s `%s` | %d | %s | %s | %s | %s | %s |\n" % (
            c["label"], *c["b"].split(":")[:2], *c["a"].split(":")[:2], n, text(lang, "about") + c["by"] + "x",
            *("%.1f" % us(r) if r else "-" for r in (b, a)), "%.2fx" % (us(b) / us(a)) if a and b else "-", check)
    return out

def check(claim, run, gpu):
    """The lines that say whether CLAIM holds on one GPU's run: a FAIL line for each way it does not."""
    a, b, by, name = claim["a"], claim["b"], float(claim["by"]), claim["label"]
    cols = claim["cols"].split() or [""]
    if claim["n"] == "all":
        at = [(n, c) for n, c in sorted({(int(r["n"]), r["cols"]) for r in run.rows})
              if (c in cols or not claim["cols"]) and run.named(a, n, c) and run.named(b, n, c)]
        if not at:
            return [f"FAIL {name} on the {gpu}: no N at which both {a} and {b} were measured"]
    else:
        at = [(parse_size(s), c) for s in claim["n"].split() for c in cols]
        if missing := [n if c == "" else f"{n}x{c}" for n, c in at if not (run.named(a, n, c) and run.named(b, n, c))]:
            return [f"FAIL {name} on the {gpu}: {a} and {b} were not both measured at N = {missing}"]
    time = claim.get("time") or "whole"
    value, show = (lambda r: float(r["rel_err"]), "error %.1e") if claim["is"] in IS[2:] else (lambda r: us(r, time), "%.1f µs")
    over = lambda x, y: x / y if y else 1.0 if x == y else float("inf")  # errors of 0: as exact, or infinitely less
    found = [(n, c, value(run.named(a, n, c)[0]), value(run.named(b, n, c)[0])) for n, c in at]
    lines = [f"FAIL {name} on the {gpu}, N = {n}{f' ({c} columns)' if c else ''}: {a} {show % va}, {b} {show % vb} "
             f"{'(the kernels alone) ' if time == 'kernels' else ''}"
             f"(b/a = {over(vb, va):.3f}; claimed: {claim['is']}, by {by:g})" for n, c, va, vb in found
             if not (over(vb, va) >= by if claim["is"] in ("faster", "less-exact")
                     else over(max(va, vb), min(va, vb)) <= by)]
    return lines or [f"ok   {name} on the {gpu} at {len(at)} N"]

MARK = re.compile(r"<!-- claim: ([\w.-]+) -->")
# A sentence that says its claim holds on every reference GPU, in either language.
EVERY = re.compile(r"\bboth( of the)?( reference)? GPUs\b|\b(on|for) (each|every|all)( of the)?( reference)? GPUs?\b(?!')"
                   r"|两块 ?(参考 ?)?GPU|(每|各)块 ?(参考 ?)?GPU ?上", re.I)

def sentence(page, end):
    """PAGE's sentence ending at END (a mark's start): back to a sentence's end, a blank line, a list item or a mark."""
    # Up to the mark, less the marks beside it (one sentence's); any mark before them is a stop.
    head = MARK.sub("\0", re.sub(r"(<!-- claim: [\w.-]+ -->\s*)+$", "", page[:end]))
    starts = [m.end() for m in re.finditer(r"[.;:]\s|[。；：]|\n\s*\n|\n\s*[-*] |\0", head.rstrip())]
    return head[max(starts, default=0):].strip()

def marks(pages):
    return [(path, m[1], sentence(page, m.start())) for path, page in pages.items() for m in MARK.finditer(page)]

def uncited(name, pages):
    """[] where a stage README and its Chinese page both end a sentence with NAME's mark; else its FAIL."""
    cite = f"<!-- claim: {name} -->"
    if any(cite in page and cite in pages.get(path.replace(".md", ".zh-CN.md"), "") for path, page in pages.items()
           if not path.endswith(".zh-CN.md")):
        return []
    return [f"FAIL {name}: no stage README ends a sentence with {cite} in both languages (a claim is for a "
            "sentence that makes it)"]

def in_prose(names, pages):
    """The pages that show a claim's name to the reader (outside its marks): the name stays in claims.csv."""
    return [f"FAIL {name}: {path} shows the claim's name; say what was measured, and mark the sentence with "
            f"<!-- claim: {name} -->" for path, page in pages.items() for name in names
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", MARK.sub("", page))]

def claims():
    """Every stage's claims on the primary's results and every other reference's not excused, and their marks."""
    by_gpu = {os.path.basename(os.path.dirname(p)): p for p in sorted(glob.glob("plots/reference/*/results.csv"))}
    if (main := primary()) not in by_gpu:
        fail(f"the primary reference {main} has no plots/reference/{main}/results.csv")
    run = {gpu: Run(read_csv(p, NEED), p) for gpu, p in by_gpu.items()}
    pages = {page: read_text(page) for page in sorted(glob.glob("stages/*/README*.md"))}
    prose = {page: read_text(page) for page in sorted(glob.glob("README*.md") + glob.glob("docs/*.md"))} | pages
    lines, checked = [], {}  # checked: each claim's GPUs
    for stage in sorted(os.path.basename(d) for d in glob.glob("stages/*")):
        for claim in assertions(stage, "claim"):
            name = claim["label"]
            checked[name] = []
            lines += uncited(name, pages)
            for gpu in sorted(by_gpu) if claim["gpus"] == "all" else claim["gpus"].split():
                if gpu in by_gpu and (changed := run[gpu].changed(claim)):
                    lines.append(f"skip {name} on the {gpu}: not held to it, {', '.join(changed)} changed since its run "
                                 "(its README)")
                    continue
                lines += check(claim, run[gpu], gpu) if gpu in by_gpu else [
                    f"FAIL {name}: no results of {gpu} (plots/reference/{gpu}/results.csv)"]
                checked[name].append(gpu)
    for page, name, said in marks(pages):
        if name not in checked:
            lines.append(f"FAIL {name}: {page} marks a sentence with a claim no claims.csv has")
        elif EVERY.search(said) and (left := sorted(set(by_gpu) - set(checked[name]))):
            lines.append(f"FAIL {name}: {page} says it holds on every reference GPU, and it is not checked "
                         f"on the {', '.join(left)}: \"{said}\"")
    lines += in_prose(list(checked), prose)
    return "\n".join(lines) + "\n", int(any(line.startswith("FAIL") for line in lines))

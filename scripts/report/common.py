"""What the reporting program's parts share: CSVs by column name, --describe, number formats, both languages' texts."""
import csv
import functools
import glob
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repository's
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import describe as describe_module  # noqa: E402 (scripts/describe.py, the one reader of --describe)

def fail(why, code=2):
    """An error on stderr, then exit CODE (2: bad input)."""
    print(f"error: {why}", file=sys.stderr)
    sys.exit(code)

def read_text(path, errors=None):
    """PATH's text (ERRORS: how undecodable bytes are read, as open() takes it; None: an error)."""
    try:
        with open(path, encoding="utf-8", errors=errors) as f:
            return f.read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")

def read_csv(path, need="", comments=False):
    """A CSV's rows as dicts by column name (COMMENTS: no # lines); a NEED column missing or a ragged row: exit 2."""
    reader = csv.DictReader(line for line in read_text(path).splitlines()
                            if line and not (comments and line.startswith("#")))
    rows, header = list(reader), reader.fieldnames or []
    for name in (name for name in need.split() if name not in header):
        fail(f"{path} is not a results CSV of this layout: it has no column {name} (its first line: {','.join(header)})")
    for i, row in enumerate(rows, start=2):
        if None in row or None in row.values():
            fail(f"{path} line {i}: its fields do not match its header's {len(header)}")
    return rows

def write_files(files, folder=""):
    for name, body in files.items():
        try:
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(body)
        except OSError as e:
            fail(f"{os.path.join(folder, name)}: {e.strerror}")

def is_device_row(r):
    """Whether a results row is one of the device's (the GPU's own figures): those leave pass empty."""
    return r["pass"] == ""

def kernel_rows(rows):
    return [r for r in rows if not is_device_row(r)]

def flushed(rows):
    return [r for r in kernel_rows(rows) if r["l2"] != "warm"]

def first_fills(rows):
    """Each kernel, type, N, cols and L2 state's first-fill rows (later fills repeat the kernels they do not change)."""
    first = {}
    return [r for r in rows if first.setdefault((r["stage"], r["kernel"], r["dtype"], r["n"], r.get("cols", ""),
                                                  r.get("l2", "")), r.get("fill", "")) == r.get("fill", "")]

def device(rows):
    """The device rows' figures: peak, copy and sol (GB/s), floor and trip (µs, None for none), l2n."""
    def of(kernel, column):
        return [float(r[column]) for r in rows if is_device_row(r) and r["kernel"] == kernel and r[column]]
    return {"peak": (of("dram_peak", "gbps") or [0])[-1], "copy": (of("d2d_copy", "gbps") or [0])[-1],
            "sol": max(of("read_sol", "gbps") + [0]), "l2n": (of("l2_size", "n") or [0])[-1],
            "floor": min(of("launch_floor", "median_us"), default=None),
            "trip": min(of("round_trip_floor", "median_us"), default=None)}

def amount(v):
    return float(v) if v else 0.0

def short(x):
    """A number as a label or a gnuplot value: a string as written, a whole number whole, else 6 digits."""
    return x if isinstance(x, str) else "%d" % x if x == int(x) and abs(x) < 1e16 else "%.6g" % x

def median(values):
    """The median of the non-empty values: the middle one as written, or the mean of the middle two; "" for none."""
    a = sorted((v for v in values if v != ""), key=float)
    return "" if not a else a[len(a) // 2] if len(a) % 2 else (float(a[len(a) // 2 - 1]) + float(a[len(a) // 2])) / 2

def rel(v):
    return "-" if v in ("", "-") else "0" if float(v) == 0 else "%.1e" % float(v)

def passed(v):
    """Whether a pass value says the check did not fail: 1, or unchecked (a bound a result of 0 would pass)."""
    return v == "unchecked" or v.replace(".", "", 1).isdigit() and float(v) == 1

def verdict(v, xfail=True):
    """A pass value as the tables show it: ok, unchecked, xfail (where XFAIL, else FAIL) or FAIL."""
    return "unchecked" if v == "unchecked" else "ok" if passed(v) else "xfail" if xfail and v == "xfail" else "FAIL"

@functools.lru_cache(None)
def texts():
    lines = read_text(os.path.join(ROOT, "docs", "report-texts.tsv")).splitlines()
    return {k: (en, zh) for k, en, zh in (line.replace("\\n", "\n").split("\t") for line in lines if line[:1] != "#")}

def text(lang, key):
    return texts()[key][lang == "zh"]

def bilingual(line, lang):
    """The part of an "EN | ZH" text in LANG; English where it has no Chinese."""
    en, _, zh = line.partition(" | ")
    return zh if lang == "zh" and zh else en

def phrase(words, lang="en"):
    """"a", "a and b", "a, b and c" (Chinese "a、b 和 c")."""
    head = text(lang, "list sep").join(words[:-1])
    return head + text(lang, "list and") + words[-1] if len(words) > 1 else "".join(words)

def rule(align):
    """A Markdown table's rule line, a column per letter of ALIGN: l left-aligned, r right-aligned."""
    return "|" + "".join("---|" if a == "l" else "---:|" for a in align) + "\n"

def exponent(n):
    """'2^k' for the power of two nearest N."""
    return "2^%d" % (math.log2(float(n)) + 0.5)

def head(label, columns, left=1):
    """A table's header, LABEL (its LEFT first columns) then a right-aligned column per item of COLUMNS."""
    columns = list(columns)
    return label + "".join(f" {c} |" for c in columns) + "\n" + rule("l" * left + "r" * len(columns))

def cells(values, fmt):
    """Table cells of VALUES, each as FMT formats it; "-" for None."""
    return "".join(" - |" if v is None else " %s |" % (fmt % v) for v in values)

def number(stage):
    return stage.split("_", 1)[0] if "_" in stage else ""

def parse_size(size):
    """A size as the data files write it: 2^24, 2^24+1 or 1048576."""
    base, _, rest = size.partition("^")
    power, _, plus = rest.partition("+")
    return int(base) ** int(power) + int(plus or 0) if "^" in size else int(size)

def description(folder, stage, needed=True):
    """STAGE's description (scripts/describe.py): FOLDER's describe-<stage>.json, else its program's --describe; else
    {} (NEEDED: exit). A description saved by an older run may lack the fields added since."""
    saved = os.path.join(folder or ".", f"describe-{stage}.json")
    try:
        return describe_module.read(saved) if os.path.exists(saved) else built_description(folder, stage, needed)
    except describe_module.DescribeError as e:
        fail(str(e))

@functools.lru_cache(None)
def built_description(folder, stage, needed):
    programs = [p for p in sorted(glob.glob(f"build/{stage}/*")) if os.path.exists(f"stages/{stage}/{os.path.basename(p)}.cu")
                and os.path.basename(p) not in ("exercise", "demo") and os.access(p, os.X_OK)]
    if not programs:
        return {} if not needed else fail(f"no description of stage {stage} in {folder or '.'} (describe-{stage}.json) "
                                          "and no built program to ask: make bench saves them, make all builds them")
    return describe_module.load(programs[0])

def describe(csv_path, stage, key, needed=True):
    """One field of STAGE's description beside CSV_PATH; None where it has none (or, not NEEDED, no description)."""
    return description(os.path.dirname(csv_path), stage, needed).get(key)

def chart_tokens(csv_path, stage):
    """STAGE's charts: {name: (owned: its rows are the chart's own, [f32, and the types drawn beside])}."""
    return {c["name"]: (c["owned"], ["f32"] + c["also_dtypes"]) for c in describe(csv_path, stage, "charts") or []}

def library(csv_path, stages, kind="library"):
    """The kernels of STAGES whose descriptions' kernel lines are of KIND (the library's, unless told)."""
    return {k["name"] for s in stages for k in description(os.path.dirname(csv_path), s, False).get("kernels", [])
            if k["role"] == kind}

"""What the reporting program's parts share: CSVs read by column name, the texts of both languages
(strings.py), and awk's way of turning strings into numbers (the tables were first written in awk; their
output is kept)."""
import glob
import math
import os
import re
import subprocess
import sys

from strings import TEXT

STRNUM = re.compile(r'\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)\s*')
NUMBER = re.compile(r'^\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf(inity)?|nan)', re.I)

def fail(why, code=2):
    """An error on stderr, then exit CODE (2: bad input)."""
    print(f"error: {why}", file=sys.stderr)
    sys.exit(code)

def read_lines(path, errors=None):
    """The lines of a text file (none for its final newline); a file that cannot be read is an error."""
    try:
        with open(path, encoding="utf-8", errors=errors) as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return lines[:-1] if lines[-1] == "" else lines

def read_csv(path, need=""):
    """A CSV's rows as dicts by column name; a missing column of NEED (space-separated) or a row whose
    number of fields differs from its header's is an error (exit 2)."""
    header, *rows = [line.split(",") for line in read_lines(path)] or [need.split()]
    for name in (name for name in need.split() if name not in header):
        fail(f"{path} is not a results CSV of this layout: it has no column {name} (its first line: "
             f"{','.join(header)})")
    for i, fields in enumerate(rows, start=2):
        if len(fields) != len(header):
            fail(f"{path} line {i}: {len(fields)} fields, where its header has {len(header)}")
    return [dict(zip(header, fields)) for fields in rows]

def write_files(files, folder=""):
    """Each text of FILES ({name: text}) into FOLDER/name; a file that cannot be written is an error."""
    for name, body in files.items():
        path = os.path.join(folder, name)
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
        except OSError as e:
            fail(f"{path}: {e.strerror}")

def flushed(rows):
    """The rows not timed with the input left in L2 (l2 = warm)."""
    return [r for r in rows if r["l2"] != "warm"]

def first_fills(rows):
    """The rows of the first fill of each kernel, type, N, row length and L2 state (a program run once per
    bench fill repeats the kernels whose data do not depend on it: stage 11's scans)."""
    first = {}
    return [r for r in rows if first.setdefault((r["stage"], r["kernel"], r["dtype"], r["n"], r.get("cols", ""),
                                                  r.get("l2", "")), r.get("fill", "")) == r.get("fill", "")]

def device(rows):
    """The device rows (pass empty)' limits: DRAM peak and copy (GB/s, the last row's), the fastest read-only
    bandwidth (sol), the shortest launch floor and DRAM round trip (µs, None for none), and l2n (the fp32
    elements that fill L2)."""
    rows = [r for r in rows if r["pass"] == ""]

    def of(kernel, column):
        return [num(r.get(column, "")) for r in rows if r["kernel"] == kernel]
    return {"peak": (of("dram_peak", "gbps") or [0])[-1], "copy": (of("d2d_copy", "gbps") or [0])[-1],
            "sol": max(of("read_sol", "gbps") + [0]), "l2n": (of("l2_size", "n") or [0])[-1],
            "floor": min(of("launch_floor", "median_us"), default=None),
            "trip": min(of("round_trip_floor", "median_us"), default=None)}

def num(s):
    """A string as awk reads it as a number: its longest numeric prefix, 0 where there is none."""
    if isinstance(s, (int, float)):
        return s
    m = NUMBER.match(s)
    if not m or m.group(0).strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return 0  # POSIX awk: no special values from strings
    return float(m.group(0))

def awk_str(x):
    """A number as awk prints it without a format (OFMT/CONVFMT %.6g; integers as integers)."""
    return x if isinstance(x, str) else str(int(x)) if x == int(x) and abs(x) < 1e16 else "%.6g" % x

def median(values):
    """The median of the non-empty values (awk's: the middle string, or the mean of the middle two); "" for
    none."""
    a = sorted((v for v in values if v != ""), key=num)
    k = len(a) // 2
    return "" if not a else a[k] if len(a) % 2 else (num(a[k - 1]) + num(a[k])) / 2

def rel(v):
    """A relative error as the tables show it; "-" for none."""
    return "-" if v in ("", "-") else "0" if num(v) == 0 else "%.1e" % num(v)

def text(lang, key):
    """The text KEY of strings.py in the language LANG ('en' or 'zh')."""
    return TEXT[key][lang == "zh"]

def bilingual(line, lang):
    """The part of a data file's "EN | ZH" text in LANG; English where it has no Chinese."""
    en, _, zh = line.partition(" | ")
    return zh if lang == "zh" and zh else en

def phrase(words, lang="en"):
    """"a", "a and b", "a, b and c" (Chinese "a、b 和 c")."""
    head = text(lang, "list sep").join(words[:-1])
    return head + text(lang, "list and") + words[-1] if len(words) > 1 else "".join(words)

def rule(align):
    """A Markdown table's rule line, a column per letter of ALIGN: l left-aligned, r right-aligned."""
    return "|" + "".join("---|" if a == "l" else "---:|" for a in align) + "\n"

def n_head(label, ns, left=1):
    """The header of a table with a column per N (LABEL: its LEFT first columns'), and its rule."""
    return label + "".join(f" {exponent(num(n))} |" for n in ns) + "\n" + rule("l" * left + "r" * len(ns))

def number(stage):
    """A stage's number: the part of its folder name before the first '_'."""
    return stage.split("_", 1)[0] if "_" in stage else ""

def parse_size(text):
    """A size as the data files write it: 2^24, 2^24+1 or 1048576."""
    base, _, rest = text.partition("^")
    power, _, plus = rest.partition("+")
    return int(base) ** int(power) + int(plus or 0) if "^" in text else int(text)

def parse_description(lines):
    """A program's --describe ("key: value" lines) as {key: [values]}."""
    keys = {}
    for key, value in (line.split(":", 1) for line in lines if ":" in line):
        keys.setdefault(key, []).append(value.strip())
    return keys

def description(csv_path, stage):
    """STAGE's --describe ({key: [values]}): saved beside the CSV (describe-<stage>.txt, as make bench
    keeps it), or else asked of its built program (build/<stage>/NAME from stages/<stage>/NAME.cu)."""
    saved = os.path.join(os.path.dirname(csv_path) or ".", f"describe-{stage}.txt")
    if os.path.exists(saved):
        return parse_description(read_lines(saved))
    programs = [p for p in glob.glob(f"build/{stage}/*")
                if os.path.exists(f"stages/{stage}/{os.path.basename(p)}.cu")
                and os.path.basename(p) not in ("exercise", "demo") and os.access(p, os.X_OK)]
    if not programs:
        fail(f"no description of stage {stage} beside {csv_path} ({saved}) and no built program to ask: "
             "make bench saves them, make all builds the programs")
    out = subprocess.run([programs[0], "--describe"], capture_output=True, text=True, check=True).stdout
    return parse_description(out.split("\n"))

def chart_tokens(csv_path, stages):
    """{stage: its chart tokens} (NAME: its best kernel on chart NAME; NAME+: every kernel, owning it)."""
    return {s: description(csv_path, s).get("charts", [""])[0] for s in stages}

def passed(v):
    """Whether a CSV's pass value says the check did not fail: 1, or unchecked (a bound a result of 0 would pass)."""
    return v == "unchecked" or STRNUM.fullmatch(v) is not None and float(v) == 1

def verdict(v, xfail=True):
    """A pass value as the tables show it: ok, unchecked, xfail (where XFAIL, else FAIL) or FAIL."""
    return "unchecked" if v == "unchecked" else "ok" if passed(v) else "xfail" if xfail and v == "xfail" else "FAIL"

def exponent(n):
    """'2^k' for the power of two nearest N."""
    return "2^%d" % (math.log(n) / math.log(2) + 0.5)

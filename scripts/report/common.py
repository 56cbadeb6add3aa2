"""What the reporting program's parts share: CSVs read by column name, the two languages' texts (strings.py),
and awk's way of turning strings into numbers (the tables were first written in awk; their output is kept)."""
import argparse
import math
import re
import sys

import strings

STRNUM = re.compile(r'\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)\s*')
NUMBER = re.compile(r'^\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf(inity)?|nan)', re.I)

def fail(why, code=2):
    """An error on stderr, then exit CODE (2: bad input)."""
    print(f"error: {why}", file=sys.stderr)
    sys.exit(code)

def read_lines(path):
    """The lines of a text file (none for its final newline); a file that cannot be read is an error."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    return lines[:-1] if lines[-1] == "" else lines

def read_csv(path, need=""):
    """A CSV's rows as dicts by column name; a missing column of NEED (space-separated) or a row whose
    number of fields differs from its header's is an error (exit 2)."""
    lines = read_lines(path)
    if not lines:
        return []
    header, rows = lines[0].split(","), []
    for name in need.split():
        if name not in header:
            fail(f"{path} is not a results CSV of this layout: it has no column {name} (its first line: {lines[0]})")
    for i, fields in enumerate((line.split(",") for line in lines[1:]), start=2):
        if len(fields) != len(header):
            fail(f"{path} line {i}: {len(fields)} fields, where its header has {len(header)}")
        rows.append(dict(zip(header, fields)))
    return rows

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
    """The 00_device rows' limits: DRAM peak and copy (GB/s, the last row's), the fastest read-only
    bandwidth (sol), and the shortest launch floor and DRAM round trip (µs)."""
    d = {"peak": 0, "copy": 0, "sol": 0, "floor": None, "trip": None}
    for r in (r for r in rows if r["stage"] == "00_device"):
        k, us, gbps = r["kernel"], num(r["median_us"]), num(r.get("gbps", ""))
        if k in ("dram_peak", "d2d_copy"):
            d["peak" if k == "dram_peak" else "copy"] = gbps
        if k == "read_sol" and gbps > d["sol"]:
            d["sol"] = gbps
        for key, name in (("floor", "launch_floor"), ("trip", "round_trip_floor")):
            if k == name and (d[key] is None or us < d[key]):
                d[key] = us
    return d

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
    if isinstance(x, str):
        return x
    return str(int(x)) if x == int(x) and abs(x) < 1e16 else "%.6g" % x

def text(lang, key):
    """The text KEY of strings.py in the language LANG ('en' or 'zh')."""
    return (strings.ZH if lang == "zh" else strings.EN)[key]

def bilingual(line, lang):
    """The part of a data file's "EN | ZH" text in LANG; English where it has no Chinese."""
    en, _, zh = line.partition(" | ")
    return zh if lang == "zh" and zh else en

def rule(align):
    """A Markdown table's rule line, a column per letter of ALIGN: l left-aligned, r right-aligned."""
    return "|" + "".join("---|" if a == "l" else "---:|" for a in align) + "\n"

def n_head(label, ns, left=1):
    """The header of a table with a column per N (LABEL: its LEFT first columns'), and its rule."""
    return label + "".join(f" {exponent(num(n))} |" for n in ns) + "\n" + rule("l" * left + "r" * len(ns))

def number(stage):
    """A stage's number: the part of its folder name before the first '_'."""
    return stage.split("_", 1)[0] if "_" in stage else ""

def parse_description(lines):
    """A program's --describe ("key: value" lines) as {key: [values]}."""
    keys = {}
    for key, sep, value in (line.partition(":") for line in lines):
        if sep:
            keys.setdefault(key, []).append(value.strip())
    return keys

def description(csv_path, stage):
    """STAGE's --describe ({key: [values]}): saved beside the CSV (describe-<stage>.txt, as make bench
    keeps it), or else asked of its built program (build/<stage>/NAME from stages/<stage>/NAME.cu)."""
    import glob
    import os
    import subprocess
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

def command(argv, doc, run, *options):
    """Parse ARGV by OPTIONS ((name, argparse keywords) pairs, then --lang), print RUN(**them); exit code 0."""
    parser = argparse.ArgumentParser(prog=f"python3 scripts/report {argv[0]}", description=doc.split("\n")[0])
    for name, kwargs in options + (("--lang", {"choices": ("en", "zh"), "default": "en"}),):
        parser.add_argument(name, **kwargs)
    sys.stdout.write(run(**vars(parser.parse_args(argv[1:]))))
    return 0

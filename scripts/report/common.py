"""What every part of the reporting program shares: CSVs read by column name, the two languages,
and awk's way of turning strings into numbers (the tables were first written in awk, and their
output is kept to the byte)."""
import math
import re
import sys

STRNUM = re.compile(r'\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)\s*')
NUMBER = re.compile(r'^\s*[-+]?(\d+\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|inf(inity)?|nan)', re.I)


def fail(why, code=2):
    """An error on stderr, then exit CODE (2: bad input)."""
    print(f"error: {why}", file=sys.stderr)
    sys.exit(code)


def read_csv(path, need=""):
    """The rows of a CSV with a header line, as dicts by column name. A file without one of the
    columns NEED names (space-separated), or a row whose number of fields differs from its header's,
    is an error (exit 2), with the message the awk programs gave."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        return []
    header = lines[0].split(",")
    for name in need.split():
        if name not in header:
            fail(f"{path} is not a results CSV of this layout: it has no column {name} (its first line: {lines[0]})")
    rows = []
    for i, line in enumerate(lines[1:], start=2):
        fields = line.split(",")
        if len(fields) != len(header):
            fail(f"{path} line {i}: {len(fields)} fields, where its header has {len(header)}")
        rows.append(dict(zip(header, fields)))
    return rows


def num(s):
    """A string as awk reads it as a number: its longest numeric prefix, 0 where there is none."""
    if isinstance(s, (int, float)):
        return s
    m = NUMBER.match(s)
    if not m:
        return 0
    t = m.group(0).strip().lower()
    if t.lstrip("+-") in ("inf", "infinity", "nan"):
        return 0  # POSIX awk: no special values from strings
    return float(t)


def awk_str(x):
    """A number as awk prints it without a format (OFMT/CONVFMT %.6g; integers as integers)."""
    if isinstance(x, str):
        return x
    if x == int(x) and abs(x) < 1e16:
        return str(int(x))
    return "%.6g" % x


def say(lang, en, zh):
    """The text of the language LANG ('en' or 'zh')."""
    return zh if lang == "zh" else en


def number(stage):
    """A stage's number: the part of its folder name before the first '_'."""
    return stage.split("_", 1)[0] if "_" in stage else ""


def description(csv_path, stage):
    """What STAGE's program is ({key: [values]} of its --describe), for the rows of the results CSV:
    saved beside it (describe-<stage>.txt, as make bench keeps them), or else asked of the stage's
    built program (build/<stage>/NAME, built from stages/<stage>/NAME.cu)."""
    import glob
    import os
    import subprocess
    saved = os.path.join(os.path.dirname(csv_path) or ".", f"describe-{stage}.txt")
    if os.path.exists(saved):
        text = open(saved, encoding="utf-8").read()
    else:
        programs = [p for p in glob.glob(f"build/{stage}/*")
                    if os.path.exists(f"stages/{stage}/{os.path.basename(p)}.cu")
                    and os.path.basename(p) not in ("exercise", "demo") and os.access(p, os.X_OK)]
        if not programs:
            fail(f"no description of stage {stage} beside {csv_path} ({saved}) and no built program to ask: "
                 "make bench saves them, make all builds the programs")
        text = subprocess.run([programs[0], "--describe"], capture_output=True, text=True, check=True).stdout
    keys = {}
    for line in text.split("\n"):
        key, sep, value = line.partition(":")
        if sep:
            keys.setdefault(key, []).append(value.strip())
    return keys


def chart_tokens(csv_path, stages):
    """{stage: its chart tokens (NAME: its best kernel goes on chart NAME; NAME+: every kernel, and it
    owns the chart)}, from each stage's description."""
    return {s: description(csv_path, s).get("charts", [""])[0] for s in stages}


def passed(v):
    """Whether a CSV's pass value says the check passed: awk's v == 1, numeric where it looks like a number."""
    return STRNUM.fullmatch(v) is not None and float(v) == 1


def exponent(n):
    """'2^k' for the power of two nearest N."""
    return "2^%d" % (math.log(n) / math.log(2) + 0.5)

"""Checked claims: the comparisons of measured results that a stage's README makes in prose, one a line in
stages/NN_name/claims.csv (claim: its name, cited by the README; a, b: STAGE:KERNEL, or STAGE:KERNEL:DTYPE for an
input type other than f32; is: faster, tb/ta >= by, or level, max/min <= by; n: all or sizes like 2^24 2^24+1;
cols, where the file has that column: the row lengths of a rows stage, at each n; gpus: all or GPU folders), held
to every committed plots/reference/<gpu>/results.csv (L2 flushed, each kernel's first bench fill) and cited by name in a stage
README of each language. Exit 1 if one fails or is not cited."""
import glob
import os

from common import fail, first_fills, parse_size, read_csv

def times_of(csv):
    """{(STAGE:KERNEL[:DTYPE], (N, cols)): median µs} of a results CSV's rows that the tables show."""
    times = {}
    for r in first_fills(read_csv(csv, "stage kernel dtype n median_us l2 fill cols")):
        if r["l2"] == "flushed":
            name = f"{r['stage']}:{r['kernel']}" + ("" if r["dtype"] == "f32" else f":{r['dtype']}")
            times[name, (int(float(r["n"])), r["cols"])] = float(r["median_us"])
    return times

def check(claim, times, gpu):
    """The lines that say whether CLAIM holds on one GPU's times, and whether all of it holds."""
    a, b, by = claim["a"], claim["b"], float(claim["by"])
    sizes = sorted({at for (k, at) in times if k == a} & {at for (k, at) in times if k == b})
    if claim["n"] != "all":
        wanted = [(parse_size(t), c) for t in claim["n"].split() for c in (claim.get("cols") or "").split() or [""]]
        if missing := [n if c == "" else f"{n}x{c}" for n, c in wanted if (n, c) not in sizes]:
            return [f"FAIL {claim['claim']} on the {gpu}: {a} and {b} were not both measured at N = {missing}"], False
        sizes = wanted
    if not sizes:
        return [f"FAIL {claim['claim']} on the {gpu}: no N at which both {a} and {b} were measured"], False
    lines = []
    for n, c in sizes:
        ta, tb = times[a, (n, c)], times[b, (n, c)]
        if not (tb / ta >= by if claim["is"] == "faster" else max(ta, tb) / min(ta, tb) <= by):
            lines.append(f"FAIL {claim['claim']} on the {gpu}, N = {n}{f' ({c} columns)' if c else ''}: {a} {ta:.1f} µs, "
                         f"{b} {tb:.1f} µs (b/a = {tb / ta:.3f}; claimed: {claim['is']}, by {by:g})")
    return lines or [f"ok   {claim['claim']} on the {gpu} at {len(sizes)} N"], not lines

def uncited(name, pages):
    """Where a claim is not cited: None if some stage README and its Chinese page both name it in `...`."""
    cite = f"`{name}`"
    if any(cite in text and cite in pages.get(page.replace(".md", ".zh-CN.md"), "") for page, text in pages.items()):
        return None
    return f"FAIL {name}: no stage README cites it as {cite} in both languages (a claim is for a sentence that makes it)"

def claims():
    """Every stage's claims against every GPU's results, and each cited by a README in both languages; the
    report's lines and the exit status."""
    by_gpu = {os.path.basename(os.path.dirname(csv)): times_of(csv)
              for csv in sorted(glob.glob("plots/reference/*/results.csv"))}
    pages = {page: open(page, encoding="utf-8").read() for page in glob.glob("stages/*/README*.md")}
    lines, status = [], 0
    for path in sorted(glob.glob("stages/*/claims.csv")):
        for claim in read_csv(path, "claim a b is n by gpus"):
            if claim["is"] not in ("faster", "level"):
                fail(f"{path}: claim {claim['claim']}: is '{claim['is']}' (faster or level)")
            if missing := uncited(claim["claim"], pages):
                lines, status = lines + [missing], 1
            for gpu in sorted(by_gpu) if claim["gpus"] == "all" else claim["gpus"].split():
                got, held = check(claim, by_gpu[gpu], gpu) if gpu in by_gpu else (
                    [f"FAIL {claim['claim']}: no results of {gpu} (plots/reference/{gpu}/results.csv)"], False)
                lines += got
                status |= 0 if held else 1
    return "\n".join(lines) + "\n", status

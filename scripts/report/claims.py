"""Checked claims: the comparisons of measured results that a stage's README makes in prose, one a line in
stages/NN_name/claims.csv (claim: its name, cited by the README; a, b: STAGE:KERNEL, or STAGE:KERNEL:DTYPE for an
input type other than f32; is: faster, tb/ta >= by, or level, max/min <= by; n: all or sizes like 2^24 2^24+1;
cols, where the file has that column: the row lengths of a rows stage, at each n; gpus: all or GPU folders), held
to the primary's plots/reference/<gpu>/results.csv and every other reference's whose run no stage the claim reads has
changed since (L2 flushed, each kernel's first bench fill), and tied to the sentence that makes it in a stage README
of each language by a Markdown comment after it, <!-- claim: NAME -->, which the reader does not see. Exit 1 if one
fails, is not tied to a sentence, is shown to the reader by name, or a sentence says it holds on every reference GPU
where it is not checked on every one."""
import glob
import os
import re

from common import fail, first_fills, parse_size, read_csv
from provenance import excused, primary

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

MARK = re.compile(r"<!-- claim: ([\w.-]+) -->")
# A sentence that says its claim holds on every reference GPU, in either language.
EVERY = re.compile(r"\bboth( of the)?( reference)? GPUs\b|\b(on|for) (each|every|all)( of the)?( reference)? GPUs?\b(?!')"
                   r"|两块 ?(参考 ?)?GPU|(每|各)块 ?(参考 ?)?GPU ?上", re.I)

def sentence(text, end):
    """The sentence of TEXT that ends where a claim's mark starts (at END): back to the sentence before it, a
    blank line, a list item's start or another mark."""
    head = text[:end]
    while (m := re.search(r"<!-- claim: [\w.-]+ -->\s*$", head)):  # the marks of one sentence, side by side
        head = head[:m.start()]
    head = MARK.sub("\0", head)
    starts = [m.end() for m in re.finditer(r"[.;:]\s|[。；：]|\n\s*\n|\n\s*[-*] |\0", head.rstrip())]
    return head[max(starts, default=0):].strip()

def marks(pages):
    """Every claim's mark in PAGES ({path: text}): (path, claim, the sentence it ends)."""
    return [(path, m[1], sentence(text, m.start())) for path, text in pages.items() for m in MARK.finditer(text)]

def uncited(name, pages):
    """Where a claim is not cited: None if some stage README and its Chinese page both end a sentence with its
    mark, <!-- claim: NAME --> (a Markdown comment: the reader sees the sentence, not the name)."""
    cite = f"<!-- claim: {name} -->"
    if any(cite in text and cite in pages.get(page.replace(".md", ".zh-CN.md"), "") for page, text in pages.items()
           if not page.endswith(".zh-CN.md")):
        return None
    return f"FAIL {name}: no stage README ends a sentence with {cite} in both languages (a claim is for a sentence " \
        "that makes it)"

def in_prose(names, pages):
    """The pages that show a claim's name to the reader (outside its marks): the name stays in claims.csv."""
    return [f"FAIL {name}: {path} shows the claim's name; say what was measured, and mark the sentence with "
            f"<!-- claim: {name} -->" for path, text in pages.items() for name in names
            if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", MARK.sub("", text))]

def claims():
    """Every stage's claims against the primary's results and every other reference's whose run no stage the
    claim reads has changed since (provenance.py); each marked in a stage README of both languages, no mark of
    an unknown claim, no name shown in a page's prose, and a sentence that says a claim holds on every reference
    GPU only where it is checked on every one; the report's lines and the exit status."""
    by_gpu = {os.path.basename(os.path.dirname(csv)): times_of(csv)
              for csv in sorted(glob.glob("plots/reference/*/results.csv"))}
    excuse = {gpu: excused(f"plots/reference/{gpu}") for gpu in by_gpu}
    if (main := primary()) not in by_gpu:
        fail(f"the primary reference {main} has no plots/reference/{main}/results.csv")
    pages = {page: open(page, encoding="utf-8").read() for page in sorted(glob.glob("stages/*/README*.md"))}
    prose = {page: open(page, encoding="utf-8").read() for page in
             sorted(glob.glob("README*.md") + glob.glob("docs/*.md")) + list(pages)}
    lines, status, checked = [], 0, {}
    for path in sorted(glob.glob("stages/*/claims.csv")):
        for claim in read_csv(path, "claim a b is n by gpus"):
            if claim["is"] not in ("faster", "level"):
                fail(f"{path}: claim {claim['claim']}: is '{claim['is']}' (faster or level)")
            if missing := uncited(claim["claim"], pages):
                lines, status = lines + [missing], 1
            reads = {claim[k].split(":")[0] for k in "ab"}
            checked[claim["claim"]] = []
            for gpu in sorted(by_gpu) if claim["gpus"] == "all" else claim["gpus"].split():
                if gpu in by_gpu and gpu != main and (changed := sorted(excuse[gpu] & reads)):
                    lines.append(f"skip {claim['claim']} on the {gpu}: not held to it, {', '.join(changed)} changed "
                                 f"since its run (its README)")
                    continue
                got, held = check(claim, by_gpu[gpu], gpu) if gpu in by_gpu else (
                    [f"FAIL {claim['claim']}: no results of {gpu} (plots/reference/{gpu}/results.csv)"], False)
                lines += got
                status |= 0 if held else 1
                checked[claim["claim"]].append(gpu)
    for page, name, said in marks(pages):
        if name not in checked:
            lines, status = lines + [f"FAIL {name}: {page} marks a sentence with a claim no claims.csv has"], 1
        elif EVERY.search(said) and (left := sorted(set(by_gpu) - set(checked[name]))):
            lines, status = lines + [f"FAIL {name}: {page} says it holds on every reference GPU, and it is not "
                                     f"checked on the {', '.join(left)}: \"{said}\""], 1
    if found := in_prose(list(checked), prose):
        lines, status = lines + found, 1
    return "\n".join(lines) + "\n", status

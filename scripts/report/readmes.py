"""The measured blocks of every README, from the committed results, so that every number a README
shows is one a program printed. Each block sits between the lines <!-- TAG:begin --> and
<!-- TAG:end --> of its page, in the page's language (README.zh-CN.md beside each README.md):
  README.md: front (the chart of "readme: front" in its plots/*.gp header), bench (what make bench runs),
    stages (the best kernel of each stage);
  docs/results.md: results (the charts of "readme: top", every kernel, the flush check, links to the
    other GPUs' pages), accuracy (the accuracy lab);
  stages/NN_*/README.md: stage-results (the stage's charts, its table, cited.csv, every_n.txt, targets.csv,
    x CUB and the speed of light at every N, limits.csv), demo-output, tree (the command tree-blocks);
  plots/reference/<gpu>/README.md, whole: everything the front and results pages show for that GPU.
usage: python3 scripts/report readmes [--check] CSV IMGDIR
  --check: change nothing; exit 1 (with a diff) where a page differs from what CSV gives."""
import argparse
import difflib
import glob
import os
import sys

from accuracy import accuracy_tables
from charts import chart_headers
from cited import cited
from common import awk_str, bilingual, chart_tokens, fail, number, parse_description, read_csv, read_lines, rule, text
from limits import limits_table
from ratios import ratios
from tables import table
from targets import targets
from times import times
from tree import read_tree

def fill(page_text, tag, block, page):
    """PAGE_TEXT with the lines between <!-- TAG:begin --> and <!-- TAG:end --> replaced by BLOCK."""
    begin, end, lines = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->", page_text.split("\n")
    if begin not in lines or end not in lines:
        fail(f"{page} lacks the lines {begin} and {end}")
    body = block.split("\n")
    return "\n".join(lines[:lines.index(begin) + 1] + body[:-1 if body[-1] == "" else None] + lines[lines.index(end):])

class Pages:
    """The pages to write, or (check) to compare: the first difference sets the exit status."""

    def __init__(self, check):
        self.check, self.status = check, 0

    def finish(self, path, new):
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == new:
            return
        if not self.check:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            return
        self.status = 1
        if old is None:
            print(f"{path} is missing: run make reference", file=sys.stderr)
        else:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path))
            print(f"{path} differs from what the results give: run make reference", file=sys.stderr)

    def update(self, path, blocks):
        """The page PATH with its blocks {TAG: BLOCK} filled."""
        page = open(path, encoding="utf-8").read()
        for tag, block in blocks.items():
            page = fill(page, tag, block, path)
        self.finish(path, page)

def siblings(page):
    """An English page and its Chinese sibling where there is one, with their languages."""
    zh = page[:-3] + ".zh-CN.md"
    return [(page, "en")] + ([(zh, "zh")] if os.path.exists(zh) else [])

def gpu_of(csv):
    rows = read_csv(csv, "gpu")
    return rows[0]["gpu"] if rows else ""

def owners(csv):
    """{chart: ([the stages that own it (NAME+)], [the others' numbers (NAME)])}, from the CSV's stages."""
    found = {}
    stages = dict.fromkeys(r["stage"] for r in read_csv(csv, "stage") if r["stage"] != "00_device")
    for stage, tokens in chart_tokens(csv, list(stages)).items():
        for token in tokens.split():
            own = token.endswith("+")
            found.setdefault(token[:-1] if own else token, ([], []))[not own].append(stage if own else number(stage))
    return found

def owner(name, csv):
    """The first stage of CSV that owns the chart NAME; "" for none."""
    return (owners(csv).get(name, ([], []))[0] + [""])[0]

def numbers(items, lang):
    """Stage numbers as a phrase: "a, b and c" (Chinese "a、b 和 c")."""
    if len(items) < 2:
        return "".join(items)
    return text(lang, "list sep").join(items[:-1]) + text(lang, "list and") + items[-1]

def images(where, folder, prefix, csv, lang):
    """The charts of CSV that go to WHERE (front, top, or the stage that owns them), drawn in FOLDER."""
    headers, out = chart_headers(), ""
    for name, (own, others) in owners(csv).items():
        header = headers.get(name, {})
        readme = header.get("readme", "").split()
        if not header.get("alt") or not os.path.exists(f"{folder}/{name}.png") or not (
                where in readme if where in ("front", "top") else "stage" in readme and where in own):
            continue
        alt = bilingual(header["alt"], lang).replace("{stage}", numbers([number(s) for s in own], lang))
        out += f"![{alt.replace('{others}', numbers(others, lang))}]({prefix}/{name}.png)\n\n"
    return out

def flush_table(csv, lang):
    """The flush check's readings (scripts/flush_check.sh), where the run had ncu."""
    if not os.path.exists(csv):
        return ""
    out = f"\n{text(lang, 'flush caption')}\n\n{text(lang, 'flush head')}\n" + rule("llrrlrrl")
    for r in read_csv(csv, "probe loads n input_bytes l2 runs ratio_min pass"):
        stage, _, kernel = r["probe"].partition(":")
        out += "| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n" % (
            stage, kernel.split(":")[0], r["loads"], int(float(r["n"])), float(r["input_bytes"]) / 1048576, r["l2"],
            int(float(r["runs"])), float(r["ratio_min"]), "ok" if r["pass"] == "1" else "FAIL")
    return out + f"\n{text(lang, 'flush note')}\n"

def accuracy_block(folder, prefix, lang):
    """The accuracy lab's chart and tables, from FOLDER/accuracy.csv."""
    csv = f"{folder}/accuracy.csv"
    if not os.path.exists(csv):
        return text(lang, "no accuracy") + "\n"
    out = text(lang, "accuracy caption").format(gpu=gpu_of(csv)) + "\n\n" + accuracy_tables(csv, lang)
    if os.path.exists(f"{folder}/accuracy.png"):
        out = f"![{text(lang, 'accuracy alt')}]({prefix}/accuracy.png)\n\n" + out
    return out

def results_block(folder, prefix, lang):
    """The charts of FOLDER (linked as PREFIX/NAME.png), every kernel's table, the flush check."""
    csv = f"{folder}/results.csv"
    flush = flush_table(f"{folder}/flush_check.csv", lang)
    return images("top", folder, prefix, csv, lang) + table(csv, "all", lang=lang) + flush

def others(pattern, img):
    """The committed files PATTERN of the reference folders other than IMG."""
    return [p for p in sorted(glob.glob(f"plots/reference/*/{pattern}")) if os.path.dirname(p) != img]

def descriptions(folder):
    """The saved descriptions of the programs of a results folder, in stage order."""
    return [parse_description(read_lines(p)) for p in sorted(glob.glob(f"{folder}/describe-*.txt"))]

def bench_table(folder, lang):
    """What make bench runs: a row per single-GPU program, from the descriptions saved in FOLDER."""
    out = text(lang, "bench head") + "\n" + rule("llrlll")
    for d in (d for d in descriptions(folder) if d.get("gpus") == ["one"]):
        stage, sizes = d["stage"][0], d["bench sizes"][0].split(",")
        shown = f"{sizes[0]} … {sizes[-1]} ({len(sizes)} {text(lang, 'sizes')})" if len(sizes) > 2 else ", ".join(sizes)
        kernels = sum(1 for k in d.get("kernel", []) if k.split()[-1] != "wrong")
        warm = " ".join(f"`{k}`" for k in d["warm-L2 kernels"][0].split())
        out += f"| [{stage}](stages/{stage}) | `build/{stage}/{d['program'][0]}` | {kernels} | {shown} | "
        out += f"{d['bench fills'][0]} | {warm} |\n"
    return out

def top_pages(pages, csv, img):
    """The front page's blocks and the results page's, in both languages."""
    for lang, suffix in (("en", ""), ("zh", ".zh-CN")):
        pages.update(f"README{suffix}.md", {"front": images("front", img, img, csv, lang).rstrip("\n") + "\n",
                                            "stages": table(csv, "best", lang=lang), "bench": bench_table(img, lang)})
        links = "".join("\n%s [%s/README.md](../%s/README.md).\n" % (
            text(lang, "same results").format(gpu=gpu_of(other)), os.path.dirname(other), os.path.dirname(other))
            for other in others("results.csv", img))
        pages.update(f"docs/results{suffix}.md", {"results": results_block(img, f"../{img}", lang) + links,
                                                  "accuracy": accuracy_block(img, f"../{img}", lang)})

def sizes_table(stage_csv, csv, lang):
    """The program on several GPUs: its sum (kernels sum_*, each shard summed by the stage that owns the
    roofline chart) as a sentence, its all-reduce at every size."""
    via = number(owner("roofline", csv))
    out, head = "", False
    for r in read_csv(stage_csv, "gpu kernel dtype n median_us gbps pass bytes_read"):
        ok, us, gbps = "ok" if r["pass"] == "1" else "FAIL", float(r["median_us"]), float(r["gbps"])
        if r["kernel"].startswith("sum_"):
            out += text(lang, "multi-GPU sum") % (r["gpu"], r["kernel"], int(float(r["n"])), via, us, gbps, ok) + "\n\n"
            continue
        if not head:
            out, head = out + text(lang, "all-reduce head") + "\n" + rule("llrrrl"), True
        b = float(r["bytes_read"])
        size = f"{awk_str(b / 1073741824)} GiB" if b >= 1073741824 else f"{awk_str(b / 1048576)} MiB"
        out += "| `%s` | %s | %s | %.1f | %.1f | %s |\n" % (r["kernel"], r["dtype"], size, us, gbps, ok)
    return out

def stage_block(stage, stage_csv, csv, img, lang):
    """The measured block of STAGE, whose rows are in STAGE_CSV."""
    out = images(stage, img, f"../../{img}", stage_csv, lang)
    out += table(csv, "stage", stage, lang) if stage_csv == csv else sizes_table(stage_csv, csv, lang)
    if os.path.exists(f"stages/{stage}/cited.csv"):
        out += "\n" + cited(stage_csv, f"stages/{stage}/cited.csv", stage, lang)
    if os.path.exists(f"stages/{stage}/every_n.txt"):
        out += "\n" + times(stage_csv, stage, " ".join(read_lines(f"stages/{stage}/every_n.txt")), lang)
    if os.path.exists(f"stages/{stage}/targets.csv") and stage_csv == csv:
        out += f"\n{text(lang, 'targets caption')}\n\n" + targets(
            sorted(glob.glob("plots/reference/*/results.csv")), stage, f"stages/{stage}/targets.csv", lang)
    if stage in owners(stage_csv).get("roofline", ([], []))[0]:
        out += f"\n{text(lang, 'ratios caption')}\n\n" + ratios(stage_csv, stage, lang)
    limits = f"{img}/limits.csv"
    if stage_csv == csv and os.path.exists(limits) and any(r["stage"] == stage for r in read_csv(limits, "stage")):
        out += f"\n{text(lang, 'limits caption').format(gpu=gpu_of(limits))}\n\n" + limits_table(limits, stage, lang)
        for other in others("limits.csv", img):
            out += f"\n{text(lang, 'limits other').format(gpu=gpu_of(other), path=other)}\n"
    return out

def demo_block(stage, csv, img, lang):
    """A stage's demo output on the primary GPU (demo-<stage>.txt, kept by make bench), and where the others' is."""
    out = text(lang, "demo caption").format(num=number(stage), gpu=gpu_of(csv)) + "\n\n```\n"
    out += open(f"{img}/demo-{stage}.txt", encoding="utf-8").read() + "```\n"
    for other in others(f"demo-{stage}.txt", img):
        gpu = gpu_of(f"{os.path.dirname(other)}/results.csv")
        out += f"\n{text(lang, 'demo other').format(gpu=gpu, name=os.path.basename(other), path=other)}\n"
    return out

def stage_pages(pages, csv, img):
    """Every stage README's measured block and demo output, in both languages."""
    for readme in sorted(glob.glob("stages/*/README.md")):
        stage, page = os.path.basename(os.path.dirname(readme)), open(readme, encoding="utf-8").read()
        rows_csv = [c for c in (csv, f"{img}/multigpu.csv") if "<!-- stage-results:begin -->" in page
                    and os.path.exists(c) and any(r["stage"] == stage for r in read_csv(c, "stage"))][:1]
        demo = "<!-- demo-output:begin -->" in page.split("\n")
        if demo and not os.path.exists(f"{img}/demo-{stage}.txt"):
            fail(f"{readme} shows its demo's output, and {img}/demo-{stage}.txt is missing: run make bench")
        for p, lang in siblings(readme):
            blocks = {"stage-results": stage_block(stage, c, csv, img, lang) for c in rows_csv}
            pages.update(p, {**blocks, **({"demo-output": demo_block(stage, csv, img, lang)} if demo else {})})

def gpu_pages(pages):
    """Each GPU's own page: everything the front and results pages show for the primary GPU."""
    for csv in sorted(glob.glob("plots/reference/*/results.csv")):
        folder, roofline = os.path.dirname(csv), owner("roofline", csv)
        page = f"# Reference results: {gpu_of(csv)}\n\nGenerated by `make reference` from [results.csv](results.csv) "
        page += "(`make bench` on this GPU); do not edit.\n\n"
        page += results_block(folder, ".", "en") + "\n## Best kernel of each stage\n\n" + table(csv, "best")
        if roofline:
            page += f"\n## Stage {number(roofline)}: x CUB and the speed of light at every N\n\n"
            page += ratios(csv, roofline)
        pages.finish(f"{folder}/README.md", page + "\n## Accuracy\n\n" + accuracy_block(folder, ".", "en"))

def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report readmes", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a page differs")
    parser.add_argument("csv")
    parser.add_argument("img")
    args = parser.parse_args(argv[1:])
    if not os.path.isfile(args.csv):
        fail(f"{args.csv} not found")
    pages, img = Pages(args.check), args.img.rstrip("/")
    top_pages(pages, args.csv, img)
    stage_pages(pages, args.csv, img)
    gpu_pages(pages)
    return pages.status

def tree_block(stage, kernels, lang):
    """Each tree kernel's picture and what its record counts, or how to record it."""
    out = []
    for k in kernels:
        record = f"stages/{stage}/tree/{k}.csv"
        if not os.path.exists(record):
            out.append(text(lang, "tree missing").format(k=k, num=number(stage)))
            continue
        tree = read_tree(record)
        counts = dict(zip(("ld", "ldw", "st", "stw"), tree.totals()["ld"] + tree.totals()["st"]))
        counts.update(adds=tree.additions(), unused=tree.additions(-1, True))
        plurals = {f"{key}_s": "" if c == 1 else "s" for key, c in counts.items()}
        out.append(f"![{text(lang, 'tree alt').format(k=k)}](tree/{k}.png)\n\n"
                   + text(lang, "tree counts").format(k=k, **counts, **plurals))
    return "\n\n".join(out) + "\n"

def tree_blocks_cli(argv):
    """python3 scripts/report tree-blocks [--check]: every stage README's tree block, for the tree kernels
    the descriptions saved beside the primary results name; a record without its picture is a difference too."""
    pages = Pages("--check" in argv[1:])
    try:
        folder = "plots/reference/" + open("plots/reference/primary", encoding="utf-8").read().strip()
    except OSError:
        fail("no plots/reference/primary: run make bench and make reference")
    for d in descriptions(folder):
        stage, kernels = d["stage"][0], d.get("tree kernels", [""])[0].split()
        if not kernels or not os.path.exists(f"stages/{stage}/README.md"):
            continue
        for page, lang in siblings(f"stages/{stage}/README.md"):
            pages.update(page, {"tree": tree_block(stage, kernels, lang)})
        for k in kernels:
            if os.path.exists(f"stages/{stage}/tree/{k}.csv") and not os.path.exists(f"stages/{stage}/tree/{k}.png"):
                print(f"stages/{stage}/tree/{k}.csv has no picture: scripts/tree.sh draw stages/{stage}/tree/{k}.csv",
                      file=sys.stderr)
                pages.status = 1
    return pages.status

def fill_cli(argv):
    """python3 scripts/report fill [--check] PAGE TAG BLOCK HOW: one page's block TAG from the file
    BLOCK (HOW: what regenerates it, named where --check finds a difference). Exit codes: 0 filled or
    the same, 1 a difference (--check), 2 the page lacks the markers."""
    parser = argparse.ArgumentParser(prog="python3 scripts/report fill", description=fill_cli.__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    for name in ("page", "tag", "block", "how"):
        parser.add_argument(name)
    args = parser.parse_args(argv[1:])
    pages = Pages(args.check)
    pages.update(args.page, {args.tag: open(args.block, encoding="utf-8").read()})
    if pages.status:
        print(f"{args.page}'s {args.tag} block differs: run {args.how}", file=sys.stderr)
    return pages.status

"""The measured blocks of every README, from the committed results, so that every number a README
shows is one a program printed. Each block sits between the lines <!-- TAG:begin --> and
<!-- TAG:end --> of its page, in the page's language:
  README.md (front page): front (the chart whose plots/*.gp header says "readme: front"), bench (what
    make bench runs, from the programs' descriptions saved beside the results), stages (the best
    kernel of each stage);
  docs/results.md: results (the charts of "readme: top", every kernel, the flush check, links to the
    other GPUs' pages), accuracy (the accuracy lab);
  stages/NN_*/README.md: stage-results (the charts the stage owns, its table, an article's own figures
    (cited.csv), times at every N (every_n.txt), its targets (targets.csv), x CUB and the speed of light
    at every N, what limits each N (limits.csv)), demo-output (its demo's output);
  plots/reference/<gpu>/README.md, whole: everything the front and results pages show for that GPU.
  stages/NN_*/README.md: tree (each tree kernel's recorded picture and counts; the command tree-blocks).
Each README.md has its README.zh-CN.md sibling, filled in Chinese.
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
from common import chart_tokens, fail, read_csv, say, number
from limits import limits_table
from ratios import ratios
from tables import table
from targets import targets
from times import times
from tree import read_tree


def fill(text, tag, block, page):
    """TEXT with the lines between <!-- TAG:begin --> and <!-- TAG:end --> replaced by BLOCK."""
    begin, end = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"
    lines = text.split("\n")
    if begin not in lines or end not in lines:
        fail(f"{page} lacks the lines {begin} and {end}")
    i, j = lines.index(begin), lines.index(end)
    body = block.split("\n")
    if body and body[-1] == "":
        body.pop()
    return "\n".join(lines[:i + 1] + body + lines[j:])


class Pages:
    """The pages to write, or (check) to compare: the first difference sets the exit status."""

    def __init__(self, check):
        self.check, self.status = check, 0

    def finish(self, path, new):
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == new:
            return
        if self.check:
            if old is None:
                print(f"{path} is missing: run make reference", file=sys.stderr)
            else:
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path))
                print(f"{path} differs from what the results give: run make reference", file=sys.stderr)
            self.status = 1
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)


def gpu_of(csv):
    rows = read_csv(csv, "gpu")
    return rows[0]["gpu"] if rows else ""


def stages_of(csv):
    """The stages of a results CSV's rows, in order of appearance."""
    return list(dict.fromkeys(r["stage"] for r in read_csv(csv, "stage") if r["stage"] != "00_device"))


def chart_token_list(csvs):
    """Each chart token of the CSVs' stages (their descriptions' charts), in the order of its first
    appearance, with the numbers of the stages that own it (NAME+) and of the others (NAME)."""
    order, own, others, seen = [], {}, {}, set()
    for csv in csvs:
        for stage, tokens in chart_tokens(csv, stages_of(csv)).items():
            if stage in seen:
                continue
            seen.add(stage)
            for token in tokens.split():
                name = token[:-1] if token.endswith("+") else token
                if name not in own:
                    order.append(name)
                    own[name], others[name] = [], []
                (own if token.endswith("+") else others)[name].append(number(stage))
    return [(name, own[name], others[name]) for name in order]


def owns(stage, name, csvs):
    """Whether the rows of STAGE carry the chart token NAME+."""
    return any(stage in stages_of(csv) and f"{name}+" in chart_tokens(csv, [stage])[stage].split() for csv in csvs)


def numbers(items, lang):
    """Stage numbers as a phrase: "a, b and c" (Chinese "a、b 和 c")."""
    if len(items) < 2:
        return "".join(items)
    return say(lang, ", ", "、").join(items[:-1]) + say(lang, " and ", " 和 ") + items[-1]


def images(where, folder, prefix, csvs, lang):
    """The charts that go to WHERE (front, top, or stage:NN_name for those the stage owns) and are
    drawn in FOLDER, linked as PREFIX/NAME.png, in the order of the chart tokens of the CSVs."""
    headers, out = chart_headers(), ""
    for name, own, others in chart_token_list(csvs):
        header = headers.get(name)
        if not header or not header.get("alt") or not os.path.exists(f"{folder}/{name}.png"):
            continue
        readme = header.get("readme", "").split()
        if where in ("front", "top") and where not in readme:
            continue
        if where.startswith("stage:") and not ("stage" in readme and owns(where[6:], name, csvs)):
            continue
        en, _, zh = header["alt"].partition(" | ")
        alt = say(lang, en, zh).replace("{stage}", numbers(own, lang)).replace("{others}", numbers(others, lang))
        out += f"![{alt}]({prefix}/{name}.png)\n\n"
    return out


def flush_table(csv, lang):
    """The flush check's readings (scripts/flush_check.sh), where the run had ncu."""
    if not os.path.exists(csv):
        return ""
    out = "\n" + say(lang, "The L2 flush, checked with hardware counters (`scripts/flush_check.sh`: Nsight Compute, "
                           "`dram__bytes_read.sum`, `--cache-control none`), the run that read least of each:",
                     "L2 刷新的硬件计数器检查（`scripts/flush_check.sh`：Nsight Compute，`dram__bytes_read.sum`，"
                     "`--cache-control none`），每项取读得最少的一次运行：") + "\n\n"
    out += say(lang, "| kernel | loads | N | input (MiB) | L2 | runs | DRAM bytes read / input | check |",
               "| kernel | 加载方式 | N | 输入 (MiB) | L2 | 运行次数 | DRAM 读取字节 / 输入 | 检查 |")
    out += "\n|---|---|---:|---:|---|---:|---:|---|\n"
    for r in read_csv(csv, "probe loads n input_bytes l2 runs ratio_min pass"):
        stage, _, kernel = r["probe"].partition(":")
        out += "| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n" % (
            stage, kernel.split(":")[0], r["loads"], int(float(r["n"])), float(r["input_bytes"]) / 1048576, r["l2"],
            int(float(r["runs"])), float(r["ratio_min"]), "ok" if r["pass"] == "1" else "FAIL")
    out += "\n" + say(lang, "Flushed: every run must read at least 99% of its input from DRAM. Warm (no flush, the input "
                            "left in L2): the control, which must read under half, to show that the counter sees L2 hits.",
                      "flushed：每次运行必须至少从 DRAM 读到输入的 99%。warm（不刷新，输入留在 L2 中）：对照组，必须低于"
                      "一半，以说明计数器能看到 L2 命中。") + "\n"
    return out


def accuracy_block(folder, prefix, lang):
    """The accuracy lab's chart and tables, from FOLDER/accuracy.csv."""
    csv = f"{folder}/accuracy.csv"
    if not os.path.exists(csv):
        return say(lang, "No accuracy results are committed for this GPU (`make accuracy`, then `make reference`).",
                   "这块 GPU 还没有提交精度结果（先 `make accuracy`，再 `make reference`）。") + "\n"
    out = ""
    if os.path.exists(f"{folder}/accuracy.png"):
        out += "![%s](%s/accuracy.png)\n\n" % (say(lang, "relative error against N and against the condition number",
                                                   "相对误差随 N 和随条件数的变化"), prefix)
    out += say(lang, f"{gpu_of(csv)}, `make accuracy`:", f"{gpu_of(csv)}，`make accuracy`：") + "\n\n"
    return out + accuracy_tables(csv, lang)


def results_block(folder, prefix, lang):
    """The charts of FOLDER (linked as PREFIX/NAME.png), every kernel's table, the flush check."""
    csv = f"{folder}/results.csv"
    return (images("top", folder, prefix, [csv], lang) + table(csv, "all", lang=lang)
            + flush_table(f"{folder}/flush_check.csv", lang))


def references():
    return sorted(glob.glob("plots/reference/*/results.csv"))


def describe(path):
    """A program's --describe, saved beside the results (describe-<stage>.txt): {key: [values]}."""
    keys = {}
    for line in open(path, encoding="utf-8").read().split("\n"):
        key, sep, value = line.partition(":")
        if sep:
            keys.setdefault(key, []).append(value.strip())
    return keys


def descriptions(folder):
    """The saved descriptions of the programs of a results folder, in stage order."""
    return [describe(p) for p in sorted(glob.glob(f"{folder}/describe-*.txt"))]


def bench_table(folder, lang):
    """What make bench runs: a row per single-GPU program (its kernels, bench sizes and fills, and the
    kernels it times again with the L2 warm); a list of sizes is shown by its first and last and count."""
    out = say(lang, "| stage | program | kernels | bench sizes | bench fills | also timed with the L2 warm |",
              "| 阶段 | 程序 | kernel 数 | 基准测试规模 | 基准测试数据 | 另在 L2 保温时计时 |") + "\n|---|---|---:|---|---|---|\n"
    for d in descriptions(folder):
        if d.get("gpus") != ["one"]:
            continue
        stage = d["stage"][0]
        sizes = d["bench sizes"][0].split(",")
        shown = ", ".join(sizes)
        if len(sizes) > 2:
            shown = f"{sizes[0]} … {sizes[-1]} ({len(sizes)} {say(lang, 'sizes', '个规模')})"
        kernels = sum(1 for k in d.get("kernel", []) if k.split()[-1] != "wrong")
        warm = " ".join(f"`{k}`" for k in d["warm-L2 kernels"][0].split())
        out += f"| [{stage}](stages/{stage}) | `build/{stage}/{d['program'][0]}` | {kernels} | {shown} | {d['bench fills'][0]} | {warm} |\n"
    return out


def top_pages(pages, csv, img):
    """The front page's blocks and the results page's, in both languages."""
    for front, results_page, lang in (("README.md", "docs/results.md", "en"),
                                      ("README.zh-CN.md", "docs/results.zh-CN.md", "zh")):
        front_block = images("front", img, img, [csv], lang).rstrip("\n") + "\n"
        text = open(front, encoding="utf-8").read()
        text = fill(fill(text, "front", front_block, front), "stages", table(csv, "best", lang=lang), front)
        text = fill(text, "bench", bench_table(img, lang), front)
        pages.finish(front, text)
        everything = results_block(img, f"../{img}", lang)
        for other in references():
            folder = os.path.dirname(other)
            if folder != img:
                everything += "\n%s [%s/README.md](../%s/README.md).\n" % (
                    say(lang, f"The same on the {gpu_of(other)}:", f"{gpu_of(other)} 上的同样结果："), folder, folder)
        text = open(results_page, encoding="utf-8").read()
        text = fill(fill(text, "results", everything, results_page), "accuracy",
                    accuracy_block(img, f"../{img}", lang), results_page)
        pages.finish(results_page, text)


def owner(name, csv):
    """The stage that owns the chart NAME in CSV, if any."""
    for stage, tokens in chart_tokens(csv, stages_of(csv)).items():
        if f"{name}+" in tokens.split():
            return stage
    return ""


def sizes_table(stage_csv, csv, lang):
    """The program on several GPUs: its sum (kernels sum_*) as a sentence, its all-reduce at every size.
    Each GPU's shard is summed by the kernels of the stage that owns the roofline chart."""
    via = number(owner("roofline", csv))
    out, head = "", False
    for r in read_csv(stage_csv, "gpu kernel dtype n median_us gbps pass bytes_read"):
        ok = "ok" if r["pass"] == "1" else "FAIL"
        if r["kernel"].startswith("sum_"):
            out += say(lang, "%s, %s: the sum of %d fp32 elements spread over the GPUs, each shard reduced by stage "
                             f"{via} and the partials all-reduced: %.1f µs, %.0f GB/s of input, check %s.",
                       f"%s，%s：%d 个 fp32 元素分布在各 GPU 上求和，每个分片由阶段 {via} 归约，部分和再做 all-reduce："
                       "%.1f µs，输入 %.0f GB/s，检查 %s。") % (
                r["gpu"], r["kernel"], int(float(r["n"])), float(r["median_us"]), float(r["gbps"]), ok) + "\n\n"
            continue
        if not head:
            out += say(lang, "| all-reduce | dtype | bytes per GPU | time (µs) | busbw (GB/s) | check |",
                       "| all-reduce | dtype | 每个 GPU 的字节数 | 时间 (µs) | busbw (GB/s) | 检查 |") + "\n|---|---|---:|---:|---:|---|\n"
            head = True
        b = float(r["bytes_read"])
        size = f"{awk_number(b / 1073741824)} GiB" if b >= 1073741824 else f"{awk_number(b / 1048576)} MiB"
        out += "| `%s` | %s | %s | %.1f | %.1f | %s |\n" % (r["kernel"], r["dtype"], size, float(r["median_us"]),
                                                          float(r["gbps"]), ok)
    return out


def awk_number(x):
    return str(int(x)) if x == int(x) else "%.6g" % x


def stage_block(stage, stage_csv, csv, img, lang):
    """The measured block of STAGE, whose rows are in STAGE_CSV."""
    out = images(f"stage:{stage}", img, f"../../{img}", [stage_csv], lang)
    out += table(csv, "stage", stage, lang) if stage_csv == csv else sizes_table(stage_csv, csv, lang)
    if os.path.exists(f"stages/{stage}/cited.csv"):
        out += "\n" + cited(stage_csv, f"stages/{stage}/cited.csv", stage, lang)
    if os.path.exists(f"stages/{stage}/every_n.txt"):
        kernels = " ".join(open(f"stages/{stage}/every_n.txt", encoding="utf-8").read().split())
        out += "\n" + times(stage_csv, stage, kernels, lang)
    if os.path.exists(f"stages/{stage}/targets.csv") and stage_csv == csv:
        out += "\n" + say(lang, "The stage's targets (`targets.csv`), on every GPU's committed results: the worst ratio "
                                "over the sizes, and where:",
                          "本阶段的目标（`targets.csv`），在每块 GPU 已提交的结果上：各规模中最差的比值及其位置：") + "\n\n"
        out += targets(references(), stage, f"stages/{stage}/targets.csv", lang)
    if owns(stage, "roofline", [stage_csv]):
        out += "\n" + say(lang, "The targets, at every N of the run (>1: faster than CUB):",
                          "各目标，在这次运行的每个 N 上（>1：比 CUB 快）：") + "\n\n"
        out += ratios(stage_csv, stage, lang)
    limits = f"{img}/limits.csv"
    if stage_csv == csv and os.path.exists(limits) and any(r["stage"] == stage for r in read_csv(limits, "stage")):
        out += "\n" + say(lang, f"What limits each N: Nsight Compute's counters of the timed run (`make limits`, {gpu_of(limits)}):",
                          f"每个 N 的限制因素：被计时那次运行的 Nsight Compute 计数器（`make limits`，{gpu_of(limits)}）：") + "\n\n"
        out += limits_table(limits, stage, lang)
        for other in sorted(glob.glob("plots/reference/*/limits.csv")):
            if os.path.dirname(other) != img:
                out += "\n" + say(lang, f"The same counters on the {gpu_of(other)}: [limits.csv](../../{other}).",
                                  f"{gpu_of(other)} 上的同样计数器：[limits.csv](../../{other})。") + "\n"
    return out


def demo_block(stage, csv, img, lang):
    """A stage's demo output on the primary GPU (make bench keeps it as demo-<stage>.txt), and where the
    others' is."""
    out = say(lang, f"`make stage-{number(stage)} demo` on the {gpu_of(csv)}, from its reference results:",
              f"{gpu_of(csv)} 上的 `make stage-{number(stage)} demo`，取自它的参考结果：") + "\n\n```\n"
    out += open(f"{img}/demo-{stage}.txt", encoding="utf-8").read() + "```\n"
    for other in sorted(glob.glob(f"plots/reference/*/demo-{stage}.txt")):
        folder = os.path.dirname(other)
        if folder != img:
            gpu = gpu_of(f"{folder}/results.csv")
            out += "\n" + say(lang, f"The same on the {gpu}: [{os.path.basename(other)}](../../{other}).",
                              f"{gpu} 上的同样输出：[{os.path.basename(other)}](../../{other})。") + "\n"
    return out


def stage_pages(pages, csv, img):
    """Every stage README's measured block and demo output, in both languages."""
    for readme in sorted(glob.glob("stages/*/README.md")):
        stage = os.path.basename(os.path.dirname(readme))
        siblings = [(p, lang) for p, lang in ((readme, "en"), (readme[:-3] + ".zh-CN.md", "zh")) if os.path.exists(p)]
        text_of = {p: open(p, encoding="utf-8").read() for p, _ in siblings}
        if "<!-- stage-results:begin -->" in text_of[readme]:
            for stage_csv in (csv, f"{img}/multigpu.csv"):
                if os.path.exists(stage_csv) and any(r["stage"] == stage for r in read_csv(stage_csv, "stage")):
                    for p, lang in siblings:
                        text_of[p] = fill(text_of[p], "stage-results", stage_block(stage, stage_csv, csv, img, lang), p)
                    break
        if "<!-- demo-output:begin -->" in text_of[readme].split("\n"):
            if not os.path.exists(f"{img}/demo-{stage}.txt"):
                fail(f"{readme} shows its demo's output, and {img}/demo-{stage}.txt is missing: run make bench")
            for p, lang in siblings:
                text_of[p] = fill(text_of[p], "demo-output", demo_block(stage, csv, img, lang), p)
        for p, _ in siblings:
            pages.finish(p, text_of[p])


def gpu_pages(pages):
    """Each GPU's own page: everything the front and results pages show for the primary GPU."""
    for other in references():
        folder = os.path.dirname(other)
        roofline = owner("roofline", other)
        text = f"# Reference results: {gpu_of(other)}\n\n"
        text += "Generated by `make reference` from [results.csv](results.csv) (`make bench` on this GPU); do not edit.\n\n"
        text += results_block(folder, ".", "en")
        text += "\n## Best kernel of each stage\n\n" + table(other, "best")
        if roofline:
            text += f"\n## Stage {number(roofline)}: x CUB and the speed of light at every N\n\n" + ratios(other, roofline)
        text += "\n## Accuracy\n\n" + accuracy_block(folder, ".", "en")
        pages.finish(f"{folder}/README.md", text)


def readmes(csv, img, check=False):
    if not os.path.isfile(csv):
        fail(f"{csv} not found")
    pages = Pages(check)
    top_pages(pages, csv, img)
    stage_pages(pages, csv, img)
    gpu_pages(pages)
    return pages.status


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report readmes", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a page differs")
    parser.add_argument("csv")
    parser.add_argument("img")
    args = parser.parse_args(argv[1:])
    return readmes(args.csv, args.img.rstrip("/"), args.check)


def tree_block(stage, kernels, lang):
    """Each tree kernel's picture and what its record counts, or how to record it."""
    out = []
    for k in kernels:
        record = f"stages/{stage}/tree/{k}.csv"
        if not os.path.exists(record):
            out.append(say(lang, f"`{k}` is not recorded yet: run make stage-{number(stage)} tree on a machine with a GPU.",
                           f"`{k}` 尚未记录：在有 GPU 的机器上运行 make stage-{number(stage)} tree。"))
            continue
        tree = read_tree(record)
        (ld, ldw), (st, stw) = tree.totals()["ld"], tree.totals()["st"]
        adds, unused = tree.additions(), tree.additions(-1, True)
        if lang == "zh":
            line = (f"`{k}` 的一个线程块：共享内存读 {ld} 条指令、{ldw} 个 wavefront；写 {st} 条指令、{stw} 个 wavefront；"
                    f"{adds} 次加法，其中 {unused} 次的和没有任何结果用到。")
        else:
            n = lambda c, what: f"{c} {what}" + ("" if c == 1 else "s")
            line = (f"One block of `{k}`: shared-memory loads {n(ld, 'instruction')}, {n(ldw, 'wavefront')}; stores "
                    f"{n(st, 'instruction')}, {n(stw, 'wavefront')}; {n(adds, 'addition')}, {unused} of them unused "
                    "(no result needs their sums).")
        out.append(say(lang, f"![the reduction tree of {k}](tree/{k}.png)", f"![{k} 的归约树](tree/{k}.png)") + "\n\n" + line)
    return "\n\n".join(out) + "\n"


def tree_pages(pages, folder):
    """Every stage README's tree block, for the tree kernels its description names (the descriptions
    saved beside the results in FOLDER); a record without its picture is a difference too."""
    for d in descriptions(folder):
        stage, kernels = d["stage"][0], d.get("tree kernels", [""])[0].split()
        if not kernels or not os.path.exists(f"stages/{stage}/README.md"):
            continue
        for page, lang in ((f"stages/{stage}/README.md", "en"), (f"stages/{stage}/README.zh-CN.md", "zh")):
            pages.finish(page, fill(open(page, encoding="utf-8").read(), "tree", tree_block(stage, kernels, lang), page))
        for k in kernels:
            if os.path.exists(f"stages/{stage}/tree/{k}.csv") and not os.path.exists(f"stages/{stage}/tree/{k}.png"):
                print(f"stages/{stage}/tree/{k}.csv has no picture: scripts/tree.sh draw stages/{stage}/tree/{k}.csv", file=sys.stderr)
                pages.status = 1


def primary():
    """The reference folder the front page shows (plots/reference/primary names it)."""
    try:
        return "plots/reference/" + open("plots/reference/primary", encoding="utf-8").read().strip()
    except OSError:
        fail("no plots/reference/primary: run make bench and make reference")


def tree_blocks_cli(argv):
    """python3 scripts/report tree-blocks [--check]: every stage README's tree block."""
    check = "--check" in argv[1:]
    pages = Pages(check)
    tree_pages(pages, primary())
    return pages.status


def fill_cli(argv):
    """python3 scripts/report fill [--check] PAGE TAG BLOCK HOW: one page's block TAG from the file
    BLOCK (HOW: what regenerates it, named where --check finds a difference). Exit codes: 0 filled or
    the same, 1 a difference (--check), 2 the page lacks the markers."""
    parser = argparse.ArgumentParser(prog="python3 scripts/report fill", description=fill_cli.__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("page")
    parser.add_argument("tag")
    parser.add_argument("block")
    parser.add_argument("how")
    args = parser.parse_args(argv[1:])
    pages = Pages(args.check)
    text = open(args.page, encoding="utf-8").read()
    pages.finish(args.page, fill(text, args.tag, open(args.block, encoding="utf-8").read(), args.page))
    if pages.status:
        print(f"{args.page}'s {args.tag} block differs: run {args.how}", file=sys.stderr)
    return pages.status

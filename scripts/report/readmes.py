"""Every README's measured blocks, from the committed results (their pages and tags: docs/report.md#readme-blocks)."""
import difflib
import glob
import os
import re
import sys

import claims
from charts import chart_headers, owners
from cited import cited
from common import bilingual, describe, describe_module, fail, kernel_rows, number, phrase, read_csv, read_text
from common import head, rule, short, text, write_files
from provenance import changed_line, changed_since, excused, measured_at, primary
from tables import accuracy_tables, limits_table, ratios, stage_ratios, table, times
from tree import Tree, committed_record

def write(path, new, check):
    """Write NEW to PATH, or (CHECK) show how PATH differs from it: 1 where it does, else 0."""
    old = read_text(path) if os.path.exists(path) else None
    if old != new and not check:
        write_files({path: new})
    if old == new or not check:
        return 0
    if old is not None:
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path))
    print(f"{path} {'is missing' if old is None else 'differs from what the results give'}: run make docs",
          file=sys.stderr)
    return 1

def update(path, blocks, check):
    """write() PATH with each block {TAG: BLOCK} between its lines <!-- TAG:begin --> and <!-- TAG:end -->, and each
    list of stages <!-- stages with|without FILE -->...<!-- end --> in its prose as the stage folders give it."""
    sep = text("zh" if path.endswith(".zh-CN.md") else "en", "list sep")
    lines = re.sub(r"(<!-- stages (with|without) (\S+) -->).*?(?=<!-- end -->)", lambda m: m[1] + sep.join(number(f[7:-1])
        for f in sorted(glob.glob("stages/[0-9][0-9]_*/")) if os.path.exists(f + m[3]) == (m[2] == "with")), read_text(path)).split("\n")
    for tag, block in blocks.items():
        begin, end, body = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->", block.split("\n")
        begin in lines and end in lines or fail(f"{path} lacks the lines {begin} and {end}")
        lines = lines[:lines.index(begin) + 1] + body[:-1 if body[-1] == "" else None] + lines[lines.index(end):]
    return write(path, "\n".join(lines), check)

def siblings(page):
    return [(p, lang) for p, lang in ((page, "en"), (page[:-3] + ".zh-CN.md", "zh")) if os.path.exists(p)]

def gpu_of(csv):
    return (read_csv(csv, "gpu") + [{"gpu": ""}])[0]["gpu"]

def others(pattern, img):
    return [p for p in sorted(glob.glob(f"plots/reference/*/{pattern}")) if os.path.dirname(p) != img]

def roofline(csv):
    return (owners(csv).get("roofline", ([], []))[0] + [""])[0]

def images(where, folder, prefix, csv, lang):
    """The charts of CSV that go to WHERE (front, top, or the stage that owns them), drawn in FOLDER."""
    headers, out = chart_headers(), ""
    for name, (own, rest) in owners(csv).items():
        header = headers.get(name, {})
        readme = header.get("readme", "").split()
        if header.get("alt") and os.path.exists(f"{folder}/{name}.png") and (
                where in readme if where in ("front", "top") else "stage" in readme and where in own):
            alt = bilingual(header["alt"], lang).replace("{stage}", phrase([number(s) for s in own], lang))
            alt = alt.replace("{others}", phrase([number(s) for s in rest], lang))
            out += f"![{alt}]({prefix}/{name}.png)\n\n"
    return out

def results_block(folder, prefix, lang):
    csv, flush = f"{folder}/results.csv", f"{folder}/flush_check.csv"
    out = images("top", folder, prefix, csv, lang) + table(csv, "all", lang=lang)
    if not os.path.exists(flush):
        return out
    out += f"\n{text(lang, 'flush caption')}\n\n{text(lang, 'flush head')}\n" + rule("llrrlrrl")
    out += "".join("| %s `%s` | %s | %d | %.1f | %s | %d | %.4f | %s |\n" % (  # a probe: STAGE:KERNEL[:...]
        *(r["probe"] + ":").split(":")[:2], r["loads"], int(r["n"]), float(r["input_bytes"]) / 2 ** 20, r["l2"],
        int(r["runs"]), float(r["ratio_min"]), "ok" if r["pass"] == "1" else "FAIL")
        for r in read_csv(flush, "probe loads n input_bytes l2 runs ratio_min pass"))
    return out + f"\n{text(lang, 'flush note')}\n"

def kernel_times(folder):
    """A reference page's table of the kernels' own times against ncu's (kernel_times.csv), "" without one."""
    if not os.path.exists(times := f"{folder}/kernel_times.csv"):
        return ""
    return f"\n{text('en', 'kernel times caption')}\n\n{text('en', 'kernel times head')}\n" + rule("lrrrrrrrl") + "".join(
        "| %s `%s` | %d | %.1f | %.1f | %d | %.1f | %.1f | %.1f | %s |\n" % (
            r["stage"], r["kernel"], int(r["n"]), *(float(r[c]) for c in ("gpu_us", "ncu_us")), int(r["launches"]),
            *(float(r[c]) for c in ("tolerance_us", "finish_us", "median_us")), "ok" if r["pass"] == "1" else "FAIL")
        for r in read_csv(times, "stage kernel n gpu_us ncu_us launches tolerance_us finish_us median_us pass"))

def accuracy_block(folder, prefix, lang, tables=True):
    """The accuracy lab's chart and tables (without TABLES, a link to them on PREFIX/README.md)."""
    csv = f"{folder}/accuracy.csv"
    if not os.path.exists(csv):
        return text(lang, "no accuracy") + "\n"
    out = text(lang, "accuracy caption").format(gpu=gpu_of(csv)) + "\n\n" + (accuracy_tables(csv, lang) if tables
        else text(lang, "accuracy tables at").format(gpu=gpu_of(csv), page=f"{prefix}/README.md#accuracy") + "\n")
    png = os.path.exists(f"{folder}/accuracy.png")
    return (f"![{text(lang, 'accuracy alt')}]({prefix}/accuracy.png)\n\n" if png else "") + out

def descriptions(folder):
    return [describe_module.read(p) for p in sorted(glob.glob(f"{folder}/describe-*.json"))]

def bench_table(folder, lang):
    out = text(lang, "bench head") + "\n" + rule("llrlll")
    for d in (d for d in descriptions(folder) if not d["several_gpus"]):
        stage, n = d["stage"], d["bench_sizes"]
        sizes = f"{n[0]} … {n[-1]} ({len(n)} {text(lang, 'sizes')})" if len(n) > 2 else ", ".join(n)
        kernels = sum(1 for k in d["kernels"] if k["role"] != "wrong")
        warm = " ".join(f"`{k}`" for k in d["warm_l2_kernels"])
        out += f"| [{stage}](stages/{stage}) | `build/{stage}/{d['program']}` | {kernels} | {sizes} | "
        out += f"{' '.join(d['bench_fills'])} | {warm} |\n"
    return out

def own_csv_block(stage_csv, csv, lang):
    """A stage's own CSV (several GPUs): its sums, then its all-reduce's bus bandwidth by dtype and size, by kernel."""
    via, sums, busbw, runs = number(roofline(csv)), "", {}, []
    for r in kernel_rows(read_csv(stage_csv, "gpu kernel dtype n median_us gbps pass l2 bytes_read")):
        k, gbps, ok = r["kernel"], float(r["gbps"]), "ok" if r["pass"] == "1" else "FAIL"
        if r["l2"] != "warm":
            sums += text(lang, "multi-GPU sum") % (r["gpu"], k, int(r["n"]), via, float(r["median_us"]), gbps, ok) + "\n\n"
            continue
        runs += [k] if k not in runs else []
        busbw.setdefault((r["dtype"], int(r["bytes_read"])), {})[k] = "%.1f" % gbps + ("" if ok == "ok" else " FAIL")
    if not busbw:
        return sums
    out = sums + text(lang, "all-reduce caption") + "\n\n"
    out += head(text(lang, "all-reduce head"), (f"`{k}`" for k in runs), 2)
    for (dtype, b), cells in busbw.items():
        size = f"{short(b / 2 ** 30)} GiB" if b >= 2 ** 30 else f"{short(b / 2 ** 20)} MiB"
        out += f"| {dtype} | {size} |" + "".join(f" {cells.get(k, '-')} |" for k in runs) + "\n"
    return out

def stage_block(stage, stage_csv, csv, lang):
    own, img, mine = stage_csv == csv, os.path.dirname(stage_csv), f"stages/{stage}"
    limits = f"{img}/limits.csv"
    out = images(stage, img, f"../../{img}", stage_csv, lang)
    out += table(csv, "stage", stage, lang) if own else own_csv_block(stage_csv, csv, lang)
    for figures in sorted(glob.glob(f"{mine}/cited*.csv")):  # cited.csv, cited-NAME.csv: an article's figures each
        out += "\n" + cited(stage_csv, figures, stage, lang)
    if claims.assertions(stage, "cited"):
        out += "\n" + claims.cited(stage_csv, stage, lang)
    if os.path.exists(f"{mine}/every_n.txt"):
        out += "\n" + times(stage_csv, stage, read_text(f"{mine}/every_n.txt").split(), lang)
    if claims.assertions(stage, "target") and own:
        out += f"\n{text(lang, 'targets caption')}\n\n"
        out += claims.targets(sorted(glob.glob("plots/reference/*/results.csv")), stage, lang)
    if stage in owners(stage_csv).get("roofline", ([], []))[0]:
        out += f"\n{text(lang, 'ratios caption')}\n\n" + ratios(stage_csv, stage, lang)
    elif claims.assertions(stage, "ratio") and own:
        out += f"\n{text(lang, 'stage ratios caption')}\n\n" + stage_ratios(stage_csv, stage, lang)
    if own and os.path.exists(limits) and any(r["stage"] == stage for r in read_csv(limits, "stage")):
        out += "\n%s\n\n" % text(lang, "limits caption").format(gpu=gpu_of(limits)) + limits_table(limits, stage, lang)
        out += "".join("\n%s\n" % other_output(stage, p, "limits", lang) for p in others("limits.csv", img))
    return out

def other_output(stage, path, what, lang):
    """Another GPU's output PATH of STAGE: "the same", or an older record where the stage changed since its run."""
    folder = os.path.dirname(path)
    return text(lang, f"{what} {'older' if stage in excused(folder) else 'other'}").format(num=number(stage),
        gpu=gpu_of(f"{folder}/results.csv"), name=os.path.basename(path), path=path, commit=(measured_at(folder) or "")[:12])

def demo_block(stage, csv, img, lang):
    out = text(lang, "demo caption").format(num=number(stage), gpu=gpu_of(csv)) + "\n\n```\n"
    out += read_text(f"{img}/demo-{stage}.txt") + "```\n"
    return out + "".join("\n%s\n" % other_output(stage, p, "demo", lang) for p in others(f"demo-{stage}.txt", img))

def outputs_block(stage, img, lang):
    """The line of a stage's "What to look for" that links the primary's committed sass and profile output."""
    files = [f"{img}/{kind}-{stage}.txt" for kind in ("sass", "profile") if os.path.exists(f"{img}/{kind}-{stage}.txt")] \
        or fail(f"stages/{stage}/README.md links its sass and profile output, and {img} has neither: run make reference")
    return text(lang, "outputs").format(gpu=gpu_of(f"{img}/results.csv"), num=number(stage), links=text(
        lang, "list sep").join(f"[{os.path.basename(p)}](../../{p})" for p in files)) + "\n"

def readmes(check, csv, img):
    os.path.isfile(csv) or fail(f"{csv} not found")
    img, status = img.rstrip("/"), 0
    for lang, suffix in (("en", ""), ("zh", ".zh-CN")):  # the front page and the results page
        status |= update(f"README{suffix}.md", {"front": images("front", img, img, csv, lang).rstrip("\n") + "\n",
            "stages": table(csv, "best", lang=lang), "bench": bench_table(img, lang)}, check)
        links = "".join("\n%s [%s/README.md](../%s/README.md)%s\n" % (text(lang, "same results at" if measured_at(d)
            else "same results").format(gpu=gpu_of(f"{d}/results.csv"), commit=(measured_at(d) or "")[:12]), d, d,
            "。" if lang == "zh" else ".") for d in map(os.path.dirname, others("results.csv", img)))
        status |= update(f"docs/results{suffix}.md", {"results": results_block(img, f"../{img}", lang) + links,
                                                      "accuracy": accuracy_block(img, f"../{img}", lang, False)}, check)
    for readme in sorted(glob.glob("stages/*/README.md")):  # every stage's measured block and demo output
        stage, page = os.path.basename(os.path.dirname(readme)), read_text(readme)
        # The stage's rows: the primary's results, else the CSV its program writes, the primary's or another GPU's.
        mine = f"/{describe(csv, stage, 'csv', False) or 'results.csv'}"  # a new stage may be neither described nor built
        rows_csv = [c for c in [csv] + sorted(glob.glob(f"{img}/*.csv")) + others("*.csv", img)
                    if "<!-- stage-results:begin -->" in page and c.endswith(mine)
                    and any(r["stage"] == stage for r in read_csv(c, "stage"))][:1]
        demo, outputs = ("<!-- %s:begin -->" % tag in page.split("\n") for tag in ("demo-output", "outputs"))
        if demo and not os.path.exists(f"{img}/demo-{stage}.txt"):
            fail(f"{readme} shows its demo's output, and {img}/demo-{stage}.txt is missing: run make bench")
        for p, lang in siblings(readme):
            blocks = {"stage-results": stage_block(stage, c, csv, lang) for c in rows_csv} | (
                {"demo-output": demo_block(stage, csv, img, lang)} if demo else {})
            status |= update(p, blocks | ({"outputs": outputs_block(stage, img, lang)} if outputs else {}), check)
    for csv in sorted(glob.glob("plots/reference/*/results.csv")):  # each GPU's own page
        folder, stage = os.path.dirname(csv), roofline(csv)
        page = text("en", "page head").format(gpu=gpu_of(csv)) + run_block(folder, img) + results_block(folder, ".", "en")
        page += kernel_times(folder) + text("en", "page best") + table(csv, "best")
        page += text("en", "page ratios").format(num=number(stage)) + ratios(csv, stage) if stage else ""
        status |= write(f"{folder}/README.md", page + text("en", "page accuracy") + accuracy_block(folder, ".", "en"),
                        check)
    return status

def run_block(folder, img):
    """What a reference page says of its run: primary (IMG) or not, its commit, what changed."""
    commit, main = measured_at(folder), os.path.normpath(folder) == os.path.normpath(img)
    out = text("en", "page primary") if main else text("en", "page record").format(
        gpu=gpu_of(f"{img}/results.csv"), folder=os.path.basename(img))
    if commit is None:
        return out + text("en", "page unrecorded")
    out += text("en", "page measured").format(commit=commit) + changed_line(folder, commit)
    return out + (text("en", "page held" if main else "page not held") if changed_since(commit)[0] else "") + "\n\n"

def tree_block(stage, kernels, lang):
    out = []
    for k in kernels:
        if (record := committed_record(stage, k)) is None:
            out.append(text(lang, "tree missing").format(k=k, num=number(stage)))
            continue
        tree = Tree(record)
        counts = dict(tree.totals(), adds=tree.additions(), unused=tree.additions(-1, True))
        plurals = {f"{key}_s": "" if c == 1 else "s" for key, c in counts.items()}
        if loop := tree.loop():
            loop = text(lang, "tree loop").format(threads=loop[0], loads=sum(tree.loaded.values()),
                                                  per=loop[1] if loop[1] == loop[2] else f"{loop[1]}–{loop[2]}")
        png = os.path.relpath(record[:-4] + ".png", f"stages/{stage}")
        out.append(f"![{text(lang, 'tree alt').format(k=k)}]({png})\n\n"
                   + text(lang, "tree counts").format(k=k, **counts, **plurals) + (loop or ""))
    return "\n\n".join(out) + "\n"

def tree_blocks(check):
    status = 0
    for d in descriptions("plots/reference/" + primary()):
        stage, kernels = d["stage"], [t["kernel"] for t in d["tree_kernels"]]
        if kernels and os.path.exists(f"stages/{stage}/README.md"):
            for page, lang in siblings(f"stages/{stage}/README.md"):
                status |= update(page, {"tree": tree_block(stage, kernels, lang)}, check)
            for record in filter(None, (committed_record(stage, k) for k in kernels)):
                if not os.path.exists(record[:-4] + ".png"):
                    print(f"{record} has no picture: scripts/tree.sh draw {record}", file=sys.stderr)
                    status = 1
    return status

def fill(check, page, tag, block, how):
    """PAGE's block TAG from the file BLOCK (HOW: what regenerates it, named where CHECK finds a difference)."""
    if status := update(page, {tag: read_text(block)}, check):
        print(f"{page}'s {tag} block differs: run {how}", file=sys.stderr)
    return status

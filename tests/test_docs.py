"""The guides, in English and Chinese, kept in step: each README.md, docs/*.md and stage README beside its
README.zh-CN.md with the same headings, the same generated blocks and links both ways; every relative link of
a page names a file; the CSV columns the guides quote are the programs' header; the front pages are short;
each stage README opens with the articles it follows. And make docs-check: it passes on the committed results
and fails on a stale README or a claim that no longer holds; the demos' output the READMEs show is committed
for every GPU."""
import csv
import glob
import io
import os
import re
import shutil
import sys

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

ROOT = support.ROOT
FRONT_LINES = 220  # the front page is for a newcomer: the reference is in docs/
BEYOND = re.compile(r"beyond the articles|超出[^，。\n]*文章")


def relative(pattern):
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern)))


def guides():
    """The English guides, each with a Chinese sibling README.zh-CN.md beside it."""
    return [p for p in relative("README.md") + relative("docs/*.md") + relative("stages/*/README.md")
            if not p.endswith(".zh-CN.md")]


def chinese(page):
    return page[:-len(".md")] + ".zh-CN.md"


def name_of(path):
    return re.sub(r"\W+", "_", os.path.splitext(path)[0])


# ---- the checks, each a function of the pages' texts ---------------------------------------------------

def heading_levels(text):
    """The run of #s that starts each line starting with # (headings, and comments in code blocks), in order."""
    return [re.match(r"#+", line)[0] for line in text.split("\n") if line.startswith("#")]


def generated_blocks(text):
    """Each generated block (<!-- TAG:begin --> ... <!-- TAG:end -->): its markers, with its table rows and charts."""
    blocks, tag, rows, charts = [], None, 0, 0
    for line in text.split("\n"):
        if re.fullmatch(r"<!-- [a-z-]+:begin -->", line):
            tag, rows, charts = line, 0, 0
        elif re.fullmatch(r"<!-- [a-z-]+:end -->", line):
            blocks.append((tag, rows, charts, line))
            tag = None
        elif tag:
            rows += line.startswith("|")
            charts += line.startswith("![")
    return blocks


def links_to(text, page):
    """Whether TEXT links to the page PAGE beside it."""
    return f"]({os.path.basename(page)})" in text


def dead_links(text, folder):
    """The relative link targets (a page, an image, a folder) of TEXT, a page in FOLDER of the repository, that
    name no file there: code blocks, web addresses and a page's own anchors left out."""
    text = re.sub(r"(?ms)^\s*```.*?^\s*```", "", text)
    targets = (m[1].split("#")[0] for m in re.finditer(r"\]\(([^)\s]+)\)", text)
               if not re.match(r"[a-z]+:|#", m[1]))
    return [t for t in targets if not os.path.exists(os.path.join(ROOT, folder, t))]


def quoted_headers(text):
    """The CSV column lists a guide quotes (`gpu,stage,kernel,...`)."""
    return re.findall(r"`(gpu,stage,kernel,[a-z0-9_,]*)`", text)


def column_counts(text):
    """The counts of the CSV's columns a guide gives, in either language."""
    return [int(en or zh) for en, zh in re.findall(r"every program's ([0-9]+) columns|共用的 ([0-9]+) 列", text)]


def column_problems(text, header):
    """How the column lists a guide quotes, and its counts of them, differ from the programs' HEADER."""
    return [f"quotes {q}" for q in quoted_headers(text) if q != header] + \
        [f"counts {n} columns" for n in column_counts(text) if n != len(header.split(","))]


def front_problem(text):
    """Where a front page is too long for a newcomer: its lines, over FRONT_LINES; None where it is not."""
    lines = text.count("\n")
    return f"{lines} lines, over {FRONT_LINES}: the reference belongs in docs/" if lines > FRONT_LINES else None


def opening(text):
    """A stage README's opening: its first paragraph after the title that starts in bold."""
    lines, found = text.split("\n")[1:], []
    for line in lines:
        if found and line == "":
            break
        if found or line.startswith("**"):
            found.append(line)
    return "\n".join(found)


def titles(text):
    """The articles' titles (《...》) of a text, once each, its lines joined."""
    return sorted(set(re.findall(r"《[^》]*》", text.replace("\n", " "))))


def articles(text):
    """A front page's section of the articles (## The articles, ## 文章)."""
    section = re.search(r"^## (?:The articles|文章)\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return section[1] if section else ""


def opening_problem(text, fronts):
    """What is wrong with a stage README's opening (None where nothing is): it names the articles it follows
    by their titles, each in the articles' table of every front page of FRONTS ({page: text}), or says it
    goes beyond the articles."""
    first = opening(text)
    found = titles(first)
    if not found:
        return None if BEYOND.search(first) else "it does not open with the articles it follows (a first bold " \
                                                  "paragraph naming 《titles》) nor says it goes beyond them"
    unknown = [f"{t} in {page}" for t in found for page, front in fronts.items() if t not in articles(front)]
    return f"it names articles missing from the front pages' table of the articles: {unknown}" if unknown else None


def heading_pairs(en, zh):
    """Each section heading (##) of an English page beside the Chinese page's at the same place."""
    return list(zip(*([line for line in text.split("\n") if line.startswith("## ")] for text in (en, zh))))


def heading_problems(pairs):
    """Where the same English heading is given different Chinese ones across pages (PAIRS: heading_pairs of
    each page): a section is called one thing everywhere."""
    found = {}
    for en, zh in pairs:
        found.setdefault(en, set()).add(zh)
    return [f"{en}: {sorted(zh)}" for en, zh in found.items() if len(zh) > 1]


BOUNDS = r"(?:__launch_bounds__\([^)]*\)\s+)?"
KERNEL = re.compile(rf"__global__\s+{BOUNDS}void\s+{BOUNDS}(\w+)")


def program_kernels(stage):
    """The kernels (__global__ functions) of a stage's program: its .cu files but the exercise and the demo, the
    sources its sass output compiles."""
    return {k for p in relative(f"stages/{stage}/*.cu") if os.path.basename(p) not in ("exercise.cu", "demo.cu")
            for k in KERNEL.findall(support.read(p))}


def named_kernel_problems(text, outputs, kernels, tables, excused=()):
    """The kernels a stage README (TEXT) names in backticks that the outputs it links lack. OUTPUTS: {the path
    of each committed output it links (plots/reference/<gpu>/sass-<stage>.txt, ...): its text}; KERNELS:
    {stage: its program's kernels}; TABLES: every program's kernel names (--describe). A name of a kernel
    table row or of a kernel is found where a program describes it or an output it links has it; a kernel
    of a stage whose sass or profile output the page links, in one of those. EXCUSED: the outputs that
    predate their stage's sources (the primary's, of a stage changed since its run): a kernel of that stage
    that no description names yet (a new one) need not be in them until the reference is run again; one
    they describe must."""
    named = set(re.findall(r"`(\w+)(?:<[^`]*>)?`", text))
    has = lambda output, k: re.search(rf"\b{k}\b", output) is not None
    late = set().union(*(own for stage, own in kernels.items()
                         if any(os.path.basename(p) == f"describe-{stage}.json" for p in excused)))
    problems = [f"`{k}` is in no program's --describe and no output the page links"
                for k in sorted(named & (tables | set().union(*kernels.values())))
                if k not in tables | late and not any(has(o, k) for o in outputs.values())]
    for stage, own in kernels.items():
        linked = {p: o for p, o in outputs.items() if os.path.basename(p) in (f"sass-{stage}.txt", f"profile-{stage}.txt")}
        new = lambda k: k not in tables and all(p in excused for p in linked)
        problems += [f"`{k}` is not in the linked sass or profile output of {stage}"
                     for k in sorted(named & own) if linked and not any(has(o, k) for o in linked.values()) and not new(k)]
    return problems


def linked_outputs(page):
    """{path: text} of the committed outputs (plots/reference/<gpu>/*.txt) PAGE links."""
    paths = {os.path.normpath(os.path.join(os.path.dirname(page), m))
             for m in re.findall(r"\]\(([^)\s#]+\.txt)\)", support.read(page))}
    return {p: support.read(p) for p in sorted(paths)
            if p.startswith("plots/reference/") and os.path.isfile(os.path.join(ROOT, p))}


def stale_outputs(folder):
    """FOLDER's outputs (describe-<stage>.json, sass-, profile-<stage>.txt) of the stages whose kernel or harness files
    changed since the commit its run measured (scripts/report/provenance.py; none where git cannot tell)."""
    report = os.path.join(ROOT, "scripts", "report")
    if report not in sys.path:
        sys.path.insert(0, report)
    import provenance
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        commit = provenance.measured_at(folder)
        stages = (provenance.changed_since(commit)[0] if commit else None) or []
    finally:
        os.chdir(here)
    return {f"{folder}/{kind}-{stage}.{ext}" for stage in stages
            for kind, ext in (("describe", "json"), ("sass", "txt"), ("profile", "txt"))}


# ---- the guides -------------------------------------------------------------------------------------------

def read_claims(path):
    """The rows of a stage's claims.csv (its # lines are comments), as dicts by its header."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def write_rows(path, rows):
    """ROWS (dicts of one header) as a CSV at PATH."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write(out.getvalue())


@support.per(guides, name_of=name_of)
class Guides(support.Case):
    """Each English guide and its Chinese sibling: the structure, not the translation."""

    def pair(self, page):
        zh = chinese(page)
        self.assertTrue(os.path.isfile(os.path.join(ROOT, zh)), f"{page} has no Chinese sibling {zh}")
        return support.read(page), support.read(zh)

    def test_each_has_a_chinese_sibling(self, page):
        self.assertTrue(os.path.isfile(os.path.join(ROOT, chinese(page))), f"{page} has no {chinese(page)}")

    def test_each_chinese_has_the_same_headings(self, page):
        """The Chinese page has the English page's headings, level by level, in order."""
        en, zh = self.pair(page)
        self.assertTrue(heading_levels(en), f"{page} has no heading")
        self.assertEqual(heading_levels(zh), heading_levels(en))

    def test_each_chinese_has_the_same_generated_blocks(self, page):
        """The Chinese page has the same generated blocks, each with as many table rows and charts."""
        en, zh = self.pair(page)
        self.assertEqual(generated_blocks(zh), generated_blocks(en))

    def test_each_pages_link_to_each_other(self, page):
        en, zh = self.pair(page)
        self.assertTrue(links_to(en, chinese(page)), f"{page} does not link to {os.path.basename(chinese(page))}")
        self.assertTrue(links_to(zh, page), f"{chinese(page)} does not link to {os.path.basename(page)}")


class CsvColumns(support.Case):
    """Every column list a guide quotes, and every count of them, is the header the programs write."""

    def test_guides_quote_the_programs_csv_header(self):
        """Each quoted column list is CSV_HEADER of common/csv.h, each count its number of columns."""
        header = re.search(r'^#define CSV_HEADER "(.*)"$', support.read("common/csv.h"), re.M)
        self.assertTrue(header, "no CSV_HEADER in common/csv.h")
        header = header[1]
        pages = relative("README*.md") + relative("docs/*.md") + relative("stages/*/README*.md")
        quoting = {p: support.read(p) for p in pages}
        quoting = {p: text for p, text in quoting.items() if quoted_headers(text) or column_counts(text)}
        self.assertTrue(any(quoted_headers(text) for text in quoting.values()), "no guide quotes the CSV's columns")
        for page, text in quoting.items():
            with self.subTest(page):
                self.assertEqual(column_problems(text, header), [], f"the programs' header: {header}")


@support.per(["docs/developers.md", "docs/developers.zh-CN.md"], name_of=name_of)
class DescribeSchema(support.Case):
    def test_each_table_of_describe_is_the_schema(self, page):
        """The page's table of --describe's fields names SCHEMA's (scripts/describe.py), in its order."""
        fields = re.findall(r"^\| `(\w+)` \|", support.read(page).split("--describe`\n", 1)[-1], re.M)
        self.assertEqual(fields, list(support.description.SCHEMA))


@support.per(lambda: relative("README*.md") + relative("docs/*.md") + relative("stages/*/README*.md")
             + relative("plots/reference/*/README.md"), name_of=name_of)
class Links(support.Case):
    def test_each_relative_link_names_a_file(self, page):
        """Each page's links and images within the repository resolve (a moved picture or record is found)."""
        self.assertEqual(dead_links(support.read(page), os.path.dirname(page)), [])


class DeadLinks(support.Case):
    def test_a_link_to_no_file_is_found_and_others_are_not(self):
        text = ("[a](README.zh-CN.md) [b](../plots/reference/x/tree/01_a/k.png) ![c](tree/k.png) [d](#anchor)\n"
                "[e](https://example.org/x) [f](../stages#part)\n```\n[g](in-code.md)\n```\n")
        self.assertEqual(dead_links(text, "docs"), ["../plots/reference/x/tree/01_a/k.png", "tree/k.png"])


class Headings(support.Case):
    def test_a_section_has_one_chinese_heading_on_every_stage_page(self):
        """The stage guides' sections that share an English heading (Measured, What to look for, ...) share
        the Chinese one too."""
        pairs = [pair for page in relative("stages/*/README.md")
                 for pair in heading_pairs(support.read(page), support.read(chinese(page)))]
        self.assertTrue(pairs, "no stage guide has a section heading")
        self.assertEqual(heading_problems(pairs), [])


@support.per(lambda: relative("stages/*/README.md") + relative("stages/*/README.zh-CN.md"), name_of=name_of)
class NamedKernels(support.Case):
    def test_each_kernel_named_is_in_a_description_or_an_output_linked(self, page):
        """Each kernel the page names in backticks is in a program's --describe or in the outputs it links, and a
        kernel of a stage whose sass or profile output it links in one of those (a link to an older record
        without the kernel is found)."""
        folder = os.path.join("plots", "reference", support.read("plots/reference/primary").strip())
        tables = {k["name"] for p in relative(f"{folder}/describe-*.json")
                  for k in support.description.read(os.path.join(ROOT, p))["kernels"]}
        self.assertTrue(tables, f"no kernel in {folder}/describe-*.json")
        kernels = {os.path.basename(d): program_kernels(os.path.basename(d)) for d in relative("stages/*/")}
        self.assertEqual(named_kernel_problems(support.read(page), linked_outputs(page), kernels, tables,
                                               stale_outputs(folder)), [])


@support.per(["README.md", "README.zh-CN.md"], name_of=name_of)
class FrontPages(support.Case):
    def test_each_is_at_most_220_lines(self, page):
        self.assertIsNone(front_problem(support.read(page)))


@support.per(lambda: relative("stages/*/README.md") + relative("stages/*/README.zh-CN.md"), name_of=name_of)
class StageOpenings(support.Case):
    def test_each_opens_with_the_articles_it_follows(self, page):
        """It names its articles by 《title》, each in both front pages' table, or says it goes beyond them."""
        fronts = {p: support.read(p) for p in ("README.md", "README.zh-CN.md")}
        self.assertIsNone(opening_problem(support.read(page), fronts))


class ChecksReject(support.Case):
    """The checks of the guides above, each shown a made-up page it must reject."""
    EN = "# Stage\n\n[中文](README.zh-CN.md)\n\n## One\n\n<!-- stage-results:begin -->\n| a |\n|---|\n| 1 |\n" \
         "![chart](x.png)\n<!-- stage-results:end -->\n\n## Two\n"
    ZH = "# 阶段\n\n[English](README.md)\n\n## 一\n\n<!-- stage-results:begin -->\n| a |\n|---|\n| 1 |\n" \
         "![图](x.png)\n<!-- stage-results:end -->\n\n## 二\n"
    # D: in the English page's section after the articles'; E: in the Chinese page's table alone.
    FRONTS = {"README.md": "## The articles\n\n| 《A》 | x |\n| 《B》 | y |\n\n## Read on\n\n《D》\n",
              "README.zh-CN.md": "## 文章\n\n| 《A》 | x |\n| 《B》 | y |\n| 《D》 | z |\n| 《E》 | w |\n"}

    def test_headings_a_missing_or_moved_heading_differs(self):
        self.assertEqual(heading_levels(self.ZH), heading_levels(self.EN))
        self.assertNotEqual(heading_levels(self.ZH.replace("## 二\n", "")), heading_levels(self.EN))
        self.assertNotEqual(heading_levels(self.ZH.replace("## 二", "### 二")), heading_levels(self.EN))

    def test_generated_blocks_a_missing_row_or_chart_differs(self):
        self.assertEqual(generated_blocks(self.ZH), generated_blocks(self.EN))
        self.assertNotEqual(generated_blocks(self.ZH.replace("| 1 |\n", "")), generated_blocks(self.EN))
        self.assertNotEqual(generated_blocks(self.ZH.replace("![图](x.png)\n", "")), generated_blocks(self.EN))
        self.assertNotEqual(generated_blocks(self.ZH.replace("stage-results", "demo-output")),
                            generated_blocks(self.EN))

    def test_links_a_page_without_the_link_is_found(self):
        self.assertTrue(links_to(self.EN, "stages/01_a/README.zh-CN.md"))
        self.assertFalse(links_to(self.EN.replace("[中文](README.zh-CN.md)", "中文"), "stages/01_a/README.zh-CN.md"))

    def test_csv_columns_a_dropped_column_and_a_wrong_count_are_found(self):
        header = "gpu,stage,kernel,n,us"
        self.assertEqual(column_problems("all `gpu,stage,kernel,n,us`, every program's 5 columns; 共用的 5 列", header), [])
        self.assertEqual(column_problems("rows with every program's 4 columns, `gpu,stage,kernel,n`; 共用的 6 列", header),
                         ["quotes gpu,stage,kernel,n", "counts 4 columns", "counts 6 columns"])

    def test_headings_one_section_with_two_chinese_headings_is_found(self):
        one, two = heading_pairs(self.EN, self.ZH), heading_pairs(self.EN, self.ZH.replace("## 二", "## 其二"))
        self.assertEqual(heading_problems(one + one), [])
        self.assertEqual(heading_problems(one + two), ["## Two: ['## 二', '## 其二']"])

    def test_named_kernels_one_missing_from_the_linked_output_is_found(self):
        kernels, tables = {"04_a": {"reduce_a", "reduce_b"}}, {"a_row"}
        text = "`reduce_a` beside `reduce_b`, `a_row`, `reduce_a<256>`, `not_a_kernel`"
        sass, old = "g/sass-04_a.txt", {"g/sass-04_a.txt": "reduce_a(const float *)\n"}
        self.assertEqual(named_kernel_problems(text, {sass: "reduce_a(const float *)\nreduce_b(const float *)\n"},
                                               kernels, tables), [])
        self.assertEqual(named_kernel_problems(text, old, kernels, tables),
                         ["`reduce_b` is in no program's --describe and no output the page links",
                          "`reduce_b` is not in the linked sass or profile output of 04_a"])
        self.assertEqual(named_kernel_problems(text, old, kernels, tables | {"reduce_b"}),
                         ["`reduce_b` is not in the linked sass or profile output of 04_a"])
        self.assertEqual(named_kernel_problems(text, old, kernels, tables, {sass, "g/describe-04_a.json"}), [],
                         "a stage changed since the reference's run: its new kernel is not there yet")
        self.assertEqual(named_kernel_problems(text, old, kernels, tables | {"reduce_b"}, {sass, "g/describe-04_a.json"}),
                         ["`reduce_b` is not in the linked sass or profile output of 04_a"],
                         "a stage changed since: a kernel its description names is still held to its output")
        self.assertEqual(named_kernel_problems(text, old, kernels, tables, {"h/sass-04_a.txt", "h/describe-04_a.json"}),
                         ["`reduce_b` is not in the linked sass or profile output of 04_a"],
                         "another folder's files excused: the linked one still lacks the kernel")
        self.assertEqual(named_kernel_problems("`a_gone`", {}, kernels, tables | {"a_gone"}), [])
        self.assertEqual(named_kernel_problems("`reduce_b`", {}, kernels, tables),
                         ["`reduce_b` is in no program's --describe and no output the page links"])

    def test_front_pages_a_long_page_is_rejected(self):
        self.assertIsNone(front_problem("line\n" * FRONT_LINES))
        self.assertIn("221 lines", front_problem("line\n" * (FRONT_LINES + 1)))

    def test_openings_an_unknown_title_or_no_articles_is_rejected(self):
        page = "# Stage 01\n\n[中文](README.zh-CN.md)\n\n**Follows.** 《A》 §1 and\n《B》 §2.\n\nThen 《C》.\n"
        self.assertIsNone(opening_problem(page, self.FRONTS))  # C: after the opening paragraph
        self.assertIn("《D》 in README.md", opening_problem(page.replace("《B》", "《D》"), self.FRONTS))
        self.assertIn("《E》 in README.md", opening_problem(page.replace("《B》", "《E》"), self.FRONTS))
        self.assertIn("does not open", opening_problem(page.replace("**Follows.** ", "Follows. "), self.FRONTS))
        self.assertIsNone(opening_problem("# 13\n\n**Beyond.** This stage goes beyond the articles.\n", self.FRONTS))


# ---- make docs-check ---------------------------------------------------------------------------------------

def docs_tree(case):
    """A copy of what make docs-check reads (scripts/, stages/, docs/, the front pages, plots/ but its
    results) in a scratch folder, without a build (the synopsis goes unchecked there)."""
    tree = support.scratch(case)
    skip = shutil.ignore_patterns("__pycache__")
    for folder in ("scripts", "stages", "docs"):
        shutil.copytree(os.path.join(ROOT, folder), os.path.join(tree, folder), ignore=skip)
    shutil.copytree(os.path.join(ROOT, "plots"), os.path.join(tree, "plots"),
                    ignore=lambda d, names: [n for n in names if n == "__pycache__" or
                                             (n == "results" and os.path.samefile(d, os.path.join(ROOT, "plots")))])
    for page in relative("README*.md"):
        shutil.copy(os.path.join(ROOT, page), os.path.join(tree, page))
    return tree


def docs_check(tree):
    """scripts/docs.sh check (make docs-check) in TREE."""
    return support.run(["bash", "scripts/docs.sh", "check"], cwd=tree)


STALE = re.compile(r"^(\S+) (?:differs from what the results give|is missing)", re.M)


class DocsCheck(support.Case):
    def test_make_docs_check_passes_on_the_committed_results(self):
        """Every generated block is the one the committed results give, every claim holds, the synopsis checked."""
        self.need_build()
        r = self.expect_make(0, "", "docs-check")
        self.assertNotIn("not checked", r.out)

    def test_docs_check_names_a_readme_with_one_number_changed(self):
        """A stage README whose generated block shows one number other than the results': exit 1, naming it."""
        tree = docs_tree(self)
        pages = [p for p in relative("stages/*/README.md") if "<!-- stage-results:begin -->" in support.read(p)]
        self.assertTrue(pages, "no stage README has a generated block")
        page, text = pages[0], support.read(pages[0])
        begin = text.index("<!-- stage-results:begin -->")
        number = re.compile(r"\| (\d+\.)(\d) \|").search(text, begin)
        self.assertTrue(number, f"no number in {page}'s generated block")
        changed = f"| {number[1]}{(int(number[2]) + 1) % 10} |"
        with open(os.path.join(tree, page), "w", encoding="utf-8") as f:
            f.write(text[:number.start()] + changed + text[number.end():])
        r = docs_check(tree)
        self.assertEqual(r.rc, 1, r)
        self.assertEqual(STALE.findall(r.out), [page], r)
        line_start = text.rindex("\n", 0, number.start()) + 1
        self.assertIn(f"-{text[line_start:number.start()]}{changed}", r.out)  # the diff shows the line
        self.assertNotRegex(r.out, r"(?m)^FAIL ")

    def test_docs_check_fails_a_claim_that_no_longer_holds(self):
        """A stage's claim that one kernel is faster, by 1000x: docs-check exits 1, naming the claim."""
        tree = docs_tree(self)
        claims = {p: read_claims(p) for p in relative("stages/*/claims.csv")}
        found = [(p, rows) for p, rows in claims.items() if any(c["kind"] == "claim" and c["is"] == "faster" for c in rows)]
        self.assertTrue(found, "no stage claims that a kernel is faster")
        path, rows = found[0]
        claim = next(c for c in rows if c["kind"] == "claim" and c["is"] == "faster")
        claim["by"] = "1000"
        write_rows(os.path.join(tree, path), rows)
        r = docs_check(tree)
        self.assertEqual(r.rc, 1, r)
        failed = re.findall(r"(?m)^FAIL (\S+)", r.out)
        self.assertTrue(failed, r)
        self.assertEqual(set(failed), {claim["label"]}, r)
        self.assertRegex(r.out, rf"(?m)^FAIL {re.escape(claim['label'])} on the .*claimed: faster, by 1000\)$")
        self.assertEqual(STALE.findall(r.out), [], r)


@support.per(lambda: [os.path.dirname(p) for p in relative("plots/reference/*/results.csv")],
             name_of=os.path.basename)
class DemoOutputs(support.Case):
    def test_each_has_the_output_of_every_demo_a_readme_shows(self, folder):
        """A stage README showing its demo's output (<!-- demo-output:begin -->): demo-<stage>.txt is committed."""
        shown = [os.path.basename(os.path.dirname(p)) for p in relative("stages/*/README.md")
                 if "<!-- demo-output:begin -->" in support.read(p).split("\n")]
        self.assertTrue(shown, "no stage README shows its demo's output")
        for stage in shown:
            with self.subTest(stage):
                demo = os.path.join(ROOT, folder, f"demo-{stage}.txt")
                self.assertTrue(os.path.isfile(demo) and os.path.getsize(demo) > 0, f"{demo} is missing or empty")


# ---- what the prose says the stage folders hold, and how long a reference page is -----------------------

DOCS_LINES = 250  # a page of docs/ is looked up, not read through
# A list of stages the prose gives is written one way, so that it can be checked against the folders:
# "stages with a demo: 05, 10, 13", "stages without an exercise: 08, 12, 13", "有练习的阶段：01–07、09–11".
NUMBERS = r"\d\d(?:–\d\d)?(?:(?:,\s*(?:and\s+)?|\s+and\s+|、\s*|\s*和\s*)\d\d(?:–\d\d)?)*"
# A generated list (make docs) is led by its marker, <!-- stages with|without FILE -->.
MARKER = r"(?:<!-- stages with(?:out)? \S+ -->)?"
STAGE_LIST = re.compile(rf"stages\s+(with|without)\s+(a\s+demo|an\s+exercise):\s+{MARKER}({NUMBERS})"
                        rf"|(有|没有)\s*(演示程序|练习)\s*的\s*阶段\s*：\s*{MARKER}({NUMBERS})")
# A list of stages in any other form beside the words demo or exercise (the check of the lists cannot read it).
LOOSE_LIST = re.compile(r"(?i)(?:\bstages?\s*|阶段\s*)\d\d(?:–\d\d)?(?:(?:,\s*|\s+and\s+|、\s*|\s*和\s*)\d\d(?:–\d\d)?)+")
ABOUT = {"a demo": "demo.cu", "演示程序": "demo.cu", "an exercise": "exercise.cu", "练习": "exercise.cu"}
# The pages that must give each list: {page: [(file, with)]}.
MUST_LIST = {"docs/README.md": [("demo.cu", True), ("exercise.cu", False)],
             "docs/README.zh-CN.md": [("demo.cu", True), ("exercise.cu", False)],
             "README.md": [("exercise.cu", False)], "README.zh-CN.md": [("exercise.cu", False)]}


def stage_numbers(text):
    """The stage numbers of a list such as "01–07, 09 and 11" or "01–07、09 和 11", in order."""
    found = []
    for first, last in re.findall(r"(\d\d)(?:–(\d\d))?", text):
        found += [f"{n:02d}" for n in range(int(first), int(last or first) + 1)]
    return found


def stage_lists(text):
    """Each list of stages TEXT gives: (the words, the file it is about, with it or without, [its numbers])."""
    found = []
    for m in STAGE_LIST.finditer(text):
        en = m[1] is not None
        kind, about, numbers = (m[1], m[2], m[3]) if en else (m[4], m[5], m[6])
        found.append((m[0], ABOUT[re.sub(r"\s+", " ", about)], kind in ("with", "有"), stage_numbers(numbers)))
    return found


def list_problems(text, holding):
    """How the lists of stages TEXT gives differ from HOLDING ({file: [the stages' numbers that have it]},
    ALL: every stage's number): one line each."""
    problems = []
    for words, about, with_it, numbers in stage_lists(text):
        wanted = [n for n in holding["ALL"] if (n in holding[about]) == with_it]
        if numbers != wanted:
            problems.append(f"'{' '.join(words.split())}': the folders give {', '.join(wanted)}")
    return problems


def loose_lists(text):
    """The lines of TEXT that list stages beside the words demo or exercise in a form stage_lists cannot read."""
    plain = STAGE_LIST.sub("", text)
    return [line.strip() for line in plain.split("\n")
            if re.search(r"(?i)demo|exercise|演示|练习", line) and LOOSE_LIST.search(line)]


def holding():
    """{file: the numbers of the stages whose folder has it, ALL: every stage's number}."""
    folders = support.stages()
    found = {about: [support.stage_num(s) for s in folders if os.path.exists(os.path.join(ROOT, "stages", s, about))]
             for about in set(ABOUT.values())}
    found["ALL"] = [support.stage_num(s) for s in folders]
    return found


def notebook_markdown():
    import json
    with open(os.path.join(ROOT, "notebooks", "colab.ipynb"), encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def prose(page):
    return notebook_markdown() if page.endswith(".ipynb") else support.read(page)


def prose_pages():
    return relative("README*.md") + relative("docs/*.md") + relative("stages/*/README*.md") + ["notebooks/colab.ipynb"]


def own_pages():
    """The pages whose every list of stages must be written the checked way."""
    return relative("README*.md") + relative("docs/README*.md") + relative("docs/glossary*.md") + ["notebooks/colab.ipynb"]


@support.per(prose_pages, name_of=name_of)
class StageListsInProse(support.Case):
    """Each list of stages with a demo or an exercise (or without one) that the prose gives is the folders'."""

    def test_each_lists_the_stages_the_folders_give(self, page):
        self.assertEqual(list_problems(prose(page), holding()), [])


@support.per(own_pages, name_of=name_of)
class StageListsReadable(support.Case):
    def test_each_lists_stages_only_in_the_form_checked(self, page):
        """"stages with a demo: 05, 10", not "stages 05 and 10 have a demo", which no check reads."""
        self.assertEqual(loose_lists(prose(page)), [])


class StageListsGiven(support.Case):
    def test_the_reference_and_front_pages_and_the_notebook_give_their_lists(self):
        """Where a reader looks: the demos and the stages without an exercise; the notebook's exercises."""
        for page, wanted in MUST_LIST.items():
            given = [(about, with_it) for _, about, with_it, _ in stage_lists(support.read(page))]
            for item in wanted:
                with self.subTest(page=page, list=item):
                    self.assertIn(item, given)
        given = [(about, with_it) for _, about, with_it, _ in stage_lists(notebook_markdown())]
        self.assertEqual(given.count(("exercise.cu", True)), 2, "the notebook's exercises, in English and Chinese")

    def test_a_stale_list_and_a_list_in_another_form_are_found(self):
        held = {"demo.cu": ["05", "10", "13"], "exercise.cu": ["01", "02", "03", "05"],
                "ALL": ["01", "02", "03", "04", "05", "10", "13"]}
        good = ("the demo (stages with a demo: 05, 10\n  and 13); stages without an exercise: 04, 10, 13;\n"
                "有演示程序的阶段：05、10 和 13；有练习的阶段：01–03、05")
        self.assertEqual(len(stage_lists(good)), 4)
        self.assertEqual(list_problems(good, held), [])
        self.assertEqual(list_problems(good.replace("05, 10\n  and 13", "05 and 10"), held),
                         ["'stages with a demo: 05 and 10': the folders give 05, 10, 13"])
        self.assertEqual(list_problems(good.replace("01–03、05", "01–05"), held),
                         ["'有练习的阶段：01–05': the folders give 01, 02, 03, 05"])
        self.assertEqual(loose_lists(good), [])
        self.assertEqual(loose_lists("the demo.cu of stages 05 and 10\n没有练习的阶段（08、12）"),
                         ["the demo.cu of stages 05 and 10"])
        self.assertEqual(loose_lists("对没有练习的阶段 08、12 做 exercise"), ["对没有练习的阶段 08、12 做 exercise"])


@support.per(lambda: relative("docs/*.md"), name_of=name_of)
class DocsLength(support.Case):
    def test_each_is_at_most_250_lines(self, page):
        """A page of docs/ is looked up: what is long belongs in the stage, the code or the tests it describes."""
        lines = support.read(page).count("\n")
        self.assertLessEqual(lines, DOCS_LINES, f"{page}: {lines} lines")


def tables_and_code(text):
    """The row count of each table of TEXT, in order, and its number of code blocks."""
    rows, counts = 0, []
    for line in text.split("\n") + [""]:
        if line.startswith("|"):
            rows += 1
        elif rows:
            counts.append(rows)
            rows = 0
    return counts, len(re.findall(r"(?m)^\s*```", text)) // 2


@support.per(lambda: [p for p in relative("README.md") + relative("docs/*.md") if not p.endswith(".zh-CN.md")],
             name_of=name_of)
class InStep(support.Case):
    def test_each_chinese_has_the_same_tables_and_code_blocks(self, page):
        """The Chinese page has the English page's tables, each with as many rows, and as many code blocks."""
        self.assertEqual(tables_and_code(support.read(chinese(page))), tables_and_code(support.read(page)))


class InStepRejects(support.Case):
    def test_tables_and_code_a_missing_row_or_code_block_differs(self):
        text = "| a |\n|---|\n| 1 |\n\n```\nx\n```\n"
        self.assertEqual(tables_and_code(text), ([3], 1))
        self.assertNotEqual(tables_and_code(text.replace("| 1 |\n", "")), tables_and_code(text))
        self.assertNotEqual(tables_and_code(text.replace("```\nx\n```\n", "")), tables_and_code(text))


class PrimaryReference(support.Case):
    """plots/reference/primary: the reference the front page, docs/results.md and the stages' READMEs show, and the
    one every claim is held to."""

    def test_front_page_and_results_show_the_primary(self):
        primary = support.read("plots/reference/primary").strip()
        self.assertTrue(os.path.isfile(os.path.join(ROOT, "plots", "reference", primary, "results.csv")), primary)
        for page, prefix in (("README.md", ""), ("README.zh-CN.md", ""), ("docs/results.md", "../"),
                             ("docs/results.zh-CN.md", "../")):
            with self.subTest(page):
                self.assertIn(f"]({prefix}plots/reference/{primary}/bandwidth.png)", support.read(page))

    def test_docs_check_fails_a_claim_false_on_the_primary_alone(self):
        """A claim made of the primary GPU alone, by 1000x: docs-check exits 1, naming the claim on the primary."""
        tree = docs_tree(self)
        primary = support.read("plots/reference/primary").strip()
        path = next(p for p in relative("stages/*/claims.csv") if any(c["kind"] == "claim" for c in read_claims(p)))
        rows = read_claims(path)
        claim = next(c for c in rows if c["kind"] == "claim")
        claim.update(gpus=primary, by="1000", **{"is": "faster"})
        write_rows(os.path.join(tree, path), rows)
        r = docs_check(tree)
        self.assertEqual(r.rc, 1, r)
        self.assertRegex(r.out, rf"(?m)^FAIL {re.escape(claim['label'])} on the {re.escape(primary)}, N = ")

    def test_docs_check_exits_2_where_the_primary_has_no_results(self):
        tree = docs_tree(self)
        with open(os.path.join(tree, "plots", "reference", "primary"), "w", encoding="utf-8") as f:
            f.write("no-such-gpu\n")
        r = docs_check(tree)
        self.assertEqual(r.rc, 2, r)
        self.assertIn("plots/reference/no-such-gpu/results.csv not found", r.out)

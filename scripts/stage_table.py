"""The front page's table of the stages, from the stage folders alone: each stage's link, its README's
"In short." paragraph and, from its "Follows." paragraph, the short name of each article it cites (the front
page's table of the articles) with the sections cited. make docs fills it in (scripts/docs.sh).
usage: python3 scripts/stage_table.py en|zh (the table, on standard output; exit 2: a stage lacks its line)."""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "report"))
from common import fail, read_text, rule, text  # noqa: E402 (the reporting program's texts and helpers)

SECTION = r"§(?:\d+(?:\.\d+)*|[一二三四五六七八九十]+)"  # an article's section: §7.7.4, §二


def readme(folder, lang):
    return os.path.join(folder, "README.zh-CN.md" if lang == "zh" else "README.md")


def paragraph(folder, label, lang):
    """The paragraph of stage FOLDER's README in LANG that opens with the bold LABEL (a key of the texts), on one
    line: its lines joined, with no space between two Chinese characters or after a Chinese punctuation mark; ""
    where there is none."""
    m = re.search(r"^" + re.escape(text(lang, label)) + r"(.*?)(?:\n\n|\Z)", read_text(readme(folder, lang)), re.S | re.M)
    return " ".join(re.sub(r"(?<=[^\x00-\x7f])\n(?=[^\x00-\x7f])|(?<=[，。；：、（）「」《》])\n", "", m[1]).split()) if m else ""


def follows(folder, lang="en"):
    """Stage FOLDER's "Follows." paragraph on one line; "" where it names no article section."""
    found = paragraph(folder, "follows label", lang)
    return "" if found.startswith(text(lang, "no article section")) else found


def articles(lang, page=None):
    """{title: its row's cells} of the table of the articles of PAGE (the front page in LANG); a title is its
    cell up to the bracket, the second cell its short name, the last the stages that follow it."""
    text_ = read_text(page or ("README.zh-CN.md" if lang == "zh" else "README.md"))
    rows = re.search(r"^## (?:The articles|文章)\n.*?^\|---.*?\n(.*?)\n\n", text_, re.M | re.S)[1].split("\n")
    cells = [[c.strip() for c in row[2:-2].split(" | ")] for row in rows]
    return {re.split(r" \(|（", row[0])[0].strip(): row for row in cells}


def articles_cell(folder, lang):
    """Each article stage FOLDER's "Follows." cites, in its order: its short name and the sections cited (§1 to
    §4 as §1–§4); "beyond the articles" where it cites none."""
    found, sep = follows(folder, lang), text(lang, "list sep")
    names = {title: cells[1] for title, cells in articles(lang).items()}
    at = sorted((m.start(), title) for title in names for m in re.finditer(re.escape(title), found))
    parts = []
    for (start, title), (end, _) in zip(at, at[1:] + [(len(found), "")]):
        cited = re.sub(r"「[^」]*」|\([^)]*\)|（[^）]*）", "", found[start + len(title):end])  # section names, asides
        cited = re.sub(rf"({SECTION})\s*(?:to|到|至)\s*({SECTION})", r"\1–\2", cited)
        parts.append(f"{names[title]} {sep.join(re.findall(rf'{SECTION}(?:–{SECTION})?', cited))}".strip())
    return sep.join(parts) or text(lang, "beyond the articles")


def stage_table(lang):
    rows = ""
    for folder in sorted(glob.glob("stages/[0-9][0-9]_*/")):
        short = paragraph(folder, "in short label", lang) or fail(
            f"{readme(folder, lang)} has no paragraph {text(lang, 'in short label')} (the idea in a line)")
        rows += f"| [{folder[7:-1]}]({folder[:-1]}) | {short.rstrip('.。')} | {articles_cell(folder, lang)} |\n"
    return text(lang, "stage table head") + "\n" + rule("lll") + rows


if __name__ == "__main__":
    if sys.argv[1:] not in (["en"], ["zh"]):
        fail("usage: python3 scripts/stage_table.py en|zh")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sys.stdout.write(stage_table(sys.argv[1]))

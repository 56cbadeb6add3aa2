"""The Colab notebook (notebooks/colab.ipynb): its cells as scripts/notebook.sh extracts them, checked here
anywhere, each check also on a made-up notebook with the fault it looks for; the READMEs' links to it. Its
shell cells run in order, as "Run all" would (scripts/notebook.sh run), in make test-full on a GPU."""
import atexit
import functools
import json
import os
import re
import shutil
import tempfile

from tests import support

NB = "notebooks/colab.ipynb"
READMES = ["README.md", "README.zh-CN.md"]
# The line scripts/notebook.sh writes after each ! line of a cell.
BANG_MARKER = "rc=$?; [ $rc -eq 0 ] || exit $rc"
NETWORK = re.compile(r"(^|[;&|] *)(git clone|apt-get|apt |pip3? install|curl|wget) ", re.M)
COLAB_LINK = re.compile(r"colab\.research\.google\.com/github/([^/]+/[^/]+)/blob/[^/]+/notebooks/colab\.ipynb")
REPO_URL = re.compile(r'REPO_URL = "https://github\.com/([^/"]+/[^/"]+)"')

# A notebook with one of each fault the checks look for.
MADE_UP = [
    ("markdown", "# A title\n# The title again, in English"),
    ("code", "!make -s stage-05 runn ARGS=\"--n 16M\" 2>&1 | tee log"),
    ("code", "%%bash\nx && make stage-99 \\\n  check"),
    ("code", "!git clone https://example.com/repo"),
    ("code", "!echo $HOME {x}"),
    ("code", "def broken(:\n    pass"),
    ("code", "display(Image(filename=\"plots/reference/nowhere/missing.png\"))"),
]


@functools.lru_cache(None)
def workdir():
    d = tempfile.mkdtemp(prefix="reduce-test-notebook-")
    atexit.register(shutil.rmtree, d, True)
    return d


def extract(notebook, name):
    """scripts/notebook.sh extract into a folder NAME of its own: (its Result, the folder)."""
    out = os.path.join(workdir(), name)
    return support.run(["scripts/notebook.sh", "extract", out, notebook]), out


@functools.lru_cache(None)
def real():
    return extract(NB, "real")


@functools.lru_cache(None)
def made_up():
    """MADE_UP written as a notebook, the first code cell with an output, and extracted."""
    cells = []
    for kind, source in MADE_UP:
        cell = {"cell_type": kind, "metadata": {}, "source": source.split("\n")}
        cell["source"] = [line + "\n" for line in cell["source"][:-1]] + cell["source"][-1:]
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)
    cells[1].update(execution_count=1, outputs=[{"output_type": "stream", "name": "stdout", "text": ["x\n"]}])
    path = os.path.join(workdir(), "made_up.ipynb")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    return extract(path, "made_up")


@functools.lru_cache(None)
def make_help():
    r = support.make("help")
    if r.rc != 0:
        raise AssertionError(f"make help exited {r.rc}:\n{r.tail()}")
    return r.out


def cells(folder):
    """cells.tsv's rows: (number, kind, outputs, first line)."""
    with open(os.path.join(folder, "cells.tsv"), encoding="utf-8") as f:
        return [(int(n), kind, int(outputs), first) for n, kind, outputs, first in
                (line.rstrip("\n").split("\t", 3) for line in f)]


def files(folder, ext):
    """{name: text} of the folder's NN.EXT files."""
    found = {}
    for name in sorted(os.listdir(folder)):
        if re.fullmatch(rf"\d+\.{ext}", name):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                found[name] = f.read()
    return found


# ---- the checks: each returns what it finds wrong in an extracted folder --------------------------------

def with_outputs(folder):
    return [n for n, _, outputs, _ in cells(folder) if outputs > 0]


def network_unmarked(folder):
    """The cells that run here and use the network (their first line is not '# network:')."""
    return [name for name, text in files(folder, "sh").items() if NETWORK.search(text)]


def expanded_by_ipython(folder):
    """The cells of ! lines with $, \\ or { in them: IPython expands those, bash, which runs them here, not."""
    return [name for name, text in files(folder, "sh").items() if BANG_MARKER in text.split("\n")
            and any(re.search(r"[$\\{]", line) for line in text.split("\n") if line != BANG_MARKER)]


def python_not_compiling(folder):
    bad = []
    for name, text in files(folder, "py").items():
        try:
            compile(text, name, "exec")
        except SyntaxError as e:
            bad.append(f"{name}: {e}")
    return bad


def make_goals(folder):
    """The make goals the shell cells name: the words after a command "make", up to the first that is not
    a goal (a redirection, |, &&, ...), less its options (-s) and variables (ARGS="...")."""
    text = "".join(files(folder, "sh").values()).replace("\\\n", " ")
    text = re.sub(r"'[^']*'", "Q", re.sub(r'"[^"]*"', "Q", text))
    goals = set()
    for line in text.split("\n"):
        after, on = True, False
        for w in re.split(r"[ \t]+", line):
            if w == "make" and after:
                on = True
            elif on and (w.startswith("-") or "=" in w):
                continue
            elif on and re.fullmatch(r"[a-z0-9][a-z0-9_-]*", w):
                goals.add(w)
            else:
                on = False
                after = w in ("", ";", "&&", "||", "|", "(", "{", "then", "do", "else", "!")
    return sorted(goals)


def unknown_goals(folder, help_text):
    """The goals of the cells that make help does not list."""
    m = re.search(r"^ *make stage-NN  .*\(([0-9 ]+)\)", help_text, re.M)
    stages = m[1].split() if m else []
    unknown = []
    for g in make_goals(folder):
        if g.startswith("stage-"):
            known = g[len("stage-"):] in stages
        else:
            known = g == "help" or re.search(rf"make (stage-NN )?{re.escape(g)}( |$)", help_text, re.M)
        if not known:
            unknown.append(g)
    return unknown


def pngs_missing(folder):
    """The committed charts the Python cells show (not those a run draws in plots/results/) that are not here."""
    with open(os.path.join(folder, "pngs.txt"), encoding="utf-8") as f:
        committed = [p for p in f.read().split() if not p.startswith("plots/results/")]
    return [p for p in committed if not os.path.isfile(os.path.join(support.ROOT, p))]


def without_chinese_half(folder):
    """The markdown cells not written in English, then in Chinese: their headings in two halves of the same
    levels, the second half's in Chinese."""
    bad = []
    for name, text in files(folder, "md").items():
        headings = [line for line in text.split("\n") if re.match(r"^#+ ", line)]
        half = len(headings) // 2
        levels = [h.split(" ")[0] for h in headings]
        if (not headings or len(headings) % 2 or levels[:half] != levels[half:]
                or not all(re.search(r"[\u3400-\u9fff]", h) for h in headings[half:])):
            bad.append(name)
    return bad


def repositories(readmes, python):
    """The repository each source names: {README: its Open in Colab links' repositories, "REPO_URL": the
    Python cells'}."""
    named = {name: COLAB_LINK.findall(text) for name, text in readmes.items()}
    named["REPO_URL"] = REPO_URL.findall(python)
    return named


def one_repository(named):
    """Whether every source names one repository, once, and the same."""
    return all(len(v) == 1 for v in named.values()) and len({v[0] for v in named.values()}) == 1


class Notebook(support.Case):
    """The committed notebook."""

    def folder(self):
        r, folder = real()
        if r.rc != 0:
            self.fail(f"{NB} does not extract:\n{r.tail()}")
        return folder

    def test_notebook_extracts(self):
        """It is an nbformat 4 notebook whose cells scripts/notebook.sh extracts."""
        r, folder = real()
        self.assertEqual(r.rc, 0, r)
        self.assertTrue(cells(folder))

    def test_extract_refuses_a_file_that_is_not_a_notebook_exit_2(self):
        out = os.path.join(support.scratch(self), "x")
        self.expect(2, r"^error: Makefile: not a JSON notebook", ["scripts/notebook.sh", "extract", out, "Makefile"])

    @support.needs("nbformat")
    def test_notebook_valid_against_nbformat_schema(self):
        self.expect(0, "", [support.nbformat_python(), "-c", "import sys, nbformat; "
                            "nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", NB])

    def test_notebook_committed_without_outputs(self):
        self.assertEqual(with_outputs(self.folder()), [], "cells with outputs")

    def test_list_names_every_cell_that_runs(self):
        """scripts/notebook.sh list: a line 'runs' for each bash or shell cell (some there must be)."""
        runs = [n for n, kind, _, _ in cells(self.folder()) if kind in ("bash", "shell")]
        self.assertTrue(runs, "no cell runs")
        r = self.expect(0, "", ["scripts/notebook.sh", "list", NB])
        self.assertEqual([int(n) for n in re.findall(r"^cell (\d+): runs \(", r.out, re.M)], runs, r)

    def test_network_cells_marked_and_one_holds_the_clone(self):
        """The cells that run here use no network; the clone is in a '# network:' cell, which is not run."""
        self.assertEqual(network_unmarked(self.folder()), [], "cells that use the network without '# network:'")
        with open(os.path.join(support.ROOT, NB), encoding="utf-8") as f:
            sources = ["".join(c["source"]) for c in json.load(f)["cells"] if c["cell_type"] == "code"]
        network = [s for s in sources if re.match(r"^(%%bash\n)?\s*# network:", s)]
        self.assertTrue(any("git clone" in s for s in network), "no '# network:' cell holds the git clone")

    def test_no_bang_line_uses_dollar_or_braces(self):
        """No ! line that runs here uses $ or { } (IPython would expand them)."""
        self.assertEqual(expanded_by_ipython(self.folder()), [])

    def test_python_cells_compile(self):
        self.assertEqual(python_not_compiling(self.folder()), [])

    def test_every_make_goal_in_make_help(self):
        folder = self.folder()
        self.assertTrue(make_goals(folder), "the cells name no make goal")
        self.assertEqual(unknown_goals(folder, make_help()), [], "make goals that make help does not list")

    def test_committed_charts_shown_are_there(self):
        with open(os.path.join(self.folder(), "pngs.txt"), encoding="utf-8") as f:
            self.assertTrue([p for p in f.read().split() if not p.startswith("plots/results/")], "it shows none")
        self.assertEqual(pngs_missing(self.folder()), [])

    def test_markdown_cells_in_english_then_chinese(self):
        """Every markdown cell is in English, then in Chinese under the same headings."""
        self.assertEqual(without_chinese_half(self.folder()), [])

    def test_colab_links_and_repo_url_name_one_repository(self):
        """Each README's Open in Colab link and the notebook's REPO_URL name one repository."""
        python = "".join(files(self.folder(), "py").values())
        named = repositories({name: support.read(name) for name in READMES}, python)
        self.assertTrue(one_repository(named), named)

    @support.full_only
    @support.needs("gpu", "gnuplot")
    def test_shell_cells_run_in_order(self):
        """scripts/notebook.sh run: each cell that runs here passes, in order, and the charts it shows are drawn."""
        runs = [n for n, kind, _, _ in cells(self.folder()) if kind in ("bash", "shell")]
        r = support.run(["scripts/notebook.sh", "run", NB], timeout=3600)
        for n in runs:
            with self.subTest(f"cell {n}"):
                self.assertRegex(r.out, rf"(?m)^== cell {n}: ok ", r)
        self.assertEqual(r.rc, 0, r)
        self.assertRegex(r.out, r"(?m)^PASS: ")


class MadeUpNotebook(support.Case):
    """Each check finds its fault in MADE_UP."""

    def folder(self):
        r, folder = made_up()
        if r.rc != 0:
            self.fail(f"the made-up notebook does not extract:\n{r.tail()}")
        return folder

    def test_finds_cell_with_outputs(self):
        self.assertEqual(with_outputs(self.folder()), [2])

    def test_finds_network_use_without_mark(self):
        self.assertEqual(network_unmarked(self.folder()), ["04.sh"])

    def test_finds_bang_line_ipython_would_expand(self):
        self.assertEqual(expanded_by_ipython(self.folder()), ["05.sh"])

    def test_finds_python_cell_that_does_not_compile(self):
        self.assertEqual([p.split(":")[0] for p in python_not_compiling(self.folder())], ["06.py"])

    def test_finds_goals_make_help_does_not_list(self):
        """'make stage-05 runn' and 'make stage-99 check': runn and stage-99."""
        self.assertEqual(unknown_goals(self.folder(), make_help()), ["runn", "stage-99"])

    def test_finds_missing_committed_chart(self):
        self.assertEqual(pngs_missing(self.folder()), ["plots/reference/nowhere/missing.png"])

    def test_finds_markdown_without_chinese_half(self):
        self.assertEqual(without_chinese_half(self.folder()), ["01.md"])

    def test_finds_readme_naming_another_repository(self):
        link = "https://colab.research.google.com/github/{}/blob/main/notebooks/colab.ipynb"
        named = repositories({"a": link.format("ME/reduce-stages"), "b": link.format("YOU/reduce-stages")},
                             'REPO_URL = "https://github.com/ME/reduce-stages"')
        self.assertFalse(one_repository(named), named)


@support.per(READMES)
class ReadmeLinks(support.Case):

    def test_each_links_the_notebook(self, readme):
        self.assertIn(f"]({NB})", support.read(readme))

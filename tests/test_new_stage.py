"""A new stage is its folder: in a copy of the repository, a stage folder is added (tests/new_stage/: a reduce.cu
with one kernel, named as a kernel of the first stage is, and its two READMEs) and make docs run; then make
docs-check, make test of that stage and of the pages' lists of stages, and make bench of it (on a GPU) pass with
no other file edited. make test-full runs it: the copy builds the new program and links every other again."""
import functools
import glob
import os
import re
import shutil
import tempfile

from tests import mutants, support

_copies = []


def tearDownModule():
    for d in _copies:
        shutil.rmtree(d, True)


@functools.lru_cache(None)
def new_stage():
    """The copy, the new stage's folder name and what make docs said there."""
    tree = tempfile.mkdtemp(prefix="reduce-test-")
    _copies.append(tree)
    mutants.copy_tree(tree, mutants.tree_files())
    number = int(support.stage_num(support.stages()[-1])) + 1
    stage = f"{number:02d}_new"
    os.mkdir(os.path.join(tree, "stages", stage))
    for name in ("reduce.cu", "README.md", "README.zh-CN.md"):
        text = support.read(f"tests/new_stage/{name}").replace("NN_NAME", stage).replace(" NN", f" {number:02d}")
        with open(os.path.join(tree, "stages", stage, name), "w", encoding="utf-8") as f:
            f.write(text)
    return tree, stage, support.make("docs", cwd=tree, timeout=900)


class NewStage(support.Case):
    def copy(self):
        tree, stage, docs = new_stage()
        if docs.rc != 0:
            self.fail(f"make docs in the copy with {stage} added:\n{docs!r}")
        return tree, stage

    @support.full_only
    def test_docs_check_passes_after_make_docs(self):
        tree, _ = self.copy()
        self.expect_make(0, "", "docs-check", cwd=tree)

    @support.full_only
    def test_its_tests_and_the_lists_of_stages_pass(self):
        """make test ONLY=<stage> (it builds every program, the new one beside the first stage's names), and
        the tests of the pages' lists of stages, which the new stage changes"""
        tree, stage = self.copy()
        for pattern in (stage, "StageLists|Exercises"):
            with self.subTest(pattern):
                rc, last, _, out = mutants.run_tests(tree, pattern)
                self.assertTrue(rc == 0 and re.match(r"[1-9]\d* passed, 0 failed", last),
                                f"make test ONLY='{pattern}' in the copy: {last}\n" + out[-3000:])

    @support.full_only
    @support.needs("gpu")
    def test_make_bench_of_it_passes(self):
        tree, stage = self.copy()
        self.expect_make(0, "", "bench", f"STAGES={stage}", cwd=tree, timeout=900)  # its program alone
        rows = [r for csv in glob.glob(os.path.join(tree, "plots/results/*/results.csv"))
                for r in support.read_csv(csv) if r["stage"] == stage]
        self.assertTrue(rows, f"make bench wrote no row of {stage}")
        self.assertEqual([r for r in rows if r["pass"] != "1"], [], "rows that do not pass")

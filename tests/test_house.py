"""The sizes the project holds itself to, so that a newcomer can read what surrounds the stages: the reporting
program (scripts/report/) at most 1,500 lines, the common harness (common/harness.cu) at most 700, common/ no
more than it is, what a stage file includes (stage.h and levels.h, and the headers they include in the ordinary
build) at most 320, and a stage folder holding only what a person writes (its programs and their headers, its
make fragment, its READMEs, its claims and cited figures, the list of kernels its every-N table shows); measured
and recorded data live under plots/."""
import fnmatch
import glob
import os
import subprocess
import tempfile
import unittest

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

BUDGETS = {"scripts/report/*.py": 1500, "common/harness.cu": 700, "common/*": 4760}
# What a stage file includes: its vocabulary, not the command line or the CSV.
STAGE_HEADERS, STAGE_HEADERS_BUDGET = ("common/stage.h", "common/levels.h"), 320
WRITTEN = ("*.cu", "*.cuh", "*.mk", "README.md", "README.zh-CN.md", "claims.csv", "cited.csv", "cited-*.csv",
           "every_n.txt")


def lines(pattern, root=support.ROOT):
    """The lines of the files PATTERN matches under ROOT, all together; None where it matches none."""
    paths = glob.glob(os.path.join(root, pattern))
    if not paths:
        return None
    total = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            total += sum(1 for _ in f)
    return total


def included(headers, root=support.ROOT):
    """HEADERS and the project's headers they include, and those theirs, as the ordinary build reads them (an
    include under `#ifdef RECORD_TREE` is the record build's); paths relative to ROOT."""
    seen, todo = [], list(headers)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        record = False
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for line in f:
                word = line.split()[:2] or [""]
                if word[0] in ("#if", "#ifdef", "#ifndef"):
                    record = word == ["#ifdef", "RECORD_TREE"]
                elif word[0] in ("#else", "#endif"):
                    record = False
                elif word[0] == "#include" and word[1].startswith('"') and not record:
                    todo.append(os.path.join(os.path.dirname(path), word[1].strip('"')))
    return sorted(seen)


def stage_files(root=support.ROOT):
    """The files under ROOT/stages a commit would hold (git's tracked and unignored ones), or else every one."""
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "--", "stages"], cwd=root,
                       capture_output=True, text=True)
    if r.returncode == 0 and os.path.exists(os.path.join(root, ".git")):
        return r.stdout.split()
    return [os.path.relpath(os.path.join(folder, name), root)
            for folder, _, names in os.walk(os.path.join(root, "stages")) for name in names]


def not_written(paths):
    """Those of PATHS (stages/NN_name/...) that no person writes: a file WRITTEN does not name, or in a folder
    of a stage folder."""
    return sorted(p for p in paths if len(p.split("/")) != 3
                  or not any(fnmatch.fnmatch(p.split("/")[2], w) for w in WRITTEN))


class House(unittest.TestCase):

    def test_budgets(self):
        for pattern, budget in BUDGETS.items():
            with self.subTest(pattern):
                count = lines(pattern)
                self.assertIsNotNone(count, f"{pattern} matches no file")
                self.assertLessEqual(count, budget, f"{pattern}: {count} lines, over its budget of {budget}")

    def test_a_stage_file_includes_its_vocabulary(self):
        count = sum(lines(path) for path in included(STAGE_HEADERS))
        self.assertLessEqual(count, STAGE_HEADERS_BUDGET,
                             f"a stage file includes {count} lines of common/ ({', '.join(included(STAGE_HEADERS))})")

    def test_stage_folders_hold_what_a_person_writes(self):
        self.assertEqual(not_written(stage_files()), [],
                         "recorded or generated data in a stage folder: they belong under plots/")

    def test_checks_reject_what_they_must(self):
        """A made-up tree: a folder over its budget, a pattern of no file, and data in a stage folder."""
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "scripts", "report"))
            os.makedirs(os.path.join(root, "stages", "01_a", "tree"))
            for name, count in (("a.py", 900), ("b.py", 601)):
                with open(os.path.join(root, "scripts", "report", name), "w", encoding="utf-8") as f:
                    f.write("x = 1\n" * count)
            for name in ("reduce.cu", "README.md", "claims.csv", "results.csv"):
                open(os.path.join(root, "stages", "01_a", name), "w", encoding="utf-8").close()
            self.assertEqual(lines("scripts/report/*.py", root), 1501)
            self.assertIsNone(lines("common/harness.cu", root))
            os.makedirs(os.path.join(root, "common"))
            for name, text in (("stage.h", '#include "a.h"\n#include <stdio.h>\n'),
                               ("a.h", '#ifdef RECORD_TREE\n#include "r.h"\n#else\n#include "b.h"\n#endif\n'),
                               ("b.h", '#include "a.h"\n'), ("r.h", "")):
                with open(os.path.join(root, "common", name), "w", encoding="utf-8") as f:
                    f.write(text)
            self.assertEqual(included(["common/stage.h"], root), ["common/a.h", "common/b.h", "common/stage.h"])
            open(os.path.join(root, "stages", "01_a", "tree", "k.csv"), "w", encoding="utf-8").close()
            self.assertEqual(not_written(stage_files(root)), ["stages/01_a/results.csv", "stages/01_a/tree/k.csv"])


if __name__ == "__main__":
    unittest.main()

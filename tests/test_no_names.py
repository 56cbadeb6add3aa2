"""A stage is known by its folder alone: no file of scripts/ names a stage or a kernel. The stages are the folders
of stages/; the kernels, every kernel line of every built program's --describe. A name with an underscore or a
digit in it is found wherever it stands as a whole word; a plain word (a kernel named like an English word) only
where code compares with it, as a quoted string or the start of one joined with "_" (not a column read by its
name, row["NAME"])."""
import os
import re

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True


def script_files():
    """Every text file under scripts/, relative to the repository."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(support.ROOT, "scripts")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [os.path.relpath(os.path.join(folder, f), support.ROOT) for f in files]
    return sorted(found)


def kernel_names():
    """Every kernel named by a built program's --describe."""
    return sorted({k["name"] for p in support.programs() if support.built(p) for k in support.kernels(p)})


def pattern(name):
    """Where NAME counts as named in a script."""
    if re.search(r"[_0-9]", name):
        return rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return rf"(?<!\[)[\"']{re.escape(name)}[\"'_]"


def named(names, files):
    """(file, line number, name) of every name found in FILES."""
    found = []
    for path in files:
        for i, line in enumerate(support.read(path).split("\n"), start=1):
            found += [(path, i, name) for name, regex in names if re.search(regex, line)]
    return found


class NoStageNames(support.Case):
    def test_no_script_names_a_stage_or_a_kernel(self):
        self.need_build()
        kernels = kernel_names()
        self.assertTrue(kernels, "no built program describes a kernel")
        names = [(s, re.escape(s)) for s in support.stages()] + [(k, pattern(k)) for k in kernels]
        found = named(names, script_files())
        self.assertEqual([f"{path}:{i}: {name}" for path, i, name in found], [],
                         "scripts must read stages and kernels from --describe and the stages' files, not name them")

    def test_the_check_finds_each_kind_of_name(self):
        """The patterns find a stage, a kernel with an underscore, and a plain-word kernel compared with in code,
        and leave the plain word in prose alone."""
        names = [("01_naive", "01_naive"), ("reduce_shared", pattern("reduce_shared")), ("sum", pattern("sum"))]
        folder = support.scratch(self)
        lines = ['dir = "stages/01_naive"', "if k.startswith('reduce_shared'):", 'if k == "sum":',
                 'key = "sum_" + g', "total = sum(values)  # the sum of them", "x = reduce_shared_128",
                 'total = row["sum"]']
        path = os.path.join(folder, "script.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        self.assertEqual([(i, name) for _, i, name in named(names, [path])],
                         [(1, "01_naive"), (2, "reduce_shared"), (3, "sum"), (4, "sum")])

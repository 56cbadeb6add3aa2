"""The Makefile as the interface, the build, the shell scripts and the repository's files: make all and
make programs; the errors of make without a stage, without nvcc or with an old one, and without a GPU;
make help; the GPU code a toolkit builds; every shell script parses; no obsolete head/tail option and no
merge conflict marker in any file, in a git checkout or in a copy without git (make handout's)."""
import functools
import os
import re
import shutil
import tempfile
import unittest

from tests import support

# The verbs make help must list, each under one name.
HELP_ITEMS = ["stage-NN run", "stage-NN check", "stage-NN demo", "stage-NN diff", "stage-NN sass", "stage-NN profile",
              "stage-NN sanitize", "stage-NN tree", "stage-NN exercise", "stage-NN solution", "make tour", "make audit",
              "make bench", "make programs", "make toolkit", "make reference", "make docs", "make docs-check",
              "make plot", "make test", "make clean"]
# An nvcc of CUDA $FAKE_RELEASE whose list of architectures ends at compute_90, as CUDA 12.5's does.
FAKE_NVCC = """#!/bin/sh
case "$1" in
--version) echo "Cuda compilation tools, release $FAKE_RELEASE, V$FAKE_RELEASE.82" ;;
--list-gpu-arch) printf "compute_%s\\n" 50 75 80 86 89 90 ;;
*) exit 1 ;;
esac
"""
# What a git checkout ignores (.gitignore) and make handout leaves out: these folders at the top, and
# __pycache__/ anywhere.
TOP_FOLDERS_LEFT_OUT = {".git", "build", "plots/results"}
CONFLICT_MARKER = re.compile(rb"^(<{7}|={7}|>{7})( |$)", re.M)
OBSOLETE_HEAD_TAIL = re.compile(r"\b(head|tail) -[0-9]")


# ---- the repository's files ---------------------------------------------------------------------------

def walked(root):
    """Every file under ROOT (relative paths, sorted) but those of TOP_FOLDERS_LEFT_OUT and __pycache__/."""
    found = []
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        dirs[:] = [d for d in dirs
                   if d != "__pycache__" and os.path.normpath(os.path.join(rel, d)) not in TOP_FOLDERS_LEFT_OUT]
        found += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return sorted(found)


def listed(root):
    """The files of the repository at ROOT: in a git checkout, git's (tracked and new, not ignored, that
    exist); elsewhere (a make handout copy has no .git) every file walked."""
    inside = shutil.which("git") and support.run(["git", "rev-parse", "--is-inside-work-tree"], cwd=root).out
    if not inside or inside.strip() != "true":
        return walked(root)
    r = support.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root)
    if r.rc != 0:
        raise AssertionError(f"git ls-files in {root}:\n{r.tail()}")
    return sorted(f for f in set(r.out.split("\0")) if f and os.path.isfile(os.path.join(root, f)))


def head_line(root, path):
    with open(os.path.join(root, path), "rb") as f:
        return f.readline(200)


def shell_scripts(root, files):
    """The shell scripts among FILES: *.sh, and any file whose #! line names bash or sh."""
    return [f for f in files if f.endswith(".sh") or re.match(rb"#!\S*(/|env )(ba)?sh\b", head_line(root, f))]


def obsolete_head_tail(root, files):
    """'path:line: text' for each head -N or tail -N in the scripts, makefiles and awk files of FILES and
    .ci/ (coreutils rejects that form with several files: tail -N A B)."""
    found = []
    for f in files:
        if re.search(r"\.(sh|mk|awk)$", f) or f == "Makefile" or f.startswith(".ci" + os.sep):
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as text:
                found += [f"{f}:{i}: {line.strip()}" for i, line in enumerate(text, 1)
                          if OBSOLETE_HEAD_TAIL.search(line)]
    return found


def conflict_markers(root, files):
    """The FILES that hold a merge's conflict marker (a line that starts <<<<<<<, ======= or >>>>>>>)."""
    found = []
    for f in files:
        with open(os.path.join(root, f), "rb") as data:
            if CONFLICT_MARKER.search(data.read()):
                found.append(f)
    return found


@functools.lru_cache(None)
def repository_files():
    return listed(support.ROOT)


class Scripts(support.Case):
    """Every shell script parses (bash -n); shellcheck finds no error where it is installed."""

    def test_the_scripts_found_include_stage_tool_sh_and_ci_run(self):
        scripts = shell_scripts(support.ROOT, repository_files())
        self.assertIn(".ci/run", scripts)
        self.assertIn("scripts/stage_tool.sh", scripts)

    @support.needs("shellcheck")
    def test_shellcheck_finds_no_error_in_any_script(self):
        self.expect(0, "", ["shellcheck", "-S", "error", *shell_scripts(support.ROOT, repository_files())])


@support.per(lambda: shell_scripts(support.ROOT, repository_files()))
class ScriptsParse(support.Case):

    def test_each_bash_parses(self, script):
        self.expect(0, "", ["bash", "-n", script])


class Build(support.Case):

    def test_make_all_builds_every_stage_with_warnings_as_errors(self):
        self.need_build()
        flags = support.read("build/flags.txt")
        self.assertIn("-Werror all-warnings", flags)
        self.assertRegex(flags, r"-Xcompiler \S*-Werror")

    def test_make_programs_names_one_program_per_stage_folder_in_order(self):
        r = support.make("programs")
        self.assertEqual(r.rc, 0, r)
        folders = support.stages()
        self.assertTrue(folders, "no stage folder stages/NN_name")
        self.assertEqual([support.stage_of(p) for p in r.out.split()], folders)


class MakeErrors(support.Case):
    """What make says where it cannot do what was asked."""

    def test_make_without_nvcc_says_the_cuda_toolkit_is_needed_exit_2(self):
        self.expect_make(2, "CUDA toolkit", "NVCC=", "need-nvcc")

    def test_make_run_without_a_stage_asks_for_one_exit_2(self):
        self.expect_make(2, "name a stage", "run")

    def test_reference_synopsis_is_the_programs_own_help(self):
        """scripts/docs.sh synopsis --check: docs/README*.md quote the first program's --help as it is."""
        self.need_build()
        self.expect(0, "", ["bash", "scripts/docs.sh", "synopsis", "--check"])


def no_gpu_goals():
    """The verbs that run kernels: every stage's run, the first stage's check, profile, sanitize and tree, the
    first stage with a demo's demo and the first with an exercise's exercise and solution, and the verbs of
    the whole repository that do."""
    first, exercise = support.stage_num(support.stages()[0]), support.stage_num(support.exercises()[0])
    first_demo = next(s for s in support.stages() if os.path.exists(f"{support.ROOT}/stages/{s}/demo.cu"))
    return ([f"stage-{support.stage_num(s)} run" for s in support.stages()]
            + [f"stage-{first} {verb}" for verb in ("check", "profile", "sanitize", "tree")]
            + [f"stage-{support.stage_num(first_demo)} demo", f"stage-{exercise} exercise", f"stage-{exercise} solution",
               "bench", "tour", "audit", "accuracy", "limits"])


@functools.lru_cache(None)
def no_gpu_make(goal):
    """make GOAL with no usable GPU (CUDA_VISIBLE_DEVICES empty) and BUILD a folder that does not exist:
    its Result, and whether the folder exists after it."""
    scratch = tempfile.mkdtemp(prefix="reduce-test-")
    try:
        build_dir = os.path.join(scratch, "build")
        r = support.make(f"BUILD={build_dir}", *goal.split(), env={"CUDA_VISIBLE_DEVICES": ""})
        return r, os.path.exists(build_dir)
    finally:
        shutil.rmtree(scratch, True)


@support.per(no_gpu_goals)
class NoGpuRefusal(support.Case):
    """Where no GPU can be used, a verb that runs kernels says so before building anything, in at most four
    lines: the command typed, the notebook and the committed results to go to instead, what works here."""

    def refusal(self, goal):
        stage = re.fullmatch(r"stage-(\d\d) run", goal)
        if stage:
            self.need_build()
            program = support.program_of(next(s for s in support.stages() if support.stage_num(s) == stage[1]))
            if not support.built(program):
                self.skipTest(f"{program} is not built here (its stage's tests say why)")
        return no_gpu_make(goal)

    def test_each_no_gpu_make_names_the_command_exit_2(self, goal):
        r, _ = self.refusal(goal)
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, rf"(?m)^make {re.escape(goal)}( BUILD=[^ ]*)? runs kernels on an NVIDIA GPU")

    def test_each_no_gpu_make_in_4_lines_names_notebook_and_reference_builds_nothing(self, goal):
        r, built_something = self.refusal(goal)
        self.assertEqual(r.rc, 2, r)
        self.assertLessEqual(len([line for line in r.out.split("\n") if line]), 4, r)
        self.assertIn("notebooks/colab.ipynb", r.out)
        self.assertIn("plots/reference/", r.out)
        self.assertFalse(built_something, f"make {goal} made its BUILD folder")


@functools.lru_cache(None)
def make_help():
    return support.make("help")


@support.per(HELP_ITEMS)
class Help(support.Case):

    def test_each_help_lists(self, item):
        r = make_help()
        self.assertEqual(r.rc, 0, r)
        self.assertIn(item, r.out)


def own_names(help_text):
    """The lines of make help that name a stage's verb by a target of its own (make stage-01-run, ...)."""
    return [line for line in help_text.split("\n") if re.search(r"make [a-z0-9-]+-(run|check|exercise|solution)", line)
            and not line.startswith("  make docs-check ")]


class HelpNames(support.Case):

    def test_help_names_every_verb_as_make_stage_NN_VERB(self):
        """One name per verb: a stage is acted on as make stage-NN VERB, never through a target of its own."""
        r = make_help()
        self.assertEqual(r.rc, 0, r)
        self.assertIn("make stage-NN run", r.out)
        self.assertEqual(own_names(r.out), [])

    def test_a_verb_under_a_target_of_its_own_is_found(self):
        self.assertEqual(own_names("  make stage-05-check    check stage 5\n  make docs-check   the docs"),
                         ["  make stage-05-check    check stage 5"])


def stages_without(name):
    return [s for s in support.stages() if not os.path.exists(f"{support.ROOT}/stages/{s}/{name}")]


@support.per(lambda: stages_without("demo.cu"))
class NoDemo(support.Case):

    def test_each_make_demo_of_a_stage_without_one_says_so_exit_2(self, stage):
        self.expect_make(2, "has no demo", f"stage-{support.stage_num(stage)}", "demo")


@support.per(lambda: stages_without("exercise.cu"))
class NoExercise(support.Case):

    def test_each_make_exercise_of_a_stage_without_one_says_so_exit_2(self, stage):
        self.expect_make(2, "has no exercise", f"stage-{support.stage_num(stage)}", "exercise")

    def test_each_make_solution_of_a_stage_without_an_exercise_says_so_exit_2(self, stage):
        self.expect_make(2, "has no exercise", f"stage-{support.stage_num(stage)}", "solution")


class Toolkit(support.Case):
    """make toolkit names the nvcc; an nvcc older than the Makefile's NVCC_MIN is refused; with no GPU and
    no ARCH, the architectures built are those of the list that nvcc supports."""

    def fake_toolkit(self):
        """A PATH without the CUDA tools, and a fake nvcc."""
        path = support.tools_path(self)
        nvcc = os.path.join(os.path.dirname(path), "nvcc")
        with open(nvcc, "w") as f:
            f.write(FAKE_NVCC)
        os.chmod(nvcc, 0o755)
        return path, nvcc

    def test_make_toolkit_names_the_nvcc_its_cuda_release_and_the_gpu_code(self):
        self.expect_make(0, r"^nvcc: .*, CUDA [0-9]+\.[0-9]+ \(needs 12\.5 or newer\)\nGPU code: -", "toolkit")

    def test_make_refuses_an_nvcc_of_cuda_12_4_in_one_line_exit_2(self):
        path, nvcc = self.fake_toolkit()
        r = self.expect_make(2, r"is CUDA 12\.4; building needs CUDA 12\.5 or newer", f"NVCC={nvcc}", "need-nvcc",
                             env={"PATH": path, "FAKE_RELEASE": "12.4"})
        said = [line for line in r.out.split("\n") if line and not line.startswith("make: ***")]
        self.assertEqual(len(said), 1, r)

    def test_make_takes_an_nvcc_of_cuda_12_10_releases_compare_as_versions(self):
        path, nvcc = self.fake_toolkit()
        self.expect_make(0, "", f"NVCC={nvcc}", "need-nvcc", env={"PATH": path, "FAKE_RELEASE": "12.10"})

    def test_without_a_gpu_cuda_12_5_builds_sm_75_to_sm_90_and_ptx_of_sm_90(self):
        path, nvcc = self.fake_toolkit()
        self.expect_make(0, "GPU code: -gencode arch=compute_75,code=sm_75 .*code=sm_89 "
                            "-gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90$",
                         "ARCH=", f"NVCC={nvcc}", "toolkit",
                         env={"PATH": path, "FAKE_RELEASE": "12.5"})


class Repository(support.Case):
    """Checks of every file of the repository: git's list in a checkout, every file walked in a copy
    without git (make handout's)."""

    def test_head_and_tail_take_dash_n_in_every_script(self):
        files = listed(support.ROOT)
        self.assertIn("Makefile", files)
        self.assertEqual(obsolete_head_tail(support.ROOT, files), [])

    def test_no_file_holds_merge_conflict_markers(self):
        files = listed(support.ROOT)
        self.assertIn("Makefile", files)
        self.assertEqual(conflict_markers(support.ROOT, files), [])

    def test_outside_a_git_checkout_the_checks_walk_every_file(self):
        """A copy without .git: its files are walked (build/ left out), and both checks find what it holds."""
        root = support.scratch(self)
        planted = {"Makefile": "all:\n\thead -n 3 x\n", "scripts/old.sh": "tail -5 log\n",
                   "docs/merge.md": "text\n" + "<" * 7 + " HEAD\nours\n", "build/made.txt": "=" * 7 + "\n"}
        for path, text in planted.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        files = listed(root)
        self.assertEqual(files, ["Makefile", "docs/merge.md", "scripts/old.sh"])
        self.assertEqual(obsolete_head_tail(root, files), ["scripts/old.sh:1: tail -5 log"])
        self.assertEqual(conflict_markers(root, files), ["docs/merge.md"])


if __name__ == "__main__":
    unittest.main()

"""The Makefile as the interface, the build, the shell scripts and the repository's files: make all and
make programs; the errors of make without a stage, without nvcc or with an old one, and without a GPU;
make help; the GPU code a toolkit builds; every shell script parses; no obsolete head/tail option and no
merge conflict marker in any file, and nothing a program makes in a stage folder, in a git checkout or in a
copy without git (make handout's)."""
import functools
import glob
import os
import re
import shutil
import tempfile
import unittest

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

# The verbs make help must list, each under one name.
HELP_ITEMS = ["stage-NN run", "stage-NN check", "stage-NN demo", "stage-NN diff", "stage-NN sass", "stage-NN profile",
              "stage-NN sanitize", "stage-NN tree", "stage-NN exercise", "stage-NN solution", "make tour", "make audit",
              "make bench", "make programs", "make toolkit", "make reference", "make docs", "make docs-check",
              "make plot", "make test", "make clean", "make lib", "make sum"]
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
# What a stage folder holds, all of it written by a person (docs/developers.md, "Adding a stage"): its programs
# (reduce.cu, exercise.cu, demo.cu, a program of its own and its stage.mk), its READMEs, the articles'
# figures it quotes, its claims and targets, the kernels it times at every N. What a program makes (records,
# pictures, results) goes under plots/.
STAGE_FILE = re.compile(r"^stages/[^/]+/([^/]+\.cuh?|stage\.mk|README(\.zh-CN)?\.md|cited(-[a-z]+)?\.csv|claims\.csv|targets\.csv"
                        r"|every_n\.txt)$")
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


def made_in_stages(files):
    """The FILES under stages/ that no person writes there: anything but STAGE_FILE's, a subfolder's files."""
    return [f for f in files if f.startswith("stages/") and not STAGE_FILE.match(f)]


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
    first stage with a demo's demo and the first with an exercise's solution, and the verbs of the whole
    repository that do (its exercise is built without a GPU: WithoutGpu below)."""
    first, exercise = support.stage_num(support.stages()[0]), support.stage_num(support.exercises()[0])
    first_demo = next(s for s in support.stages() if os.path.exists(f"{support.ROOT}/stages/{s}/demo.cu"))
    return ([f"stage-{support.stage_num(s)} run" for s in support.stages()]
            + [f"stage-{first} {verb}" for verb in ("check", "profile", "sanitize", "tree")]
            + [f"stage-{support.stage_num(first_demo)} demo", f"stage-{exercise} solution",
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


HELP_GROUPS = ["Reading a stage:", "Running and measuring:", "Teaching:", "Maintaining:", "Options, for every build:"]


def help_groups(help_text):
    """The headings of make help's groups, in order, and the target lines that come before the first."""
    lines = help_text.split("\n")
    headings = [line for line in lines if re.match(r"^\S.*:$", line)]
    first = next((i for i, line in enumerate(lines) if line in headings), len(lines))
    return headings, [line for line in lines[:first] if line.startswith("  make ")]


class HelpGroups(support.Case):

    def test_help_lists_every_target_under_its_group(self):
        """make help in groups: reading a stage, running and measuring, teaching, maintaining; then the options."""
        r = make_help()
        self.assertEqual(r.rc, 0, r)
        self.assertEqual(help_groups(r.out), (HELP_GROUPS, []))

    def test_a_target_before_any_group_is_found(self):
        self.assertEqual(help_groups("title\n  make all   build\nTeaching:\n  make handout   copy"),
                         (["Teaching:"], ["  make all   build"]))


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


    def wrapper_nvcc(self):
        """A folder for the PATH whose nvcc is a script that execs this machine's nvcc (a common image layout)."""
        if not support.nvcc():
            self.skipTest("nvcc not found")
        folder = os.path.join(support.scratch(self), "bin")
        os.mkdir(folder)
        with open(os.path.join(folder, "nvcc"), "w") as f:
            f.write(f'#!/bin/sh\nexec {os.path.realpath(support.nvcc())} "$@"\n')
        os.chmod(os.path.join(folder, "nvcc"), 0o755)
        return folder + ":" + os.environ["PATH"]

    def test_a_wrapper_nvcc_names_the_toolkit_of_the_nvcc_it_execs(self):
        """the toolkit is what nvcc -dryrun says, not the folder above the wrapper"""
        path = self.wrapper_nvcc()
        def toolkit(env):
            r = self.expect_make(0, r"^nvcc: .* \(toolkit /", "toolkit", env=env)
            return re.search(r"\(toolkit (\S+)\)", r.out)[1]
        real = toolkit({"NVCC": os.path.realpath(support.nvcc())})
        self.assertEqual(toolkit({"PATH": path, "NVCC": None}), real)
        self.assertTrue(os.path.isfile(os.path.join(real, "include", "cuda_runtime.h")), f"{real} holds no CUDA headers")

    def test_a_wrapper_nvcc_finds_the_nccl_of_its_toolkit(self):
        """make -n stage-12 refuses through the wrapper exactly where it refuses with the toolkit's nvcc"""
        path = self.wrapper_nvcc()
        direct = support.make("-n", "stage-12", env={"NVCC": os.path.realpath(support.nvcc())})
        if "needs NCCL" in direct.out:
            self.skipTest("the toolkit of this nvcc has no NCCL")
        wrapped = support.make("-n", "stage-12", env={"PATH": path, "NVCC": None})
        self.assertNotIn("needs NCCL", wrapped.out, repr(wrapped))


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

    def test_stage_folders_hold_only_what_a_person_writes(self):
        """No record, picture or result in a stage folder: what a program makes lives under plots/."""
        files = listed(support.ROOT)
        self.assertTrue([f for f in files if STAGE_FILE.match(f)], "no stage file listed")
        self.assertEqual(made_in_stages(files), [])

    def test_a_record_or_picture_in_a_stage_folder_is_found(self):
        written = ["stages/01_a/reduce.cu", "stages/01_a/README.zh-CN.md", "stages/02_b/stage.mk",
                   "stages/02_b/claims.csv", "stages/02_b/every_n.txt", "plots/reference/x/tree/01_a/k.csv"]
        made = ["stages/01_a/tree/k.csv", "stages/01_a/tree/k.png", "stages/01_a/results.csv", "stages/02_b/out.txt"]
        self.assertEqual(made_in_stages(written), [])
        self.assertEqual(made_in_stages(written + made), made)

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


# ---- a learner without a GPU ----------------------------------------------------------------------------

WITHOUT_GPU = re.compile(r"^### (?:Without a GPU|没有 GPU 怎么学)\n(.*?)(?=^#)", re.M | re.S)
EXERCISE_BUILT = r"^{build}/{stage}/exercise built from stages/{stage}/exercise\.cu \(warnings as errors\); " \
                 r"running it needs a GPU .*notebooks/colab\.ipynb"


def works_here(out):
    """The verbs a no-GPU refusal offers ("What works here: ..."), or None."""
    line = re.search(r"(?m)^What works here: (.*)\.$", out)
    return line[1].split(", ") if line else None


class WithoutGpu(support.Case):
    """What a learner without a GPU is offered: make stage-NN exercise builds the exercise and says that running
    it needs a GPU (exit 0); a refusal offers sass only where cuobjdump is; a program names the notebook."""

    def exercise_stage(self):
        return support.exercises()[0]

    def test_make_exercise_without_a_gpu_builds_it_and_says_so_in_one_line_exit_0(self):
        if support.gpu():
            self.skipTest("a GPU is present: this tests the path of a machine without one")
        self.need_build()
        stage = self.exercise_stage()
        r = self.expect_make(0, "", f"stage-{support.stage_num(stage)}", "exercise", env={"CUDA_VISIBLE_DEVICES": ""})
        said = [line for line in r.out.split("\n") if line]
        self.assertEqual(len(said), 1, r)
        self.assertRegex(said[0], EXERCISE_BUILT.format(build="build", stage=re.escape(stage)))
        self.assertTrue(support.built(f"build/{stage}/exercise"), f"no build/{stage}/exercise")

    def test_make_exercise_without_a_gpu_compiles_it_with_warnings_as_errors_first(self):
        """make -n: the exercise's nvcc line with -Werror, then the line that says a GPU is needed; nothing built."""
        stage, build = self.exercise_stage(), os.path.join(support.scratch(self), "build")
        r = support.make("-n", f"BUILD={build}", f"stage-{support.stage_num(stage)}", "exercise",
                         env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(r.rc, 0, r)
        compile_line = re.search(rf"(?m)^\S*nvcc .*-Werror all-warnings .*stages/{stage}/exercise\.cu .*"
                                 rf"-o {re.escape(build)}/{stage}/exercise\.o$", r.out)
        self.assertTrue(compile_line, r)
        link_line = re.compile(rf"(?m)^\S*nvcc .* -o {re.escape(build)}/{stage}/exercise$").search(r.out, compile_line.end())
        self.assertTrue(link_line, r)
        self.assertIn("running it needs a GPU", r.out[link_line.end():])
        self.assertFalse(os.path.exists(build), "make -n built something")

    def refusal_offers(self, cuobjdump):
        """What make stage-NN check offers with no GPU (no nvidia-smi on PATH), with or without a cuobjdump."""
        path = support.tools_path(self)
        if cuobjdump:
            fake = os.path.join(path, "cuobjdump")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\nexit 0\n")
            os.chmod(fake, 0o755)
        stage = support.stage_num(support.stages()[0])
        r = support.make(f"BUILD={os.path.join(support.scratch(self), 'build')}", f"stage-{stage}", "check",
                         env={"PATH": path})
        self.assertEqual(r.rc, 2, r)
        offered = works_here(r.out)
        self.assertTrue(offered, r)
        return stage, offered

    def test_a_refusal_offers_sass_only_where_cuobjdump_is(self):
        stage, offered = self.refusal_offers(cuobjdump=False)
        self.assertIn(f"make stage-{stage} diff", offered)
        self.assertNotIn(f"make stage-{stage} sass", offered)
        stage, offered = self.refusal_offers(cuobjdump=True)
        self.assertIn(f"make stage-{stage} sass", offered)

    def test_a_refusal_offers_the_exercise_of_a_stage_with_one(self):
        stage, offered = self.refusal_offers(cuobjdump=False)
        has = os.path.exists(os.path.join(support.ROOT, "stages", support.stages()[0], "exercise.cu"))
        self.assertEqual(f"make stage-{stage} exercise" in offered, has, offered)

    def test_a_program_run_without_a_gpu_names_the_notebook_in_one_line_exit_3(self):
        self.need_build()
        program = support.programs()[0]
        r = support.run([program, "--n", "1000"], env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(r.rc, 3, r)
        said = [line for line in r.out.split("\n") if line]
        self.assertEqual(len(said), 1, r)
        self.assertRegex(said[0], r"^error: no CUDA-capable GPU found .*notebooks/colab\.ipynb")


@support.per(["README.md", "README.zh-CN.md"])
class FrontPageWithoutGpu(support.Case):
    """The front page links the glossary and gives, in a few lines, a path without a GPU."""

    def test_each_links_the_glossary(self, page):
        glossary = "docs/glossary.md" if page == "README.md" else "docs/glossary.zh-CN.md"
        self.assertTrue(f"]({glossary})" in support.read(page), f"{page} does not link {glossary}")

    def test_each_gives_a_path_without_a_gpu(self, page):
        """Read a stage with its diff, the committed outputs (each reference GPU's folder, the trees), write the
        exercise, run the notebook: in at most 20 lines."""
        section = WITHOUT_GPU.search(support.read(page))
        self.assertTrue(section, f"{page} has no section ### Without a GPU / ### 没有 GPU 怎么学")
        text = section[1]
        self.assertLessEqual(len(text.strip().split("\n")), 20)
        folders = [os.path.relpath(os.path.dirname(p), support.ROOT) + "/"
                   for p in glob.glob(os.path.join(support.ROOT, "plots/reference/*/results.csv"))]
        self.assertTrue(folders, "no plots/reference/<gpu>/results.csv")
        for needed in ["make stage-NN diff", "make stage-NN exercise", "tree/", "notebooks/colab.ipynb", *folders]:
            self.assertTrue(needed in text, f"its section without a GPU does not name {needed}")
        offer = [line for line in re.split(r"(?<=[.;。；])\s", text) if re.search(r"\bwork\b|能用", line)]
        self.assertTrue(offer, "it does not say what works without a GPU")
        for sentence in offer:
            if "sass" in sentence:
                self.assertIn("cuobjdump", sentence, "sass is offered without its condition")


if __name__ == "__main__":
    unittest.main()

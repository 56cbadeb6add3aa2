"""The classroom (docs/classroom.md): make handout, a copy without the answers, and make stage-NN grade.
The handout, the grader's usage errors and its compile step run anywhere; grading the solution, the
exercise's stub and the cheat files of tests/grade/ needs a GPU."""
import atexit
import functools
import os
import re
import shutil
import tempfile

from tests import support

GRADE_CHEATS = os.path.join(support.ROOT, "tests", "grade")


@functools.lru_cache(None)
def workdir():
    d = tempfile.mkdtemp(prefix="reduce-test-classroom-")
    atexit.register(shutil.rmtree, d, True)
    return d


def graded_stage():
    """The first stage whose cheat files tests/grade/ holds (a handout has none: its first exercise)."""
    if os.path.isdir(GRADE_CHEATS):
        for s in sorted(os.listdir(GRADE_CHEATS)):
            if os.path.exists(os.path.join(support.ROOT, "stages", s, "exercise.cu")):
                return s
    return support.exercises()[0]


def first_solved():
    return next((s for s in support.exercises() if support.solved(s)), None)


def error_lines(out):
    """OUT's lines less make's own note of a failed recipe (make: *** [...] Error N)."""
    return [line for line in out.split("\n") if line.strip() and not re.match(r"^make: \*\*\* \[.*\] Error \d+$", line)]


@functools.lru_cache(None)
def handout():
    """make handout OUT=DIR into a new folder: (its Result, DIR)."""
    out = os.path.join(workdir(), "handout")
    return support.make("handout", f"OUT={out}"), out


def stubs_place(stage):
    """STAGE's exercise.cu as lines, and its stubs' place in them, [first, end): the "#else" branch of its
    "#ifdef SOLUTION_FILE", where solutions/<stage>.cu goes."""
    lines = support.read(f"stages/{stage}/exercise.cu").split("\n")
    start = lines.index("#ifdef SOLUTION_FILE")
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("#else")) + 1
    end = next(i for i in range(first, len(lines)) if lines[i].startswith("#endif"))
    return lines, first, end


def student_file(name, text):
    path = os.path.join(workdir(), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


@functools.lru_cache(None)
def stub():
    """The graded stage's stub as a student's file: the "#else" branch of its "#ifdef SOLUTION_FILE"."""
    lines, first, end = stubs_place(graded_stage())
    return student_file("stub.cu", "\n".join(lines[first:end]) + "\n")


def whole_file(stage, bodies, name, before=""):
    """STAGE's whole exercise.cu with BODIES in its stubs' place (and BEFORE as its first lines), as a student
    who edits the file hands it in: (its path, the line of FILE where the bodies start)."""
    lines, first, end = stubs_place(stage)
    text = before + "\n".join(lines[:first] + [bodies.rstrip("\n")] + lines[end:])
    return student_file(name, text), before.count("\n") + first + 1


def solved_exercises():
    return [s for s in support.exercises() if support.solved(s)]


@functools.lru_cache(None)
def broken_grade():
    """make stage-NN grade of a file that does not compile, SEED=3, into a class sheet of its own:
    (its Result, the file, the sheet)."""
    broken = os.path.join(workdir(), "broken.cu")
    with open(broken, "w", encoding="utf-8") as f:
        f.write("__global__ void reduce_max_shuffle(\n")
    sheet = os.path.join(workdir(), "broken.csv")
    r = support.make(f"stage-{support.stage_num(graded_stage())}", "grade", f"FILE={broken}", "SEED=3", f"CLASS={sheet}")
    return r, broken, sheet


class Exercises(support.Case):
    """docs/classroom.md in both languages against the stage folders: which stages have an exercise."""
    PAGES = {"docs/classroom.md": r"stages without an exercise: <!-- stages without exercise\.cu -->([0-9, ]+)<!-- end -->",
             "docs/classroom.zh-CN.md": r"没有练习的阶段：<!-- stages without exercise\.cu -->([0-9、]+)<!-- end -->"}

    def test_classroom_names_the_stages_without_an_exercise(self):
        """The sentence that names the stages with no stages/*/exercise.cu names exactly those."""
        want = [support.stage_num(s) for s in support.stages() if s not in support.exercises()]
        for page, pattern in self.PAGES.items():
            with self.subTest(page):
                found = re.search(pattern, support.read(page))
                self.assertTrue(found, f"{page} has no sentence /{pattern}/")
                self.assertEqual(re.findall(r"\d\d", found[1]), want, f"{page}: {found[0]}")

    def test_classroom_task_table_has_a_row_per_exercise(self):
        want = [support.stage_num(s) for s in support.exercises()]
        for page in self.PAGES:
            with self.subTest(page):
                self.assertEqual(re.findall(r"(?m)^\| (\d\d) \|", support.read(page)), want, page)


GRADE_SIZE = r"(\d+(\^\d+)?(\+\d+)?)"
GRADE_SIDE = rf"{GRADE_SIZE}(\.\.{GRADE_SIZE})?"
PROMISES = r"same-bits|(no-float-atomics|no-atomic-cas|vector-loads):[a-z_0-9]+(,[a-z_0-9]+)*"


@support.per(support.exercises)
class Declarations(support.Case):
    """What each exercise declares of its grade (its program's --describe; docs/classroom.md): sizes the grader
    can read, some drawn from the seed, a row stage's with more than one row; a timed size; known promises."""

    def test_each_exercise_declares_its_grade(self, stage):
        self.need_build()
        program = f"build/{stage}/exercise"
        sizes, time_size = ",".join(support.describe(program)["grade_sizes"]), support.describe(program)["grade_time"]
        promises = " ".join(support.describe(program)["grade_promises"])
        side = GRADE_SIDE if not support.describe(program)["row_stage"] else rf"{GRADE_SIDE}x{GRADE_SIDE}"
        for size in sizes.split(","):
            self.assertRegex(size, rf"^{side}$", f"{program}: grade sizes: {sizes}")
        self.assertIn("..", sizes, f"{program} declares no size drawn from the seed: the printed sizes would be all")
        self.assertRegex(time_size, rf"^{GRADE_SIZE}(x{GRADE_SIZE})?$")
        if support.describe(program)["row_stage"]:
            self.assertTrue([s for s in sizes.split(",") if not re.match(r"^1x", s)],
                            f"{program} declares no shape with a second row: {sizes}")
        for promise in promises.split():
            self.assertRegex(promise, rf"^({PROMISES})$")
            for kernel in filter(None, promise.partition(":")[2].split(",")):  # the stubs define what is asked
                self.assertRegex(support.read(f"stages/{stage}/exercise.cu"), rf"__global__ void[^(]*\b{kernel}\(",
                                 f"{program} promises of a kernel {kernel} its exercise does not ask for")


class Handout(support.Case):

    def made(self):
        r, out = handout()
        if r.rc != 0:
            self.fail(f"make handout OUT={out} exited {r.rc}:\n{r.tail()}")
        return out

    def test_handout_without_out_exits_2(self):
        self.expect_make(2, r"make handout OUT=DIR", "handout", env={"OUT": None})

    def test_handout_writes_a_copy(self):
        r, out = handout()
        self.assertEqual(r.rc, 0, r)
        self.assertRegex(r.out, rf"^{re.escape(out)}: a handout of \d+ files, without solutions/")

    def test_handout_into_a_folder_not_empty_exits_2(self):
        out = self.made()
        self.expect_make(2, r"^error: OUT=.* exists and is not empty", "handout", f"OUT={out}")

    def test_handout_has_every_exercise_with_hints_in_both_languages(self):
        out = self.made()
        exercises = support.exercises()
        self.assertTrue(exercises)
        for s in exercises:
            with self.subTest(s):
                with open(os.path.join(out, "stages", s, "exercise.cu"), encoding="utf-8") as f:
                    text = f.read()
                self.assertIn("Hint:", text)
                self.assertIn("提示", text)

    def test_handout_holds_no_solutions_or_cheat_files(self):
        out = self.made()
        self.assertTrue(os.path.isfile(os.path.join(out, "Makefile")), "the handout has no Makefile")
        self.assertFalse(os.path.exists(os.path.join(out, "solutions")), "the handout holds solutions/")
        self.assertFalse(os.path.exists(os.path.join(out, "tests", "grade")), "the handout holds tests/grade/")

    def test_no_solution_body_in_handout(self):
        """No function body of solutions/ is anywhere in the handout (tests/no_answers.py)."""
        if not first_solved():
            self.skipTest(support.NO_SOLUTIONS)
        self.expect(0, r"^ok: none of the \d+ function bodies",
                    ["python3", "tests/no_answers.py", "solutions", self.made()])

    def test_no_answers_finds_a_solution_pasted_into_any_folder_of_the_handout_exit_1(self):
        """The solutions pasted into a file of stages/, notebooks/ or docs/ (each alone): found, exit 1."""
        if not first_solved():
            self.skipTest(support.NO_SOLUTIONS)
        out = self.made()
        answers = "".join(support.read(f"solutions/{name}")
                          for name in sorted(os.listdir(os.path.join(support.ROOT, "solutions"))))
        for folder in ("stages", "notebooks", "docs"):
            with self.subTest(folder):
                pasted = os.path.join(out, folder, "pasted.txt")
                with open(pasted, "w", encoding="utf-8") as f:
                    f.write(answers)
                try:
                    self.expect(1, rf"{folder}/pasted\.txt: a function body of",
                                ["python3", "tests/no_answers.py", "solutions", out])
                finally:
                    os.remove(pasted)

    def test_solution_in_handout_one_error_line_exit_2(self):
        """make stage-NN solution in a handout says, in one error line, that it has no solution (exit 2)."""
        s = first_solved()
        if not s:
            self.skipTest(support.NO_SOLUTIONS)
        r = self.expect_make(2, "", "-C", self.made(), f"stage-{support.stage_num(s)}", "solution")
        want = (rf"^error: this copy has no solutions/{s}\.cu \(a handout\): make stage-{support.stage_num(s)} exercise checks your "
                r"own work$")
        lines = error_lines(r.out)
        self.assertEqual(len(lines), 1, f"wanted one error line:\n{r.tail()}")
        self.assertRegex(lines[0], want)

    def test_solution_here_passes_the_handout_refusal(self):
        """In this copy, which has the solution, make stage-NN solution goes on to the GPU (hidden: exit 2)."""
        s = first_solved()
        if not s:
            self.skipTest(support.NO_SOLUTIONS)
        r = self.expect_make(2, rf"^make stage-{support.stage_num(s)} solution runs kernels on an NVIDIA GPU", f"stage-{support.stage_num(s)}",
                             "solution", env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertNotIn("has no solutions/", r.out)

    def test_make_all_in_handout_builds_stages_and_stubs_alone(self):
        """make -n -B all in the handout succeeds: every exercise's stub and every program built here, no solution."""
        self.need_build()
        r = self.expect_make(0, "", "-C", self.made(), "-n", "-B", "all")
        outputs = set(re.findall(r" -o (\S+)", r.out))
        wanted = {f"build/{s}/exercise" for s in support.exercises()}
        wanted |= {p for p in support.programs() if support.built(p)}
        self.assertEqual(wanted - outputs, set(), f"make -n -B all in the handout does not build these:\n{r.tail()}")
        self.assertEqual(re.findall(r"solutions/\S+", r.out), [], "make all in the handout builds a solution")

    def test_make_all_here_builds_solutions(self):
        """The same make -n -B all in this copy builds the solutions (what the handout's must not)."""
        if not first_solved():
            self.skipTest(support.NO_SOLUTIONS)
        self.expect_make(0, r" -DSOLUTION_FILE=.*solutions/", "-n", "-B", "all")


class Grade(support.Case):
    """make stage-NN grade's usage errors and its compile step, which need no GPU."""

    def grade(self, *args, env=None):
        return support.make(f"stage-{support.stage_num(graded_stage())}", "grade", *args, env=env)

    def test_grade_without_stage_exits_2(self):
        self.expect_make(2, r"name a stage: make stage-NN grade FILE=", "grade", "FILE=x.cu")

    def test_grade_without_file_exits_2(self):
        self.need_build()
        self.expect_make(2, r"give the student's file", f"stage-{support.stage_num(graded_stage())}", "grade")

    def test_grade_missing_file_exits_2(self):
        self.need_build()
        missing = os.path.join(support.scratch(self), "missing.cu")
        self.expect_make(2, rf"FILE={re.escape(missing)}: no such file", f"stage-{support.stage_num(graded_stage())}", "grade",
                         f"FILE={missing}")

    def test_grade_refuses_bad_seed_ratio_timeout_exit_2(self):
        self.need_build()
        student = os.path.join(support.scratch(self), "student.cu")
        open(student, "w").close()
        for bad in ("SEED=x", "RATIO=fast", "TIMEOUT=0"):
            with self.subTest(bad):
                self.expect_make(2, rf"^error: {bad.split('=')[0]}=", f"stage-{support.stage_num(graded_stage())}", "grade",
                                 f"FILE={student}", bad)

    def test_grade_stage_without_exercise_exits_2(self):
        s = next((s for s in support.stages() if s not in support.exercises()), None)
        if not s:
            self.skipTest("every stage has an exercise")
        self.expect_make(2, r"has no exercise", "grade", f"STAGE={support.stage_num(s)}", "FILE=x.cu")

    def test_grade_file_that_does_not_compile_fails_exit_2(self):
        """A file that does not compile: the compiler's errors, FAIL (the grader's 1, make's 2)."""
        self.need_build()
        r, broken, _ = broken_grade()
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, rf"compile: FAIL: {re.escape(broken)} does not compile")
        self.assertRegex(r.out, r"(?m)^make: \*\*\* \[.*\] Error 1$")

    def test_grade_file_that_does_not_compile_in_class_sheet(self):
        """The class sheet has its header, then the file's FAIL line."""
        self.need_build()
        _, broken, sheet = broken_grade()
        with open(sheet, encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertEqual(lines, ["file,stage,task,seed,correct,memcheck,racecheck,promises,time_ratio,verdict",
                                 f"{broken},{graded_stage()},all,3,does not compile,-,-,-,-,FAIL", ""])

    def test_grade_without_gpu_compiles_then_graders_exit_3_makes_2(self):
        """With no usable GPU the grader compiles the file, says the rest needs one and exits 3; make, 2."""
        self.need_build()
        sheet = os.path.join(support.scratch(self), "class.csv")
        r = self.grade(f"FILE={stub()}", f"CLASS={sheet}", env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, r"(?m)^compile: ok\. The rest of the grade runs kernels")
        self.assertRegex(r.out, r"(?m)^make: \*\*\* \[.*\] Error 3$")
        self.assertFalse(os.path.exists(sheet), "the grader wrote a line to the class sheet without a verdict")


class GradeOnGpu(support.Case):
    """make stage-NN grade on the solution and the stub (half a minute a file): make test grades the stub,
    make test-full the solution (class Cheats grades the cheat files)."""

    def grade(self, file, rc, pattern):
        self.need_build()
        sheet = os.path.join(support.scratch(self), "class.csv")
        return self.expect_make(rc, pattern, f"stage-{support.stage_num(graded_stage())}", "grade", f"FILE={file}", "SEED=11",
                                f"CLASS={sheet}")

    @support.needs("gpu")
    @support.full_only
    def test_grade_passes_solution(self):
        """The solution passes at the hidden sizes, within RATIO of itself, clean under the sanitizers."""
        s = graded_stage()
        if not support.solved(s):
            self.skipTest(support.NO_SOLUTIONS)
        self.grade(f"solutions/{s}.cu", 0, rf"^PASS: solutions/{s}\.cu")

    @support.needs("gpu")
    def test_grade_fails_stub_wrong_sum(self):
        self.grade(stub(), 2, r"^[a-z_0-9]+ +wrong ")

def cheats():
    """The cheat files of tests/grade/, as "NN_name/file.cu" (a handout has none)."""
    if not os.path.isdir(GRADE_CHEATS):
        return []
    return sorted(f"{s}/{f}" for s in os.listdir(GRADE_CHEATS) if os.path.isdir(os.path.join(GRADE_CHEATS, s))
                  for f in os.listdir(os.path.join(GRADE_CHEATS, s)) if f.endswith(".cu"))

# What the grade prints where each part of it catches a cheat (the " * Caught by: PART" line of its header):
# a wrong sum, a memcheck or racecheck finding (a race may show as a wrong sum, or as bits that vary between
# the check's runs, instead), a promise about the code broken (the kernels' PTX), the bits varying over the
# same-bits runs or already over the check's, the time against the solution's.
CAUGHT = {"wrong": r"^[a-z_0-9]+ +wrong ", "memcheck": r" ok +FINDING ", "racecheck": r" ok +clean +FINDING | (wrong|varies) ",
          "promises": r"^promises: FAIL: ", "same-bits": r"^  same bits: FAIL: ",
          "time": r"^[a-z_0-9]+ +ok +(clean|skipped) +(clean|skipped) +(kept|-) +[0-9.]+ \(<= [0-9.]+\) +FAIL$"}

def caught_by(cheat):
    found = re.search(r"(?m)^ \* Caught by: (\S+)$", support.read(f"tests/grade/{cheat}"))
    return found[1] if found else None

def grade_cheat(case, cheat, env=None):
    stage = cheat.split("/")[0]
    sheet = os.path.join(support.scratch(case), "class.csv")
    return support.make(f"stage-{support.stage_num(stage)}", "grade", f"FILE=tests/grade/{cheat}", "SEED=11", f"CLASS={sheet}",
                        env=env), sheet

class CheatsListed(support.Case):
    """tests/grade/README.md has a row per cheat file; the classroom pages name only cheat files that exist."""

    def test_grade_readme_has_a_row_per_cheat(self):
        if not cheats():
            self.skipTest("a handout has no cheat files")
        rows = re.findall(r"(?m)^\| `([0-9]{2}_[a-z_0-9]+/[a-z_0-9]+\.cu)` \|", support.read("tests/grade/README.md"))
        self.assertEqual(sorted(rows), cheats())

    def test_classroom_names_cheats_that_exist(self):
        if not cheats():
            self.skipTest("a handout has no cheat files")
        for page in ("docs/classroom.md", "docs/classroom.zh-CN.md"):
            named = set(re.findall(r"`([0-9]{2}_[a-z_0-9]+/[a-z_0-9]+\.cu)`", support.read(page)))
            with self.subTest(page):
                self.assertTrue(named)
                self.assertEqual(named - set(cheats()), set(), f"{page} names cheat files that tests/grade/ does not hold")


@support.per(cheats, name_of=lambda c: c.replace("/", "_").replace(".cu", ""))
class Cheats(support.Case):
    """Each cheat file of tests/grade/ FAILS for the reason its header names: on a GPU, make test-full grades
    every one. A promise about the code is seen at the compile, with no GPU: make test grades the first such
    cheat, make test-full every one."""

    def test_each_cheat_names_what_catches_it(self, cheat):
        self.assertIn(caught_by(cheat), CAUGHT, f"tests/grade/{cheat}: no \" * Caught by: PART\" line (PART: {', '.join(CAUGHT)})")

    def test_each_grade_fails_cheat_for_its_reason(self, cheat):
        if not support.gpu():
            self.skipTest(support.NO_GPU)
        if not support.FULL:
            self.skipTest("make test-full grades every cheat file")
        if caught_by(cheat) in ("memcheck", "racecheck") and support.missing("compute-sanitizer"):
            self.skipTest(support.missing("compute-sanitizer"))
        self.need_build()
        r, _ = grade_cheat(self, cheat)
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, r"(?m)^FAIL: tests/grade/" + re.escape(cheat))
        self.assertRegex(r.out, "(?m)" + CAUGHT[caught_by(cheat)], r.tail(20))

    def test_each_grade_fails_broken_promise_without_gpu(self, cheat):
        """A promise about the code broken: FAIL after the compile, on a machine with no GPU too (the grader's 1,
        make's 2), with its line in the class sheet."""
        promised = [c for c in cheats() if caught_by(c) == "promises"]
        if cheat not in promised:
            self.skipTest(f"{cheat} is not caught by a promise about the code")
        if not support.FULL and cheat != promised[0]:
            self.skipTest(f"make test grades {promised[0]} alone without a GPU; make test-full, every such cheat")
        self.need_build()
        r, sheet = grade_cheat(self, cheat, env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, r"(?m)^promises: FAIL: [a-z_0-9]+ has (a|an|no) ")
        self.assertRegex(r.out, r"(?m)^make: \*\*\* \[.*\] Error 1$")
        with open(sheet, encoding="utf-8") as f:
            self.assertEqual(f.read().split("\n")[1], f"tests/grade/{cheat},{cheat.split('/')[0]},all,11,compiles,-,-,broken,-,FAIL")

WHOLE = r"(?m)^whole file: {file} is the whole stages/{stage}/exercise\.cu; its lines {first}-{last}, in the stubs' place, are graded"

def grade_without_gpu(stage, file, sheet):
    """make stage-NN grade FILE with CUDA hiding every GPU: the grader stops after the compile step."""
    return support.make(f"stage-{support.stage_num(stage)}", "grade", f"FILE={file}", "SEED=5", f"CLASS={sheet}",
                        env={"CUDA_VISIBLE_DEVICES": ""})

@support.per(solved_exercises)
class WholeFile(support.Case):
    """A student who edits exercise.cu hands in the whole file, not the bodies alone: its code in the stubs' place
    is graded (docs/classroom.md)."""

    def test_each_grade_builds_whole_exercise_with_solution(self, stage):
        """exercise.cu with the solution's bodies in its stubs' place: compiled (no GPU: exit 3); on a GPU
        (make test-full), it passes. make test grades the graded stage's; make test-full, every stage's."""
        if not support.FULL and stage != graded_stage():
            self.skipTest(f"make test grades stage {graded_stage()}'s whole file; make test-full, every stage's")
        self.need_build()
        bodies = support.read(f"solutions/{stage}.cu")
        file, first = whole_file(stage, bodies, f"{stage}-whole.cu")
        sheet = os.path.join(support.scratch(self), "class.csv")
        whole = WHOLE.format(file=re.escape(file), stage=stage, first=first, last=first + bodies.rstrip("\n").count("\n"))
        if support.FULL and support.gpu():
            r = self.expect_make(0, rf"^PASS: {re.escape(file)}", f"stage-{support.stage_num(stage)}", "grade", f"FILE={file}",
                                 "SEED=11", f"CLASS={sheet}")
        else:
            r = grade_without_gpu(stage, file, sheet)
            self.assertEqual(r.rc, 2, r)
            self.assertRegex(r.out, r"(?m)^compile: ok\. The rest of the grade runs kernels")
            self.assertRegex(r.out, r"(?m)^make: \*\*\* \[.*\] Error 3$")
        self.assertRegex(r.out, whole + "$")

def unedited():
    """The graded stage's exercise.cu, handed in as it is: (its path, the first and last line of its stubs)."""
    lines, first, end = stubs_place(graded_stage())
    return student_file("exercise.cu", "\n".join(lines)), first + 1, end

class WholeFileStub(support.Case):
    """The exercise.cu handed in unedited is graded as its stubs; a whole file's errors name its own lines."""

    def test_grade_unedited_exercise_compiles_its_stubs(self):
        """No GPU: the unedited exercise.cu compiles, and its stubs' lines are the ones graded (exit 3)."""
        self.need_build()
        file, first, last = unedited()
        r = grade_without_gpu(graded_stage(), file, os.path.join(support.scratch(self), "class.csv"))
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, WHOLE.format(file=re.escape(file), stage=graded_stage(), first=first, last=last) + "$")
        self.assertRegex(r.out, r"(?m)^make: \*\*\* \[.*\] Error 3$")

    @support.needs("gpu")
    @support.full_only
    def test_grade_fails_unedited_exercise_as_its_stubs(self):
        file, _, _ = unedited()
        self.expect_make(2, r"^[a-z_0-9]+ +wrong ", f"stage-{support.stage_num(graded_stage())}", "grade", f"FILE={file}",
                         "SEED=11", f"CLASS={os.path.join(support.scratch(self), 'class.csv')}")

    def test_grade_whole_file_errors_name_its_lines_and_its_changes(self):
        """A whole file changed outside its stubs, with an error in their place: the report says the changes are
        not graded, and the compiler's error names the file's own line."""
        self.need_build()
        stage = graded_stage()
        file, first = whole_file(stage, "int broken = ;\n", "changed.cu", before="// alice, group 3\n")
        r = grade_without_gpu(stage, file, os.path.join(support.scratch(self), "class.csv"))
        self.assertEqual(r.rc, 2, r)
        self.assertRegex(r.out, WHOLE.format(file=re.escape(file), stage=stage, first=first, last=first) +
                         rf"; outside them it differs from stages/{stage}/exercise\.cu, and those changes are not graded")
        self.assertRegex(r.out, rf"(?m)^compile: FAIL: {re.escape(file)} does not compile")
        self.assertRegex(r.out, rf"(?m)^  {re.escape(file)}\({first}\): error")

    def test_grade_whole_file_without_its_ifdef_exits_2(self):
        self.need_build()
        file = student_file("no-ifdef.cu", "#include SOLUTION_FILE\n")
        self.expect_make(2, rf"^error: FILE={re.escape(file)} includes SOLUTION_FILE, as the whole .* does, but has no "
                         r'"#ifdef SOLUTION_FILE"', f"stage-{support.stage_num(graded_stage())}", "grade", f"FILE={file}")

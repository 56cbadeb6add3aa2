"""The teaching tools, no GPU needed: make stage-NN diff against the previous stage built the same way,
make stage-NN sass without cuobjdump, the exercises (stub and solution build, the stage gives nothing of
the answer away, hints in English and Chinese)."""
import os
import re
import unittest

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True


def earlier_same_name():
    """The programs with an earlier stage's program of the same file name (stage 13's reduce: stage 10's)."""
    seen, found = [], []
    for p in support.programs():
        if any(os.path.basename(q) == os.path.basename(p) for q in seen):
            found.append(p)
        seen.append(p)
    return found


def of_their_own():
    return [p for p in support.programs()[1:] if p not in earlier_same_name()]


def with_kernels(own):
    """The programs whose source has a __global__ of its own (OWN true), or has none (OWN false)."""
    return [p for p in support.programs() if ("__global__" in support.read(support.source_of(p))) == own]


def stubbed_names(stub):
    """The functions and structs that the stub's "#ifdef SOLUTION_FILE ... #else" branch leaves to write."""
    names, on, in_stub = set(), False, False
    for line in stub.split("\n"):
        if line.startswith("#ifdef SOLUTION_FILE"):
            on = True
            continue
        if on and line.startswith("#else"):
            in_stub = True
            continue
        if on and line.startswith("#endif"):
            on = in_stub = False
        if (in_stub and re.match(r"[A-Za-z_].*[A-Za-z_][A-Za-z0-9_]* *(\(|\{|$)", line)
                and not re.search(r";[ \t]*$", line)):
            head = re.sub(r"[ \t]*\{.*", "", re.sub(r"\(.*", "", line))
            names.add(re.split(r"[ \t*&]+", head)[-1])
    return sorted(n for n in names if n)


def defined(name, source):
    """Whether SOURCE defines the function or struct NAME (a line that starts its definition)."""
    return any(re.match(rf"[A-Za-z_].*[^A-Za-z0-9_]{name} *(\(|\{{|$)", line) and not re.search(r";[ \t]*$", line)
               or re.match(rf"struct {name}( |$)", line) and ";" not in line for line in source.split("\n"))


class FirstStageDiff(support.Case):

    def test_diff_of_the_first_stage_says_nothing_is_before_it(self):
        first = support.stage_of(support.programs()[0])
        self.expect_make(0, "is the first", f"stage-{support.stage_num(first)}", "diff")


@support.per(earlier_same_name, support.stage_of)
class Diff(support.Case):

    def test_each_diff_shows_the_change_from_the_previous_stage_built_the_same_way(self, program):
        """From the last earlier program of its file name (not the first), to this one."""
        earlier = support.programs()[:support.programs().index(program)]
        previous = [p for p in earlier if os.path.basename(p) == os.path.basename(program)][-1]
        self.expect_make(0, rf"^--- {re.escape(support.source_of(previous))}\s.*\n\+\+\+ {re.escape(support.source_of(program))}\s",
                         f"stage-{support.stage_num(support.stage_of(program))}", "diff")


@support.per(of_their_own, support.stage_of)
class DiffOfTheirOwn(support.Case):

    def test_each_diff_of_a_program_of_its_own_says_why_exit_2(self, program):
        self.expect_make(2, "a program of its own", f"stage-{support.stage_num(support.stage_of(program))}", "diff")


@support.per(lambda: with_kernels(True), support.stage_of)
class Sass(support.Case):

    def test_each_sass_without_cuobjdump_says_so_exit_4(self, program):
        self.expect(4, "cuobjdump not found",
                    ["bash", "scripts/stage_tool.sh", "sass", support.stage_of(program), "nvcc"],
                    env={"PATH": support.tools_path(self)})


@support.per(lambda: with_kernels(False), support.stage_of)
class SassNoKernels(support.Case):

    def test_each_sass_of_a_program_with_no_kernel_of_its_own_says_so_first_exit_2(self, program):
        """It says so before it looks for cuobjdump."""
        self.expect(2, "compiles no kernel of its own",
                    ["bash", "scripts/stage_tool.sh", "sass", support.stage_of(program), "nvcc"],
                    env={"PATH": support.tools_path(self)})


@support.per(support.exercises)
class Exercises(support.Case):

    def test_each_exercise_stub_builds(self, stage):
        self.need_build()
        self.assertTrue(support.built(f"build/{stage}/exercise"), f"make all built no build/{stage}/exercise")

    def test_each_solution_builds(self, stage):
        if not support.solved(stage):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.assertTrue(support.built(f"build/{stage}/solution"), f"make all built no build/{stage}/solution")

    def test_each_stage_program_does_not_define_what_its_exercise_leaves_to_write(self, stage):
        names = stubbed_names(support.read(f"stages/{stage}/exercise.cu"))
        self.assertTrue(names, f"stages/{stage}/exercise.cu: no stubbed function in its "
                               "#ifdef SOLUTION_FILE ... #else branch")
        source = support.source_of(support.program_of(stage))
        self.assertEqual([n for n in names if defined(n, support.read(source))], [], f"{source} defines them")

    def test_each_stub_has_as_many_hints_in_english_as_in_chinese(self, stage):
        stub = support.read(f"stages/{stage}/exercise.cu")
        english, chinese = len(re.findall(r"(?m)^ \* Hint:", stub)), len(re.findall(r"(?m)^ \* 提示：", stub))
        self.assertGreater(english, 0, "no hint")
        self.assertEqual(english, chinese, "hints in English and in Chinese")


class ExerciseRules(support.Case):

    def test_make_exercise_without_a_stage_asks_for_one_exit_2(self):
        self.expect_make(2, "name a stage", "exercise")

    def test_no_stage_file_includes_a_solution(self):
        """A stage's own file holds every kernel its README teaches: only the exercise includes a solution."""
        files = [f"stages/{s}/{f}" for s in support.stages() for f in sorted(os.listdir(f"{support.ROOT}/stages/{s}"))
                 if f.endswith(".cu") and f != "exercise.cu"]
        self.assertTrue(files, "no stage file")
        self.assertEqual([f for f in files if re.search(r"include.*solutions/", support.read(f))], [])

    def test_the_stub_parser_finds_a_stubbed_kernel_and_its_definition(self):
        stub = ("#ifdef SOLUTION_FILE\n#include SOLUTION_FILE\n#else\n"
                "__global__ void reduce_mine(const float *x)\n{\n}\n#endif\n")
        self.assertEqual(stubbed_names(stub), ["reduce_mine"])
        self.assertTrue(defined("reduce_mine", "__global__ void reduce_mine(const float *x, float *out)\n{"))
        self.assertFalse(defined("reduce_mine", "reduce_mine<<<blocks, 256>>>(x);"))


if __name__ == "__main__":
    unittest.main()

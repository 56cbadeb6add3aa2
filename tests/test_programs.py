"""Every program (make programs): the common flags, with the same meaning everywhere, and no GPU needed:
--help and --describe, every bad option refused with exit 2 and its message, no GPU found (exit 3, no CSV
row), the stage harness's own flags, the GPU engineer's tools without their tool, the demos and the
accuracy lab without a GPU."""
import functools
import glob
import json
import os
import re
import unittest

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

COMMON_FLAGS = "--n --kernel --list --describe --fill --seed --reps --warmup --csv --check --l2 --help".split()
NO_GPU = "no CUDA-capable GPU found"


@functools.lru_cache(None)
def output(program, *args):
    return support.run([os.path.join(support.ROOT, program), *args])


class ProgramCase(support.Case):

    def program(self, program):
        """PROGRAM, built (make all), or the test is skipped: make all leaves out what it cannot build here."""
        self.need_build()
        if not support.built(program):
            self.skipTest(f"{program} is not built here (its stage's tests say why)")
        return os.path.join(support.ROOT, program)

    def help_text(self, program):
        self.program(program)
        r = output(program, "--help")
        self.assertEqual(r.rc, 0, r)
        return r.out

    def table(self, program):
        """The kernel names of PROGRAM --list (its lines "  NAME ...")."""
        self.program(program)
        r = output(program, "--list")
        self.assertEqual(r.rc, 0, r)
        return set(re.findall(r"(?m)^  (\S+) ", r.out))


@support.per(support.programs, support.stage_of)
class CommonFlags(ProgramCase):

    def test_each_help_lists_every_common_flag(self, program):
        text = self.help_text(program)
        missing = [f for f in COMMON_FLAGS if not re.search(rf"(^|\s){f}(\s|$)", text)]
        self.assertEqual(missing, [], f"{program} --help does not list them")

    def test_each_describe_prints_one_json_document_of_the_schema(self, program):
        """--describe prints one JSON object: every field of scripts/describe.py's SCHEMA, in its order, each of
        its type; every kernel's role one of ROLES."""
        self.program(program)
        r = output(program, "--describe")
        self.assertEqual(r.rc, 0, r)
        found = json.loads(r.out)
        self.assertEqual(support.description.problems(found), [])
        self.assertEqual([k["role"] for k in found["kernels"] if k["role"] not in support.description.ROLES], [])

    def test_each_describe_names_its_stage_and_program(self, program):
        self.program(program)
        self.assertEqual(support.describe(program)["stage"], support.stage_of(program))
        self.assertEqual(support.describe(program)["program"], os.path.basename(program))

    def test_each_describe_has_check_sizes_and_its_check_and_bench_fills_among_its_fills(self, program):
        self.program(program)
        fills = support.describe(program)["fills"]
        check_fills = support.describe(program)["check_fills"]
        self.assertTrue(check_fills, "no check fills")
        self.assertTrue(support.describe(program)["check_sizes"], "no check sizes")
        unknown = [f for f in check_fills + support.describe(program)["bench_fills"] if f not in fills]
        self.assertEqual(unknown, [], f"check or bench fills not among its fills ({' '.join(fills)})")

    def test_each_describe_charts_are_charts_on_its_input_types(self, program):
        """Each chart names a chart of plots/*.gp, and each of its also_dtypes is one of the program's input
        types."""
        self.program(program)
        charts = {re.search(r"^# chart: *(\S+)", support.read(gp), re.M)[1]
                  for gp in glob.glob(os.path.join(support.ROOT, "plots", "*.gp"))}
        inputs = support.describe(program)["input_types"]
        for chart in support.describe(program)["charts"]:
            with self.subTest(chart=chart["name"]):
                self.assertIn(chart["name"], charts, f"no plots/*.gp has '# chart: {chart['name']}'")
                self.assertEqual([t for t in chart["also_dtypes"] if t not in inputs], [],
                                 f"not among its input types {inputs}")

    def test_each_help_says_what_each_of_its_fills_is(self, program):
        """--help's note on the fills (from "fills:" to the first option) names every fill --describe lists"""
        note = self.help_text(program).split("\n  --")[0].partition("fills:")[2]
        if not note:
            self.skipTest("its --help has no note on the fills")
        fills = support.describe(program)["fills"]
        self.assertTrue(fills, "--describe lists no fills")
        self.assertEqual([f for f in fills if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", note)], [],
                         f"fills its --help does not describe:\n{note}")

    def declared_kernels_in_table(self, program, key):
        table = self.table(program)
        self.assertTrue(table, f"{program} --list lists no kernel")
        declared = support.describe(program)[key]
        if not declared:
            self.skipTest(f"its --describe declares no {key}")
        self.assertEqual([k for k in declared if k not in table], [])

    def test_each_accuracy_kernels_are_kernels_of_its_table(self, program):
        self.declared_kernels_in_table(program, "accuracy_kernels")

    def test_each_limit_kernels_are_kernels_of_its_table(self, program):
        self.declared_kernels_in_table(program, "limit_kernels")

    def test_each_bad_option_exits_2_saying_what_is_wrong(self, program):
        path = self.program(program)
        first = next((k["name"] for k in support.kernels(program) if k["role"] == "default"), None)
        self.assertIsNotNone(first, "--describe lists no default kernel")
        for what, args, message in [
                ("an unknown flag", ["--bogus"], "unknown option '--bogus'"),
                ("--n without a value", ["--n"], "option --n needs a value"),
                ("--n 0", ["--n", "0"], "--n '0'"),
                ("--n -5", ["--n", "-5"], "--n '-5'"),
                ("--n abc", ["--n", "abc"], "--n 'abc'"),
                ("an unknown --kernel", ["--kernel", "nope"], "unknown kernel 'nope'"),
                ("--kernel with one unknown name in a list", ["--kernel", f"{first},nope"], "unknown kernel 'nope'"),
                ("an unknown --fill", ["--fill", "zeros"], "unknown fill 'zeros'"),
                ("--reps 0", ["--reps", "0"], "--reps '0'"),
                ("--warmup x", ["--warmup", "x"], "--warmup 'x'"),
                ("--l2 with a bad value", ["--l2", "cold"], "--l2 'cold'"),
                ("--csv to an unwritable path", ["--csv", "/nonexistent/dir/out.csv"], "cannot write the CSV")]:
            with self.subTest(what):
                self.expect(2, re.escape(message), [path, *args])

    def test_each_without_a_gpu_exits_3_saying_so_and_writes_no_csv_row(self, program):
        path = self.program(program)
        csv = os.path.join(support.scratch(self), "nogpu.csv")
        r = support.run([path, "--n", "1000", "--csv", csv], env={"CUDA_VISIBLE_DEVICES": ""})
        with self.subTest("exit 3 saying so"):
            self.assertEqual(r.rc, 3, r)
            self.assertIn(NO_GPU, r.out)
        with self.subTest("no CSV row"):
            self.assertFalse(os.path.exists(csv) and os.path.getsize(csv) > 0, f"{program} wrote to its CSV")

    def test_each_harness_flags_offset_cond_cols_refuse_bad_values_exit_2(self, program):
        path = self.program(program)
        text = self.help_text(program)
        cases = []
        if "--offset" in text:
            cases += [("--offset 16", ["--offset", "16"], "--offset '16'"),
                      ("--offset x", ["--offset", "x"], "--offset 'x'")]
        if "--cond" in text:
            cases += [("--cond 5, below 10", ["--fill", "cond", "--cond", "5"], "--cond '5'"),
                      ("--cond x", ["--fill", "cond", "--cond", "x"], "--cond 'x'"),
                      ("--cond without --fill cond", ["--cond", "1e8"], "of --fill cond only"),
                      ("--fill cond with two sizes", ["--fill", "cond", "--n", "1K,2K"], "one size a run")]
        if "--cols" in text and not support.describe(program)["row_stage"]:
            cases += [("--cols on a one-vector stage", ["--cols", "32"], "for a row stage")]
        if "--out" in text and not support.describe(program)["row_stage"]:
            cases += [("--out on a one-vector stage", ["--out", "x.npy"], "a row stage's")]
        if not cases:
            self.skipTest("its --help lists no --offset, --cond or --cols (the last on a one-vector stage)")
        for what, args, message in cases:
            with self.subTest(what):
                self.expect(2, re.escape(message), [path, *args])

    def test_each_profile_without_ncu_exits_4_or_2_for_a_multi_gpu_program(self, program):
        """make stage-NN profile: without ncu, exit 4 saying so; a program on several GPUs, exit 2 saying why."""
        self.program(program)
        stage = support.stage_of(program)
        if not support.describe(program)["several_gpus"]:
            self.expect(4, "ncu not found", ["bash", "scripts/stage_tool.sh", "profile", stage],
                        env={"PATH": support.tools_path(self)})
        else:
            self.expect(2, "not a single-GPU stage program", ["scripts/stage_tool.sh", "profile", stage])

    def test_each_sanitize_without_compute_sanitizer_exits_4_or_2_for_a_multi_gpu_program(self, program):
        self.program(program)
        stage = support.stage_of(program)
        if not support.describe(program)["several_gpus"]:
            self.expect(4, "compute-sanitizer not found", ["bash", "scripts/stage_tool.sh", "sanitize", stage],
                        env={"PATH": support.tools_path(self)})
        else:
            self.expect(2, "not a single-GPU stage program", ["scripts/stage_tool.sh", "sanitize", stage])


def demo_stages():
    return [s for s in support.stages() if os.path.exists(os.path.join(support.ROOT, "stages", s, "demo.cu"))]


@support.per(demo_stages)
class Demos(support.Case):

    def test_each_demo_without_a_gpu_exits_3_saying_so(self, stage):
        self.need_build()
        self.expect(3, NO_GPU, [os.path.join(support.ROOT, "build", stage, "demo")], env={"CUDA_VISIBLE_DEVICES": ""})


class Accuracy(support.Case):

    def test_make_accuracy_without_a_gpu_says_so_in_2_lines_exit_3(self):
        """The lab says so and stops: nothing but that line and the program it ran."""
        self.need_build()
        r = support.run(["bash", "scripts/accuracy.sh"], env={"CUDA_VISIBLE_DEVICES": ""})
        with self.subTest("exit 3 saying so"):
            self.assertEqual(r.rc, 3, r)
            self.assertIn(NO_GPU, r.out)
        with self.subTest("at most 2 lines"):
            self.assertLessEqual(len([line for line in r.out.split("\n") if line]), 2, r)


if __name__ == "__main__":
    unittest.main()

"""The GPU half: every kernel of every single-GPU program verified at its check sizes (make test: its first
check fill; make test-full: the others too), a row per kernel run, each row the header's columns, exit 0
with rows; the L2 flush measured with DRAM counters (ncu); the kernels' own times against ncu's; every
kernel at 50 random sizes; each exercise's stub failing its check and its solution passing (make test: on
its first check fill); make tour through every stage."""
import os
import re
import unittest

from tests import gpu_lib, support


def need_single_gpu(case, program):
    """Builds, and skips PROGRAM where it is not built here or runs on several GPUs."""
    case.need_build()
    if not support.built(program):
        case.skipTest(f"{program} is not built here (its stage's own tests say why)")
    if support.describe(program)["several_gpus"]:
        case.skipTest(f"{program} runs on several GPUs (--describe gpus: several): its stage's own tests run it")


@support.per(support.programs, name_of=support.stage_of)
class CheckSizes(support.Case):
    """Every kernel at the check sizes, a subtest per CSV row (kernel, dtype, n, fill)."""

    def verify(self, program, fills):
        for fill in fills:
            run = gpu_lib.check_run(program, fill)
            for row in run.rows:
                with self.subTest(kernel=row["kernel"], dtype=row["dtype"], n=row["n"], fill=fill):
                    self.assertTrue(gpu_lib.row_passes(row, fill),
                                    f"rel err {row['rel_err']}, pass={row['pass']}, bound {row['rel_bound'] or '-'}, "
                                    f"chain {row['chain'] or '-'}")
            with self.subTest(fill=fill, check="every CSV row has the header's columns"):
                self.assertEqual(run.ragged(), [], f"CSV lines whose fields are not the header's:\n{run.result.tail()}")
            with self.subTest(fill=fill, check="--check exits 0 with rows"):
                self.assertEqual(run.result.rc, 0, repr(run.result))
                self.assertTrue(run.rows, f"no kernel row in its CSV:\n{run.result.tail()}")

    @support.needs("gpu")
    def test_each_check_first_fill(self, program):
        """every kernel at the check sizes on the first check fill passes"""
        need_single_gpu(self, program)
        fills = gpu_lib.check_fills(program)
        self.assertTrue(fills, f"{program} --describe gives no check fills")
        self.verify(program, fills[:1])

    @support.needs("gpu")
    @support.full_only
    def test_each_check_other_fills(self, program):
        """every kernel at the check sizes on every check fill after the first passes"""
        need_single_gpu(self, program)
        fills = gpu_lib.check_fills(program)[1:]
        if not fills:
            self.skipTest(f"{program} --describe gives one check fill")
        self.verify(program, fills)

    @support.needs("gpu")
    def test_each_bound_is_the_committed_one(self, program):
        """each kernel's error bound and chain at the first bench size and fill are those committed for this GPU"""
        need_single_gpu(self, program)
        committed = gpu_lib.committed_rows(support.stage_of(program))
        if committed is None:
            self.skipTest("no committed reference of this GPU (plots/reference/*/results.csv)")
        size = support.describe(program)["bench_sizes"][0]
        fill = support.describe(program)["bench_fills"][0]
        run = gpu_lib.run_csv([os.path.join(support.ROOT, program), "--check", "--n", size, "--fill", fill,
                               "--reps", "1", "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertTrue(run.rows, f"no kernel row in its CSV:\n{run.result.tail()}")
        for row in run.rows:
            key = (row["kernel"], row["dtype"], row["n"], row["cols"], fill)
            with self.subTest(kernel=row["kernel"], dtype=row["dtype"], n=row["n"]):
                if key not in committed:
                    self.skipTest(f"not in the committed reference at N = {row['n']}")
                self.assertEqual((row["rel_bound"], row["chain"]), committed[key],
                                 "(bound, chain) here, against the committed (a declared shape changed since the "
                                 "reference was run: run make bench and make reference again)")

    @support.needs("gpu")
    @support.full_only
    def test_each_fuzz_50_random_sizes(self, program):
        """every kernel at 50 random sizes from 1 to 2^22 (seeded) on random data passes"""
        need_single_gpu(self, program)
        sizes = ",".join(map(str, gpu_lib.fuzz_sizes()))
        run = gpu_lib.run_csv([os.path.join(support.ROOT, program), "--check", "--n", sizes, "--reps", "1",
                               "--warmup", "0", "--seed", "7"])
        failed = [f"{r['kernel']} n={r['n']}" for r in run.rows if not gpu_lib.row_passes(r, r["fill"])]
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertGreaterEqual(len(run.rows), 50, f"{len(run.rows)} kernel rows:\n{run.result.tail()}")
        self.assertEqual(failed, [], "rows that do not pass")


class Gpu(support.Case):
    @support.needs("gpu")
    def test_a_program_runs_on_the_gpu_and_passes(self):
        """the first single-GPU program runs on the GPU and all its kernels pass at N = 1"""
        self.need_build()
        programs = support.single_gpu_programs()
        self.assertTrue(programs, "no single-GPU program is built")
        self.expect(0, "all kernels passed", [programs[0], "--n", "1", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_l2_flush_measured_with_dram_counters(self):
        """scripts/flush_check.sh: every reading ok, as many as the programs declare probes"""
        self.need_build()
        # Three sizes a probe, and a warm control a probe of a program with warm-L2 kernels.
        want = 0
        for p in support.single_gpu_programs():
            probes = len(support.describe(p)["flush_probes"])
            want += 3 * probes + (probes if support.describe(p)["warm_l2_kernels"] else 0)
        r = support.run(["bash", "scripts/flush_check.sh", os.path.join(support.scratch(self), "flush.csv")])
        readings = re.findall(r"^(ok|FAIL) (.*)$", r.out, re.M)
        for verdict, line in readings:
            with self.subTest(reading=line):
                self.assertEqual(verdict, "ok", line)
        self.assertEqual(r.rc, 0, repr(r))
        self.assertGreater(want, 0, "no program declares flush probes")
        self.assertEqual(sum(v == "ok" for v, _ in readings), want, f"readings ok, of {want} wanted:\n{r.tail()}")

    def kernel_times(self, most):
        """scripts/kernel_times.sh at 2^24 (MOST: its first MOST kernels, 0: all): every reading ok, MOST if given."""
        self.need_build()
        r = support.run(["bash", "scripts/kernel_times.sh", os.path.join(support.scratch(self), "times.csv"),
                         "16777216", str(most)])
        readings = re.findall(r"^(ok|FAIL) (.*)$", r.out, re.M)
        for verdict, line in readings:
            with self.subTest(reading=line):
                self.assertEqual(verdict, "ok", line)
        self.assertEqual(r.rc, 0, repr(r))
        self.assertTrue(readings, f"no reading:\n{r.tail()}")
        if most:
            self.assertEqual(len(readings), most, r.tail())

    @support.needs("gpu", "ncu")
    def test_a_kernels_own_time_agrees_with_ncu(self):
        """the first kernel whose partial sums the CPU adds: its launches' time (events) is ncu's, within its tolerance"""
        self.kernel_times(1)

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_every_kernels_own_time_agrees_with_ncu(self):
        """every kernel whose partial sums the CPU adds: its launches' time (events) is ncu's, within its tolerance"""
        self.kernel_times(0)

    @support.needs("gpu")
    @support.full_only
    def test_make_tour_runs_through_every_stage_without_waiting(self):
        """make tour, its input closed, exits 0 and reaches the last stage"""
        self.need_build()
        last = support.stage_of(support.programs()[-1])
        r = support.make("tour")
        self.assertEqual(r.rc, 0, repr(r))
        headings = [line for line in r.out.split("\n") if re.match(r"(Stage|Diff from) ", line)]
        self.assertIn(f"Stage {last}", headings[-3:], f"the last headings:\n{r.tail()}")


@support.per(support.exercises)
class Exercises(support.Case):
    @support.needs("gpu")
    def test_each_exercise_stub_fails_its_check(self, stage):
        """the exercise's stub fails its check (exit 1) and the hints follow"""
        self.need_build()
        self.expect(1, r"(?s)^FAIL: .*^Hints", ["bash", "scripts/stage_tool.sh", "exercise", stage])

    @support.needs("gpu")
    def test_each_solution_passes_its_check(self, stage):
        """the exercise's solution passes its check: at the check sizes on the first check fill (make test);
        make stage-NN solution's check, every fill, and its PASS line (make test-full)"""
        if not support.solved(stage):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        if support.FULL:
            self.expect(0, "^PASS", ["bash", "scripts/stage_tool.sh", "solution", stage])
            return
        program = f"build/{stage}/solution"
        self.expect(0, "", [program, "--check", "--n", ",".join(support.describe(program)["check_sizes"]), "--fill",
                            gpu_lib.check_fills(program)[0], "--reps", "1", "--warmup", "0"])


if __name__ == "__main__":
    unittest.main()

"""Stage 11 (scan and histogram): its build, its own options and its exercise (no GPU needed), its chart
through the reporting program, then on the GPU: every kernel and CUB exact at the check sizes, skewed data,
a scan past 2^31 elements, top-p's cut exact at every size, the exercise's stub failing and its solution
passing."""
import functools
import json
import os
import re
import unittest

from tests import gpu_lib, support

STAGE = "11_scan_histogram"
PROGRAM = f"build/{STAGE}/scan_histogram"
EXERCISE = os.path.join(support.ROOT, f"build/{STAGE}/exercise")
SOLUTION = os.path.join(support.ROOT, f"build/{STAGE}/solution")


def default_kernels(program):
    return [k["name"] for k in support.kernels(program) if k["role"] == "default"]


@functools.lru_cache(None)
def make_exercise():
    return support.make("stage-11", "exercise")


def plot_csv(path):
    """A small CSV of the program's layout, made up only to exercise the plot (committed charts come from
    measured CSVs), with the program's description beside it naming its charts."""
    lines = ["gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub"]
    for n in (1048576, 16777216):
        for k in ("scan_warp", "scan_block", "scan_device_wide", "scan_reduce_then_scan", "cub_inclusive_sum"):
            lines.append(f"X,{STAGE},{k},i32,{n},10,{n // 10000},1,0,1,,flushed,same,{n * 4},,")
        for dt in ("uniform", "skewed"):
            for k in ("histogram_global_atomics", "histogram_shared_privatized", "histogram_warp_aggregated",
                      "cub_histogram_even"):
                lines.append(f"X,{STAGE},{k},u8_{dt},{n},10,{n // 20000},1,0,1,,flushed,same,{n},,")
            for k in ("histogram4096_global_atomics", "histogram4096_shared", "cub_histogram_even_4096"):
                lines.append(f"X,{STAGE},{k},u16_{dt},{n},10,{n // 30000},1,0,1,,flushed,same,{n * 2},,")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(os.path.dirname(path), f"describe-{STAGE}.json"), "w", encoding="utf-8") as f:
        json.dump({"stage": STAGE, "charts": [{"name": "scan_histogram", "owned": True, "also_dtypes": []}]}, f)


class Stage11(support.Case):
    def test_make_builds_the_program_its_exercise_stub_and_its_solution(self):
        targets = [PROGRAM, f"build/{STAGE}/exercise"] + ([f"build/{STAGE}/solution"] if support.solved(STAGE) else [])
        self.expect_make(0, "", *targets)

    def test_describe_names_scan_device_wide_a_default_kernel(self):
        self.need_build()
        self.assertIn("scan_device_wide", default_kernels(PROGRAM))

    def test_a_kernel_list_with_one_unknown_name_exit_2(self):
        self.need_build()
        self.expect(2, "unknown kernel 'nope'", [PROGRAM, "--kernel", "scan_warp,nope"])

    def test_the_exercise_with_no_gpu_exits_3(self):
        self.need_build()
        self.expect(3, "no CUDA-capable GPU found", [EXERCISE, "--n", "1000"], env={"CUDA_VISIBLE_DEVICES": ""})

    def test_the_exercise_runs_only_its_own_kernel_scan_exclusive_by_default(self):
        self.need_build()
        self.assertEqual(default_kernels(f"build/{STAGE}/exercise"), ["scan_exclusive"])

    def test_the_stages_program_does_not_have_the_exercises_scan_exclusive(self):
        self.need_build()
        names = [k["name"] for k in support.kernels(PROGRAM)]
        self.assertTrue(names, f"{PROGRAM} --describe names no kernel")
        self.assertNotIn("scan_exclusive", names)

    def test_the_exercise_has_hints(self):
        self.assertRegex(support.read(f"stages/{STAGE}/exercise.cu"), r"(?m)^ \* Hint:")

    def test_readme_has_the_stage_results_markers(self):
        lines = support.read(f"stages/{STAGE}/README.md").split("\n")
        self.assertIn("<!-- stage-results:begin -->", lines)
        self.assertIn("<!-- stage-results:end -->", lines)

    def test_chart_through_the_reporting_programs_plot(self):
        """without gnuplot (exit 4), on another layout (exit 2), and drawn where gnuplot is installed"""
        from tests import charts_lib
        tmp = support.scratch(self)
        csv = os.path.join(tmp, "sh-plot.csv")
        plot_csv(csv)
        charts_lib.chart_script_checks(self, "11 chart", csv, "scan_histogram", tmp)

    def exact_at_check_sizes(self, fills):
        """Each fill's run: exit 0, every row exact, one row per kernel (but a deliberately wrong one) and size."""
        sizes = support.describe(PROGRAM)["check_sizes"]
        kernels = [k for k in support.kernels(PROGRAM) if k["role"] != "wrong"]
        for fill in fills:
            run = gpu_lib.check_run(PROGRAM, fill)
            with self.subTest(fill=fill, check="every kernel and CUB pass their exact checks"):
                self.assertEqual(run.result.rc, 0, repr(run.result))
                self.assertIn("all kernels passed verification", run.result.out)
                self.assertEqual([f"{r['kernel']} {r['dtype']} n={r['n']} wrong fraction {r['rel_err']} pass={r['pass']}"
                                  for r in run.rows if r["pass"] != "1"], [])
            with self.subTest(fill=fill, check="one CSV row per kernel and size"):
                self.assertEqual(len(run.rows), len(sizes) * len(kernels))

    @support.needs("gpu")
    def test_check_sizes_first_fill_every_kernel_exact_one_row_per_kernel_and_size(self):
        self.need_build()
        self.exact_at_check_sizes(gpu_lib.check_fills(PROGRAM)[:1])

    @support.needs("gpu")
    @support.full_only
    def test_check_sizes_other_fills_every_kernel_exact_one_row_per_kernel_and_size(self):
        self.need_build()
        fills = gpu_lib.check_fills(PROGRAM)[1:]
        self.assertTrue(fills, f"{PROGRAM} --describe gives one check fill")
        self.exact_at_check_sizes(fills)

    @support.needs("gpu")
    def test_skewed_data_every_histogram_gives_cubs_exact_counts(self):
        """on a size with many blocks and a tail; each is checked against the same exact CPU counts"""
        self.need_build()
        self.expect(0, "all kernels passed", [PROGRAM, "--check", "--n", "2^22+7", "--fill", "skewed", "--kernel",
                                              "histogram_global_atomics,histogram_shared_privatized,"
                                              "histogram_warp_aggregated,cub_histogram_even,histogram4096_global_atomics,"
                                              "histogram4096_shared,cub_histogram_even_4096", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_top_p_cut_is_the_exact_count_at_every_size_and_seed(self):
        """one element, a warp, a tile and its edges, several levels of tile sums; three seeds: the cut the GPU
        prints is the exact one, and its row passes"""
        self.need_build()
        for seed in ("1", "2", "77"):
            with self.subTest(seed=seed):
                run = gpu_lib.run_csv([os.path.join(support.ROOT, PROGRAM), "--check", "--kernel", "top_p_scan_then_cut",
                                       "--n", "1,2,31,1023,1024,1025,1000003,2^24+1", "--seed", seed, "--reps", "1",
                                       "--warmup", "0"])
                self.assertEqual(run.result.rc, 0, repr(run.result))
                cuts = re.findall(r"the cut keeps (\d+) \(exact: (\d+)\)", run.result.out)
                self.assertEqual(len(cuts), 8, run.result.tail())
                self.assertEqual([got for got, want in cuts if got != want], [])
                self.assertEqual(cuts[0], ("1", "1"), "one probability: it is kept")
                self.assertEqual([r["n"] for r in run.rows if r["kernel"] == "top_p_scan_then_cut" and r["pass"] != "1"], [])

    @support.needs("gpu")
    @support.full_only
    def test_a_scan_of_2_31_plus_5_elements_passes(self):
        """64-bit indices, three levels of block totals"""
        self.need_build()
        self.expect(0, "all kernels passed", [PROGRAM, "--check", "--n", "2^31+5", "--kernel",
                                              "scan_device_wide,scan_reduce_then_scan,cub_inclusive_sum", "--reps", "1",
                                              "--warmup", "0"])

    @support.needs("gpu")
    def test_make_exercise_the_stub_fails_its_check_exit_2(self):
        """make exits 2: its recipe failed"""
        self.need_build()
        r = make_exercise()
        self.assertEqual(r.rc, 2, repr(r))
        self.assertIn("FAIL: the exercise of stage 11", r.out)

    @support.needs("gpu")
    def test_make_exercise_a_failing_exercise_prints_its_hints(self):
        self.need_build()
        r = make_exercise()
        self.assertEqual(r.rc, 2, repr(r))
        self.assertRegex(r.out, r"(?m)^  - ")

    @support.needs("gpu")
    def test_the_exercise_stub_an_inclusive_scan_is_wrong_from_the_first_element_exit_1(self):
        self.need_build()
        self.expect(1, "scan_exclusive +FAIL@index 0 ", [EXERCISE, "--check", "--n", "1", "--kernel", "scan_exclusive",
                                                         "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_the_solutions_exclusive_scan_at_the_edges_of_a_tile_and_of_a_level_of_tile_sums(self):
        if not support.solved(STAGE):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.expect(0, "all kernels passed", [SOLUTION, "--check", "--n", "1023,1024,1025,2^20,2^20+1", "--kernel",
                                              "scan_exclusive", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_make_solution_passes(self):
        if not support.solved(STAGE):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.expect_make(0, "PASS: the solution of stage 11", "stage-11", "solution")


if __name__ == "__main__":
    unittest.main()

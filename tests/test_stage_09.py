"""Stage 09 (a sum per row): its options (no GPU needed), then its rows on the GPU: random shapes, --fill
ones, a NaN (+Inf) in one row, rows of one element, LayerNorm's moments of rows with a large mean and a
small spread, every sub-warp width, a matrix past 2^31 elements, the per-group abs-max and the sum of
squares on mean-0 rows, the article's warp count dropping a partial warp, and the exercise's solution on few
long rows."""
import os
import random
import re
import struct
import unittest

from tests import gpu_lib, npy, support

ROWS = os.path.join(support.ROOT, "build/09_rows/reduce")
SOLUTION = os.path.join(support.ROOT, "build/09_rows/solution")


def kernels():
    """Every kernel a run times without --kernel (and CUB's row): --describe's, less the deliberately wrong."""
    return [k["name"] for k in support.kernels("build/09_rows/reduce") if k["role"] != "wrong"]


def log_sum_exp_kernels():
    return [k for k in kernels() if re.match(r"rows_[a-z_]*softmax", k)]


def welford_kernels():
    """The kernels that write a row's mean and variance."""
    return [k for k in kernels() if "welford" in k]


class Stage09(support.Case):
    def test_rows_without_cols_is_a_usage_error_exit_2(self):
        self.need_build()
        self.expect(2, "--rows needs --cols", [ROWS, "--rows", "5"])

    def test_cols_longer_than_the_matrix_is_a_usage_error_exit_2(self):
        self.need_build()
        self.expect(2, "each H must be at most", [ROWS, "--n", "1000", "--cols", "2000"])

    def test_a_matrix_size_with_0_columns_is_a_usage_error_exit_2(self):
        self.need_build()
        self.expect(2, "--n '3x0'", [ROWS, "--n", "3x0"])

    def test_out_without_one_kernel_and_one_size_or_to_an_unwritable_path_is_a_usage_error_exit_2(self):
        self.need_build()
        first = kernels()[0]
        for what, args in [("no --kernel", []), ("two kernels", ["--kernel", f"{first},{first}"]),
                           ("--kernel all", ["--kernel", "all"]), ("two sizes", ["--kernel", first, "--n", "7x33,5x9"])]:
            with self.subTest(what):
                self.expect(2, r"^error: --out x\.npy: name one kernel", [ROWS, "--out", "x.npy", "--n", "7x33", *args])
        self.expect(2, r"^error: --out '/nonexistent/x\.npy': the file cannot be written",
                    [ROWS, "--out", "/nonexistent/x.npy", "--kernel", first, "--n", "7x33"])

    @support.needs("gpu")
    def test_out_writes_every_rows_result_and_the_csv_the_worst_rows(self):
        """--input rows whose sums are exact in fp32 in any order: --out holds each row's sum, and the CSV's
        result (the worst row's: all exact, the first) its decimal and bits"""
        self.need_build()
        tmp = support.scratch(self)
        data, out = os.path.join(tmp, "rows.npy"), os.path.join(tmp, "out.npy")
        npy.write(data, npy.encode("<f4", "7,33"))
        values = [(i % 97) / 8 - 3 for i in range(7 * 33)]
        sums = [sum(values[r * 33:(r + 1) * 33]) for r in range(7)]
        kernel = next(k for k in kernels() if k not in log_sum_exp_kernels() and k not in welford_kernels())
        run = gpu_lib.run_csv([ROWS, "--check", "--input", data, "--kernel", kernel, "--out", out, "--reps", "2",
                               "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        with open(out, "rb") as f:
            raw = f.read()
        length = struct.unpack("<H", raw[8:10])[0]
        self.assertIn("'shape': (7,)", raw[10:10 + length].decode("latin1"))
        self.assertEqual(list(struct.unpack("<7f", raw[10 + length:])), sums)
        row = next(r for r in run.rows if r["kernel"] == kernel)
        self.assertEqual((float(row["result"]), row["result_bits"]),
                         (sums[0], "0x" + struct.pack(">f", sums[0]).hex()))

    @support.needs("gpu")
    @support.full_only
    def test_fuzz_30_random_shapes_every_kernel_on_unaligned_rows_passes(self):
        """rows x cols, odd or not, each kernel against its fp64 row sums"""
        self.need_build()
        rng = random.Random(909)
        shapes = ",".join(f"{rng.randint(1, 3000)}x{rng.randint(1, 5000)}" for _ in range(30))
        run = gpu_lib.run_csv([ROWS, "--check", "--n", shapes, "--reps", "1", "--warmup", "0", "--seed", "9",
                               "--offset", "1"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertEqual(len(run.rows), 30 * len(kernels()), f"rows, wanted 30 shapes x the kernels:\n{run.result.tail()}")
        self.assertEqual([f"{r['kernel']} {r['n']}/{r['cols']}" for r in run.rows if r["pass"] != "1"], [],
                         "rows that do not pass")

    @support.needs("gpu")
    def test_fill_ones_every_sum_kernel_gives_exactly_1000_the_log_sum_exps_1_plus_log_1000(self):
        """777 rows of 1000 ones: every sum kernel exact (Welford's: mean 1, variance 0), every log-sum-exp
        kernel within its bound"""
        self.need_build()
        run = gpu_lib.run_csv([ROWS, "--check", "--rows", "777", "--cols", "1000", "--fill", "ones", "--reps", "1",
                               "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        lse = log_sum_exp_kernels()
        exact = sorted(r["kernel"] for r in run.rows if r["kernel"] not in lse and float(r["rel_err"]) == 0 and r["pass"] == "1")
        passed = sorted(r["kernel"] for r in run.rows if r["kernel"] in lse and r["pass"] == "1")
        self.assertEqual(exact, sorted(k for k in kernels() if k not in lse), "the sum kernels exact")
        self.assertEqual(passed, sorted(lse), "the log-sum-exp kernels passing")

    def non_finite(self, fill):
        self.need_build()
        self.expect(0, "all kernels passed", [ROWS, "--check", "--n", "7x1000,1000x7,3x333,1x1000003", "--fill", fill,
                                              "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_fill_nan_the_row_holding_it_gives_nan_from_every_kernel_the_other_rows_pass(self):
        """a NaN at element 777: its row's sums and log-sum-exps are NaN, every other row its finite value"""
        self.non_finite("nan")

    @support.needs("gpu")
    def test_fill_inf_the_row_holding_it_gives_inf_from_every_kernel_the_other_rows_pass(self):
        self.non_finite("inf")

    @support.needs("gpu")
    def test_rows_of_one_element_every_log_sum_exp_kernel_gives_the_element_exactly(self):
        """exp(0) = 1, log(1) = 0"""
        self.need_build()
        lse = log_sum_exp_kernels()
        self.assertTrue(lse, "no log-sum-exp kernel in --describe")
        run = gpu_lib.run_csv([ROWS, "--check", "--n", "1000x1", "--kernel", ",".join(lse), "--reps", "1", "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        # CUB's row sum, timed beside every run, is not a log-sum-exp.
        exact = sorted(r["kernel"] for r in run.rows if r["kernel"] in lse and float(r["rel_err"]) == 0 and r["pass"] == "1")
        self.assertEqual(exact, sorted(lse), f"the log-sum-exp kernels exact:\n{run.result.tail()}")

    @support.needs("gpu")
    def test_welford_on_rows_of_40_plus_minus_1_from_a_file_mean_and_variance_within_a_checking_bound(self):
        """129 rows of 1000 values 40 + [-1, 1): the variance's condition number about 70, where the fp32 sum
        and sum of squares misses the bound (tests/test_host.c shows it); Welford's mean and variance pass,
        held to a bound below a thousandth ("1", not "unchecked")"""
        self.need_build()
        welford = welford_kernels()
        self.assertTrue(welford, "no Welford kernel in --describe")
        rows, cols = 129, 1000
        rng = random.Random(40)
        data = struct.pack(f"<{rows * cols}f", *(40.0 + rng.uniform(-1.0, 1.0) for _ in range(rows * cols)))
        header = npy.encode("<f4", f"{rows},{cols}")[:-len(data)]
        path = npy.write(os.path.join(support.scratch(self), "offset.npy"), header + data)
        run = gpu_lib.run_csv([ROWS, "--check", "--input", path, "--kernel", ",".join(welford), "--reps", "1",
                               "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        checked = sorted(r["kernel"] for r in run.rows if r["kernel"] in welford and r["pass"] == "1")
        self.assertEqual(checked, sorted(welford), f"the Welford kernels checked and passing:\n{run.result.tail()}")

    @support.needs("gpu")
    def test_group_abs_max_exact_and_sum_of_squares_within_its_bound_on_random_rows(self):
        """mean-0 data, so that a row's largest magnitude is often a negative value: the abs-max exact, bit for
        bit, and the sum of squares within its bound, on rows of 1, odd and unaligned lengths"""
        self.need_build()
        run = gpu_lib.run_csv([ROWS, "--check", "--n", "1000x1,7x1000,3x333,33x4097,2x1000003", "--fill", "random",
                               "--kernel", "rows_group_abs_max,rows_rms_sum_squares", "--offset", "1", "--reps", "1",
                               "--warmup", "0"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        mine = [r for r in run.rows if r["kernel"] != "cub"]
        self.assertEqual(len(mine), 10, f"two kernels at five shapes:\n{run.result.tail()}")
        self.assertEqual([f"{r['kernel']} {r['n']}/{r['cols']}" for r in mine if r["pass"] != "1"], [])
        self.assertEqual([r["n"] for r in mine if r["kernel"] == "rows_group_abs_max" and float(r["rel_err"]) != 0], [],
                         "abs-max rows not exact")

    @support.needs("gpu")
    def test_the_articles_count_of_warps_drops_a_partial_last_warp(self):
        """blockReduceSum's blockDim.x >> 5 with 100 threads: rows of 96 columns pass (warp 3 holds nothing),
        rows of 97 and 1000 fail their check, exit 1"""
        self.need_build()
        args = [ROWS, "--check", "--kernel", "rows_block_reduce_drops_warp", "--reps", "1", "--warmup", "0", "--n"]
        self.expect(0, "all kernels passed", args + ["64x96"])
        run = gpu_lib.run_csv(args + ["64x97,64x1000"])
        self.assertEqual(run.result.rc, 1, repr(run.result))
        self.assertEqual(sorted(r["cols"] for r in run.rows if r["kernel"] == "rows_block_reduce_drops_warp"
                                and r["pass"] == "0"), ["1000", "97"], run.result.tail())

    @support.needs("gpu")
    def test_subwarp_and_auto_at_cols_1_to_48_and_around_every_width_on_unaligned_rows(self):
        """each row read once, by a group of 1, 2, ..., 32 lanes, around each width's threshold"""
        self.need_build()
        cols = ",".join(map(str, range(1, 49))) + ",63,64,65,127,128,129,255,256,257,511,512,513,2047,2048,2049"
        self.expect(0, "all kernels passed", [ROWS, "--check", "--rows", "37", "--kernel", "rows_subwarp_per_row,rows_auto",
                                              "--offset", "3", "--reps", "1", "--warmup", "0", "--cols", cols])

    @support.needs("gpu")
    @support.full_only
    def test_a_matrix_of_2_16_x_32769_past_2_31_elements_every_kernel_passes(self):
        self.need_build()
        self.expect(0, "all kernels passed", [ROWS, "--check", "--n", "2^16x32769", "--reps", "1", "--warmup", "0"])

    def solution_on_long_rows(self, fill):
        """few long rows in slices, unaligned; three runs give the same bits (the finish is a second kernel)"""
        if not support.solved("09_rows"):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.expect(0, "all kernels passed", [SOLUTION, "--check", "--n", "1x2^22+3,2x777777,3x100003,9x8191,5x4096",
                                              "--fill", fill, "--offset", "1", "--seed", "9", "--reps", "3", "--warmup", "0"])

    @support.needs("gpu")
    def test_exercise_solution_on_few_long_rows_fill_ones_the_same_bits_every_run(self):
        """--fill ones makes every row exactly its length"""
        self.solution_on_long_rows("ones")

    @support.needs("gpu")
    def test_exercise_solution_on_few_long_rows_fill_random_the_same_bits_every_run(self):
        self.solution_on_long_rows("random")


if __name__ == "__main__":
    unittest.main()

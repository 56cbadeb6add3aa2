"""Stage 01 (naive reductions, and the CPU loop they start from): its --describe, the CPU loop's lost ones
at 2^24 + 1, the tree record's shared-memory wavefronts against Nsight Compute's, the kernel the record
cannot follow, and make stage-NN profile's table (the counters its README reads) from a made-up ncu."""
import functools
import os
import re
import unittest

from tests import support

NAIVE = os.path.join(support.ROOT, "build/01_naive/reduce")
TREE = os.path.join(support.ROOT, "build/01_naive/tree")


@functools.lru_cache(None)
def ones_past_2_24():
    """2^24 + 1 ones, every kernel checked."""
    return support.run([NAIVE, "--n", "2^24+1", "--fill", "ones", "--reps", "1", "--check"])


class Stage01(support.Case):
    def test_describe_cpu_sequential_is_a_cpu_row_and_the_baseline_the_first_gpu_kernel(self):
        self.need_build()
        self.assertIn({"name": "cpu_sequential", "dtype": "f32", "role": "cpu", "accumulator": "f32", "unchecked_from": 0.001},
                      support.kernels(NAIVE))
        self.assertEqual(support.describe(NAIVE)["baseline"], "reduce_global_inplace")

    @support.needs("gpu")
    def test_cpu_sequential_on_2_24_plus_1_ones_stops_at_16777216_not_checked(self):
        # The sequential fp32 sum stops growing at 2^24; its one chain runs through every input, so no bound
        # below the whole sum holds and its row says "-" (not checked), not ok.
        self.need_build()
        r = ones_past_2_24()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertRegex(r.out, r"(?m)cpu_sequential +16777216 .* - ")

    @support.needs("gpu")
    def test_reduce_interleaved_sums_2_24_plus_1_ones_exactly(self):
        self.need_build()
        r = ones_past_2_24()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertRegex(r.out, r"(?m)^reduce_interleaved +16777217 .* ok")

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_tree_reduce_interleaved_recorded_wavefronts_are_those_ncu_measures(self):
        """the interleaved tree (tid % (2*s)): divergent, no bank conflict"""
        self.need_build()
        self.expect(0, "loads .* agree", ["bash", "scripts/tree.sh", "agree", "01_naive", "reduce_interleaved"])

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_tree_strided_solution_recorded_wavefronts_bank_conflicts_are_those_ncu_measures(self):
        """the exercise's strided tree (index = 2*s*tid): 2-way and worse conflicts"""
        if not support.solved("01_naive"):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.expect_make(0, "", "build/01_naive/tree-solution", "build/01_naive/solution")
        self.expect(0, "loads .* agree", ["bash", "scripts/tree.sh", "agree", "01_naive", "reduce_interleaved_strided"],
                    env={"PROGRAM": "solution"})

    def test_tree_refuses_the_kernel_that_halves_in_global_memory_exit_5(self):
        self.need_build()
        self.expect(5, "reduce_global_inplace cannot be recorded: it halves its slice in global memory",
                    [TREE, "--kernel", "reduce_global_inplace"])


# A made-up ncu for scripts/stage_tool.sh profile: it prints Nsight Compute's CSV (every metric asked for, two
# launches of each kernel, the last one's values to be shown) and, as the program would, writes the program's CSV
# (--csv FILE after the program) with N in the last row that is not the device's.
FAKE_NCU = r'''#!/usr/bin/env python3
import sys
args = sys.argv[1:]
metrics = args[args.index("--metrics") + 1].split(",")
app = args[args.index("--csv") + 2:]
VALUES = {"dram__bytes_read.sum": "4,000", "dram__bytes_write.sum": "2000", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum": "9000",
          "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct": "55.5", "lts__t_sector_hit_rate.pct": "66.6",
          "gpu__time_duration.sum": "81900"}
if "--no-csv" not in app:
    with open(app[len(app) - 1 - app[::-1].index("--csv") + 1], "w") as f:
        f.write("gpu,stage,kernel,dtype,n,pass\nX,device,dram_peak,,,\nX,01_naive,reduce_global_inplace,f32,1000,1\n"
                "X,device,l2_size,,13107200,\n")
print('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"')
for launch, kernel in enumerate(["void reduce_global_inplace(float *, float *, unsigned long)"] * 2):
    for m in metrics:
        value = VALUES.get(m, "1") if launch else "99999"
        print(f'"{launch}","{kernel}","{m}","","{value}"')
'''


class Stage01Profile(support.Case):
    """scripts/stage_tool.sh profile without a GPU: a made-up ncu's counters through the real script and report."""

    def profile(self, *args):
        self.need_build()
        folder = os.path.join(support.scratch(self), "bin")
        os.mkdir(folder)
        ncu = os.path.join(folder, "ncu")
        with open(ncu, "w", encoding="utf-8") as f:
            f.write(FAKE_NCU)
        os.chmod(ncu, 0o755)
        return self.expect(0, "", ["bash", "scripts/stage_tool.sh", "profile", "01_naive", *args],
                           env={"PATH": folder + os.pathsep + os.environ["PATH"],
                                "REDUCE_PROGRAMS": "build/01_naive/reduce"})

    def test_profile_shows_hit_rates_and_bytes_per_element_each_column_in_the_legend(self):
        out = self.profile().out
        self.assertRegex(out, r"(?m)^Nsight Compute, N = 1000 ")
        header = re.search(r"(?m)^kernel +(.*)$", out)
        self.assertTrue(header, out)
        for column in ("ld B/el", "L1 hit%", "L2 hit%", "rd B/el", "wr B/el"):
            self.assertIn(column, header[1])
            self.assertIn(column, out[:header.start()], f"the legend does not say what {column} is")
        # the last launch's values: 9000 sector bytes, 4,000 (ncu's thousands separator) and 2000 DRAM bytes over
        # N = 1000 elements (not the device rows' n), and the two hit rates as given
        row = re.search(r"(?m)^reduce_global_inplace +(.*)$", out)
        self.assertTrue(row, out)
        cells = row[1].split()
        self.assertEqual(cells[6:11], ["9.00", "55.5", "66.6", "4.00", "2.00"], f"{header[0]}\n{row[0]}")
        self.assertEqual(cells[-1], "81.9")

    def test_profile_without_the_programs_rows_says_so_and_shows_no_bytes_per_element(self):
        out = self.profile("--no-csv").out
        self.assertRegex(out, r"(?m)^Nsight Compute, N = \? ")
        cells = re.search(r"(?m)^reduce_global_inplace +(.*)$", out)[1].split()
        self.assertEqual([cells[i] for i in (6, 9, 10)], ["-", "-", "-"])


if __name__ == "__main__":
    unittest.main()

"""Stage 01 (naive reductions, and the CPU loop they start from): its --describe, the CPU loop's lost ones
at 2^24 + 1, the tree record's shared-memory wavefronts against Nsight Compute's, and the kernel the record
cannot follow."""
import functools
import os
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
        self.assertIn("kernel: cpu_sequential f32 cpu f32", support.describe_lines(NAIVE))
        self.assertEqual(support.describe(NAIVE, "baseline"), "reduce_global_inplace")

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


if __name__ == "__main__":
    unittest.main()

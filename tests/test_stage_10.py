"""Stage 10 (the libraries) and its demo: the demo's exact block sums and exact sums per label (by atomics,
__match_any_sync and cg::labeled_partition), the three grid finishes' equal bits,
the WarpScan aggregate's exact sum, WarpScan's shuffles in the SASS, the pairwise exercise, and the
cg::reduce record against Nsight Compute."""
import functools
import os
import re
import unittest

from tests import support

LIBRARY = os.path.join(support.ROOT, "build/10_library/reduce")
EXERCISE = os.path.join(support.ROOT, "build/10_library/exercise")
SOLUTION = os.path.join(support.ROOT, "build/10_library/solution")
GRID_FINISHES = ["grid_sync_cooperative", "grid_last_block", "grid_two_launches"]
LABEL_PATTERNS = 4  # the rows of the demo's table of sums per label


@functools.lru_cache(None)
def demo():
    return support.run([os.path.join(support.ROOT, "build/10_library/demo")])


def label_rows(out):
    """The rows of the demo's table of sums per label: (pattern, groups per warp, three times in us)."""
    rows = re.findall(r"(?m)^(\d+ labels, [^\d]+(?:\d+)?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out)
    return [(name.strip(), *map(float, numbers)) for name, *numbers in rows]


def grid_differences(out):
    """What differs among the grid finishes' table rows: a result that varies between runs, two results of one
    size that differ, or a count of rows other than 3 finishes x 4 sizes."""
    problems, results, size, rows = [], {}, None, 0
    for line in out.split("\n"):
        fields = line.split()
        if line.startswith("N = ") and len(fields) >= 3:
            size = fields[2].rstrip(",:;")
        elif fields and fields[0].startswith("grid_"):
            rows += 1
            if fields[-1] != "same":
                problems.append(f"{size}: {fields[0]} varies")
            if results.setdefault(size, fields[1]) != fields[1]:
                problems.append(f"{size}: {fields[0]} gives {fields[1]}, another finish {results[size]}")
    if rows != 12:
        problems.append(f"{rows} rows, not 12")
    return problems


class Stage10(support.Case):
    @support.needs("gpu")
    def test_demo_shuffles_and_shared_memory_both_give_every_blocks_exact_sum(self):
        self.need_build()
        self.assertEqual(demo().rc, 0, repr(demo()))
        self.assertIn("every block's total is the exact sum", demo().out)

    @support.needs("gpu")
    def test_demo_labeled_partition_match_any_and_atomics_give_every_labels_exact_sum(self):
        """cg::labeled_partition and cg::reduce on the group against __match_any_sync by hand and an atomic each"""
        self.need_build()
        self.assertEqual(demo().rc, 0, repr(demo()))
        self.assertIn("every label's sum is the exact sum, by all three", demo().out)
        rows = label_rows(demo().out)
        self.assertEqual(len(rows), LABEL_PATTERNS, demo().tail(10))
        runs = {name: groups for name, groups, *_ in rows}
        self.assertEqual(runs["4 labels, runs of 32"], 1.0, "a run of 32 aligned to the warps: one group per warp")
        self.assertGreater(runs["1024 labels, at random"], 25, "1024 labels at random: nearly one group per lane")

    @support.needs("gpu")
    def test_the_three_grid_finishes_give_the_same_bits_at_every_size_in_every_run(self):
        """they share the grid, the loop, the block's sum and the finish's order of additions"""
        self.need_build()
        r = support.run([LIBRARY, "--check", "--kernel", ",".join(GRID_FINISHES), "--n", "1,257,1000003,2^24+1",
                         "--reps", "3", "--warmup", "1"])
        self.assertEqual(r.rc, 0, repr(r))
        self.assertEqual(grid_differences(r.out), [], r.tail(12))

    @support.needs("gpu")
    def test_cub_warp_scan_aggregate_gives_the_exact_51903600_the_same_in_every_run(self):
        """the warp shuffle article's int data (stage 05's check), i % 100 over 2^20"""
        self.need_build()
        self.expect(0, r"cub_warp_scan_aggregate +51903600 .* ok .* same",
                    [LIBRARY, "--kernel", "cub_warp_scan_aggregate", "--n", "2^20", "--fill", "mod100", "--reps", "5",
                     "--check"])

    @support.needs("gpu", "cuobjdump")
    @support.full_only
    def test_make_sass_warpscans_scan_is_shfl_up(self):
        self.need_build()
        self.expect_make(0, "SHFL.UP", "stage-10", "sass")

    # The pairwise exercise: its stub is the plain fp32 loop, right on random data (within the pairwise
    # bound there) but several times past it on the wide data, where its sum grows past 1e11.
    @support.needs("gpu")
    def test_exercise_stubs_plain_loop_is_within_the_pairwise_bound_on_random_data(self):
        self.need_build()
        self.expect(0, "all kernels passed", [EXERCISE, "--check", "--n", "1000003", "--fill", "random", "--reps", "1",
                                              "--warmup", "0"])

    @support.needs("gpu")
    def test_exercise_stubs_plain_loop_misses_the_pairwise_bound_on_the_wide_data_exit_1(self):
        self.need_build()
        self.expect(1, "cpu_pairwise_f32 .* FAIL", [EXERCISE, "--check", "--n", "1000003", "--fill", "wide", "--reps", "1",
                                                    "--warmup", "0"])

    @support.needs("gpu")
    def test_exercise_solution_meets_the_pairwise_bound_on_the_wide_data(self):
        if not support.solved("10_library"):
            self.skipTest(support.NO_SOLUTIONS)
        self.need_build()
        self.expect(0, "all kernels passed", [SOLUTION, "--check", "--n", "1000003", "--fill", "wide", "--reps", "1",
                                              "--warmup", "0"])

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_tree_cg_reduce_block_recorded_wavefronts_are_those_ncu_measures(self):
        """cg::reduce recorded from the cooperative groups headers: the warp sums around block.sync()"""
        self.need_build()
        self.expect(0, "loads .* agree", ["bash", "scripts/tree.sh", "agree", "10_library", "cg_reduce_block"])


if __name__ == "__main__":
    unittest.main()

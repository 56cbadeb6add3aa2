"""Stage 05 (warp shuffles) and its demo: the demo against the programming guide's rules, the shuffle
article's exact int all-reduce, the shuffles in the SASS, and the tree record against Nsight Compute."""
import functools
import os
import unittest

from tests import support

DEMO = os.path.join(support.ROOT, "build/05_shuffle/demo")
SHUFFLE = os.path.join(support.ROOT, "build/05_shuffle/reduce")


@functools.lru_cache(None)
def demo():
    return support.run([DEMO])


class Stage05(support.Case):
    @support.needs("gpu")
    def test_demo_matches_the_programming_guides_rules_all_352_values(self):
        self.need_build()
        r = demo()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertIn("all 352 values match", r.out)

    @support.needs("gpu")
    def test_demo_xor_with_width_16_lanes_0_to_15_keep_their_own_value(self):
        """the partner of lanes 0-15 is in a later group"""
        self.need_build()
        r = demo()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertRegex(r.out, r"laneMask 16, width 16\) +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +10 +11 +12 +13 +14 +15 +0 +1 ")

    @support.needs("gpu")
    def test_xor_allreduce_int_gives_the_articles_exact_51903600_the_same_in_every_run(self):
        """int data i % 100 over 2^20 elements, integer atomics: the same bits in each of 5 runs"""
        self.need_build()
        self.expect(0, r"reduce_xor_allreduce_int +51903600 .* ok .* same",
                    [SHUFFLE, "--kernel", "reduce_xor_allreduce_int", "--n", "2^20", "--fill", "mod100",
                     "--reps", "5", "--check"])

    @support.needs("gpu", "cuobjdump")
    def test_make_sass_shows_shuffles_in_the_shuffle_kernels(self):
        self.need_build()
        self.expect_make(0, "SHFL.DOWN [1-9]", "stage-05", "sass")

    @support.needs("gpu", "ncu")
    @support.full_only
    def test_tree_reduce_warp_shuffle_recorded_wavefronts_are_those_ncu_measures(self):
        """shuffle first: one store a warp and one load of the 32 warp sums"""
        self.need_build()
        self.expect(0, "loads .* agree", ["bash", "scripts/tree.sh", "agree", "05_shuffle", "reduce_warp_shuffle"])


if __name__ == "__main__":
    unittest.main()

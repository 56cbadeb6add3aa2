"""Stage 05 (warp shuffles) and its demo: the demo against the programming guide's rules and its
atomicCAS maximum against the host's, the shuffle article's exact int all-reduce, the shuffles in the SASS,
the tree record against Nsight Compute, and the mask-less shuffles the README says no longer compile."""
import functools
import os
import shutil
import unittest

from tests import support
from tests import test_stage_04 as stage_04

DEMO = os.path.join(support.ROOT, "build/05_shuffle/demo")
SHUFFLE = os.path.join(support.ROOT, "build/05_shuffle/reduce")


@functools.lru_cache(None)
def demo():
    return support.run([DEMO])


def nvcc():
    """The nvcc the Makefile builds with (NVCC, else on the PATH, else CUDA's default place), or None. A link
    is followed: nvcc finds its headers beside its real path."""
    found = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return os.path.realpath(found) if os.path.exists(found) else None


# The course chapter's §7.5 Q2: the shuffles without a mask. What nvcc says of one for compute capability
# 7.0 and later, as the README quotes it.
OLD_SHUFFLE_ERROR = 'identifier "__shfl_down" is undefined'


def shuffle_source(call):
    return f"__global__ void k(float *x) {{ x[threadIdx.x] = {call}; }}\n"


def compile_ptx(test, source, arch):
    """nvcc -arch=ARCH -ptx on SOURCE, in a scratch folder: its Result."""
    folder = support.scratch(test)
    path = os.path.join(folder, "shuffle.cu")
    with open(path, "w") as f:
        f.write(source)
    return support.run([nvcc(), f"-arch={arch}", "-ptx", path, "-o", os.path.join(folder, "shuffle.ptx")])


class Stage05(support.Case):
    def test_readmes_list_every_kernel_of_the_stage_file_in_its_order(self):
        self.assertEqual(stage_04.kernel_table_problems("05_shuffle"), [])

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
    def test_demo_atomiccas_maximum_matches_the_hosts_in_both_kernels(self):
        """seven data sets (negative values, -0 beside +0, NaN skipped), a CAS loop per thread and per block"""
        self.need_build()
        r = demo()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertIn("all 14 maxima match the host's, bit for bit, in both kernels", r.out)
        self.assertRegex(r.out, r"(?m)^negative, some -0, one \+0 +0 ")
        self.assertRegex(r.out, r"(?m)^negative, some -0 +-0 ")

    def test_mask_less_shuffles_do_not_compile_for_compute_capability_7_0_on(self):
        """__shfl_down without a mask is undefined for sm_75 and sm_90; __shfl_down_sync compiles (so the
        failure is the missing intrinsic, not the file), and both READMEs quote nvcc's error"""
        if not nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        archs = [a for a in ("sm_75", "sm_90") if f"compute_{a[3:]}" in support.run([nvcc(), "--list-gpu-arch"]).out]
        self.assertTrue(archs, "this nvcc builds neither sm_75 nor sm_90")
        for arch in archs:
            with self.subTest(arch):
                old = compile_ptx(self, shuffle_source("__shfl_down(x[threadIdx.x], 1)"), arch)
                self.assertNotEqual(old.rc, 0, repr(old))
                self.assertIn(OLD_SHUFFLE_ERROR, old.out)
                new = compile_ptx(self, shuffle_source("__shfl_down_sync(0xffffffffu, x[threadIdx.x], 1)"), arch)
                self.assertEqual(new.rc, 0, repr(new))
        for page in ("stages/05_shuffle/README.md", "stages/05_shuffle/README.zh-CN.md"):
            self.assertTrue(f"`{OLD_SHUFFLE_ERROR}`" in support.read(page), f"{page} does not quote nvcc's error")

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

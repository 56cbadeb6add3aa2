"""Stage 07 (input types and packed loads): an unaligned input refused by the packed kernels, S x K shapes
through both branches of LeetCUDA's launcher, values near each type's maximum (the narrow accumulators
overflow and say so, the wide ones hold the sums), and 16-byte loads in the SASS."""
import functools
import os
import unittest

from tests import gpu_lib, support

DTYPES = os.path.join(support.ROOT, "build/07_leetcuda_dtypes/reduce")


@functools.lru_cache(None)
def large():
    """--fill large (values near each type's maximum) at 4096, every kernel checked."""
    return gpu_lib.run_csv([DTYPES, "--fill", "large", "--n", "4096", "--reps", "1", "--warmup", "0", "--check"])


class Stage07(support.Case):
    @support.needs("gpu")
    def test_offset_1_the_packed_kernels_refuse_it_the_rest_pass(self):
        self.need_build()
        self.expect(0, "f32x4_f32 +skipped: the input is not 16-byte aligned",
                    [DTYPES, "--check", "--n", "1000003", "--offset", "1", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_s_x_k_shapes_a_block_per_row_and_the_other_branch_of_the_launcher(self):
        # LeetCUDA's launch: a block of K/PACK threads per row where that is 32 ... 1024, else 1024/PACK
        # threads; rows whose K/PACK is not whole or not a power of two, and a last pack past N.
        self.need_build()
        self.expect(0, "all kernels passed verification",
                    [DTYPES, "--check", "--n", "64x256,3x4097,5x100,1024x2048,2x8200", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_fill_large_the_overflow_is_reported_and_check_exits_0(self):
        self.need_build()
        run = large()
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertIn("fp16 accumulator cannot hold", run.result.out)

    def verdicts(self, kernels, want):
        run = large()
        for kernel in kernels:
            with self.subTest(kernel=kernel):
                self.assertEqual([r["pass"] for r in run.rows if r["kernel"] == kernel], [want],
                                 f"{kernel}'s pass column with --fill large")

    @support.needs("gpu")
    def test_fill_large_the_fp16_accumulators_overflow_xfail(self):
        """f16x2_f32 adds its pair in fp16 (as LeetCUDA does) before the fp32 warp tree: it overflows too"""
        self.need_build()
        self.verdicts(["fp8_e4m3_f16", "fp8_e4m3x16_pack_f16", "fp8_e5m2_f16", "fp8_e5m2x16_pack_f16", "f16_f16",
                       "f16x2_f16", "f16x2_f32", "f16x8_pack_f16"], "xfail")

    @support.needs("gpu")
    def test_fill_large_the_fp32_and_int32_accumulators_hold_the_sums_pass(self):
        self.need_build()
        self.verdicts(["f16_f32", "f16x8_pack_f32", "i8_i32", "i8x16_pack_i32"], "1")

    @support.needs("gpu", "cuobjdump")
    def test_make_sass_shows_16_byte_loads_in_the_pack_kernels(self):
        self.need_build()
        self.expect_make(0, "LDG.128 [1-9]", "stage-07", "sass")


if __name__ == "__main__":
    unittest.main()

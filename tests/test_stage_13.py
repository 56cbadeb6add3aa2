"""Stage 13 (the exact sum) and its demo: a CCCL_HOME that is not a CCCL checkout refused before anything
is built; the demo's exact results; the exact kernels bit for bit; fixed point refusing data off its grid."""
import os
import unittest

from tests import support

EXACT = os.path.join(support.ROOT, "build/13_exact/reduce")


class Stage13(support.Case):
    def test_cccl_home_that_is_not_a_cccl_checkout_is_refused_in_one_line_exit_2(self):
        folder = support.scratch(self)
        r = self.expect_make(2, f"CCCL_HOME={folder} is not a CCCL checkout", f"CCCL_HOME={folder}", "help")
        self.assertEqual(len([line for line in r.out.split("\n") if line.strip()]), 1, repr(r))

    @support.needs("gpu")
    def test_demo_every_exact_result_is_the_hosts_exact_sum(self):
        """in fp32 and fp64, at every launch shape (two block sizes) and start"""
        self.need_build()
        self.expect(0, " 0 not the host's exact sum", [os.path.join(support.ROOT, "build/13_exact/demo")])

    @support.needs("gpu")
    def test_windows_f32_on_the_wide_data_the_exact_sum_bit_for_bit(self):
        """the check is bit for bit: the error 0, the bound 0"""
        self.need_build()
        self.expect(0, r"^windows_f32 +[-0-9.e+]+ +0\.00e\+00 +0\.00e\+00 +ok",
                    [EXACT, "--kernel", "windows_f32", "--n", "1000003", "--fill", "wide", "--reps", "3", "--check"])

    @support.needs("gpu")
    def test_fixed_point_refuses_data_off_its_grid_the_wide_fill(self):
        self.need_build()
        self.expect(0, r"^fixed_point +skipped: a value is not a multiple of 2\^-24",
                    [EXACT, "--kernel", "fixed_point", "--n", "1000003", "--fill", "wide", "--reps", "3", "--check"])


if __name__ == "__main__":
    unittest.main()

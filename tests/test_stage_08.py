"""Stage 08 (the roofline kernels): an unaligned input, N = 2^31 + 17 with 64-bit indices, and the
deterministic and one-launch variants over 101 runs."""
import os
import unittest

from tests import support

ROOFLINE = os.path.join(support.ROOT, "build/08_roofline/reduce")


class Stage08(support.Case):
    @support.needs("gpu")
    def test_offset_3_the_kernels_read_a_scalar_head_and_are_right_on_an_unaligned_input(self):
        self.need_build()
        self.expect(0, "all kernels passed", [ROOFLINE, "--check", "--n", "1000003,17", "--offset", "3", "--reps", "1",
                                              "--warmup", "0"])

    @support.needs("gpu")
    @support.full_only
    def test_at_n_2_31_plus_17_every_kernel_right_with_64_bit_indices(self):
        self.need_build()
        self.expect(0, "all kernels passed", [ROOFLINE, "--check", "--n", "2^31+17", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    @support.full_only
    def test_deterministic_variant_the_same_bits_on_101_runs_one_launch_variant_right_on_each(self):
        # The harness fails a kernel without float atomics whose result moves; sizes of one block, one wave
        # and many tiles a block; the one-launch variant's last block resets the total.
        self.need_build()
        self.expect(0, "all kernels passed", [ROOFLINE, "--check", "--n", "1000,2^22+5,2^27+3", "--kernel",
                                              "roofline_f32_deterministic,roofline_f32_one_launch", "--reps", "101",
                                              "--warmup", "0"])


if __name__ == "__main__":
    unittest.main()

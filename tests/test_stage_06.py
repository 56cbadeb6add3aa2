"""Stage 06 (grid-stride loops): an unaligned input is summed right (or refused by the vector kernels),
never a fault; a size that does not fit in GPU memory is refused with the bytes needed and free."""
import os
import unittest

from tests import support

GRIDSTRIDE = os.path.join(support.ROOT, "build/06_gridstride/reduce")


class Stage06(support.Case):
    @support.needs("gpu")
    def test_offset_1_every_kernel_right_on_an_unaligned_input(self):
        self.need_build()
        self.expect(0, "all kernels passed", [GRIDSTRIDE, "--check", "--n", "1000003", "--offset", "1", "--reps", "1",
                                              "--warmup", "0"])

    @support.needs("gpu")
    def test_a_size_that_does_not_fit_in_gpu_memory_says_bytes_needed_and_free_exit_2(self):
        self.need_build()
        self.expect(2, "needs about [0-9]+ bytes .* [0-9]+ bytes free", [GRIDSTRIDE, "--n", "2^40", "--reps", "1"])


if __name__ == "__main__":
    unittest.main()

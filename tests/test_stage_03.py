"""Stage 03 (atomics): non-finite input gives NaN (+Inf), never a finite number called a pass; ones give
exactly N."""
import os
import unittest

from tests import support

ATOMIC = os.path.join(support.ROOT, "build/03_atomic/reduce")


class Stage03(support.Case):
    def non_finite(self, fill):
        """The kernel and CUB both give FILL's value, and their rows say ok."""
        self.need_build()
        r = support.run([ATOMIC, "--check", "--n", "1000003", "--fill", fill, "--reps", "1", "--warmup", "0"])
        self.assertEqual(r.rc, 0, repr(r))
        rows = [f for f in (line.split() for line in r.out.split("\n"))
                if len(f) >= 5 and f[0] in ("reduce_shared_atomic", "cub") and f[1] == fill and f[4] == "ok"]
        self.assertEqual(len(rows), 2, f"rows of reduce_shared_atomic and cub giving {fill}, ok:\n{r.tail(12)}")

    @support.needs("gpu")
    def test_fill_nan_the_kernel_and_cub_give_nan_reported_ok(self):
        self.non_finite("nan")

    @support.needs("gpu")
    def test_fill_inf_the_kernel_and_cub_give_inf_reported_ok(self):
        self.non_finite("inf")

    @support.needs("gpu")
    def test_fill_ones_gives_exactly_n(self):
        self.need_build()
        self.expect(0, "^reduce_shared_atomic +1000003 ", [ATOMIC, "--n", "1000003", "--fill", "ones", "--reps", "1", "--check"])


if __name__ == "__main__":
    unittest.main()

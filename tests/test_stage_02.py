"""Stage 02 (shared memory, sequential addressing): no bank conflict, so the tree record's wavefronts, one
per instruction, must be the ones Nsight Compute measures on the same launch."""
import unittest

from tests import support


class Stage02(support.Case):
    @support.needs("gpu", "ncu")
    @support.full_only
    def test_tree_reduce_shared_recorded_wavefronts_are_those_ncu_measures(self):
        """scripts/tree.sh agree exits 1 where a count differs"""
        self.need_build()
        self.expect(0, "loads .* agree", ["bash", "scripts/tree.sh", "agree", "02_shared", "reduce_shared"])


if __name__ == "__main__":
    unittest.main()

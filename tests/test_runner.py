"""The test runner itself (tests/run.py), on made-up test modules in a folder of their own: every test
counted once, the HOST_ONLY modules in their own process beside the others, and each way a test could go
missing a FAIL line instead: a module that does not import, the HOST_ONLY process dying, and a HOST_ONLY
test skipped for want of a GPU where there is one; and a pattern that matches no test, an error. Also what
the GPU tests accept of a program's CSV row (gpu_lib.row_passes), on rows it must take and rows it must
reject."""
import os
import re
import shutil
import sys
import unittest

from tests import gpu_lib, support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

# The made-up support module: no build, and a GPU wherever CUDA_VISIBLE_DEVICES does not hide it.
SUPPORT = '''import os
NO_GPU = "no GPU here"
def build():
    pass
def gpu():
    return os.environ.get("CUDA_VISIBLE_DEVICES") != ""
'''
MODULES = {
    "test_a_gpu.py": '''import unittest
class A(unittest.TestCase):
    def test_passes(self):
        pass
''',
    "test_b_host.py": '''import unittest
HOST_ONLY = True
class B(unittest.TestCase):
    def test_passes(self):
        pass
    def test_fails(self):
        self.assertEqual(1, 2)
''',
    "test_c_crash.py": '''import os, unittest
HOST_ONLY = True
class C(unittest.TestCase):
    def test_dies(self):
        os._exit(5)
''',
    "test_d_wants_gpu.py": '''import unittest
from tests import support
HOST_ONLY = True
class D(unittest.TestCase):
    def test_needs_a_gpu(self):
        if not support.gpu():
            self.skipTest(support.NO_GPU)
''',
    "test_e_broken.py": "raise RuntimeError('made up')\n",
}


def made_up(case, modules):
    """A folder holding tests/run.py, the made-up support and MODULES: the path of its run.py."""
    root = support.scratch(case)
    tests = os.path.join(root, "tests")
    os.mkdir(tests)
    shutil.copy(os.path.join(support.ROOT, "tests", "run.py"), tests)
    for name, text in [("__init__.py", ""), ("support.py", SUPPORT)] + [(m, MODULES[m]) for m in modules]:
        with open(os.path.join(tests, name), "w", encoding="utf-8") as f:
            f.write(text)
    return os.path.join(tests, "run.py")


def run(case, modules, *args):
    """The made-up suite's run.py, where its support sees a GPU (CUDA_VISIBLE_DEVICES unset)."""
    return support.run([sys.executable, made_up(case, modules), *args],
                       env={"CUDA_VISIBLE_DEVICES": None, "ONLY": None, "TEST_LANES": "1"})


def summary(r):
    return re.findall(r"(?m)^\d+ passed, \d+ failed, \d+ skipped$", r.out)


class Runner(support.Case):

    def test_both_lanes_every_test_counted_once(self):
        """A GPU module and a HOST_ONLY one: 2 passed, 1 failed, each line once, the failure exits 1."""
        r = run(self, ["test_a_gpu.py", "test_b_host.py"])
        self.assertEqual(summary(r), ["2 passed, 1 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 1, r)
        for line in ("ok   A.test_passes", "ok   B.test_passes", "FAIL B.test_fails"):
            self.assertEqual(r.out.split("\n").count(line), 1, f"{line!r}:\n{r.out}")
        self.assertIn("HOST_ONLY modules start beside the others", r.out)

    def test_host_lane_dying_is_a_fail_line(self):
        """The HOST_ONLY process ends with exit 5, mid-test: a FAIL line that says so, exit 1."""
        r = run(self, ["test_a_gpu.py", "test_c_crash.py"])
        self.assertRegex(r.out, r"(?m)^FAIL the HOST_ONLY modules' process ended without its results \(exit 5\)$")
        self.assertEqual(summary(r), ["1 passed, 1 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 1, r)

    def test_host_only_test_skipped_for_want_of_a_gpu_where_there_is_one_fails(self):
        """Where the parent sees a GPU, a HOST_ONLY test that skips for want of one is a FAIL, not a skip."""
        r = run(self, ["test_a_gpu.py", "test_d_wants_gpu.py"])
        self.assertRegex(r.out, r"(?m)^FAIL D\.test_needs_a_gpu: skipped for want of a GPU, in a HOST_ONLY module")
        self.assertEqual(summary(r), ["1 passed, 1 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 1, r)

    def test_a_module_that_does_not_import_fails_once(self):
        """Beside both lanes, a module that raises on import: one FAIL line, not one a process."""
        r = run(self, ["test_a_gpu.py", "test_b_host.py", "test_e_broken.py"])
        self.assertEqual(re.findall(r"(?m)^FAIL test_e_broken: the module imports$", r.out),
                         ["FAIL test_e_broken: the module imports"], r.out)
        self.assertEqual(summary(r), ["2 passed, 2 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 1, r)

    def test_lanes_off_every_module_runs_in_this_process(self):
        """TEST_LANES=0 (as with fewer than 4 cores): the same counts, from one process."""
        r = support.run([sys.executable, made_up(self, ["test_a_gpu.py", "test_b_host.py"])],
                        env={"CUDA_VISIBLE_DEVICES": None, "ONLY": None, "TEST_LANES": "0"})
        self.assertNotIn("HOST_ONLY modules start beside", r.out)
        self.assertEqual(summary(r), ["2 passed, 1 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 1, r)

    def test_one_lane_alone_runs_in_this_process(self):
        """--only a HOST_ONLY module: no second process, so CUDA is not hidden from it."""
        r = run(self, ["test_a_gpu.py", "test_d_wants_gpu.py"], "--only", "test_d")
        self.assertNotIn("HOST_ONLY modules start beside", r.out)
        self.assertEqual(summary(r), ["1 passed, 0 failed, 0 skipped"], r.out)
        self.assertEqual(r.rc, 0, r)

    def test_a_pattern_that_matches_no_test_fails(self):
        """--only a pattern no test matches (a mistyped ONLY=): it says so and exits 1, never a green run."""
        r = run(self, ["test_a_gpu.py", "test_b_host.py"], "--only", "test_no_such_module")
        self.assertRegex(r.out, r"(?m)^no test matches 'test_no_such_module'$")
        self.assertEqual(r.rc, 1, r)


def csv_row(verdict, err, bound="", chain="", n="1048576"):
    return {"pass": verdict, "rel_err": err, "rel_bound": bound, "chain": chain, "n": n}


class RowVerdict(unittest.TestCase):
    """gpu_lib.row_passes: the harness's verdict held to the row's own figures and to the test's facts."""

    TAKEN = {
        "within its bound": (csv_row("1", "1.0e-07", "1.0e-06", "8"), "shifted"),
        "exact, no bound": (csv_row("1", "0.000e+00"), "random"),
        "a non-finite sum": (csv_row("1", "nan"), "wide"),
        "an overflow on the wide data": (csv_row("xfail", "1.0e+00", "1.0e-06", "8"), "wide"),
        "unchecked, 0 still fails": (csv_row("unchecked", "1.0e-04", "5.0e-01", "1034"), "random"),
        "unchecked, one chain through all": (csv_row("unchecked", "1.0e-04", "2.0e+00", "1048576"), "random"),
    }
    REJECTED = {
        "failed": (csv_row("0", "1.0e+00", "1.0e-06", "8"), "random"),
        "no verdict": (csv_row("", "0.000e+00"), "random"),
        "passed past its bound": (csv_row("1", "2.0e-06", "1.0e-06", "8"), "random"),
        "passed inexact with no bound": (csv_row("1", "1.0e-09"), "random"),
        "an overflow on other data": (csv_row("xfail", "1.0e+00", "1.0e-06", "8"), "random"),
        "unchecked, 0 would pass": (csv_row("unchecked", "1.0e-04", "2.0e+00", "1034"), "random"),
        "unchecked past its bound": (csv_row("unchecked", "7.0e-01", "5.0e-01", "1034"), "random"),
    }

    def test_rows_it_must_take(self):
        for case, (row, fill) in self.TAKEN.items():
            with self.subTest(case=case):
                self.assertTrue(gpu_lib.row_passes(row, fill), row)

    def test_rows_it_must_reject(self):
        for case, (row, fill) in self.REJECTED.items():
            with self.subTest(case=case):
                self.assertFalse(gpu_lib.row_passes(row, fill), row)


if __name__ == "__main__":
    unittest.main()

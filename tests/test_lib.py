"""The exact-sum library (make lib): tests/test_lib.cu, built against build/lib/libexactsum.a, refuses bad
arguments with no GPU; on a GPU every type's sums of the harness's fills are the host's exact reference bit
for bit; the example program gives the exact sum where fp64 additions in order lose it."""
import functools
import os
import shlex
import unittest

from tests import support
from tests.test_host_unit import parse

UNIT = "build/test_lib"


@functools.lru_cache(None)
def compiled():
    """tests/test_lib.cu with the Makefile's flags (warnings as errors), linked with the static library."""
    flags = support.make("print-NVCCFLAGS", "ARCH=compute_90")
    if flags.rc != 0:
        return flags
    return support.run([support.nvcc(), *shlex.split(flags.out), "-Ilib", "tests/test_lib.cu", *support.HOST_SOURCES,
                        "build/lib/libexactsum.a", "-o", UNIT])


class ExactSumLibrary(support.Case):
    def unit(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        self.need_build()
        r = compiled()
        if r.rc != 0:
            self.fail(f"tests/test_lib.cu does not compile (exit {r.rc}):\n{r.tail(20)}")
        return os.path.join(support.ROOT, UNIT)

    def checks(self, env=None):
        r = support.run([self.unit()], env=env)
        checks, declared, stray = parse(r.out)
        self.assertEqual(stray, [], "lines that are no check's")
        self.assertEqual(declared, len(checks), f"the last line is not 'done {len(checks)} checks':\n{r.tail()}")
        for name, passed, detail in checks:
            with self.subTest(name):
                self.assertTrue(passed, "\n".join(detail))
        self.assertEqual(r.rc, 1 if any(not p for _, p, _ in checks) else 0, repr(r))
        return checks

    def test_bad_arguments_are_refused_with_a_return_code_without_a_gpu(self):
        checks = self.checks(env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertGreaterEqual(len(checks), 7, "the checks of refused arguments")

    @support.needs("gpu")
    def test_every_type_fill_and_size_is_the_exact_sum_bit_for_bit(self):
        checks = self.checks()
        self.assertGreaterEqual(len([c for c in checks if "fill" in c[0]]), 4 * 6 * 4, "a check per type, fill, size")

    @support.needs("gpu")
    def test_the_example_gives_the_exact_sum(self):
        self.need_build()
        self.expect(0, r"the exact sum 1000; fp64 additions in order 0$", [os.path.join(support.ROOT, "build/lib/example")])

"""The C unit tests of the plain C of common/ (tests/test_host.c): built with warnings as errors, run once, each of
their checks a subtest. The program must exit 1 where a check failed and 0 otherwise, and end with the line
"done N checks", N its check lines: a crash, or checks lost on the way, is a failure."""
import functools
import os
import re
import unittest

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

BINARY = "build/test_host"
COMPILE = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-Icommon", "tests/test_host.c",
           *support.HOST_SOURCES, "-lm", "-o", BINARY]


@functools.lru_cache(None)
def compiled():
    os.makedirs(os.path.join(support.ROOT, "build"), exist_ok=True)
    return support.run(COMPILE)


@functools.lru_cache(None)
def ran():
    return support.run([os.path.join(support.ROOT, BINARY)])


def parse(out):
    """The program's output as (checks, declared, stray): checks a list of (name, passed, detail lines),
    declared the N of a last line "done N checks" (None without one), stray any other line."""
    checks, declared, stray = [], None, []
    lines = out.rstrip("\n").split("\n")
    for i, line in enumerate(lines):
        result = re.fullmatch(r"(ok|FAIL) (.+)", line)
        done = re.fullmatch(r"done (\d+) checks", line)
        if result:
            checks.append((result[2], result[1] == "ok", []))
        elif line.startswith("     | ") and checks:
            checks[-1][2].append(line)
        elif done and i == len(lines) - 1:
            declared = int(done[1])
        else:
            stray.append(line)
    return checks, declared, stray


class HostUnitTests(support.Case):

    def output(self):
        r = compiled()
        if r.rc != 0:
            self.fail(f"tests/test_host.c does not compile (exit {r.rc}):\n{r.tail(20)}")
        return ran()

    def test_unit_tests_compile_with_warnings_as_errors(self):
        r = compiled()
        self.assertEqual(r.rc, 0, f"{' '.join(COMPILE)}:\n{r.tail(20)}")

    def test_c_check_passes(self):
        checks, _, _ = parse(self.output().out)
        self.assertTrue(checks, "build/test_host printed no check")
        for name, passed, detail in checks:
            with self.subTest(name):
                self.assertTrue(passed, "\n".join(detail) or "FAIL")

    def test_unit_program_exits_as_its_checks_say_and_counts_them_last(self):
        """Exit 1 where a check failed, else 0 (a signal is neither); last, "done N checks" for N check lines."""
        r = self.output()
        checks, declared, stray = parse(r.out)
        want = 1 if any(not passed for _, passed, _ in checks) else 0
        self.assertEqual(r.rc, want, f"build/test_host exited {r.rc}"
                         + (f" (signal {r.rc - 128})" if r.rc > 128 else "") + f":\n{r.tail()}")
        self.assertIsNotNone(declared, f"no last line 'done N checks':\n{r.tail()}")
        self.assertEqual(len(checks), declared, f"{len(checks)} check lines, the last line declares {declared}")
        self.assertEqual(stray, [], "lines that are neither a check, its detail nor the last line")


if __name__ == "__main__":
    unittest.main()

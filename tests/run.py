"""The test suite behind `make test`: every tests/test_*.py module, run with unittest, a line per test as
it ends (ok, FAIL with its traceback, skip with its reason), a line per module with its time, the ten
slowest tests, and last "N passed, N failed, N skipped". A test with subtests counts each subtest; an
exception anywhere, a crash of a program a test runs, or a module that cannot be imported is a FAIL line.
Exits 1 if anything failed, 0 otherwise.

usage: python3 tests/run.py [--only PATTERN] [--list]
  --only PATTERN  the tests whose module, class, name or stage matches PATTERN (a regular expression,
                  case-insensitive; stage-05 also matches 05_shuffle), e.g. test_report, stage-05, flush
  --list          list the tests that would run, one a line, and run none
make test ONLY=PATTERN and make test LIST=1 call it so; make test-full sets TEST_FULL=1."""
import argparse
import os
import re
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def modules():
    return sorted(f[:-3] for f in os.listdir(HERE) if re.match(r"^test_\w+\.py$", f))


def flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def matcher(pattern):
    """PATTERN as a test of a test's id: stage-NN (or stage_NN) also matches the stage's folder NN_."""
    if not pattern:
        return lambda text: True
    alternatives = [pattern]
    m = re.fullmatch(r"stage[-_ ]?(\d\d)", pattern, re.I)
    if m:
        alternatives += [rf"(^|\W|_){m[1]}_", rf"stage_{m[1]}"]
    rx = re.compile("|".join(f"(?:{a})" for a in alternatives), re.I)
    return lambda text: bool(rx.search(text))


class Result(unittest.TestResult):
    """Prints a line per test and per subtest as it ends, and counts them."""

    def __init__(self):
        super().__init__()
        self.passed = self.failed = self.skips = 0
        self.times = []
        self.with_subtests = set()
        self.subtest_failed = set()

    @classmethod
    def name(cls, test):
        if isinstance(test, unittest.case._SubTest):  # a subtest's skip reaches addSkip
            return f"{cls.name(test.test_case)} {test._subDescription()}"
        doc = test.shortDescription()
        method = getattr(test, "_testMethodName", str(test))
        return f"{type(test).__name__}.{method}" + (f": {doc}" if doc else "")

    def startTest(self, test):
        super().startTest(test)
        self.started = time.time()

    def stopTest(self, test):
        super().stopTest(test)
        self.times.append((time.time() - self.started, test.id()))

    def ok(self, text):
        print(f"ok   {text}", flush=True)
        self.passed += 1

    def bad(self, text, err=None):
        print(f"FAIL {text}", flush=True)
        if err:
            detail = err if isinstance(err, str) else "".join(traceback.format_exception(*err, limit=-3))
            print("\n".join("     | " + line for line in detail.rstrip().split("\n")[-25:]), flush=True)
        self.failed += 1

    def addSuccess(self, test):
        super().addSuccess(test)
        if test.id() not in self.with_subtests:
            self.ok(self.name(test))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.bad(self.name(test), self._clean(err))

    def addError(self, test, err):
        super().addError(test, err)
        self.bad(self.name(test) if hasattr(test, "_testMethodName") else f"{test}: an error outside any test",
                 err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        if isinstance(test, unittest.case._SubTest):
            self.with_subtests.add(test.test_case.id())
        print(f"skip {self.name(test)} ({reason})", flush=True)
        self.skips += 1

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.ok(self.name(test) + " (fails, as it must)")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.bad(self.name(test) + ": passed, but it must fail")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        self.with_subtests.add(test.id())
        label = f"{self.name(test)} {subtest._subDescription()}"
        if err is None:
            self.ok(label)
        else:  # a subtest's skip reaches addSkip
            self.bad(label, self._clean(err))

    @staticmethod
    def _clean(err):
        """An assertion's message alone (its traceback says no more than the test's name)."""
        return str(err[1]) if issubclass(err[0], AssertionError) else err


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=os.environ.get("ONLY", ""))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    os.chdir(os.path.dirname(HERE))
    keep = matcher(args.only)
    loader = unittest.TestLoader()
    result = Result()
    total_start = time.time()
    selected = []
    for name in modules():
        try:
            suite = loader.loadTestsFromName(f"tests.{name}")
        except Exception:  # a module that does not import is a failure, never a shorter count
            result.bad(f"{name}: the module imports", sys.exc_info())
            continue
        tests = [t for t in flatten(suite) if keep(t.id()) or keep(name)]
        if tests:
            selected.append((name, tests))
    if args.list:
        for name, tests in selected:
            for t in tests:
                print(t.id())
        print(f"{sum(len(t) for _, t in selected)} tests")
        return 0
    if not selected and not result.failed:
        print(f"no test matches '{args.only}'")
        return 1
    for name, tests in selected:
        print(f"== {name} ({len(tests)} tests)", flush=True)
        before = (result.passed, result.failed, result.skips)
        start = time.time()
        unittest.TestSuite(tests).run(result)
        # A module's setUpModule or tearDown errors reach addError; anything else is counted above.
        p, f, s = (a - b for a, b in zip((result.passed, result.failed, result.skips), before))
        print(f"   {name}: {p} passed, {f} failed, {s} skipped in {time.time() - start:.1f} s", flush=True)
    slow = sorted(result.times, reverse=True)[:10]
    if slow:
        print("\nthe ten slowest tests:")
        for seconds, test_id in slow:
            print(f"  {seconds:7.1f} s  {test_id}")
    print(f"\nin {time.time() - total_start:.0f} s")
    print(f"{result.passed} passed, {result.failed} failed, {result.skips} skipped")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

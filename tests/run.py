"""The test suite behind `make test`: every tests/test_*.py module, run with unittest, a line per test as
it ends (ok, FAIL with its traceback, skip with its reason), a line per module with its time, the ten
slowest tests, and last "N passed, N failed, N skipped". A test with subtests counts each subtest; an
exception anywhere, a crash of a program a test runs, or a module that cannot be imported is a FAIL line.
Exits 1 if anything failed, 0 otherwise.

In a run of every test on 4 cores or more (TEST_LANES=1 or 0 says otherwise), the modules that say
HOST_ONLY = True run beside the others, in a second process that CUDA sees no GPU in
(CUDA_VISIBLE_DEVICES=""), once make all has built what both need: their blocks are printed whole as each
ends (--only runs its tests in this process alone). Such a module's test that is skipped for want of a
GPU where there is one is a FAIL (it belongs with the others), and so is that process ending without its
results.

usage: python3 tests/run.py [--only PATTERN] [--list]
  --only PATTERN  the tests whose module, class, name or stage matches PATTERN (a regular expression,
                  case-insensitive; stage-05 also matches 05_shuffle), e.g. test_report, stage-05, flush
  --list          list the tests that would run, one a line, and run none
make test ONLY=PATTERN and make test LIST=1 call it so; make test-full sets TEST_FULL=1."""
import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tests import support  # noqa: E402 (the repository's root on the path first)


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
        self.no_gpu_skips = []

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
        if reason == support.NO_GPU:
            self.no_gpu_skips.append(self.name(test))

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


MODULE_END = re.compile(r"^   test_\w+: \d+ passed, \d+ failed, \d+ skipped in ")


class HostLane:
    """The HOST_ONLY modules, run by this program in a process of their own (--lane host) beside this one:
    its output kept in a file and printed a module's block at a time, its counts read from a JSON file."""

    def __init__(self, only):
        self.dir = tempfile.mkdtemp(prefix="reduce-test-lane-")
        self.out_path, self.results = os.path.join(self.dir, "out.txt"), os.path.join(self.dir, "results.json")
        self.out = open(self.out_path, "w", encoding="utf-8")
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--only", only, "--lane", "host",
                                      "--results", self.results], stdin=subprocess.DEVNULL, stdout=self.out,
                                     stderr=subprocess.STDOUT, env=env)
        self.shown = 0

    def show_ended_modules(self, final=False):
        """Prints the lines of the modules that have ended since the last call (every line left, if FINAL)."""
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")[self.shown:]
        if not final:
            ends = [i for i, line in enumerate(lines[:-1]) if MODULE_END.match(line)]
            lines = lines[:ends[-1] + 1] if ends else []
        elif lines and lines[-1] == "":
            lines.pop()
        self.shown += len(lines)
        for line in lines:
            print(line, flush=True)

    def finish(self, result, gpu_here):
        """Waits for the lane, prints the rest of its output and adds its counts to RESULT."""
        rc = self.proc.wait()
        self.out.close()
        self.show_ended_modules(final=True)
        try:
            with open(self.results, encoding="utf-8") as f:
                lane = json.load(f)
        except (OSError, ValueError):
            lane = None
        shutil.rmtree(self.dir, ignore_errors=True)
        if lane is None or rc not in (0, 1):
            result.bad(f"the HOST_ONLY modules' process ended without its results (exit {rc})")
            return
        result.passed += lane["passed"]
        result.failed += lane["failed"]
        result.skips += lane["skipped"]
        result.times += [tuple(t) for t in lane["times"]]
        for name in lane["skipped_for_want_of_a_gpu"] if gpu_here else []:
            result.skips -= 1
            result.bad(f"{name}: skipped for want of a GPU, in a HOST_ONLY module, where there is one "
                       "(its module belongs with the GPU's)")


def lanes_wanted():
    """Whether the HOST_ONLY modules run beside the others: with 4 cores or more (with fewer, both would
    wait on the same cores), or as TEST_LANES=1 or TEST_LANES=0 says."""
    forced = os.environ.get("TEST_LANES")
    return forced == "1" if forced in ("0", "1") else (os.cpu_count() or 1) >= 4


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=os.environ.get("ONLY", ""))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--lane", choices=("both", "host"), default="both", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.chdir(os.path.dirname(HERE))
    keep = matcher(args.only)
    loader = unittest.TestLoader()
    result = Result()
    total_start = time.time()
    selected = []
    for name in modules():
        try:
            module = importlib.import_module(f"tests.{name}")
            suite = loader.loadTestsFromModule(module)
        except Exception:  # a module that does not import is a failure, never a shorter count
            if args.lane == "both":  # (said once: by the process that started the host lane)
                result.bad(f"{name}: the module imports", sys.exc_info())
            continue
        tests = [t for t in flatten(suite) if keep(t.id()) or keep(name)]
        host_only = getattr(module, "HOST_ONLY", False)
        if tests and (args.lane == "both" or host_only):
            selected.append((name, tests, host_only))
    if args.list:
        for name, tests, _ in selected:
            for t in tests:
                print(t.id())
        print(f"{sum(len(t) for _, t, _ in selected)} tests")
        return 0
    if not selected and not result.failed:
        print(f"no test matches '{args.only}'")
        return 1
    lane = None
    if (args.lane == "both" and not args.only and lanes_wanted() and any(h for _, _, h in selected)
            and not all(h for _, _, h in selected)):
        print("== make all, before the HOST_ONLY modules start beside the others", flush=True)
        support.build()
        lane = HostLane(args.only)
        selected = [m for m in selected if not m[2]]
    for name, tests, _ in selected:
        print(f"== {name} ({len(tests)} tests)", flush=True)
        before = (result.passed, result.failed, result.skips)
        start = time.time()
        unittest.TestSuite(tests).run(result)
        # A module's setUpModule or tearDown errors reach addError; anything else is counted above.
        p, f, s = (a - b for a, b in zip((result.passed, result.failed, result.skips), before))
        print(f"   {name}: {p} passed, {f} failed, {s} skipped in {time.time() - start:.1f} s", flush=True)
        if lane:
            lane.show_ended_modules()
    if lane:
        lane.finish(result, support.gpu())
    if args.results:  # the host lane: its counts for the process that started it
        with open(args.results, "w", encoding="utf-8") as f:
            json.dump({"passed": result.passed, "failed": result.failed, "skipped": result.skips,
                       "times": result.times, "skipped_for_want_of_a_gpu": result.no_gpu_skips}, f)
        return 1 if result.failed else 0
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

"""What the test modules share: the repository, running a command, the build, the programs and their
--describe, the GPU and the optional tools. Every test module is a plain unittest module
(tests/test_*.py): `python3 tests/run.py` (make test) runs them all with a line per test, and
`python3 -m unittest tests.test_NAME` or pytest runs one alone."""
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import describe as description  # noqa: E402 (scripts/describe.py, the one reader of --describe)
# make test-full (TEST_FULL=1): every fill, the sizes past 2^31, the sanitizers, ncu, the notebook's cells.
FULL = os.environ.get("TEST_FULL") == "1"
# The plain C sources of common/ (parse, fills, references, bounds, ...): what a test built outside the
# Makefile links beside its own file.
HOST_SOURCES = sorted(os.path.join("common", f) for f in os.listdir(os.path.join(ROOT, "common")) if f.endswith(".c"))
NO_GPU = "no GPU: nvidia-smi -L finds none, or CUDA_VISIBLE_DEVICES hides them"


class Result:
    """A finished command: its exit status (a signal as 128 + its number, as the shell says it) and its
    output, stdout and stderr together."""

    def __init__(self, cmd, rc, out):
        self.cmd, self.rc, self.out = cmd, rc, out

    def tail(self, lines=8):
        return "\n".join("     | " + line for line in self.out.rstrip("\n").split("\n")[-lines:])

    def __repr__(self):
        return f"{self.cmd!r} exited {self.rc}:\n{self.tail()}"


def run(cmd, env=None, timeout=600, cwd=ROOT, stdin=subprocess.DEVNULL):
    """CMD (a list, or a string run by bash) in the repository, with ENV added to the environment (a value
    None removes that variable)."""
    full = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    args = ["bash", "-c", cmd] if isinstance(cmd, str) else [str(c) for c in cmd]
    try:
        p = subprocess.run(args, cwd=cwd, env=full, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return Result(cmd, 124, out + f"\n(killed after {timeout} s)")
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return Result(cmd, rc, p.stdout.decode("utf-8", "replace"))


def make(*args, env=None, timeout=600, cwd=ROOT):
    """make -s ARGS in the repository (or CWD)."""
    return run(["make", "--no-print-directory", "-s", *args], env=env, timeout=timeout, cwd=cwd)


def scratch(test):
    """A temporary folder, removed when TEST ends."""
    d = tempfile.mkdtemp(prefix="reduce-test-")
    test.addCleanup(shutil.rmtree, d, True)
    return d


# ---- the optional tools -------------------------------------------------------------------------------

@functools.lru_cache(None)
def nvcc():
    """The nvcc the Makefile builds with (NVCC, else on the PATH, else CUDA's default place), or None."""
    found = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return found if os.path.exists(found) else None


def _cuda_release():
    m = re.search(r"release (\d+)\.(\d+),", run([nvcc(), "--version"]).out) if nvcc() else None
    return f"{m[1]}-{m[2]}" if m else "X-Y"


@functools.lru_cache(None)
def missing(tool):
    """Why TOOL cannot be used here and how to install it, or None where it can."""
    if tool == "nbformat":
        return None if nbformat_python() else "no python3 with the nbformat package: apt-get install python3-nbformat"
    if shutil.which(tool):
        return None
    how = {"gnuplot": "apt-get install gnuplot-nox", "shellcheck": "apt-get install shellcheck",
           "mpirun": "apt-get install openmpi-bin"}
    cuda = {"ncu": "Nsight Compute, in the CUDA toolkit (NVIDIA's package cuda-nsight-compute-{})",
            "compute-sanitizer": "in the CUDA toolkit (NVIDIA's package cuda-sanitizer-{})",
            "cuobjdump": "in the CUDA toolkit (NVIDIA's package cuda-cuobjdump-{})"}
    if tool in cuda:
        return f"{tool} is not installed: " + cuda[tool].format(_cuda_release())
    return f"{tool} is not installed: {how.get(tool, 'install it')}"


@functools.lru_cache(None)
def nbformat_python():
    """A python3 that imports nbformat, or None."""
    for py in (sys.executable, "python3", "/usr/bin/python3"):
        if run([py, "-c", "import nbformat"]).rc == 0:
            return py
    return None


@functools.lru_cache(None)
def gpus():
    """How many GPUs nvidia-smi lists (0 without a driver or a GPU, or where CUDA_VISIBLE_DEVICES is set
    empty: CUDA then sees none, as the Makefile says)."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        return 0
    r = run("nvidia-smi -L")
    return len(re.findall(r"^GPU \d+", r.out, re.M)) if r.rc == 0 else 0


def gpu():
    return gpus() > 0


def needs(*tools):
    """A decorator: the test is skipped, with the reason and how to install it, unless every TOOL (or "gpu")
    can be used here."""
    def reason():
        for t in tools:
            if t == "gpu":
                if not gpu():
                    return NO_GPU
            elif missing(t):
                return missing(t)
        return None

    def wrap(fn):
        @functools.wraps(fn)
        def test(self, *a, **k):
            why = reason()
            if why:
                self.skipTest(why)
            return fn(self, *a, **k)
        return test
    return wrap


def full_only(fn):
    """A decorator: run by make test-full (TEST_FULL=1) alone."""
    @functools.wraps(fn)
    def test(self, *a, **k):
        if not FULL:
            self.skipTest("make test-full runs it")
        return fn(self, *a, **k)
    return test


# ---- the build ----------------------------------------------------------------------------------------

_build = {}


def build():
    """make all, once a process (make skips what is up to date), with the goals it builds printed as they
    start. Returns its Result."""
    if "all" not in _build:
        start = time.time()
        args = ["make", "--no-print-directory", "all"]
        p = subprocess.Popen(args, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = []
        for raw in p.stdout:
            line = raw.decode("utf-8", "replace")
            out.append(line)
            target = re.search(r" -o (\S+)\s*$", line)
            if target:
                print(f"     building {os.path.relpath(os.path.join(ROOT, target[1]), ROOT)}", flush=True)
        rc = p.wait()
        _build["all"] = Result("make all", rc, "".join(out))
        if rc == 0:
            print(f"     built in {time.time() - start:.0f} s", flush=True)
    return _build["all"]


class Case(unittest.TestCase):
    """A TestCase with the project's assertions on commands."""
    maxDiff = 4000

    def need_build(self):
        r = build()
        if r.rc != 0:
            self.fail(f"make all failed (exit {r.rc}), so this test cannot run:\n{r.tail(20)}")

    def expect(self, rc, pattern, cmd, env=None, timeout=600, cwd=ROOT):
        """Runs CMD; asserts that it exits RC and that its output matches the regular expression PATTERN
        (multi-line; "" matches anything). Returns the Result."""
        r = run(cmd, env=env, timeout=timeout, cwd=cwd)
        ok = r.rc == rc and (not pattern or re.search(pattern, r.out, re.M))
        if not ok:
            self.fail(f"exit {r.rc}, wanted {rc} and /{pattern}/ from {cmd!r}:\n{r.tail()}")
        return r

    def expect_make(self, rc, pattern, *args, env=None, timeout=600, cwd=ROOT):
        return self.expect(rc, pattern, ["make", "--no-print-directory", "-s", *args], env=env, timeout=timeout, cwd=cwd)


# ---- the stages and their programs --------------------------------------------------------------------

# What make and the scripts need on a PATH without the CUDA tools (make programs too; python3 reads --describe).
BASIC_TOOLS = "bash dirname basename cat sed awk grep ls xargs mktemp rm make head tail tr uniq sort python3".split()


def tools_path(test, tools=BASIC_TOOLS):
    """A folder for PATH holding the commands TOOLS alone (each linked from this PATH; python3 is this
    Python), removed when TEST ends: a machine without the tools left out."""
    folder = os.path.join(scratch(test), "bin")
    os.mkdir(folder)
    for tool in tools:
        os.symlink(sys.executable if tool == "python3" else shutil.which(tool), os.path.join(folder, tool))
    return folder


def is_png(path):
    """Whether PATH exists and starts as a PNG file does."""
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(4) == b"\x89PNG"


def stages():
    """The stage folders, in order (stages/NN_name)."""
    return sorted(d for d in os.listdir(os.path.join(ROOT, "stages")) if re.match(r"^\d\d_", d)
                  and os.path.isdir(os.path.join(ROOT, "stages", d)))


@functools.lru_cache(None)
def programs():
    """Every stage's program as the Makefile names it (build/<stage>/<program>), in stage order."""
    r = make("programs")
    return [p for p in r.out.split() if p.startswith("build/")] if r.rc == 0 else []


def program_of(stage):
    return next((p for p in programs() if p.split("/")[1] == stage), None)


def stage_num(stage):
    """NN of a stage folder NN_name: make stage-NN names it."""
    return stage.split("_")[0]


def stage_of(program):
    return program.split("/")[1]


def source_of(program):
    """stages/<stage>/<program>.cu, the file a program is built from."""
    return f"stages/{stage_of(program)}/{os.path.basename(program)}.cu"


def built(program):
    return os.access(os.path.join(ROOT, program), os.X_OK)


def describe(program):
    """PROGRAM's description, its --describe read by scripts/describe.py (docs/developers.md gives its fields)."""
    try:
        return description.load(os.path.join(ROOT, program))
    except description.DescribeError as e:
        raise AssertionError(str(e)) from None


def kernels(program):
    """PROGRAM's kernels of --describe: {name, dtype, role, accumulator} each."""
    return describe(program)["kernels"]


def single_gpu_programs():
    """The built programs that run on one GPU."""
    return [p for p in programs() if built(p) and not describe(p)["several_gpus"]]


def exercises():
    return [s for s in stages() if os.path.exists(os.path.join(ROOT, "stages", s, "exercise.cu"))]


def solved(stage):
    """Whether the stage's exercise has its solution here (a handout, make handout, has none)."""
    return os.path.exists(os.path.join(ROOT, "solutions", f"{stage}.cu"))


NO_SOLUTIONS = "a handout: no solutions/ in this copy"


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def read_csv(path):
    """The rows of a CSV as dicts by its header."""
    import csv
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def per(items, name_of=str):
    """A class decorator: for each test method named test_each_X(self, item), a method test_X_<name> for
    every item of ITEMS (a list, or a function that returns one, called when the class is made), so that
    each item is a test of its own in the count."""
    def wrap(cls):
        values = items() if callable(items) else items
        for attr in list(vars(cls)):
            if not attr.startswith("test_each_"):
                continue
            fn = getattr(cls, attr)
            for item in values:
                def test(self, fn=fn, item=item):
                    return fn(self, item)
                test.__doc__ = fn.__doc__
                name = re.sub(r"\W+", "_", name_of(item))
                setattr(cls, f"test_{attr[len('test_each_'):]}_{name}", test)
            delattr(cls, attr)
        return cls
    return wrap

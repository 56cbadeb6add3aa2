"""What the GPU tests share: a program's --check run at its check sizes (one run a program and fill, read
by every test that needs it), what a CSV row must show to pass, and the fuzz's sizes."""
import csv
import functools
import glob
import io
import math
import os
import random
import tempfile

from tests import support


def row_passes(row, fill):
    """Whether a --check row (a dict by the CSV's header) of a run with --fill FILL passes the tests. The
    harness's verdict (pass) is needed, but the test holds it to facts of its own, none a rule of the
    harness: a row's figures agree with its word (its error within its bound, or 0 where it has none: an
    exact result; a NaN error is a non-finite sum's, whose bits the harness compared); only the wide data
    (values near 1e6) can overflow (the 8-bit and 16-bit formats, int32 sums), so an expected overflow
    (xfail) passes there alone; and an unchecked row (its bound too wide for the harness to hold its
    accumulator to account) still fails a result of 0 (its bound below 1, the whole sum), unless one chain
    of additions runs through every input (a loop over all of them, an atomic per element), where no
    smaller bound holds."""
    verdict = row["pass"]
    if verdict == "xfail":
        return fill == "wide"
    if verdict not in ("1", "unchecked"):
        return False
    err = float(row["rel_err"])
    bound = float(row["rel_bound"]) if row["rel_bound"] != "" else None
    if not (math.isnan(err) or err <= (bound if bound is not None else 0.0)):
        return False
    if verdict == "1":
        return True
    return (bound is not None and bound < 1) or (row["chain"] != "" and float(row["chain"]) >= float(row["n"]))


class Run:
    """A finished run that wrote a CSV: its Result, the CSV's lines split into fields (header first; [] where
    it wrote none) and its kernel rows (the device rows left out) as dicts by the header."""

    def __init__(self, result, text):
        self.result = result
        self.fields = list(csv.reader(io.StringIO(text)))
        header = self.fields[0] if self.fields else []
        self.rows = [r for r in (dict(zip(header, f)) for f in self.fields[1:]) if r.get("pass", "") != ""]

    def ragged(self):
        """The lines (1 = the header) whose fields are not the header's, or "no row" where there is none."""
        if len(self.fields) < 2:
            return "no row"
        return [i + 1 for i, f in enumerate(self.fields) if len(f) != len(self.fields[0])]


def run_csv(args, timeout=600):
    """PROGRAM ARGS... with --csv to a file of its own: a Run."""
    with tempfile.TemporaryDirectory(prefix="reduce-test-") as d:
        path = os.path.join(d, "out.csv")
        result = support.run([*args, "--csv", path], timeout=timeout)
        text = ""
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                text = f.read()
    return Run(result, text)


@functools.lru_cache(None)
def check_run(program, fill):
    """PROGRAM --check at its check sizes with --fill FILL, 3 timed runs after 1 warm-up."""
    sizes = ",".join(support.describe(program)["check_sizes"])
    return run_csv([os.path.join(support.ROOT, program), "--check", "--n", sizes, "--fill", fill,
                    "--reps", "3", "--warmup", "1"])


def check_fills(program):
    return support.describe(program)["check_fills"]


def fuzz_sizes():
    """50 sizes drawn from 1 ... 2^22, the same every run."""
    rng = random.Random(20261122)
    return [rng.randint(1, 2 ** 22) for _ in range(50)]


@functools.lru_cache(None)
def committed_rows(stage):
    """{(kernel, dtype, n, cols, fill): (rel_bound, chain)} of STAGE's rows with the L2 flushed in the committed
    reference of this machine's GPU (the folder whose results.csv names it), or None where none does."""
    name = support.run("nvidia-smi --query-gpu=name --format=csv,noheader").out.split("\n")[0].strip()
    for path in sorted(glob.glob(os.path.join(support.ROOT, "plots/reference/*/results.csv"))):
        rows = support.read_csv(path)
        if rows and rows[0]["gpu"] == name:
            return {(r["kernel"], r["dtype"], r["n"], r["cols"], r["fill"]): (r["rel_bound"], r["chain"])
                    for r in rows if r["stage"] == stage and r["l2"] == "flushed"}
    return None

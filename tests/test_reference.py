"""The committed reference results (plots/reference/<gpu>/) as tests/verify_reference.py checks them: each
check a test of every reference folder (or of every pair of them, or of every file it reads), called directly
so that a check that crashes fails with its traceback; and each check shown a copy of the references broken in
one place, which it must reject, naming what is broken."""
import functools
import glob
import json
import os
import re
import shutil
import sys
import unittest
from types import SimpleNamespace
from unittest import mock

from tests import support
from tests import verify_reference as vr

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

REFS = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(support.ROOT, "plots/reference/*/results.csv")))
MULTI = [d for d in REFS if os.path.isfile(f"{d}/multigpu.csv")]
PAIRS = [(a, b) for i, a in enumerate(REFS) for b in REFS[i + 1:]]


def gpu(folder):
    return os.path.basename(folder)


def pair_name(pair):
    return f"{gpu(pair[0])}_and_{gpu(pair[1])}"


@functools.lru_cache(None)
def can_fail(folder):
    """checks_can_fail's three verdicts on FOLDER: the bounds that can fail, the wide rows checked, the lost element."""
    return tuple(vr.checks_can_fail(folder))


def kinds_committed(kind):
    """The names of the KIND-*.txt files in any reference folder."""
    return sorted({os.path.basename(p) for d in REFS for p in glob.glob(f"{d}/{kind}-*.txt")})


# ---- reading and breaking a copy of the references ---------------------------------------------------

def rows(path):
    """A CSV's header and its rows (dicts by the header)."""
    lines = [line for line in open(path, encoding="utf-8").read().split("\n") if line]
    header = lines[0].split(",")
    return header, [dict(zip(header, line.split(","))) for line in lines[1:]]


def write_rows(path, header, table):
    with open(path, "w", encoding="utf-8") as f:
        f.write(",".join(header) + "\n" + "".join(",".join(r[h] for h in header) + "\n" for r in table))


def edit_row(path, pick, **values):
    """Sets VALUES (each a string, or a function of the row that gives one) in the first row of the CSV at PATH
    that PICK accepts; returns that row as changed."""
    header, table = rows(path)
    row = next((r for r in table if pick(r)), None)
    if row is None:
        raise AssertionError(f"{path} has no row to break")
    row.update({k: v(row) if callable(v) else v for k, v in values.items()})
    write_rows(path, header, table)
    return row


def drop_rows(path, pick, keep=0):
    """Removes the rows of the CSV at PATH that PICK accepts but the first KEEP of them."""
    header, table = rows(path)
    chosen = [r for r in table if pick(r)][keep:]
    if not chosen:
        raise AssertionError(f"{path} has no row to remove")
    write_rows(path, header, [r for r in table if not any(r is c for c in chosen)])


def edit_text(path, old, new, count=1):
    """Replaces the first COUNT occurrences of OLD (a regular expression) in the file at PATH with NEW."""
    text = open(path, encoding="utf-8").read()
    changed, n = re.subn(old, new, text, count=count, flags=re.M)
    if not n:
        raise AssertionError(f"{path} has no /{old}/ to break")
    open(path, "w", encoding="utf-8").write(changed)


def edit_json(path, change):
    """CHANGE(the JSON document at PATH) in place, written back."""
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    change(document)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)


def device(folder, kernel):
    """The numbers of a results CSV's device rows of KERNEL (dram_peak: gbps, launch_floor: median_us)."""
    column = "median_us" if kernel == "launch_floor" else "gbps"
    return [float(r[column]) for r in rows(f"{folder}/results.csv")[1] if r["pass"] == "" and r["kernel"] == kernel]


def wide_limit(folder, r):
    """A results row's kernel's unchecked_from below 1, by the stage's describe-<stage>.json (None: not such)."""
    return vr.wide_limit({r["stage"]: vr.unchecked_from(folder, r["stage"])}, r)


def bench_row(folder, wide=True):
    """A test of a results row: a bench fill's row of a kernel with (WIDE) or without an fp32, fp64, Kahan, int32
    or exact accumulator, by the stage's describe-<stage>.json."""
    def pick(r):
        path = f"{folder}/describe-{r['stage']}.json"
        if r["pass"] == "" or not os.path.isfile(path):
            return False
        bench = vr.describe(path)["bench_fills"][:1]
        return [r["fill"]] == bench and (wide_limit(folder, r) is not None) == wide
    return pick


class TableRow:
    """A row of a printed table file (cccl-*.txt): its file and line number, the N and fill of its table, its
    kernel, verdict and bits."""

    def __init__(self, path, line, n, fill, m):
        self.path, self.line, self.n, self.fill = path, line, n, fill
        self.kernel, self.verdict, self.bits = m[1], m[4], m[5]

    def rewrite(self, pattern, new):
        """Replaces PATTERN in the row's line of its file with NEW."""
        lines = open(self.path, encoding="utf-8").read().split("\n")
        lines[self.line], count = re.subn(pattern, new, lines[self.line], count=1)
        if not count:
            raise AssertionError(f"{self.path} line {self.line + 1} has no /{pattern}/: {lines[self.line]}")
        open(self.path, "w", encoding="utf-8").write("\n".join(lines))

    def set_verdict(self, verdict):
        self.rewrite(r" (ok|FAIL|-)( +\S+ +\S+ +\S+ +\S+ +\S+ +(same|vary))$", rf" {verdict}\2")


def table_rows(folder):
    """The rows of every printed table file of a reference folder."""
    out = []
    for path in sorted(glob.glob(f"{folder}/cccl-*.txt")):
        n, fill = 0, ""
        for i, line in enumerate(open(path, encoding="utf-8").read().split("\n")):
            if m := re.match(r"^N = (\d+).*?, fill (\w+)", line):
                n, fill = int(m[1]), m[2]
            elif m := vr.TABLE_ROW.match(line):
                out.append(TableRow(path, i, n, fill, m))
    return out


class Broken(support.Case):
    """A test on a copy of the references (the CSVs and texts: no charts), self.refs, each folder as it is named."""

    def setUp(self):
        if len(REFS) < 2:
            self.fail("the references of two GPUs are committed (plots/reference/<gpu>/results.csv)")
        top = support.scratch(self)
        self.refs = [shutil.copytree(d, os.path.join(top, gpu(d)), ignore=shutil.ignore_patterns("*.png"))
                     for d in REFS]
        shutil.copy(os.path.join(os.path.dirname(REFS[0]), "primary"), top)
        # b: the primary reference; a: another, a record of an earlier commit.
        self.b = vr.primary(self.refs)
        self.a = next(d for d in self.refs if d != self.b)

    def rejects(self, lines, *named):
        """Asserts that LINES (a check's verdicts) hold a failed one that names every one of NAMED; returns it."""
        failed = [what for ok, what in lines if not ok]
        self.assertTrue(failed, "the check passed the broken copy:\n" + "\n".join(what for _, what in lines))
        hit = [what for what in failed if all(str(n) in what for n in named)]
        self.assertTrue(hit, f"no failed verdict names {named}:\n" + "\n".join(failed))
        return hit[0]

    def passes(self, lines):
        self.assertTrue(lines and all(ok for ok, _ in lines), "\n".join(what for _, what in lines) or "no verdict")


# ---- every check passes on the committed references ---------------------------------------------------

@support.per(REFS, gpu)
class EachReference(support.Case):
    """The checks of one reference folder, on the committed results."""

    def passes(self, lines):
        self.assertTrue(lines, "the check gave no verdict")
        for ok, what in lines:
            self.assertTrue(ok, what)

    def test_each_results_rows_passed(self, folder):
        """every row of results.csv passed verification"""
        self.passes(vr.rows_passed(f"{folder}/results.csv"))

    def test_each_below_dram_peak(self, folder):
        """no flushed row of results.csv above the DRAM peak"""
        self.passes(vr.below_peak(f"{folder}/results.csv"))

    def test_each_within_speed_of_light(self, folder):
        """no flushed row of results.csv faster than a launch floor plus its bytes at the read-only bandwidth"""
        self.passes(vr.within_light(f"{folder}/results.csv"))

    def test_each_flush_readings(self, folder):
        """flush_check.csv: every flushed run read its input from DRAM, the warm controls did not, 9 flushed at least"""
        self.passes(vr.flush_readings(f"{folder}/flush_check.csv"))

    def test_each_bounds_can_fail(self, folder):
        """no row passed a bound a result of 0 would pass, nor a wide accumulator's of 1e-3 or more"""
        self.passes(can_fail(folder)[:1])

    def test_each_wide_bench_rows_checked(self, folder):
        """a wide accumulator's bench row is unchecked only where its chain is long"""
        self.passes(can_fail(folder)[1:2])

    def test_each_lost_element_fails(self, folder):
        """a result one average element short fails every tight wide bench row up to N = 2^14"""
        self.passes(can_fail(folder)[2:])

    def test_each_accuracy_within_bound(self, folder):
        """every result of accuracy.csv within its bound (or failing as expected: xfail)"""
        self.passes(vr.within_bound(folder))

    def test_each_limits_cover(self, folder):
        """limits.csv has every limit kernel and CUB at each bench size of every program that declares them"""
        programs = [vr.describe(p) for p in sorted(glob.glob(f"{folder}/describe-*.json"))]
        declaring = [p for p in programs if p.get("limit_kernels")]
        self.assertTrue(declaring, f"no describe-<stage>.json of {folder} declares limit kernels")
        for program in declaring:
            with self.subTest(stage=program.get("stage")):
                self.passes(vr.limits_cover(folder, f"{folder}/limits.csv", program))

    def test_each_limits_read_from_dram(self, folder):
        """every profiled run of limits.csv read at least 99% of its input from DRAM"""
        self.passes(vr.read_from_dram(f"{folder}/limits.csv"))

    def test_each_no_fall(self, folder):
        """no time of results.csv falls by more than 25% as N grows (a kernel's: and more than a launch floor)"""
        self.passes(vr.no_fall(f"{folder}/results.csv"))


@support.per(MULTI, gpu)
class EachMultiGPU(support.Case):
    """The checks of one reference folder's multigpu.csv."""

    def test_each_multigpu_rows_passed(self, folder):
        """every row of multigpu.csv passed verification"""
        [(ok, what)] = vr.rows_passed(f"{folder}/multigpu.csv")
        self.assertTrue(ok, what)

    def test_each_multigpu_below_peak(self, folder):
        """no flushed row of multigpu.csv above 100.1% of its GPUs' DRAM peak"""
        [(ok, what)] = vr.multigpu_below_peak(f"{folder}/multigpu.csv")
        self.assertTrue(ok, what)


@support.per(PAIRS, pair_name)
class EachPair(support.Case):
    def test_each_ratios_in_step(self, pair):
        """every GPU kernel's time ratio between two GPUs at one N within a factor of 2 of its neighbours'"""
        [(ok, what)] = vr.ratios_in_step(*pair)
        self.assertTrue(ok, what)


class AcrossReferences(support.Case):
    """The checks that compare the reference folders, on the committed results."""

    def per_file(self, lines, names):
        """A verdict for each of NAMES (the files a check reads), each passed."""
        self.assertEqual(sorted(what.split(":")[0] for _, what in lines), names)
        for ok, what in lines:
            with self.subTest(file=what.split(":")[0]):
                self.assertTrue(ok, what)

    def test_references_of_two_gpus_committed(self):
        [(ok, what)] = vr.committed(REFS)
        self.assertTrue(ok, what)

    def test_demo_bits_same_on_every_gpu(self):
        """each demo's "bits:" lines (results every GPU gives alike) the same in every reference"""
        with_bits = [name for name in kinds_committed("demo")
                     if any(re.search(r"^bits:", open(f"{d}/{name}", encoding="utf-8").read(), re.M)
                            for d in REFS if os.path.isfile(f"{d}/{name}"))]
        self.assertTrue(with_bits, "no committed demo output has bits: lines")
        self.per_file(vr.same_bits(REFS), with_bits)

    def test_printed_tables_same_on_every_gpu_and_exact(self):
        """cccl-*.txt: every run-to-run identical result the same on every GPU, every exact kernel's error 0"""
        names = kinds_committed("cccl")
        self.assertTrue(names, "no printed tables (cccl-*.txt) are committed")
        self.per_file(vr.same_tables(REFS), names)

    def test_first_failures_hold_and_readmes_quote_them(self):
        """each printed table's first failure holds from its size up, the same on every GPU, and both READMEs
        of its stage quote it"""
        [(ok, what)] = vr.failures_quoted(REFS)
        self.assertTrue(ok, what)

    def test_sanitizer_files_clean(self):
        """sanitize-*.txt: in every reference, each run on its GPU, clean, every kernel verified, each tool on
        every kernel of the stage's own"""
        names = kinds_committed("sanitize")
        self.assertTrue(names, "no compute-sanitizer output (sanitize-*.txt) is committed")
        self.per_file(vr.sanitizers_clean(REFS), names)


# ---- each check rejects a copy broken in one place ----------------------------------------------------

class RejectsResults(Broken):
    """results.csv and multigpu.csv: rows passed, below the peak, within the speed of light."""

    def test_rows_passed_rejects_a_failed_row(self):
        csv = f"{self.a}/results.csv"
        edit_row(csv, lambda r: r["pass"] != "" and r["pass"] == "1", **{"pass": "0"})
        self.rejects(vr.rows_passed(csv), f"1 rows of {csv} failed")

    def test_rows_passed_rejects_a_failed_multigpu_row(self):
        folder = next((c for c in self.refs if os.path.isfile(f"{c}/multigpu.csv")), None)
        self.assertTrue(folder, "no reference has a multigpu.csv")
        edit_row(f"{folder}/multigpu.csv", lambda r: r["pass"] == "1", **{"pass": "0"})
        self.rejects(vr.rows_passed(f"{folder}/multigpu.csv"), "1 rows of")

    def test_below_peak_rejects_a_row_0_2_percent_over_the_peak(self):
        csv = f"{self.a}/results.csv"
        peak = device(self.a, "dram_peak")[0]
        row = edit_row(csv, lambda r: r["pass"] != "" and r["l2"] == "flushed", gbps=f"{peak * 1.002:.2f}")
        self.rejects(vr.below_peak(csv), f"{row['stage']} {row['kernel']} n={row['n']} {row['gbps']} GB/s")

    def test_below_peak_passes_a_warm_row_over_the_peak(self):
        """a warm row may exceed the DRAM peak: it reads from L2"""
        csv = f"{self.a}/results.csv"
        peak = device(self.a, "dram_peak")[0]
        edit_row(csv, lambda r: r["pass"] != "" and r["l2"] == "warm", gbps=f"{peak * 2:.2f}")
        self.passes(vr.below_peak(csv))

    def test_within_light_rejects_a_row_faster_than_its_bytes(self):
        csv = f"{self.a}/results.csv"
        row = edit_row(csv, lambda r: r["pass"] != "" and r["l2"] == "flushed", median_us="0.001")
        self.rejects(vr.within_light(csv), f"{row['stage']} {row['kernel']} {row['dtype']} n={row['n']}: 0.00 us")

    def test_within_light_rejects_a_row_faster_than_a_launch_floor(self):
        """a row slower than its bytes at the read-only bandwidth but faster than the shortest launch floor"""
        csv = f"{self.a}/results.csv"
        floor = min(device(self.a, "launch_floor"))
        smallest = min((r for r in rows(csv)[1] if r["pass"] != "" and r["l2"] == "flushed"),
                       key=lambda r: float(r["bytes_read"]))
        self.assertLess(float(smallest["bytes_read"]) / max(device(self.a, "read_sol")) / 1e3, floor / 2)
        row = edit_row(csv, lambda r: r == smallest, median_us=f"{floor / 2:.3f}")
        self.rejects(vr.within_light(csv), f"{row['stage']} {row['kernel']} {row['dtype']} n={row['n']}:")

    def test_within_light_rejects_a_row_without_bytes_read(self):
        csv = f"{self.a}/results.csv"
        row = edit_row(csv, lambda r: r["pass"] != "" and r["l2"] == "flushed", bytes_read="")
        self.rejects(vr.within_light(csv), f"no bytes_read: {row['stage']} {row['kernel']}")

    def test_within_light_rejects_results_without_read_sol(self):
        csv = f"{self.a}/results.csv"
        drop_rows(csv, lambda r: r["kernel"] == "read_sol")
        self.rejects(vr.within_light(csv), "no read_sol row")

    def test_multigpu_below_peak_rejects_a_row_at_100_2_percent(self):
        folder = next((c for c in self.refs if os.path.isfile(f"{c}/multigpu.csv")), None)
        self.assertTrue(folder, "no reference has a multigpu.csv")
        row = edit_row(f"{folder}/multigpu.csv", lambda r: r["l2"] == "flushed" and r["pct_peak"], pct_peak="100.2")
        self.rejects(vr.multigpu_below_peak(f"{folder}/multigpu.csv"), f"{row['kernel']} n={row['n']} 100.2%")


class RejectsFlushReadings(Broken):
    """flush_check.csv: every reading as it must be, 9 flushed at least."""

    def readings(self):
        flush = f"{self.a}/flush_check.csv"
        return flush, len(rows(flush)[1])

    def test_rejects_a_flushed_reading_of_98_percent(self):
        flush, n = self.readings()
        edit_row(flush, lambda r: r["l2"] == "flushed", ratio_min="0.9800")
        self.rejects(vr.flush_readings(flush), f"{n - 1} of {n} readings as they must be")

    def test_rejects_a_flushed_reading_of_98_percent_of_the_input_bytes(self):
        """the ratio says 1.0, the bytes read from DRAM 98% of the input"""
        flush, n = self.readings()
        edit_row(flush, lambda r: r["l2"] == "flushed", dram_bytes_min=lambda r: "%d" % (0.98 * int(r["input_bytes"])))
        self.rejects(vr.flush_readings(flush), f"{n - 1} of {n} readings as they must be")

    def test_rejects_a_warm_control_of_50_percent(self):
        flush, n = self.readings()
        edit_row(flush, lambda r: r["l2"] == "warm", ratio_min="0.5000")
        self.rejects(vr.flush_readings(flush), f"{n - 1} of {n} readings as they must be")

    def test_rejects_a_failed_reading(self):
        flush, n = self.readings()
        edit_row(flush, lambda r: r["l2"] == "flushed", **{"pass": "0"})
        self.rejects(vr.flush_readings(flush), f"{n - 1} of {n} readings as they must be")

    def test_rejects_fewer_than_9_flushed_readings(self):
        flush, _ = self.readings()
        drop_rows(flush, lambda r: r["l2"] == "flushed", keep=8)
        self.rejects(vr.flush_readings(flush), "(8 flushed)")

    def test_rejects_a_reference_without_flush_check(self):
        flush, _ = self.readings()
        os.remove(flush)
        self.rejects(vr.flush_readings(flush), "the flush check's readings are committed")


class RejectsUncheckedBounds(Broken):
    """checks_can_fail: the bounds that can fail, the wide bench rows checked, the lost element."""

    def test_rejects_a_row_passed_with_a_bound_of_1(self):
        row = edit_row(f"{self.a}/results.csv", lambda r: bench_row(self.a, wide=False)(r) and r["pass"] == "1"
                       and r["rel_bound"], rel_bound="1")
        self.rejects(vr.checks_can_fail(self.a)[:1], f"{row['stage']} {row['kernel']} {row['fill']} n={row['n']} ≤ 1")

    def test_rejects_a_wide_accumulator_row_passed_with_a_bound_of_1e_3(self):
        row = edit_row(f"{self.a}/results.csv", lambda r: bench_row(self.a)(r) and r["pass"] == "1" and r["rel_bound"],
                       rel_bound="1e-03")
        self.rejects(vr.checks_can_fail(self.a)[:1], f"{row['stage']} {row['kernel']} {row['fill']} n={row['n']} ≤ 1e-03")

    def test_rejects_a_wide_bench_row_unchecked_with_a_short_chain(self):
        row = edit_row(f"{self.a}/results.csv", lambda r: bench_row(self.a)(r) and r["pass"] == "1" and r["chain"]
                       and int(r["chain"]) <= vr.LONG_CHAIN and int(r["chain"]) < int(r["n"]), **{"pass": "unchecked"})
        self.rejects(vr.checks_can_fail(self.a)[1:2],
                     f"{row['stage']} {row['kernel']} n={row['n']} ≤ {row['rel_bound']} (chain {row['chain']})")

    def test_rejects_results_without_descriptions_of_wide_accumulators(self):
        for path in glob.glob(f"{self.a}/describe-*.json"):
            os.remove(path)
        self.rejects(vr.checks_can_fail(self.a), "has bench rows of fp32, fp64, Kahan or int32 accumulators")

    def test_lost_element_rejects_a_row_up_to_2_14_whose_bound_is_one_and_a_half_elements(self):
        """a tight row at N <= 2^14 with a bound of 1.5/N (below 1e-3) passes a result one element short"""
        row = edit_row(f"{self.a}/results.csv", lambda r: bench_row(self.a)(r) and r["pass"] == "1" and r["rel_bound"]
                       and 1.5 / wide_limit(self.a, r) < int(r["n"]) <= vr.LOST_N,
                       rel_bound=lambda r: f"{1.5 / int(r['n']):.3e}")
        lines = vr.checks_can_fail(self.a)
        self.assertTrue(lines[0][0], lines[0][1])
        self.rejects(lines[2:], f"{row['stage']} {row['kernel']} n={row['n']} ≤ {row['rel_bound']}")


class RejectsAccuracy(Broken):
    def test_within_bound_rejects_a_failed_result(self):
        row = edit_row(f"{self.a}/accuracy.csv", lambda r: r["pass"] != "" and r["pass"] == "1", **{"pass": "0"})
        self.rejects(vr.within_bound(self.a), f"{row['stage']} {row['kernel']} {row['fill']} n={row['n']}")

    def test_within_bound_rejects_a_reference_without_accuracy_results(self):
        os.remove(f"{self.a}/accuracy.csv")
        self.rejects(vr.within_bound(self.a), "the accuracy lab's results are committed")


class RejectsDemoBits(Broken):
    def demo(self):
        names = [n for n in kinds_committed("demo") if all(os.path.isfile(f"{d}/{n}") for d in self.refs)
                 and re.search(r"^bits:", open(f"{self.b}/{n}", encoding="utf-8").read(), re.M)]
        self.assertTrue(names, "no demo output with bits: lines is committed for every GPU")
        return names[0]

    def test_same_bits_rejects_one_line_that_differs(self):
        name = self.demo()
        edit_text(f"{self.a}/{name}", r"^bits: (.*)$", r"bits: \1 changed")
        self.rejects(vr.same_bits(self.refs), name, f"{gpu(self.a)} has 1 of its")

    def test_same_bits_rejects_a_demo_missing_on_the_primary(self):
        name = self.demo()
        os.remove(f"{self.b}/{name}")
        self.rejects(vr.same_bits(self.refs), f"no {name} for {gpu(self.b)}, the primary reference")

    def test_same_bits_takes_an_earlier_record_with_fewer_cases(self):
        name = self.demo()
        path = f"{self.a}/{name}"
        text = open(path, encoding="utf-8").read().split("\n")
        last = max(i for i, line in enumerate(text) if line.startswith("bits:"))
        open(path, "w", encoding="utf-8").write("\n".join(text[:last] + text[last + 1:]))
        self.passes([v for v in vr.same_bits(self.refs) if name in v[1]])


class RejectsPrintedTables(Broken):
    def tables(self):
        names = [n for n in kinds_committed("cccl") if all(os.path.isfile(f"{d}/{n}") for d in self.refs)]
        self.assertTrue(names, "no printed tables (cccl-*.txt) are committed for every GPU")
        return names[0]

    def test_same_tables_rejects_a_same_bits_result_that_differs(self):
        name = self.tables()
        row = next(t for t in table_rows(self.b) if t.path.endswith("/" + name) and t.bits == "same")
        row.rewrite(r"^(\w+ +)\S+", r"\g<1>12345")
        self.rejects(vr.same_tables(self.refs), f"{gpu(self.b)}: {row.kernel} at N = {row.n}", "12345")

    def test_same_tables_reads_a_result_in_full_beside_its_nine_digits_and_no_other(self):
        """A table printed before results were shown in full agrees with one that shows them in full."""
        self.assertTrue(vr.same_result("5000035.77", "5000035.76601307"))
        self.assertTrue(vr.same_result("0.1", "0.100000001"))  # fp32's 0.1, shortest and with 9 digits
        self.assertTrue(vr.same_result("2 rows", "2 rows"))
        self.assertFalse(vr.same_result("5000035.78", "5000035.76601307"))
        self.assertFalse(vr.same_result("5000035.7660131", "5000035.76601307"))
        self.assertFalse(vr.same_result("2 rows", "3 rows"))

    def test_same_tables_rejects_an_exact_kernel_with_an_error(self):
        name = self.tables()
        exact = {k for k, acc in vr.accumulators(self.b, vr.file_stage(name)).items() if acc == "exact"}
        self.assertTrue(exact, f"no kernel of {name}'s stage has an exact accumulator")
        row = next(t for t in table_rows(self.b) if t.path.endswith("/" + name) and t.kernel in exact)
        row.rewrite(r"^(\w+ +\S+ +)\S+", r"\g<1>1.00e-09")
        self.rejects(vr.same_tables(self.refs), f"{gpu(self.b)}: {row.kernel} at N = {row.n}", "error 1.00e-09")

    def test_same_tables_rejects_a_file_without_rows(self):
        name = self.tables()
        for d in self.refs:
            open(f"{d}/{name}", "w").close()
        self.rejects(vr.same_tables(self.refs), f"no rows in {name}")


class RejectsFirstFailures(Broken):
    """first_failures and failures_quoted: a failure holds from its first size up, alike on every GPU, and both
    READMEs of its stage quote it."""

    def first_failure(self):
        """The first kernel that fails in the committed tables: its stage, kernel, first failing N (first), the fills
        it fails and passes on, the largest N below where it passes (last_ok) on fills_below, and its table rows in
        the copy self.b."""
        found, problems = vr.first_failures(REFS)
        self.assertEqual(problems, [])
        failures = [(s, k, facts) for s, kernels in sorted(found.items()) for k, facts in sorted(kernels.items())]
        self.assertTrue(failures, "no kernel fails in the committed printed tables (cccl-*.txt)")
        stage, kernel, (first, failing, passing, last_ok, fills_below) = failures[0]
        return SimpleNamespace(stage=stage, kernel=kernel, first=first, failing=failing, passing=passing, last_ok=last_ok,
                               fills_below=fills_below, table=[t for t in table_rows(self.b) if t.kernel == kernel])

    def test_rejects_a_failing_fill_that_passes_above_the_first_failure(self):
        f = self.first_failure()
        later = [t for t in f.table if t.verdict == "FAIL" and t.n > f.first]
        self.assertTrue(later, f"{f.kernel} fails at no size above {f.first}")
        later[0].set_verdict("ok")
        self.rejects(vr.failures_quoted(self.refs), f"{gpu(self.b)}: {f.kernel} at {later[0].n}, fill {later[0].fill}: ok, not FAIL")

    def test_rejects_a_first_failure_that_differs_between_gpus(self):
        f = self.first_failure()
        below = [t for t in f.table if t.verdict == "ok" and t.n < f.first and t.fill in f.failing]
        self.assertTrue(below, f"{f.kernel} passes at no size below {f.first}")
        row = max(below, key=lambda t: t.n)
        row.set_verdict("FAIL")
        self.rejects(vr.failures_quoted(self.refs), f"{gpu(self.b)}: {f.kernel} fails from {row.n}", f"elsewhere from {f.first}")

    def test_rejects_a_checked_size_below_the_first_failure_that_does_not_pass(self):
        """a fill the kernel fails on, passing at two sizes below its first failure: the smaller left unchecked"""
        f = self.first_failure()
        below = sorted((t for t in f.table if t.verdict == "ok" and t.n < f.first and t.fill in f.failing), key=lambda t: t.n)
        twice = [t for t in below if sum(u.fill == t.fill for u in below) >= 2]
        self.assertTrue(twice, f"{f.kernel} passes at two sizes below {f.first} on no fill it fails on")
        twice[0].set_verdict("-")
        self.rejects(vr.failures_quoted(self.refs), f"{f.kernel} at {twice[0].n}, fill {twice[0].fill}: -, not ok below {f.first}")

    def rejects_each_readme_without(self, pattern, *named):
        """Each README of the first failing kernel's stage in turn, in a copy laid out as the repository (for
        vr.ROOT), the others intact, without PATTERN: the check, which passes the intact copy, names it and NAMED."""
        f = self.first_failure()
        root = support.scratch(self)
        shutil.copytree(os.path.join(support.ROOT, "stages", f.stage), os.path.join(root, "stages", f.stage),
                        ignore=lambda d, names: [n for n in names if not n.startswith("README")])
        pages = {p: open(p, encoding="utf-8").read() for p in sorted(glob.glob(f"{root}/stages/{f.stage}/README*.md"))}
        self.assertGreaterEqual(len(pages), 2, f"stages/{f.stage} has a README in both languages")
        with mock.patch.object(vr, "ROOT", root):
            self.passes(vr.failures_quoted(REFS))
        for page in pages:
            with self.subTest(readme=os.path.basename(page)):
                for p, text in pages.items():
                    open(p, "w", encoding="utf-8").write(text)
                edit_text(page, pattern, "?", count=0)
                with mock.patch.object(vr, "ROOT", root):
                    line = self.rejects(vr.failures_quoted(REFS), f"{os.path.basename(page)} of {f.stage} does not say",
                                        f"{f.kernel} fails from {f.first:,}", *named)
                for other in pages:
                    if other != page:
                        self.assertNotIn(f"{os.path.basename(other)} of {f.stage}", line)

    def test_rejects_a_readme_that_does_not_quote_the_first_failing_size(self):
        self.rejects_each_readme_without(re.escape(f"{self.first_failure().first:,}"))

    def test_rejects_a_readme_that_does_not_name_a_fill_it_passes_or_fails_on(self):
        """the fills it passes on (or, where it passes on none, one it fails on but passes on below its failure)"""
        f = self.first_failure()
        fills = f.passing or [fill for fill in f.failing if fill not in f.fills_below][:1]
        self.assertTrue(fills, f"{f.kernel}: every fill it fails on is named in the sentence of where it passes below")
        self.rejects_each_readme_without(rf"\b({'|'.join(fills)})\b",
                                         f"and passes on {' and '.join(f.passing) or 'no other fill'}")

    def test_rejects_a_readme_that_does_not_say_the_largest_size_that_passes_below(self):
        f = self.first_failure()
        self.assertTrue(f.last_ok, f"{f.kernel} passes at no size below its first failure")
        up_to = f"2^{f.last_ok.bit_length() - 1}" if f.last_ok & (f.last_ok - 1) == 0 else f"{f.last_ok:,}"
        self.rejects_each_readme_without(re.escape(up_to) + r"(?!\d)", f"passes below it up to {up_to}")


class RejectsSanitizerFiles(Broken):
    def sanitize(self):
        """A sanitizer file committed for every GPU (a file only the primary has would vanish with it), and
        its path in the primary reference."""
        names = [n for n in kinds_committed("sanitize") if all(os.path.isfile(f"{d}/{n}") for d in self.refs)]
        self.assertTrue(names, "no compute-sanitizer output (sanitize-*.txt) is committed for every GPU")
        return names[0], f"{self.b}/{names[0]}"

    def test_rejects_the_file_missing_on_the_primary(self):
        name, path = self.sanitize()
        os.remove(path)
        self.rejects(vr.sanitizers_clean(self.refs), name, f"no {name} for {gpu(self.b)}, the primary reference")

    def test_rejects_a_run_with_an_error(self):
        name, path = self.sanitize()
        edit_text(path, r"^========= ERROR SUMMARY: 0 errors$", "========= ERROR SUMMARY: 1 error")
        self.rejects(vr.sanitizers_clean(self.refs), name, f"{gpu(self.b)}:", "not clean")

    def test_rejects_a_run_whose_kernels_did_not_pass_verification(self):
        name, path = self.sanitize()
        edit_text(path, r"^all kernels passed verification$", "some kernels FAILED verification")
        self.rejects(vr.sanitizers_clean(self.refs), name, f"{gpu(self.b)}:", "a kernel not verified")

    def test_rejects_a_run_on_another_gpu(self):
        name, path = self.sanitize()
        edit_text(path, r"^(stage \S+ on )[^(]+\(", r"\1Another GPU (")
        self.rejects(vr.sanitizers_clean(self.refs), name, f"{gpu(self.b)}:", "not on the")

    def test_rejects_a_tool_not_run_on_one_kernel(self):
        name, path = self.sanitize()
        text = open(path, encoding="utf-8").read()
        tool, kernels = vr.SANITIZER_RUN.search(text).groups()
        kernel = kernels.split(",")[0]
        # The kernel out of every run of that tool.
        text = re.sub(rf"^(== compute-sanitizer --tool {tool} (?:--[\w-]+ \S+ )*\S+ --kernel )(\S+)",
                      lambda m: m[1] + ",".join(k for k in m[2].split(",") if k != kernel), text, flags=re.M)
        open(path, "w", encoding="utf-8").write(text)
        self.rejects(vr.sanitizers_clean(self.refs), name, f"{gpu(self.b)}: {tool} not run on {kernel}")

    def test_takes_a_file_an_earlier_record_lacks(self):
        name, _ = self.sanitize()
        os.remove(f"{self.a}/{name}")
        self.passes([v for v in vr.sanitizers_clean(self.refs) if name in v[1]])

    def test_rejects_a_stage_whose_description_lists_no_kernel_of_its_own(self):
        name, _ = self.sanitize()
        path = f"{self.b}/describe-{vr.file_stage(name)}.json"
        edit_json(path, lambda d: d.update(kernels=[]))
        self.rejects(vr.sanitizers_clean(self.refs), f"{gpu(self.b)}: no kernels of {vr.file_stage(name)}'s own")


class RejectsLimits(Broken):
    """limits.csv: every limit kernel and CUB at each bench size, each run read from DRAM."""

    def program(self):
        declaring = [p for p in (vr.describe(f) for f in sorted(glob.glob(f"{self.a}/describe-*.json")))
                     if p.get("limit_kernels")]
        self.assertTrue(declaring, "no program declares limit kernels")
        return declaring[0]

    def test_limits_cover_rejects_a_limit_kernel_missing_at_one_size(self):
        program = self.program()
        kernel, sizes = program["limit_kernels"][0], len(program["bench_sizes"])
        drop_rows(f"{self.a}/limits.csv", lambda r: r["stage"] == program["stage"] and r["kernel"] == kernel, keep=sizes - 1)
        self.rejects(vr.limits(self.a), f"{kernel} ({sizes - 1} of {sizes} sizes)")

    def test_limits_cover_rejects_cub_missing_at_one_size(self):
        program = self.program()
        sizes = len(program["bench_sizes"])
        drop_rows(f"{self.a}/limits.csv", lambda r: r["stage"] == program["stage"] and r["kernel"] == "cub", keep=sizes - 1)
        self.rejects(vr.limits(self.a), f"cub ({sizes - 1} of {sizes} sizes)")

    def test_limits_cover_rejects_a_reference_without_limits(self):
        os.remove(f"{self.a}/limits.csv")
        self.rejects(vr.limits(self.a), "make limits' results are committed")

    def test_read_from_dram_rejects_a_run_that_read_98_percent_of_its_input(self):
        lim = f"{self.a}/limits.csv"
        row = edit_row(lim, lambda r: True, dram_bytes=lambda r: "%d" % (0.98 * int(r["n"]) * vr.element_bytes(r["dtype"])))
        self.rejects(vr.read_from_dram(lim), f"{row['stage']} {row['kernel']} n={row['n']}: {row['dram_bytes']} bytes")

    def test_element_bytes_of_every_input_type(self):
        sizes = {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "u16": 2, "fp8_e4m3": 1, "fp8_e5m2": 1, "i8": 1, "u8": 1}
        self.assertEqual({t: vr.element_bytes(t) for t in sizes}, sizes)


class RejectsTimes(Broken):
    """no_fall, its launch floor, and the ratios between two GPUs in step."""

    def test_no_fall_rejects_a_time_that_falls_to_a_microsecond(self):
        csv = f"{self.a}/results.csv"
        timed = [r for r in rows(csv)[1] if r["pass"] != "" and r["median_us"]]
        slowest = max(timed, key=lambda r: float(r["median_us"]))
        row = edit_row(csv, lambda r: r == slowest, median_us="1.000")
        self.rejects(vr.no_fall(csv), f"{row['stage']} {row['kernel']} {row['dtype']} {row['l2']}:", f"1 us at n={row['n']}")

    def test_no_fall_excuses_a_fall_shorter_than_a_launch_floor_and_no_more(self):
        """a kernel's time falling to 0.7 of the one before it, by less than a launch floor: passed as the kernel's own
        fixed cost; without the launch floor rows, rejected"""
        csv = f"{self.a}/results.csv"
        floor = min(device(self.a, "launch_floor"))
        series = vr.series(csv)
        kernels_in = {}
        for key in series:
            kernels_in[(key[0], key[3], key[4], key[5])] = kernels_in.get((key[0], key[3], key[4], key[5]), 0) + 1
        key, a, b = next((key, *sorted(t)[:2]) for key, t in series.items() if len(t) >= 2
                         and series[key][min(t)] < 3 * floor and kernels_in[(key[0], key[3], key[4], key[5])] >= 3)
        header, table = rows(csv)
        for r in table:
            if (r["stage"], r["kernel"], r["dtype"], r["l2"], r.get("fill", ""), r.get("cols", ""), r["n"]) == (*key, str(b)):
                r["median_us"] = f"{0.7 * series[key][a]:.3f}"
        write_rows(csv, header, table)
        self.passes(vr.no_fall(csv))
        drop_rows(csv, lambda r: r["pass"] == "" and r["kernel"] == "launch_floor")
        self.rejects(vr.no_fall(csv), f"{key[0]} {key[1]} {key[2]} {key[3]}: {series[key][a]:g} us at n={a}", f"at n={b}")

    def test_launch_floor_is_the_shortest_of_the_device_rows(self):
        csv = os.path.join(support.scratch(self), "results.csv")
        write_rows(csv, ["stage", "kernel", "median_us", "pass"],
                   [{"stage": "device", "kernel": "launch_floor", "median_us": us, "pass": ""} for us in ("3.0", "2.5", "2.75")] +
                   [{"stage": "01_x", "kernel": "launch_floor", "median_us": "1.0", "pass": "1"}])
        self.assertEqual(vr.launch_floor(csv), 2.5)

    def test_ratios_in_step_rejects_a_time_four_times_slower_on_one_gpu(self):
        csv = f"{self.b}/results.csv"
        header, table = rows(csv)
        sizes = {}
        for r in table:
            if r["pass"] != "" and r["median_us"] and vr.on_gpu(self.b, r["stage"], r["kernel"]):
                sizes.setdefault((r["stage"], r["kernel"]), set()).add(int(r["n"]))
        (stage, kernel), ns = next((k, sorted(v)) for k, v in sizes.items() if len(v) >= 3)
        n = ns[len(ns) // 2]
        for r in table:
            if (r["stage"], r["kernel"], r["n"]) == (stage, kernel, str(n)) and r["median_us"]:
                r["median_us"] = f"{float(r['median_us']) * 4:.3f}"
        write_rows(csv, header, table)
        self.rejects(vr.ratios_in_step(self.a, self.b), f"{stage} {kernel}", f"n={n}:")


class CommittedAndCommandLine(Broken):
    """committed, checked and the command line of tests/verify_reference.py."""

    def test_committed_rejects_the_references_of_one_gpu(self):
        self.rejects(vr.committed(self.refs[:1]), "at least two GPUs", "found: ")

    def test_committed_rejects_folders_without_results(self):
        for d in self.refs:
            os.remove(f"{d}/results.csv")
        self.rejects(vr.committed(self.refs), "reference results are committed under")

    def test_checked_names_a_missing_column_as_one_failed_check(self):
        csv = f"{self.a}/results.csv"
        header, table = rows(csv)
        write_rows(csv, [h for h in header if h != "bytes_read"], table)
        [(ok, what)] = vr.checked(vr.within_light, csv)
        self.assertFalse(ok)
        self.assertIn("it has no column bytes_read", what)

    def test_command_line_passes_the_committed_references_with_exit_0(self):
        r = support.run([sys.executable, "tests/verify_reference.py"])
        self.assertEqual(r.rc, 0, r)
        lines = r.out.rstrip("\n").split("\n")
        self.assertTrue(lines and all(line.startswith("ok   ") for line in lines), r.out)

    def test_command_line_exits_1_naming_a_failed_check(self):
        edit_row(f"{self.a}/results.csv", lambda r: r["pass"] != "" and r["pass"] == "1", **{"pass": "0"})
        r = support.run([sys.executable, "tests/verify_reference.py", *self.refs])
        self.assertEqual(r.rc, 1, r)
        self.assertRegex(r.out, rf"(?m)^FAIL 1 rows of {re.escape(self.a)}/results.csv failed verification$")

    def test_command_line_exits_2_with_the_traceback_where_a_check_crashes(self):
        """a results.csv of its header alone beside a sanitizer file: the check reads its GPU from the first row"""
        header, _ = rows(f"{self.b}/results.csv")
        write_rows(f"{self.b}/results.csv", header, [])
        r = support.run([sys.executable, "tests/verify_reference.py", *self.refs])
        self.assertEqual(r.rc, 2, r)
        self.assertIn("Traceback", r.out)


if __name__ == "__main__":
    unittest.main()


# ---- the stages changed since a reference's run -------------------------------------------------------------

@support.per(REFS, gpu)
class EachChangedSince(support.Case):
    def test_each_page_lists_the_stages_git_says_changed(self, folder):
        """a reference with measured_at: its page's line of the stages changed since is git's, blob by blob"""
        got, why = vr.changed_listed(folder)
        if got is None:
            self.skipTest(why)
        for ok, what in got:
            self.assertTrue(ok, what)


class RejectsChangedSince(Broken):
    def recorded(self):
        """The copy of a reference with measured_at whose commit git holds (else the test skips)."""
        for folder in self.refs:
            got, why = vr.changed_listed(folder)
            if got is not None:
                return folder
        self.skipTest(f"no reference's commit can be checked here: {why}")

    def test_rejects_a_page_that_leaves_a_changed_stage_out(self):
        folder = self.recorded()
        edit_text(f"{folder}/README.md", rf"^({re.escape(vr.CHANGED)}[^:]*: )\S+?, ", r"\1")
        self.rejects(vr.changed_listed(folder)[0], "its page lists", "git:")

    def test_rejects_a_page_that_says_none_changed(self):
        folder = self.recorded()
        edit_text(f"{folder}/README.md", rf"^({re.escape(vr.CHANGED)}[^:]*: ).*$", r"\1none.")
        self.rejects(vr.changed_listed(folder)[0], "its page lists none")

    def test_changed_by_git_names_every_stage_for_a_harness_file_and_none_for_a_readme(self):
        """the computation itself, in a made-up checkout: a README changed: none; a stage's .cu: that stage;
        a file of common/: every stage"""
        top = support.scratch(self)

        def git(*args):
            r = support.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=top)
            self.assertEqual(r.rc, 0, r)
            return r.out.strip()
        for path in ("stages/01_a/reduce.cu", "stages/01_a/README.md", "stages/02_b/reduce.cu", "common/x.h"):
            os.makedirs(os.path.dirname(os.path.join(top, path)), exist_ok=True)
            open(os.path.join(top, path), "w", encoding="utf-8").write("one\n")
        git("init", "-q")
        git("add", "-A")
        git("commit", "-q", "-m", "one")
        commit = git("rev-parse", "HEAD")
        self.assertEqual(vr.changed_by_git(commit, top), ([], None))
        open(os.path.join(top, "stages/01_a/README.md"), "a", encoding="utf-8").write("two\n")
        self.assertEqual(vr.changed_by_git(commit, top), ([], None))
        open(os.path.join(top, "stages/02_b/reduce.cu"), "a", encoding="utf-8").write("two\n")
        self.assertEqual(vr.changed_by_git(commit, top), (["02_b"], None))
        open(os.path.join(top, "common/x.h"), "a", encoding="utf-8").write("two\n")
        self.assertEqual(vr.changed_by_git(commit, top), (["01_a", "02_b"], None))
        self.assertIsNone(vr.changed_by_git("0" * 40, top)[0])

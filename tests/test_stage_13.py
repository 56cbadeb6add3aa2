"""Stage 13 (the exact sum) and its demo: a CCCL_HOME that is not a CCCL checkout refused before anything
is built; the demo's exact results; the exact kernels bit for bit; a NaN or an Inf among data without a
range; fixed point refusing data off its grid. On the host: the fp64 sum's arithmetic (tests/test_stage_13.cu, built here with nvcc, run with no GPU)
against the host's exact sum, and against an oracle of Python's fractions."""
import fractions
import functools
import glob
import math
import os
import random
import re
import shlex
import struct
import unittest

from tests import gpu_lib, support
from tests.test_host_unit import parse

EXACT = os.path.join(support.ROOT, "build/13_exact/reduce")
UNIT = "build/13_exact/unit"


@functools.lru_cache(None)
def compiled():
    """tests/test_stage_13.cu built with the Makefile's flags, its warnings as errors (make print-NVCCFLAGS),
    for PTX alone (it never launches)."""
    os.makedirs(os.path.join(support.ROOT, os.path.dirname(UNIT)), exist_ok=True)
    flags = support.make("print-NVCCFLAGS", "ARCH=compute_90")
    if flags.rc != 0:
        return flags
    return support.run([support.nvcc(), *shlex.split(flags.out), "tests/test_stage_13.cu", "common/gpu.cu",
                        "common/check.cu", *support.HOST_SOURCES, "-o", UNIT])


def rounded(total, p, emin, emax):
    """The Fraction TOTAL (not 0) rounded to nearest, ties to even, in a binary format of P significand bits,
    smallest unit 2^EMIN and largest exponent EMAX: a float, or an infinity past the largest value."""
    a = abs(total)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while fractions.Fraction(2) ** e > a:
        e -= 1
    while fractions.Fraction(2) ** (e + 1) <= a:
        e += 1
    unit = max(e - (p - 1), emin)
    m = a / fractions.Fraction(2) ** unit
    q = m.numerator // m.denominator
    rest = m - q
    if rest > fractions.Fraction(1, 2) or (rest == fractions.Fraction(1, 2) and q % 2):
        q += 1
    sign = -1.0 if total < 0 else 1.0
    if q * fractions.Fraction(2) ** unit >= fractions.Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(q * fractions.Fraction(2) ** unit)


def oracle(values):
    """The exact sum of VALUES rounded once to fp64 and to fp32, as bits in hexadecimal, by IEEE's rules for
    NaN, infinities and zeros (a zero total is -0 where every value is -0)."""
    if any(math.isnan(v) for v in values) or (math.inf in values and -math.inf in values):
        return "7ff8000000000000", "7fc00000"
    if math.inf in values or -math.inf in values:
        inf = math.inf if math.inf in values else -math.inf
        return struct.pack(">d", inf).hex(), struct.pack(">f", inf).hex()
    total = sum(fractions.Fraction(v) for v in values)
    if total == 0:
        zero = -0.0 if all(v == 0 and math.copysign(1, v) < 0 for v in values) else 0.0
        return struct.pack(">d", zero).hex(), struct.pack(">f", zero).hex()
    return (struct.pack(">d", rounded(total, 53, -1074, 1023)).hex(),
            struct.pack(">f", rounded(total, 24, -149, 127)).hex())


def adversarial(kind, rng):
    """A few hundred fp64 values of KIND, made to break sums."""
    big = 1.7976931348623157e308
    if kind == "every exponent":
        return [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64) & ~(0x7ff << 52) | rng.randrange(2047) << 52))[0]
                for _ in range(300)]
    if kind == "subnormals":
        return [rng.choice((-1, 1)) * rng.randrange(1, 2**52) * 2.0**-1074 for _ in range(300)]
    if kind == "cancellation":
        xs = [rng.uniform(-1, 1) * 2.0 ** rng.randrange(-1000, 1000) for _ in range(150)]
        return xs + [-x for x in xs] + [2.0**-1074, 3 * 2.0**-60]
    if kind == "past DBL_MAX, exact 1":
        return [big] * 100 + [-big] * 100 + [1.0]
    if kind == "past DBL_MAX, a tie":
        return [big, 2.0**970] + [2.0**-1000, -2.0**-1000] * 100
    if kind == "below the tie at DBL_MAX":
        return [big, 2.0**970, -2.0**-1074] + [1.0, -1.0] * 100
    if kind == "ties":
        return [1.0, 2.0**-53] + [2.0**-700, -2.0**-700] * 100
    if kind == "ties and a sticky bit":
        return [1.0, 2.0**-53, 2.0**-1074] + [2.0**-700, -2.0**-700] * 100
    if kind == "fp32's smallest units":
        return [2.0**-150, 2.0**-149, -(2.0**-160)] + [rng.randrange(1, 2**20) * 2.0**-1074 for _ in range(200)]
    if kind == "a tie in fp32's subnormals":
        return [2.0**-150, 2.0**-149] + [2.0**-700, -(2.0**-700)] * 100
    if kind == "around FLT_MIN":
        return [2.0**-126, -(2.0**-150), 2.0**-1074] + [2.0**-900, -(2.0**-900)] * 100
    if kind == "-0":
        return [-0.0] * 257
    if kind == "-0 and +0":
        return [-0.0] * 200 + [0.0] + [-0.0] * 56
    if kind == "NaN":
        return [1.0] * 100 + [math.nan] + [2.0] * 100
    if kind == "+Inf and -Inf":
        return [1.0] * 100 + [math.inf, -math.inf] + [2.0] * 100
    if kind == "-Inf":
        return [big] * 100 + [-math.inf] + [big] * 100
    raise ValueError(kind)


ORACLE_KINDS = ["every exponent", "subnormals", "cancellation", "past DBL_MAX, exact 1", "past DBL_MAX, a tie",
                "below the tie at DBL_MAX", "ties", "ties and a sticky bit", "fp32's smallest units",
                "a tie in fp32's subnormals", "around FLT_MIN",
                "-0", "-0 and +0", "NaN", "+Inf and -Inf", "-Inf"]


class Stage13(support.Case):
    def test_cccl_home_that_is_not_a_cccl_checkout_is_refused_in_one_line_exit_2(self):
        folder = support.scratch(self)
        r = self.expect_make(2, f"CCCL_HOME={folder} is not a CCCL checkout", f"CCCL_HOME={folder}", "help")
        self.assertEqual(len([line for line in r.out.split("\n") if line.strip()]), 1, repr(r))

    @support.needs("gpu")
    @support.full_only
    def test_demo_every_exact_result_is_the_hosts_exact_sum(self):
        """in fp32 and fp64, at every launch shape (two block sizes) and start (about 20 s on an H200: make bench,
        which stops where a demo fails, runs it too, and its committed output says so)"""
        self.need_build()
        self.expect(0, " 0 not the host's exact sum", [os.path.join(support.ROOT, "build/13_exact/demo")])

    @support.needs("gpu")
    def test_windows_f32_on_the_wide_data_the_exact_sum_bit_for_bit(self):
        """the check is bit for bit: the error 0, the bound 0"""
        self.need_build()
        self.expect(0, r"^windows_f32 +[-0-9.e+]+ +0\.00e\+00 +0\.00e\+00 +ok",
                    [EXACT, "--kernel", "windows_f32", "--n", "1000003", "--fill", "wide", "--reps", "3", "--check"])

    @support.needs("gpu")
    def test_windows_f64_on_the_wide_data_the_exact_sum_bit_for_bit(self):
        """fp64 input: the result is the exact sum rounded once to fp64, the error 0, the bound 0"""
        self.need_build()
        self.expect(0, r"^windows_f64 +[-0-9.e+]+ +0\.00e\+00 +0\.00e\+00 +ok",
                    [EXACT, "--kernel", "windows_f64", "--n", "1000003", "--fill", "wide", "--reps", "3", "--check"])

    @support.needs("gpu")
    def test_fixed_point_refuses_data_off_its_grid_the_wide_fill(self):
        self.need_build()
        self.expect(0, r"^fixed_point +skipped: a value is not a multiple of 2\^-24",
                    [EXACT, "--kernel", "fixed_point", "--n", "1000003", "--fill", "wide", "--reps", "3", "--check"])

    @support.needs("gpu")
    def test_exact_kernels_on_the_binades_fill_the_exact_sum_bit_for_bit(self):
        """data without a range, nearly every tile off the windows: at the check sizes each exact kernel (--describe:
        accumulator exact) gives the exact sum, error 0 (NaN where fp16's range makes the data NaN), at every size;
        fixed point refuses the data (off its grid) where it does not pass"""
        self.need_build()
        exact = [k["name"] for k in support.kernels(EXACT) if k["accumulator"] == "exact"]
        self.assertIn("windows_f64", exact)
        sizes = ",".join(support.describe(EXACT)["check_sizes"])
        run = gpu_lib.run_csv([EXACT, "--kernel", ",".join(exact), "--n", sizes, "--fill", "binades", "--reps", "3",
                               "--check"])
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertRegex(run.result.out, r"(?m)^fixed_point +skipped: a value is not a multiple of 2\^-24")
        rows = [r for r in run.rows if r["kernel"] in exact]
        for k in exact:
            if k != "fixed_point":
                self.assertEqual(len([r for r in rows if r["kernel"] == k]), len(sizes.split(",")), f"{k}'s rows")
        for r in rows:
            with self.subTest(kernel=r["kernel"], n=r["n"]):
                err = float(r["rel_err"])
                self.assertTrue(r["pass"] == "1" and (err == 0 or math.isnan(err)), r)

    @support.needs("gpu")
    def test_a_nan_or_inf_among_data_without_a_range_is_the_sum(self):
        """2^20 + 3 random fp32 bit patterns of every finite binade (nearly every tile to windows_f32's buckets,
        most not looked at), with +Inf, -Inf or NaN at 64 places: the exact kernels give that Inf or NaN; a
        float accumulator may overflow to the other Inf first (NaN), which is expected (xfail), never a FAIL"""
        self.need_build()
        rng, folder = random.Random(72), support.scratch(self)
        bits = [rng.getrandbits(32) for _ in range(2**20 + 3)]
        bits = [b ^ 0x00800000 if (b >> 23 & 0xff) == 0xff else b for b in bits]  # no NaN or Inf of their own
        for name, special in (("+Inf", math.inf), ("-Inf", -math.inf), ("NaN", math.nan)):
            values = list(bits)
            for k in range(64):
                values[k * 16411 + 7] = struct.unpack("<I", struct.pack("<f", special))[0]
            path = os.path.join(folder, "values.f32")
            with open(path, "wb") as f:
                f.write(struct.pack(f"<{len(values)}I", *values))
            run = gpu_lib.run_csv([EXACT, "--input", path, "--dtype", "f32", "--reps", "1", "--warmup", "0", "--check"])
            with self.subTest(special=name):
                self.assertEqual(run.result.rc, 0, repr(run.result))
                by_kernel = {r["kernel"]: r for r in run.rows}
                for k in ("windows_f32", "digits"):
                    self.assertIn(k, by_kernel, f"no {k} row:\n{run.result.tail()}")
                    got = float(by_kernel[k]["result"])
                    self.assertTrue(by_kernel[k]["pass"] == "1" and (got == special or math.isnan(got) and name == "NaN"),
                                    by_kernel[k])
                self.assertEqual([r["kernel"] for r in run.rows if r["pass"] not in ("1", "xfail")], [], run.result.tail())


class CommittedDemo(unittest.TestCase):
    """make bench stops where a demo fails, so each committed output of stage 13's demo (plots/reference/<gpu>/) was
    a passing run: its last line counts the exact results it checked, none of them off the host's exact sum."""

    def test_each_committed_demo_output_found_every_result_exact(self):
        outputs = glob.glob(os.path.join(support.ROOT, "plots", "reference", "*", "demo-13_exact.txt"))
        self.assertTrue(outputs, "no committed output of stage 13's demo")
        for path in outputs:
            with self.subTest(path=os.path.relpath(path, support.ROOT)), open(path, encoding="utf-8") as f:
                last = f.read().strip().split("\n")[-1]
                self.assertRegex(last, r"^[1-9][0-9]* exact results checked, 0 not the host's exact sum$")


class ReadmeSaysRangeEvery(unittest.TestCase):
    """Step 4 of the READMEs says RANGE_EVERY (exact_sum.cuh) in words: one tile in N has its range looked at, the
    other N - 1 go to the buckets, a thread returns at most N - 1 tiles late. The words are the constant's."""

    WORDS = {8: ("eight", "seven", "八", "七"), 16: ("sixteen", "fifteen", "十六", "十五"),
             32: ("thirty-two", "thirty-one", "三十二", "三十一")}

    def test_the_words_are_the_constants(self):
        def text(path):
            with open(os.path.join(support.ROOT, "stages/13_exact", path), encoding="utf-8") as f:
                return " ".join(f.read().split())
        every = int(re.search(r"#define RANGE_EVERY (\d+)", text("exact_sum.cuh")).group(1))
        self.assertIn(every, self.WORDS, f"RANGE_EVERY is {every}: give its words here")
        en, en_rest, zh, zh_rest = self.WORDS[every]
        for path, phrases in (("README.md", (f"only one in {en} (`RANGE_EVERY`)", f"the other {en_rest} go to the buckets",
                                             f"at most {en_rest} tiles late")),
                              ("README.zh-CN.md", (f"每{zh}个 tile 只有一个（`RANGE_EVERY`）", f"另外{zh_rest}个直接进桶",
                                                   f"最多晚{zh_rest}个 tile"))):
            readme = text(path)
            for phrase in phrases:
                with self.subTest(path=path, phrase=phrase):
                    self.assertTrue(phrase in readme, f"stages/13_exact/{path} has no '{phrase}' (RANGE_EVERY = {every})")


class HostArithmetic(support.Case):
    """windows_f64's tiles, values, flushes and rounding, on the host."""

    def unit(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        r = compiled()
        if r.rc != 0:
            self.fail(f"tests/test_stage_13.cu does not compile (exit {r.rc}):\n{r.tail(20)}")
        return os.path.join(support.ROOT, UNIT)

    def test_unit_checks_pass_and_are_counted(self):
        """every "ok"/"FAIL" line a subtest; exit 1 exactly where one failed; "done N checks" last"""
        r = support.run([self.unit()])
        checks, declared, stray = parse(r.out)
        self.assertTrue(checks, f"{UNIT} printed no check:\n{r.tail()}")
        for name, passed, detail in checks:
            with self.subTest(name):
                self.assertTrue(passed, "\n".join(detail) or "FAIL")
        self.assertEqual(r.rc, 1 if any(not passed for _, passed, _ in checks) else 0, r.tail())
        self.assertEqual((len(checks), stray), (declared, []), r.tail())

    def test_sum_is_the_fraction_oracles_rounding(self):
        """the exact sum by Python's fractions, rounded here, in fp64 and fp32, on a few hundred values a kind"""
        unit, folder, rng = self.unit(), support.scratch(self), random.Random(13)
        for kind in ORACLE_KINDS:
            values = adversarial(kind, rng)
            rng.shuffle(values)
            path = os.path.join(folder, "values.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(v.hex() + "\n" for v in values))
            r = support.run([unit, "--sum", path])
            with self.subTest(kind):
                self.assertEqual(r.rc, 0, r.tail())
                want = "fp64 %s fp32 %s" % oracle(values)
                self.assertEqual(r.out.strip(), want, f"{len(values)} values of {kind}")


if __name__ == "__main__":
    unittest.main()

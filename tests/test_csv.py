"""The CSV's result columns, on any machine: tests/test_csv.cu, built here with nvcc and run with no GPU,
writes rows through the programs' own csv_write; each row's result must read back to the value it wrote,
bit for bit in its type, and its bits must be those of that value."""
import csv
import functools
import math
import os
import re
import shlex
import struct

from tests import support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

WRITER = "build/test_csv"

# What tests/test_csv.cu writes: kernel -> (the value, its type's struct format; None: no result).
WRITTEN = {
    "f64_sum": (5000035.76601307, "d"), "f64_third": (1 / 3, "d"), "f64_max": (-1.7976931348623157e308, "d"),
    "f64_tiny": (5e-324, "d"), "f32_tenth": (struct.unpack("<f", struct.pack("<f", 0.1))[0], "f"),
    "f32_max": (3.4028234663852886e38, "f"), "f32_negative_zero": (-0.0, "f"), "i32_sum": (-2147483648, "i"),
    "no_result": (None, None),
}


@functools.lru_cache(None)
def compiled():
    """tests/test_csv.cu with the common code it calls, built with the Makefile's flags (warnings as errors),
    for PTX alone (nothing is launched)."""
    os.makedirs(os.path.join(support.ROOT, "build"), exist_ok=True)
    flags = support.make("print-NVCCFLAGS", "ARCH=compute_90")
    if flags.rc != 0:
        return flags
    # PROGRAMS: the programs read_input asks which stages take a type; none here.
    return support.run([support.nvcc(), *shlex.split(flags.out), "-DPROGRAMS=\"\"", "tests/test_csv.cu", "common/csv.cu",
                        "common/program.cu", *support.HOST_SOURCES, "-o", WRITER])


def significant_digits(text):
    """The significant digits of a decimal ("0.10" and "1e-1" have one)."""
    mantissa = text.lstrip("-").split("e")[0].replace(".", "")
    return len(mantissa.strip("0")) or 1


def bits_of(value, fmt):
    """VALUE's bytes in the type of struct format FMT, rounded to it: past fp32's largest value, an infinity."""
    try:
        return struct.pack("<" + fmt, value)
    except OverflowError:
        return struct.pack("<" + fmt, math.copysign(math.inf, value))


def shortest(value, fmt):
    """The fewest significant digits that read back to VALUE in its type: Python's repr for fp64."""
    if fmt == "d":
        return significant_digits(repr(value))
    return next(d for d in range(1, 10) if bits_of(float("%.*g" % (d, value)), "f") == bits_of(value, "f"))


def result_problems(row, value, fmt):
    """What is wrong with ROW's result columns for VALUE of struct format FMT ("d", "f", "i"; None: no
    result): [] if nothing. The decimal must read back to VALUE in its type, with no more digits than the
    shortest that does; the bits must be VALUE's, in hex."""
    text, bits = row["result"], row["result_bits"]
    if fmt is None:
        return [] if (text, bits) == ("", "") else [f"a row without a result shows {text!r} {bits!r}"]
    try:
        back = int(text) if fmt == "i" else float(text)
    except ValueError:
        return [f"{text!r} is not a number of its type"]
    problems = []
    if bits_of(back, fmt) != bits_of(value, fmt):
        problems.append(f"{text} does not read back to {value!r}")
    elif fmt != "i" and significant_digits(text) > shortest(value, fmt):
        problems.append(f"{text} has more digits than the {shortest(value, fmt)} its value needs")
    want = "0x" + struct.pack(">" + fmt, value).hex()
    if bits != want:
        problems.append(f"bits {bits}, not {want}")
    return problems


class CsvColumns(support.Case):
    def written(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        r = compiled()
        if r.rc != 0:
            self.fail(f"tests/test_csv.cu does not compile (exit {r.rc}):\n{r.tail(20)}")
        path = os.path.join(support.scratch(self), "out.csv")
        r = support.run([os.path.join(support.ROOT, WRITER), path])
        self.assertEqual(r.rc, 0, repr(r))
        with open(path, encoding="utf-8") as f:
            return list(csv.reader(f))

    def test_header_is_csv_header_ending_in_the_result_columns(self):
        lines = self.written()
        header = re.search(r'^#define CSV_HEADER "(.*)"$', support.read("common/csv.h"), re.M)[1].split(",")
        self.assertEqual(lines[0], header)
        self.assertEqual(header[-2:], ["result", "result_bits"])
        self.assertEqual([i + 1 for i, f in enumerate(lines) if len(f) != len(header)], [],
                         "lines whose fields are not the header's")

    def test_each_result_reads_back_to_its_value_with_its_bits(self):
        lines = self.written()
        rows = {r["kernel"]: r for r in (dict(zip(lines[0], f)) for f in lines[1:])}
        self.assertEqual(sorted(k for k in rows if k != "dram_peak"), sorted(WRITTEN))
        for kernel, (value, fmt) in WRITTEN.items():
            with self.subTest(kernel=kernel):
                self.assertEqual(result_problems(rows[kernel], value, fmt), [])
        with self.subTest(row="device"):
            self.assertEqual((rows["dram_peak"]["result"], rows["dram_peak"]["result_bits"]), ("", ""))

    def test_the_check_rejects_a_short_decimal_wrong_bits_and_a_stray_result(self):
        """result_problems finds what it is there to find."""
        self.assertNotEqual(result_problems({"result": "5000035.77", "result_bits": "0x415312d8f1065baf"},
                                            5000035.76601307, "d"), [])
        self.assertNotEqual(result_problems({"result": "0.1", "result_bits": "0x3fb999999999999a"},
                                            struct.unpack("<f", struct.pack("<f", 0.1))[0], "d"), [])
        self.assertNotEqual(result_problems({"result": "0.100000001", "result_bits": "0x3dcccccd"},
                                            struct.unpack("<f", struct.pack("<f", 0.1))[0], "f"), [])
        self.assertNotEqual(result_problems({"result": "0.1", "result_bits": "0x3dcccccc"},
                                            struct.unpack("<f", struct.pack("<f", 0.1))[0], "f"), [])
        self.assertNotEqual(result_problems({"result": "1", "result_bits": ""}, None, None), [])

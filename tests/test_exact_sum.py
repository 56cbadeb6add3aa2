"""The exact sum as a tool: make sum and its program (lib/sum.cu), and the Python call (lib/exact_sum.py).
Without a GPU: the program's usage, its refusals (one line, exit 2) and its CSV columns as the reference page
lists them; the Python call's type map, its reading of an array interface and its error where the library is
missing. On a GPU: both against the host's exact reference (math.fsum; fractions.Fraction rounded once) and
against the stage program whose kernels the library shares, with NumPy and with an array of the test's own
that exposes __cuda_array_interface__ over memory allocated through the CUDA runtime (the stage program, started
once for each type, fill and size, and ten million values: make test-full)."""
import csv
import ctypes
import glob
import math
import os
import random
import re
import shlex
import struct
import sys
import unittest
from fractions import Fraction

from tests import npy, support

sys.path.insert(0, os.path.join(support.ROOT, "lib"))
import exact_sum as py  # noqa: E402 (lib/ on the path first)

SUM = "build/lib/sum"
# Each float type: struct's format, its significant bits, its least normal exponent, its largest exponent.
FORMATS = {"<f8": ("d", 53, -1022, 1023), "<f4": ("f", 24, -126, 127), "<f2": ("e", 11, -14, 15)}
NAMES = {"<f8": "f64", "<f4": "f32", "<f2": "f16"}
# The integer types make sum takes: struct's format and the type's name; and those it refuses (their sum can pass
# 64 bits).
INTEGERS = {"|i1": ("b", "i8"), "|u1": ("B", "u8"), "<i2": ("h", "i16"), "<u2": ("H", "u16"), "<i4": ("i", "i32"),
            "<u4": ("I", "u32")}
REFUSED_INTEGERS = {"<i8": "i64", "<u8": "u64"}


def integer_values(typestr, n):
    """n integers of the type: its least and largest values and random ones between, in a random order."""
    fmt = INTEGERS[typestr][0]
    bits = 8 * struct.calcsize(fmt)
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if fmt.islower() else (0, (1 << bits) - 1)
    rng = random.Random(f"{typestr} {n}")
    return [rng.choice((low, high, rng.randint(low, high))) for _ in range(n)]


def integer_file(path, typestr, values, dims):
    """A .npy of the type and shape holding the values; returns the exact sum of its data (integer_file_sum)."""
    fmt = INTEGERS[typestr][0]
    npy.write(path, npy.header(typestr, dims) + struct.pack(f"<{len(values)}{fmt}", *values))
    return integer_file_sum(path, typestr, len(values))


def integer_file_sum(path, typestr, count):
    """The exact sum of the last count values of the type in a file, read back from its bytes (Python's
    integers: no width to pass): the reference the GPU's integer sums are held to."""
    fmt = INTEGERS[typestr][0]
    with open(path, "rb") as f:
        body = f.read()[-count * struct.calcsize(fmt):]
    return sum(struct.unpack(f"<{count}{fmt}", body))


def value_of_bits(bits):
    """The float a CSV's result_bits hold (its decimal is the shortest that reads back in its own type, which a
    Python float reads as the nearest fp64): 8 hex digits an fp32, 16 an fp64."""
    unsigned, real = {8: ("<I", "<f"), 16: ("<Q", "<d")}[len(bits) - 2]
    return struct.unpack(real, struct.pack(unsigned, int(bits, 16)))[0]


def rounded_once(total, typestr):
    """The exact Fraction total rounded once to the type, to nearest, ties to even; infinite past its largest."""
    if total == 0:
        return 0.0
    _, bits, emin, emax = FORMATS[typestr]
    magnitude = abs(total)
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** e > magnitude:
        e -= 1
    unit = Fraction(2) ** (max(e, emin) - bits + 1)
    whole, rest = divmod(magnitude, unit)
    whole += rest > unit / 2 or (rest == unit / 2 and whole % 2 == 1)
    value = math.inf if whole * unit >= Fraction(2) ** (emax + 1) else float(whole * unit)
    return value if total > 0 else -value


def values_of(fill, n, typestr):
    """n values exact in the type: 'cancel' (large values of both signs and small ones, a sum far below the
    largest) and 'wide' (a random sign, fraction and exponent over most of the type's range, below overflow)."""
    fmt, bits, emin, emax = FORMATS[typestr]
    rng = random.Random(f"{fill} {n} {typestr}")
    top = min(emax, 40) - math.ceil(math.log2(n + 1))
    out = []
    for i in range(n):
        if fill == "cancel":
            x = (rng.random() + 1) * 2.0 ** (top if i % 3 == 0 else -3) * (1 if i % 2 else -1)
        else:
            x = rng.choice((-1, 1)) * (rng.random() + 0.5) * 2.0 ** rng.randint(emin - bits + 1, top)
        out.append(struct.unpack(fmt, struct.pack(fmt, x))[0])
    return out


def exact_total(values):
    """The exact sum of finite floats, as a Fraction: an integer sum in units of 2^-1074."""
    units = 0
    for v in values:
        numerator, denominator = v.as_integer_ratio()  # the denominator a power of two, at most 2^1074
        units += numerator << (1075 - denominator.bit_length())
    return Fraction(units, 1 << 1074)


class SumProgramHost(support.Case):
    """The program's usage and refusals, which come before the GPU is opened."""

    def program(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        self.need_build()
        return os.path.join(support.ROOT, SUM)

    def test_make_sum_without_file_says_how_before_building(self):
        self.expect_make(2, r"^usage: make sum FILE=", "sum")
        r = support.make("-n", "sum", f"BUILD={support.scratch(self)}")  # an empty build folder: nothing to build
        self.assertNotIn("nvcc", r.out, "make sum without FILE would build something")
        r = support.make("-n", "sum", "FILE=x.npy", f"BUILD={support.scratch(self)}")
        self.assertIn("lib/sum.cu", r.out, "make sum FILE=x.npy builds its program (the check above can fail)")

    def test_bad_input_is_one_line_and_exit_2(self):
        prog, d = self.program(), support.scratch(self)
        npy.write(os.path.join(d, "c8.npy"), npy.header("<c8", [3]) + bytes(24))
        for typestr, name in REFUSED_INTEGERS.items():
            npy.write(os.path.join(d, f"{name}.npy"), npy.header(typestr, [3]) + bytes(24))
        npy.write(os.path.join(d, "empty.npy"), npy.header("<f8", [0]))
        npy.write(os.path.join(d, "bad.npy"), b"hello")
        npy.write(os.path.join(d, "ok.npy"), npy.encode("<f8", "5"))
        npy.write(os.path.join(d, "fp8.raw"), b"\0" * 8)
        cases = {
            (): "name the file", ("missing.npy",): "cannot read", ("c8.npy",): "'<c8'", ("empty.npy",): "no elements",
            ("i64.npy",): "i64 values, whose exact sum can need more than the 64 bits",
            ("u64.npy",): "u64 values, whose exact sum can need more than the 64 bits",
            ("i64.npy", "--dtype", "u64"): "--dtype says u64",
            ("bad.npy",): "not a .npy", ("ok.npy", "--bogus"): "unknown option", ("ok.npy", "ok.npy"): "one file",
            ("ok.npy", "--out"): "give it a value", ("ok.npy", "--dtype", "f32"): "--dtype says f32",
            ("fp8.raw", "--dtype", "fp8_e4m3"): "sum does not take",
        }
        for args, words in cases.items():
            with self.subTest(args=args):
                r = support.run([prog, *args], cwd=d)
                self.assertEqual(r.rc, 2, r)
                self.assertRegex(r.out, rf"^error: [^\n]*{re.escape(words)}[^\n]*\n?$")

    def test_out_of_host_memory_is_exit_3_not_a_usage_error(self):
        """A file it cannot hold in host memory (a sparse 1 GiB raw file, its address space limited to less):
        one line saying so, and exit 3, as memory any program cannot allocate, never 2 (the file is fine)."""
        prog, d = self.program(), support.scratch(self)
        with open(os.path.join(d, "big.raw"), "wb") as f:
            f.truncate(1 << 30)
        r = support.run(f"ulimit -v 400000 && {shlex.quote(prog)} big.raw --dtype f32", cwd=d)
        self.assertEqual(r.rc, 3, r)
        self.assertRegex(r.out, r"^error: big.raw: out of host memory for 1073741824 bytes\n?$")

    def test_every_integer_type_it_takes_passes_the_reader_and_its_checks(self):
        """Each integer type it takes, as a 1-D and a 2-D .npy and as raw bytes with --dtype, reaches the GPU:
        with none to see, the no-GPU line and exit 3, not a refusal (exit 2)."""
        prog, d = self.program(), support.scratch(self)
        for typestr, (fmt, name) in INTEGERS.items():
            values = integer_values(typestr, 6)
            integer_file(os.path.join(d, f"{name}.npy"), typestr, values, [6])
            integer_file(os.path.join(d, f"{name}-rows.npy"), typestr, values, [2, 3])
            npy.write(os.path.join(d, f"{name}.raw"), struct.pack(f"<6{fmt}", *values))
            for args in ([f"{name}.npy"], [f"{name}-rows.npy"], [f"{name}.raw", "--dtype", name]):
                with self.subTest(args=args):
                    r = support.run([prog, *args], cwd=d, env={"CUDA_VISIBLE_DEVICES": ""})
                    self.assertEqual(r.rc, 3, r)

    def test_the_integer_reference_is_the_exact_sum_of_the_files_values(self):
        """The reference the GPU tests compare with, on files of bytes written by hand, against sums worked out by
        hand: each type's extremes (least and largest, with -1 or 0 and half the range), so that an unsigned value
        read as signed, a signed one as unsigned, or a sum cut to the type's width gives another number."""
        d = support.scratch(self)
        cases = {  # the data's bytes, little-endian, and their sum
            "|i1": ("80 80 7f ff", -128 - 128 + 127 - 1),
            "|u1": ("ff ff 80 00", 255 + 255 + 128 + 0),
            "<i2": ("0080 0080 ff7f ffff", -32768 - 32768 + 32767 - 1),
            "<u2": ("ffff ffff 0080 0000", 65535 + 65535 + 32768 + 0),
            "<i4": ("00000080 00000080 ffffff7f ffffffff", -2147483648 - 2147483648 + 2147483647 - 1),
            "<u4": ("ffffffff ffffffff 00000080 00000000", 4294967295 + 4294967295 + 2147483648 + 0),
        }
        self.assertEqual(set(cases), set(INTEGERS))
        for typestr, (data, total) in cases.items():
            with self.subTest(INTEGERS[typestr][1]):
                path = os.path.join(d, f"{INTEGERS[typestr][1]}.npy")
                npy.write(path, npy.header(typestr, [2, 2]) + bytes.fromhex(data))
                self.assertEqual(integer_file_sum(path, typestr, 4), total)

    def test_the_pages_list_the_types_its_help_and_refusals_list(self):
        """The types --help lists, those a refusal lists and each exact-sum page's `<!-- sum-types -->` list are
        one list (the program builds it from its table of the types it takes)."""
        prog, d = self.program(), support.scratch(self)
        helped = re.search(r"--dtype T +the element type of a raw FILE: ([^\n]+)", self.expect(0, "", [prog, "--help"]).out)
        self.assertIsNotNone(helped, "--help lists no types for --dtype")
        npy.write(os.path.join(d, "fp8.raw"), b"\0" * 8)
        refused = re.search(r"which sum does not take \(([^)]+)\)", support.run([prog, "fp8.raw", "--dtype", "fp8_e4m3"], cwd=d).out)
        self.assertIsNotNone(refused, "a refusal of fp8_e4m3 lists no types")
        self.assertEqual(refused[1], helped[1])
        for page in ("docs/exact-sum.md", "docs/exact-sum.zh-CN.md"):
            with self.subTest(page):
                listed = re.search(r"<!-- sum-types -->\s*`([^`]+)`", support.read(page))
                self.assertIsNotNone(listed, f"{page} has no `<!-- sum-types -->` list of types")
                self.assertEqual(listed[1], helped[1])

    def test_help_documents_the_exit_codes_and_the_csv_columns_the_page_lists(self):
        r = self.expect(0, r"^exit: 0 summed; 2 [^\n]*; 3 ", [self.program(), "--help"])
        columns = re.search(r"a line a row: (\S+)", r.out)[1]
        for page in ("docs/exact-sum.md", "docs/exact-sum.zh-CN.md"):
            with self.subTest(page):
                listed = re.search(r"<!-- sum-csv -->\s*`([^`]+)`", support.read(page))
                self.assertIsNotNone(listed, f"{page} has no `<!-- sum-csv -->` column list")
                self.assertEqual(listed[1], columns)


class PythonCallHost(unittest.TestCase):
    """lib/exact_sum.py without a GPU."""

    def test_the_type_map_takes_the_float_types_and_refuses_others(self):
        self.assertEqual({t: py.TYPES[t][1] for t in py.TYPES}, {"<f8": 8, "<f4": 4, "<f2": 2})
        for typestr in ("<i4", "|i1", ">f8", "<f16", "<c8", "|b1", None):
            with self.subTest(typestr), self.assertRaisesRegex(TypeError, "float64, float32 and float16"):
                py.parse_interface({"typestr": typestr, "shape": (3,), "data": (256, False)}, True)

    def test_the_interface_is_read_contiguous_only_with_its_stream(self):
        face = {"typestr": "<f4", "shape": (2, 3), "data": (256, False), "version": 3}
        self.assertEqual(py.parse_interface(face, True), (256, 6, "EXACT_SUM_F32", 0))
        self.assertEqual(py.parse_interface({**face, "strides": (12, 4)}, True), (256, 6, "EXACT_SUM_F32", 0))
        self.assertEqual(py.parse_interface({**face, "shape": (1, 3), "strides": (99, 4)}, True)[1], 3)
        self.assertEqual(py.parse_interface({**face, "stream": 1}, True)[3], 0)
        self.assertEqual(py.parse_interface({**face, "stream": 2}, True)[3], 2)
        self.assertEqual(py.parse_interface({**face, "stream": 0x7f00}, True)[3], 0x7f00)
        self.assertEqual(py.parse_interface({**face, "shape": ()}, True)[1], 1)
        self.assertEqual(py.parse_interface({**face, "stream": 0x7f00}, False)[3], 0, "host memory has no stream")
        for bad, words in (({"strides": (4, 8)}, "C-contiguous"), ({"strides": (24, 8)}, "C-contiguous"),
                           ({"mask": (512, False)}, "mask"), ({"stream": 0}, "stream 0"),
                           ({"data": None}, "pointer"), ({"shape": (2, -1)}, "shape")):
            with self.subTest(bad), self.assertRaisesRegex(ValueError, words):
                py.parse_interface({**face, **bad}, True)

    def test_what_is_not_an_array_is_a_type_error(self):
        for thing in ([1.0, 2.0], 3.0, "1.0", None):
            with self.subTest(thing), self.assertRaisesRegex(TypeError, "__cuda_array_interface__"):
                py.exact_sum(thing)

    def test_a_missing_library_names_make_lib(self):
        with self.assertRaisesRegex(OSError, r"missing: .*`make lib`"):
            py.library(os.path.join(support.ROOT, "build", "no-such-dir", "libexactsum.so"))


class PythonCallLibrary(support.Case):
    """lib/exact_sum.py with the library built (make lib) and no GPU: its numbers are the library's."""

    def setUp(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        self.need_build()

    def test_the_names_it_uses_are_the_headers_numbers_from_the_library(self):
        header = dict((name, int(number)) for name, number in
                      re.findall(r"\b(EXACT_SUM_[A-Z0-9_]+) = (\d+)", support.read("lib/exact_sum.h")))
        used = [name for name, _ in py.TYPES.values()] + list(py.ERRORS) + ["EXACT_SUM_OK", "EXACT_SUM_BF16"]
        self.assertEqual(set(used) - set(header), set(), "names exact_sum.h does not define")
        self.assertEqual({name: py.code(name) for name in header}, header)

    def test_a_wrong_type_is_refused(self):
        for name in ("EXACT_SUM_F128", "f32", "", "EXACT_SUM_"):
            with self.subTest(name), self.assertRaisesRegex(ValueError, "not a name the exact-sum library defines"):
                py.code(name)
        lib, x, total = py.library(), ctypes.c_double(1.0), ctypes.c_double(7.0)
        for number in (py.code("EXACT_SUM_BF16") + 1, -1, 99):
            with self.subTest(number):
                self.assertEqual(lib.exact_sum_host(ctypes.addressof(x), 1, number, ctypes.byref(total), None),
                                 py.code("EXACT_SUM_BAD_ARGUMENT"))
                self.assertEqual(total.value, 7.0, "a refused call leaves the result alone")


class DeviceArray:
    """Memory of the test's own on the GPU (cudaMalloc through ctypes), holding the values given, exposed as
    __cuda_array_interface__ (version 3) with the stream given."""

    def __init__(self, cudart, typestr, values, shape=None, stream=None, offset=0):
        fmt = FORMATS[typestr][0]
        data = struct.pack(f"<{len(values)}{fmt}", *values)
        self.cudart, self.pointer = cudart, ctypes.c_void_p()
        check(cudart.cudaMalloc(ctypes.byref(self.pointer), len(data) + 16 + offset), "cudaMalloc")
        start = self.pointer.value + offset
        check(cudart.cudaMemcpy(ctypes.c_void_p(start), data, len(data), 1), "cudaMemcpy")  # host to device
        self.__cuda_array_interface__ = {"shape": shape or (len(values),), "typestr": typestr, "data": (start, True),
                                         "version": 3, "strides": None, "stream": stream}

    def free(self):
        check(self.cudart.cudaFree(self.pointer), "cudaFree")


def check(code, what):
    if code != 0:
        raise AssertionError(f"{what} failed: CUDA error {code}")


def cuda_runtime():
    """The CUDA runtime beside nvcc (lib64/libcudart.so*), loaded through ctypes."""
    found = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(support.nvcc() or "/")), "lib*", "libcudart.so*")))
    if not found:
        raise unittest.SkipTest("no libcudart.so beside nvcc")
    lib = ctypes.CDLL(found[0])
    lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    lib.cudaFree.argtypes = [ctypes.c_void_p]
    lib.cudaStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.cudaStreamDestroy.argtypes = [ctypes.c_void_p]
    return lib


SIZES = (1, 31, 100003)
FILLS = ("cancel", "wide")


class OnTheGpu(support.Case):
    """The Python call and the program against the host's exact reference and the stage program."""

    def setUp(self):
        if not support.nvcc():
            self.skipTest("nvcc is not installed: the CUDA toolkit")
        self.need_build()

    def reference(self, values, typestr):
        """math.fsum's sum (checked to be the exact sum rounded once to fp64) and the exact sum rounded once to
        the type."""
        total = exact_total(values)
        fp64 = math.fsum(values)
        self.assertEqual(fp64, rounded_once(total, "<f8"), "math.fsum is the exact sum rounded once")
        return fp64, rounded_once(total, typestr)

    def each_case(self, check_case):
        """check_case(typestr, values, fp64, in_type) for every type, fill and size, each a subtest, with the
        references of the values."""
        for typestr in FORMATS:
            for fill in FILLS:
                for n in SIZES:
                    with self.subTest(type=typestr, fill=fill, n=n):
                        values = values_of(fill, n, typestr)
                        check_case(typestr, values, *self.reference(values, typestr))

    def stage_results(self, values, typestr):
        """The results of the stage program's exact kernels of the type (the program of the folder holding the
        library's kernels; the kernels whose --describe says exact), on a .npy of the values: each rounded once,
        to fp32 for the narrow types, to fp64 for fp64; a kernel that refuses the data gives none."""
        program = next(p for p in support.programs() if glob.glob(f"{support.ROOT}/stages/{support.stage_of(p)}/exact_sum.cuh"))
        exact = [k["name"] for k in support.kernels(program)
                 if (k["dtype"], k["role"], k["accumulator"]) == (NAMES[typestr], "default", "exact")]
        self.assertTrue(exact, f"{program} has no exact kernel of {NAMES[typestr]}")
        d = support.scratch(self)
        path = os.path.join(d, "x.npy")
        fmt = FORMATS[typestr][0]
        npy.write(path, npy.header(typestr, [len(values)]) + struct.pack(f"<{len(values)}{fmt}", *values))
        r = support.run([os.path.join(support.ROOT, program), "--input", path, "--kernel", ",".join(exact), "--reps", "1",
                         "--warmup", "0", "--csv", os.path.join(d, "x.csv")])
        self.assertEqual(r.rc, 0, r)
        return {row["kernel"]: value_of_bits(row["result_bits"]) for row in support.read_csv(os.path.join(d, "x.csv"))
                if row["kernel"] in exact and row["result"]}

    @support.needs("gpu")
    def test_own_cuda_array_equals_the_reference(self):
        cudart = cuda_runtime()
        stream = ctypes.c_void_p()
        check(cudart.cudaStreamCreate(ctypes.byref(stream)), "cudaStreamCreate")

        def check_case(typestr, values, fp64, in_type):
            size = struct.calcsize(FORMATS[typestr][0])  # one element past an aligned start
            a = DeviceArray(cudart, typestr, values, stream=stream.value, offset=size)
            try:
                got = py.exact_sum(a, in_type=True)
            finally:
                a.free()
            self.assertEqual(got, (fp64, in_type))
        self.each_case(check_case)
        check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy")

    @support.full_only
    @support.needs("gpu")
    def test_the_stage_program_gives_the_same_sums(self):
        """The stage program's exact kernels on the same values (a program started for each: make test-full)."""

        def check_case(typestr, values, fp64, in_type):
            narrow = fp64 if typestr == "<f8" else rounded_once(exact_total(values), "<f4")
            stage = self.stage_results(values, typestr)
            self.assertTrue(stage, "no result from the stage program's exact kernels")
            self.assertEqual(stage, dict.fromkeys(stage, narrow), "the stage program's results")
        self.each_case(check_case)

    @support.needs("gpu")
    def test_own_cuda_array_refusals(self):
        cudart = cuda_runtime()
        a = DeviceArray(cudart, "<f8", [1.0, 2.0, 3.0], offset=4)
        try:
            with self.assertRaisesRegex(ValueError, "misaligned"):
                py.exact_sum(a)
            a.__cuda_array_interface__["data"] = (a.pointer.value + 8, True)
            a.__cuda_array_interface__["strides"] = (16,)
            with self.assertRaisesRegex(ValueError, "C-contiguous"):
                py.exact_sum(a)
        finally:
            a.free()
        empty = DeviceArray(cudart, "<f4", [], shape=(0,))
        try:
            self.assertEqual(py.exact_sum(empty), 0.0)
        finally:
            empty.free()

    @support.needs("gpu")
    def test_numpy_arrays_equal_the_reference(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("NumPy is not installed (pip install numpy)")

        def check_case(typestr, values, fp64, in_type):
            a = numpy.array(values, dtype=numpy.dtype(typestr))  # odd sizes as a column: any shape is summed whole
            self.assertEqual(py.exact_sum(a.reshape((len(values), 1) if len(values) % 2 else a.shape), in_type=True),
                             (fp64, in_type))
        self.each_case(check_case)
        with self.assertRaisesRegex(ValueError, "C-contiguous"):
            py.exact_sum(numpy.zeros((4, 4))[:, 1])
        with self.assertRaisesRegex(TypeError, "not '<i8'"):
            py.exact_sum(numpy.zeros(4, dtype="<i8"))
        for module in ("cupy", "torch"):  # where they are installed: their arrays, with no copy
            try:
                lib = __import__(module)
            except ImportError:
                continue
            with self.subTest(module):
                values = values_of("cancel", 100003, "<f8")
                a = lib.asarray(values, dtype=lib.float64) if module == "cupy" else lib.tensor(values, dtype=lib.float64, device="cuda")
                self.assertEqual(py.exact_sum(a), math.fsum(values))

    @support.needs("gpu")
    def test_the_program_prints_the_reference_bits(self):
        d = support.scratch(self)
        for typestr in FORMATS:
            values = values_of("cancel", 100003, typestr)
            fp64, in_type = self.reference(values, typestr)
            fmt = FORMATS[typestr][0]
            path = os.path.join(d, f"{fmt}.npy")
            npy.write(path, npy.header(typestr, [7, 14286]) + struct.pack(f"<{7 * 14286}{fmt}", *values[:7 * 14286]))
            flat = os.path.join(d, f"{fmt}-flat.npy")
            npy.write(flat, npy.header(typestr, [len(values)]) + struct.pack(f"<{len(values)}{fmt}", *values))
            with self.subTest(type=typestr):
                r = self.expect(0, "", [os.path.join(support.ROOT, SUM), flat, "--csv"])
                rows = list(csv.DictReader(r.out.splitlines()))
                self.assertEqual(len(rows), 1)
                self.assertEqual(float(rows[0]["result64"]), fp64)
                self.assertEqual(rows[0]["result64_bits"], "0x%016x" % struct.unpack("<Q", struct.pack("<d", fp64))[0])
                # The sum in the file's type as a decimal that reads back to it in that type, and its bits.
                shown = struct.unpack(fmt, struct.pack(fmt, float(rows[0]["result"])))[0]
                self.assertEqual(shown, in_type, rows[0]["result"])
                width = struct.calcsize(fmt)
                bits = int.from_bytes(struct.pack(f"<{fmt}", in_type), "little")
                self.assertEqual(rows[0]["result_bits"], "0x%0*x" % (2 * width, bits))
                digits = len(re.sub(r"^[-0.]*|e.*$|\.", "", rows[0]["result"]))
                self.assertLessEqual(digits, {"<f8": 17, "<f4": 9, "<f2": 5}[typestr], rows[0]["result"])
                # The time up to the read-back is a part of the whole time.
                self.assertTrue(0 < float(rows[0]["gpu_us"]) <= float(rows[0]["median_us"]), rows[0])
                table = self.expect(0, r"GPU time .* GB/s[\s\S]*CUB's sum", [os.path.join(support.ROOT, SUM), flat])
                self.assertIn(f" {rows[0]['result64']} ({rows[0]['result64_bits']})", table.out)
            with self.subTest(type=typestr, rows=7):
                out = os.path.join(d, f"{fmt}-rows.npy")
                r = self.expect(0, "", [os.path.join(support.ROOT, SUM), path, "--csv", "--out", out])
                rows = list(csv.DictReader(r.out.splitlines()))
                want = [math.fsum(values[k * 14286:(k + 1) * 14286]) for k in range(7)]
                self.assertEqual([float(row["result64"]) for row in rows], want)
                with open(out, "rb") as f:
                    written = f.read()
                self.assertEqual(list(struct.unpack("<7d", written[-56:])), want, "--out's rows")

    @support.needs("gpu")
    def test_integer_files_sum_to_pythons_exact_sum(self):
        """Each integer type it takes, 1-D and in rows: the exact sum in int64 (its digits and bits) and that sum
        rounded once to fp64, as Python's integers and float() give them (i32 and u32 past 32 bits)."""
        d = support.scratch(self)
        for typestr, (fmt, name) in INTEGERS.items():
            values = integer_values(typestr, 100003)
            flat, rows_path = os.path.join(d, f"{name}.npy"), os.path.join(d, f"{name}-rows.npy")
            totals = [integer_file(flat, typestr, values, [len(values)])]
            integer_file(rows_path, typestr, values[:7 * 14286], [7, 14286])
            row_totals = [sum(values[k * 14286:(k + 1) * 14286]) for k in range(7)]
            for path, want in ((flat, totals), (rows_path, row_totals)):
                with self.subTest(type=name, file=os.path.basename(path)):
                    r = self.expect(0, "", [os.path.join(support.ROOT, SUM), path, "--csv"])
                    rows = list(csv.DictReader(r.out.splitlines()))
                    self.assertEqual([int(row["result"]) for row in rows], want)
                    self.assertEqual([row["result_bits"] for row in rows], ["0x%016x" % (w % (1 << 64)) for w in want])
                    self.assertEqual([float(row["result64"]) for row in rows], [float(w) for w in want])
                    self.assertEqual({row["dtype"] for row in rows}, {name})

    @support.full_only
    @support.needs("gpu")
    def test_make_sum_of_ten_million_values_is_fsums_bits(self):
        """make sum on 10^7 values of fp64 (large ones of both signs cancelling): math.fsum's bits; of fp32: the
        exact sum rounded once to fp32, from fsum's rounding to odd (its neighbour toward what it left out,
        itself summed by fsum, where its last bit is even)."""
        d = support.scratch(self)
        rng = random.Random(10 ** 7)
        for typestr in ("<f8", "<f4"):
            fmt = FORMATS[typestr][0]
            raw = struct.pack(f"<{10 ** 7}d", *((rng.random() - 0.4) * 2.0 ** rng.randint(-20, 20) for _ in range(10 ** 7)))
            values = list(struct.unpack(f"<{10 ** 7}{fmt}", struct.pack(f"<{10 ** 7}{fmt}", *struct.unpack(f"<{10 ** 7}d", raw))))
            fp64 = math.fsum(values)
            rest = math.fsum(values + [-fp64])
            odd = fp64 if rest == 0 or struct.unpack("<Q", struct.pack("<d", fp64))[0] & 1 else math.nextafter(fp64, math.copysign(math.inf, rest))
            want = fp64 if typestr == "<f8" else struct.unpack("<f", struct.pack("<f", odd))[0]
            path = os.path.join(d, f"{fmt}.npy")
            npy.write(path, npy.header(typestr, [10 ** 7]) + struct.pack(f"<{10 ** 7}{fmt}", *values))
            with self.subTest(type=typestr):
                r = self.expect_make(0, "", "sum", f"FILE={path}", "ARGS=--csv")
                row = list(csv.DictReader(r.out.splitlines()))[0]
                self.assertEqual(value_of_bits(row["result_bits"]), want)
                self.assertEqual(value_of_bits(row["result64_bits"]), fp64)
                self.assertEqual(struct.unpack(f"<{fmt}", struct.pack(f"<{fmt}", float(row["result"])))[0], want,
                                 "the decimal reads back to the bits in the file's type")
                self.assertEqual(float(row["result64"]), fp64)


if __name__ == "__main__":
    unittest.main()

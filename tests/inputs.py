"""What the tests of --input share: the files they write (tests/npy.py's values) and bad_files, the refusals
every program that reads --input shares (tests/test_input.py runs them on every single-GPU program; a stage's
own module on a program of its own)."""
import functools
import os
import re

from tests import npy, support

# The .npy type string of each type a program's --describe names ("input types").
DESCR = {"f32": "<f4", "f16": "<f2", "i8": "|i1", "i32": "<i4", "f64": "<f8"}


@functools.lru_cache(None)
def data(descr, shape, raw=False):
    """The bytes of a .npy of DESCR and SHAPE, or of its data alone (RAW); made once a process."""
    return npy.encode(descr, shape, raw)


def write(path, descr, shape, raw=False, drop=0):
    """A .npy (or, RAW, its data alone) of DESCR and SHAPE at PATH, less its last DROP bytes. Returns PATH."""
    return npy.write(path, data(descr, shape, raw), drop)


def refused(case, program, args, pattern):
    """PROGRAM ARGS, the GPU hidden, must exit 2 with one error line that matches PATTERN (and the pointer
    to --help after it): a refusal found before the GPU is opened, where a GPU is (else it would say no
    GPU and exit 3). Returns the Result."""
    r = support.run([program, *args], env={"CUDA_VISIBLE_DEVICES": ""})
    lines = [line for line in r.out.split("\n") if line.strip()]
    rest = lines[1:] == [] or lines[1:] == [f"(try {program} --help)"]
    if r.rc != 2 or not lines or not lines[0].startswith("error: ") or not re.search(pattern, lines[0]) or not rest:
        case.fail(f"wanted exit 2 and one line 'error: ...' matching /{pattern}/ (then the pointer to --help), "
                  f"from {r.cmd!r}; it exited {r.rc}:\n{r.tail()}")
    return r


def type_refusal(t, types):
    """The line a program whose kernels take TYPES (--describe: input types) refuses a file of type T with:
    the types taken, the stages whose programs' --describe lists T among their input types (every built
    program asked) and, where it takes f32, the conversion to float32 (a pattern)."""
    takers = [support.stage_of(p) for p in support.programs()
              if support.built(p) and t in support.describe(p)["input_types"]]
    convert = r", or convert it, .*astype\(np\.float32\)\)\"$" if "f32" in types else r"$"
    return (rf"holds {t} values; this program's kernels take: {re.escape(' '.join(types))}\. Sum it with "
            rf"a stage whose kernels take {t} \({re.escape(' '.join(takers) or 'none built')}: "
            rf"make stage-NN run ARGS=\"--input FILE\"\){convert}")


def bad_files(case, program, label, dtype, shape, tmpdir):
    """The refusals every program that reads --input shares (common/array_file.c's reader, common/program.cu's
    options), each a subTest of CASE named LABEL: a missing file, a malformed header, a truncated file, a
    big-endian type, raw bytes without --dtype, a file with --n, a file with a --fill (where the program has
    one besides its default). DTYPE (a .npy type string such as '<f4') and SHAPE ("1000003", "7,1001") are
    those of the good files it leaves in TMPDIR. Returns their paths, (the .npy, the same values as raw
    bytes)."""
    good = write(os.path.join(tmpdir, "in.npy"), dtype, shape)
    raw = write(os.path.join(tmpdir, "raw.bin"), dtype, shape, raw=True)
    none = os.path.join(tmpdir, "none.npy")
    bad = os.path.join(tmpdir, "bad.npy")
    with open(bad, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00\x10\x00{garbage}      \n")
    short = write(os.path.join(tmpdir, "short.npy"), dtype, shape, drop=3)
    big = write(os.path.join(tmpdir, "big.npy"), ">f4", "1000")
    other_fills = support.describe(program)["fills"][1:2]  # the first is the default, which --fill may repeat
    cases = [("a missing file", [none], f"^error: --input {re.escape(none)}: cannot read it"),
             ("a malformed .npy header", [bad], r"malformed \.npy header"),
             ("a truncated .npy", [short], r": truncated: the header says"),
             ("a big-endian .npy", [big], r"dtype '>f4'"),
             ("raw bytes without --dtype", [raw], r"give their --dtype"),
             ("a .npy with --n (the file sets N)", [good, "--n", "1000"], r"give no --n")]
    cases += [("a .npy with --fill (the file is the data)", [good, "--fill", fill], r"give no --fill") for fill in other_fills]
    for what, args, pattern in cases:
        with case.subTest(f"{label} --input: {what}, exit 2"):
            refused(case, program, ["--input", *args], pattern)
    return good, raw

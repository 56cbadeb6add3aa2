"""--input FILE (sum your own data) in every single-GPU program: every bad file is a one-line error and
exit 2, found before the GPU is opened (tests/inputs.py); a good file passes every check of the file, and
where a GPU is, is summed and checked, as a .npy and as raw bytes."""
import atexit
import functools
import os
import re
import shutil
import tempfile

from tests import inputs, support

# The type a program's file is written in: the first of these its kernels take.
PREFERRED = ("f32", "f16", "i8", "i32")


@functools.lru_cache(None)
def workdir():
    d = tempfile.mkdtemp(prefix="reduce-test-input-")
    atexit.register(shutil.rmtree, d, True)
    return d


@support.per(support.programs, support.stage_of)
class EveryProgram(support.Case):
    """Each program that runs on one GPU."""

    def program(self, program):
        self.need_build()
        if not support.built(program):
            self.skipTest(f"{program} is not built here: make all leaves it out (its stage's tests say why)")
        if support.describe(program)["several_gpus"]:
            self.skipTest(f"{program} runs on several GPUs (--describe: several_gpus: true): "
                          "its stage's own tests check its --input")
        return program

    def types(self, program):
        return support.describe(program)["input_types"]

    def file_type(self, program):
        """The type this test writes PROGRAM's file in, and the file's shape (rows for a row stage)."""
        t = next((t for t in PREFERRED if t in self.types(program)), None)
        self.assertIsNotNone(t, f"{program} takes none of {PREFERRED} (--describe: input types)")
        return t, "7,1001" if support.describe(program)["row_stage"] else "1000003"

    def good_npy(self, program):
        t, shape = self.file_type(program)
        path = os.path.join(workdir(), f"{t}-{shape.replace(',', 'x')}.npy")
        return inputs.write(path, inputs.DESCR[t], shape)

    def test_each_help_lists_input(self, program):
        """Its --help lists --input FILE."""
        self.program(program)
        self.expect(0, r"--input FILE", [program, "--help"])

    def test_each_refuses_bad_files(self, program):
        """The refusals every program that reads --input shares."""
        self.program(program)
        t, shape = self.file_type(program)
        inputs.bad_files(self, program, support.stage_of(program), inputs.DESCR[t], shape, support.scratch(self))

    def test_each_refuses_dtype_contradicting_npy(self, program):
        """A .npy whose type --dtype contradicts, exit 2."""
        self.program(program)
        t, _ = self.file_type(program)
        inputs.refused(self, program, ["--input", self.good_npy(program), "--dtype", "f16" if t == "f32" else "f32"],
                       r"but --dtype says")

    def test_each_refuses_dtype_without_input(self, program):
        """--dtype names the type of a raw --input, so alone it is refused, exit 2."""
        self.program(program)
        inputs.refused(self, program, ["--dtype", "f32"], r"names the type of a raw --input")

    def test_each_type_its_kernels_take_passes_the_others_refused_naming_the_stages(self, program):
        """A .npy of each type a .npy can hold: one its kernels take passes every check of the file (then,
        the GPU hidden, needs one); any other is refused with the types taken, the stages whose --describe
        lists it among their input types and, where the program takes f32, the conversion to float32,
        exit 2."""
        self.program(program)
        types = self.types(program)
        for t, descr in inputs.DESCR.items():
            path = inputs.write(os.path.join(support.scratch(self), f"{t}.npy"), descr, "1000")
            with self.subTest(t):
                if t in types:
                    self.expect(3, r"^error: no CUDA-capable GPU found",
                                [program, "--input", path, "--reps", "1"], env={"CUDA_VISIBLE_DEVICES": ""})
                    continue
                inputs.refused(self, program, ["--input", path], inputs.type_refusal(t, types))

    def test_each_good_file_passes_then_needs_gpu_exit_3(self, program):
        """A good .npy passes every check of the file; then, the GPU hidden, one line saying it needs one."""
        self.program(program)
        r = self.expect(3, r"^error: no CUDA-capable GPU found", [program, "--input", self.good_npy(program),
                                                                  "--reps", "1", "--warmup", "0"],
                        env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(len(r.out.strip().split("\n")), 1, f"more than the one line:\n{r.tail()}")

    @support.needs("gpu")
    def test_each_sums_npy_on_gpu(self, program):
        """Its kernels sum a .npy, every check passing; the table names the file, the CSV's rows say input."""
        self.program(program)
        t, _ = self.file_type(program)
        path = self.good_npy(program)
        csv = os.path.join(support.scratch(self), "input.csv")
        r = self.expect(0, r"all kernels passed", [program, "--input", path, "--reps", "1", "--warmup", "0",
                                                   "--check", "--csv", csv])
        self.assertIn(f", input {path} ({t})", r.out)
        rows = [row for row in support.read_csv(csv) if row["pass"] != ""]
        self.assertTrue(rows, f"{csv} has no kernel rows")
        self.assertEqual({row["fill"] for row in rows}, {"input"})

    @support.needs("gpu")
    def test_each_sums_raw_bytes_on_gpu(self, program):
        """The same values as raw bytes with --dtype: every check passing."""
        self.program(program)
        t, shape = self.file_type(program)
        raw = inputs.write(os.path.join(support.scratch(self), "raw.bin"), inputs.DESCR[t], shape, raw=True)
        csv = os.path.join(support.scratch(self), "raw.csv")
        self.expect(0, r"all kernels passed", [program, "--input", raw, "--dtype", t, "--reps", "1", "--warmup", "0",
                                               "--check", "--csv", csv])
        # Raw bytes have one dimension: every element summed, and a row stage's one row holds them all.
        count = eval(shape.replace(",", "*"))
        rows = [row for row in support.read_csv(csv) if row["pass"] != ""]
        self.assertTrue(rows, f"{csv} has no kernel rows")
        for row in rows:
            self.assertEqual(int(row["n"]), count, f"{row['kernel']}: n")
            if row["cols"]:
                self.assertEqual(int(row["cols"]), count, f"{row['kernel']}: one row of every element")

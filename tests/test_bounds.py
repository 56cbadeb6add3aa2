"""The error bound each kernel declares, against the primary reference's (plots/reference/primary), with no
GPU: each stage program on the harness prints, with --bounds-for SMS (the reference GPU's SM count, from the
headers of its committed outputs), the rel_bound and chain its launchers declare at the committed sizes on the
committed fill, and they must be the committed ones. A bound made looser or tighter in a launcher, or in the
bound's formula, shows here without a GPU. The host half takes the sizes up to HOST_LARGEST; make test-full
every committed size."""
import os
import re
import unittest

from tests import inputs, support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

# The largest committed size the host half checks: the data of each size are made and summed on the host.
HOST_LARGEST = 1 << 24


def reference_folder():
    return os.path.join(support.ROOT, "plots", "reference", support.read("plots/reference/primary").strip())


def reference_sm_count():
    """The SM count that the headers of the primary reference's committed outputs give ("132 SMs"), or None
    where they give none or disagree."""
    folder = reference_folder()
    counts = set()
    for name in sorted(os.listdir(folder)):
        if name.endswith(".txt"):
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                counts |= set(re.findall(r"\b(\d+) SMs\b", f.read()))
    return int(counts.pop()) if len(counts) == 1 else None


def elements(size):
    """The element count of a size as a program takes it: 1000003, 64K, 2^24+1, 4096x1024."""
    count = 1
    for part in size.split("x"):
        power = re.fullmatch(r"2\^(\d+)([+-]\d+)?", part)
        suffix = re.fullmatch(r"(\d+)([KMG])", part, re.I)
        count *= (2 ** int(power[1]) + int(power[2] or 0) if power
                  else int(suffix[1]) << 10 * ("KMG".index(suffix[2].upper()) + 1) if suffix else int(part))
    return count


def committed_groups(stage):
    """{fill: {(kernel, dtype, n): [(rel_bound, chain), ...]}} of STAGE's rows with the L2 flushed in the
    primary reference, at the sizes this run checks (two sizes of N elements, 1024x2048 and 2048x1024, are two
    rows of N), each list sorted."""
    groups = {}
    for r in support.read_csv(os.path.join(reference_folder(), "results.csv")):
        if r["stage"] == stage and r["l2"] == "flushed" and (support.FULL or int(r["n"]) <= HOST_LARGEST):
            groups.setdefault(r["fill"], {}).setdefault((r["kernel"], r["dtype"], r["n"]), []).append(
                (r["rel_bound"], r["chain"]))
    return {fill: {key: sorted(rows) for key, rows in group.items()} for fill, group in groups.items()}


def declared(out):
    """{(kernel, dtype, n): [(rel_bound, chain) as the CSV writes them, or "not declared: WHY"], sorted} of
    the lines --bounds-for printed."""
    found = {}
    for line in out.split("\n"):
        m = re.fullmatch(r"bound: (\S+) (\S+) (\d+) (.+)", line)
        if not m:
            continue
        value = m[4]
        if not value.startswith("not declared"):
            bound, chain = value.split()
            value = ("" if bound == "-" else bound, "" if chain == "0" else chain)
        found.setdefault((m[1], m[2], m[3]), []).append(value)
    return {key: sorted(values, key=str) for key, values in found.items()}


def on_the_harness():
    """The single-GPU programs built on the stage harness (their stage folder has no stage.mk of its own)."""
    return [p for p in support.programs()
            if not os.path.exists(os.path.join(support.ROOT, "stages", support.stage_of(p), "stage.mk"))]


@support.per(on_the_harness, support.stage_of)
class DeclaredBounds(support.Case):

    def test_each_declared_bound_is_the_committed_one(self, program):
        self.need_build()
        if support.describe(program)["row_stage"]:
            self.skipTest("a row stage's bound is its worst row's, which --bounds-for does not declare")
        sms = reference_sm_count()
        self.assertIsNotNone(sms, f"no one 'N SMs' in the headers of {reference_folder()}/*.txt")
        groups = committed_groups(support.stage_of(program))
        if not groups:
            self.skipTest(f"no row of this stage at N <= {HOST_LARGEST} in the primary reference")
        bench_sizes = support.describe(program)["bench_sizes"]
        for fill, committed in sorted(groups.items()):
            sizes = ",".join(s for s in bench_sizes if str(elements(s)) in {n for _, _, n in committed})
            kernels = ",".join(sorted({k for k, _, _ in committed} - {"cub"}))
            r = self.expect(0, r"^bound: ", [os.path.join(support.ROOT, program), "--bounds-for", str(sms), "--n", sizes,
                                             "--fill", fill, "--kernel", kernels], env={"CUDA_VISIBLE_DEVICES": ""})
            found = declared(r.out)
            for key, want in sorted(committed.items()):
                with self.subTest(fill=fill, kernel=key[0], dtype=key[1], n=key[2]):
                    got = found.get(key)
                    self.assertIsNotNone(got, f"--bounds-for printed no bound of {key}:\n{r.tail()}")
                    if any(isinstance(value, str) for value in got):
                        self.skipTest(next(value for value in got if isinstance(value, str)))
                    self.assertEqual(got, want, "(rel_bound, chain) declared here, against the committed ones (a "
                                     "declared shape changed since the reference was run: make bench and make "
                                     "reference again)")


class Refusals(support.Case):

    def test_bounds_for_refuses_a_count_that_is_not_a_number_exit_2(self):
        self.need_build()
        program = on_the_harness()[0]
        self.expect(2, r"^error: --bounds-for 'many': give the GPU's number of SMs",
                    [os.path.join(support.ROOT, program), "--bounds-for", "many"])

    def test_bounds_for_refuses_a_file_exit_2(self):
        """A file's bound is its own data's: --bounds-for with --input is refused in one line."""
        self.need_build()
        program = on_the_harness()[0]
        path = os.path.join(support.scratch(self), "in.npy")
        inputs.write(path, "<f4", "1000")
        self.expect(2, r"^error: --bounds-for: a row stage's bounds are its rows', and a file's its own",
                    [os.path.join(support.ROOT, program), "--bounds-for", "132", "--input", path],
                    env={"CUDA_VISIBLE_DEVICES": ""})


if __name__ == "__main__":
    unittest.main()

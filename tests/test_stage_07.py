"""Stage 07 (input types and packed loads): an unaligned input refused by the packed kernels, S x K shapes
through both branches of LeetCUDA's launcher, values near each type's maximum (the README's table of which
kernels overflow and which hold the sums, against the committed results and a run), and 16-byte loads in
the SASS."""
import functools
import glob
import os
import re
import unittest

from tests import gpu_lib, support

STAGE = "07_leetcuda_dtypes"
DTYPES = os.path.join(support.ROOT, f"build/{STAGE}/reduce")
READMES = [f"stages/{STAGE}/README.md", f"stages/{STAGE}/README.zh-CN.md"]
VERDICTS = {"`ok`": "1", "`xfail`": "xfail"}  # the table's first column: the CSV's pass value


@functools.lru_cache(None)
def large():
    """--fill large (values near each type's maximum) at the smallest and largest cells of the article's grid,
    every kernel checked."""
    return gpu_lib.run_csv([DTYPES, "--fill", "large", "--n", "1024x1024,4096x4096", "--reps", "1", "--warmup", "0",
                            "--check"])


def readme_large_table(text):
    """The README's `--fill large` table: [(kernel, pass value)], one a kernel in the table's order."""
    start = text.index("| `--fill large` |")
    pairs = []
    for line in text[start:].split("\n")[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        pairs += [(kernel, VERDICTS[cells[0]]) for kernel in re.findall(r"`([^`]+)`", cells[1])]
    return pairs


def stage_kernels():
    """The stage's own kernels (not the library's), as the committed reference's description names them."""
    saved = support.description.read(os.path.join(support.ROOT, f"plots/reference/nvidia-h200/describe-{STAGE}.json"))
    return [k["name"] for k in saved["kernels"] if k["role"] != "library"]


def mismatches(table, rows):
    """What the rows of a --fill large run (dicts by the CSV's header) say against TABLE ({kernel: pass}): a
    kernel whose rows give another verdict, a kernel of the table without a row, a row of a kernel not in it."""
    seen = {}
    for r in rows:
        if r["stage"] == STAGE and r["fill"] == "large" and r["kernel"] != "cub":
            seen.setdefault(r["kernel"], set()).add(r["pass"])
    problems = [f"{k}: {' '.join(sorted(seen[k]))}, the README says {v}" for k, v in table.items()
                if k in seen and seen[k] != {v}]
    problems += [f"{k}: no row" for k in table if k not in seen]
    return problems + [f"{k}: not in the README's table" for k in seen if k not in table]


def committed_large_rows():
    """The committed references' rows of this stage on the large fill, the H200's (the primary) first."""
    paths = sorted(glob.glob(os.path.join(support.ROOT, "plots/reference/*/results.csv")),
                   key=lambda p: "nvidia-h200" not in p)
    return {p: rows for p in paths
            for rows in [[r for r in support.read_csv(p) if r["stage"] == STAGE and r["fill"] == "large"]] if rows}


class Stage07(support.Case):
    @support.needs("gpu")
    def test_offset_1_the_packed_kernels_refuse_it_the_rest_pass(self):
        self.need_build()
        self.expect(0, "f32x4_f32 +skipped: the input is not 16-byte aligned",
                    [DTYPES, "--check", "--n", "1000003", "--offset", "1", "--reps", "1", "--warmup", "0"])

    @support.needs("gpu")
    def test_s_x_k_shapes_a_block_per_row_and_the_other_branch_of_the_launcher(self):
        # LeetCUDA's launch: a block of K/PACK threads per row where that is 32 ... 1024, else 1024/PACK
        # threads; rows whose K/PACK is not whole or not a power of two, and a last pack past N.
        self.need_build()
        self.expect(0, "all kernels passed verification",
                    [DTYPES, "--check", "--n", "64x256,3x4097,5x100,1024x2048,2x8200", "--reps", "1", "--warmup", "0"])

    def test_readme_fill_large_table_names_every_kernel_once_the_same_in_both_languages(self):
        tables = [readme_large_table(support.read(p)) for p in READMES]
        self.assertEqual(tables[1], tables[0], "the Chinese table differs from the English one")
        names = [k for k, _ in tables[0]]
        self.assertEqual(sorted(names), sorted(stage_kernels()), "the table's kernels against --describe's")

    def test_readme_fill_large_table_check_rejects_a_verdict_that_differs_and_a_missing_row(self):
        table = dict(readme_large_table(support.read(READMES[0])))
        rows = [{"stage": STAGE, "fill": "large", "kernel": k, "pass": v} for k, v in table.items()]
        self.assertEqual(mismatches(table, rows), [])
        flipped = [dict(r, **{"pass": "1" if r["pass"] == "xfail" else "xfail"}) if r["kernel"] == "f32_f32" else r
                   for r in rows]
        self.assertEqual(len(mismatches(table, flipped)), 1, "a kernel whose verdict is not the README's")
        self.assertEqual(len(mismatches(table, rows[1:])), 1, "a kernel of the table without a row")

    def test_readme_fill_large_table_is_what_the_committed_results_say(self):
        committed = committed_large_rows()
        if not committed:
            self.skipTest(f"no committed reference has {STAGE}'s --fill large rows")
        table = dict(readme_large_table(support.read(READMES[0])))
        for path, rows in committed.items():
            with self.subTest(reference=os.path.relpath(path, support.ROOT)):
                self.assertEqual(mismatches(table, rows), [])

    @support.needs("gpu")
    def test_fill_large_each_kernels_verdict_is_the_readmes_table(self):
        """f32_f32 overflows as f16_f16 does: fp32 and bf16 values near their largest pass FLT_MAX in a few additions"""
        self.need_build()
        run = large()
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertEqual(mismatches(dict(readme_large_table(support.read(READMES[0]))), run.rows), [])

    @support.needs("gpu")
    def test_fill_large_the_overflow_is_reported_and_check_exits_0(self):
        self.need_build()
        run = large()
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertIn("fp16 accumulator cannot hold", run.result.out)

    @support.needs("gpu", "cuobjdump")
    def test_make_sass_shows_16_byte_loads_in_the_pack_kernels(self):
        self.need_build()
        self.expect_make(0, "LDG.128 [1-9]", "stage-07", "sass")


if __name__ == "__main__":
    unittest.main()

"""Stage 04 (the last warp): its READMEs' kernel tables against the stage file's table of kernels, and the
blog's §3 kernel in its own form (each block's sum to an array) in the SASS: no atomic, the barriers of
the unrolled last warp."""
import re
import unittest

from tests import support

STAGE = "04_syncwarp"


def source_kernels(stage):
    """The kernels of stages/STAGE/reduce.cu's table, in its order (the order of --list and --describe)."""
    table = re.search(r"static const Kernel kernels\[\] = \{\n(.*?)\n\};", support.read(f"stages/{stage}/reduce.cu"), re.S)
    return re.findall(r'^ *\{"(\w+)"', table[1], re.M) if table else []


def readme_kernels(page):
    """The kernels of a stage README's first table (its header starts "| kernel |"), in its order."""
    lines = support.read(page).split("\n")
    start = next((k for k, line in enumerate(lines) if line.startswith("| kernel |")), None)
    if start is None:
        return []
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows += re.findall(r"^\| `(\w+)` \|", line)
    return rows


def kernel_table_problems(stage):
    """How each README's kernel table differs from the stage file's kernels (empty where none does)."""
    kernels = source_kernels(stage)
    if not kernels:
        return [f"stages/{stage}/reduce.cu: no table of kernels found"]
    return [f"{page} lists {readme_kernels(page)}, the stage file {kernels}"
            for page in (f"stages/{stage}/README.md", f"stages/{stage}/README.zh-CN.md")
            if readme_kernels(page) != kernels]


def sass_line(out, kernel):
    """The summary line of KERNEL in make stage-NN sass's output (the line after its signature), or ""."""
    found = re.search(rf"^{kernel}\(.*\n(.*)$", out, re.M)
    return found[1] if found else ""


class Stage04(support.Case):
    def test_readmes_list_every_kernel_of_the_stage_file_in_its_order(self):
        self.assertEqual(kernel_table_problems(STAGE), [])

    @support.needs("gpu", "cuobjdump")
    def test_make_sass_the_blogs_section_3_kernel_has_no_atomic_and_three_barriers(self):
        """reduce_unrolled_warp_partials: the block's sum to an array, __syncthreads only down to 64 values
        (stage 02's reduce_shared, the blog's §2, has one at every level); reduce_unrolled_warp: its atomic"""
        self.need_build()
        out = self.expect_make(0, "", "stage-04", "sass").out
        partials, atomic = sass_line(out, "reduce_unrolled_warp_partials"), sass_line(out, "reduce_unrolled_warp")
        self.assertRegex(partials, r"BAR\.SYNC 3 .*RED/ATOM 0 ", out[-2000:])
        self.assertRegex(atomic, r"RED/ATOM [1-9]", out[-2000:])


if __name__ == "__main__":
    unittest.main()

"""make stage-NN tree (scripts/tree.sh, build/<stage>/tree): made-up records (tests/tree_record.py) counted and
drawn, the committed records (plots/reference/<gpu>/tree/<stage>/) drawn and shown by the READMEs, and each
record build's refusals, anywhere; where a GPU is, the README's kernels recorded again and compared with the
committed records, and (make test-full) every kernel that can be recorded recorded."""
import atexit
import functools
import glob
import os
import re
import shutil
import tempfile

from tests import support, tree_record

# The shared-memory instructions and wavefronts of a made-up block of 64 threads, loads then stores: the
# strided tree's accesses 2*s*tid are 2-way conflicts in all but its last steps; the other forms have none.
COUNTS = {"interleaved": "ld 22 22\nst 13 13", "strided": "ld 12 22\nst 8 13", "sequential": "ld 12 12\nst 8 8",
          "shuffle": "ld 1 1\nst 2 2", "shuffle_first": "ld 1 1\nst 2 2"}
# The stages on the common harness (stages/<stage>/reduce.cu) have a record build; the others do not.
HARNESS = [s for s in support.stages() if os.path.exists(os.path.join(support.ROOT, "stages", s, "reduce.cu"))]
OWN = [s for s in support.stages() if s not in HARNESS]
# The committed records, each beside its picture: plots/reference/<gpu>/tree/<stage>/<kernel>.csv, made by
# make stage-NN tree on that GPU; and the (stage, kernel) pairs they record, on any GPU.
COMMITTED = sorted(os.path.relpath(p, support.ROOT)
                   for p in glob.glob(os.path.join(support.ROOT, "plots", "reference", "*", "tree", "*", "*.csv")))
RECORDS = sorted({(p.split(os.sep)[-2], os.path.basename(p)[:-4]) for p in COMMITTED})
NO_GPU_ENV = {"CUDA_VISIBLE_DEVICES": ""}


@functools.lru_cache(None)
def workdir():
    d = tempfile.mkdtemp(prefix="reduce-test-tree-")
    atexit.register(shutil.rmtree, d, True)
    return d


@functools.lru_cache(None)
def made_up(form):
    """A made-up record of a block of 64 threads reducing in FORM's way (tests/tree_record.py): its path."""
    path = os.path.join(workdir(), f"{form}.csv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(tree_record.record(form, 64)) + "\n")
    return path


@functools.lru_cache(None)
def drawn(form):
    """scripts/tree.sh draw of a made-up record (the terminal form, then the PNG where gnuplot is)."""
    return support.run(["scripts/tree.sh", "draw", made_up(form), os.path.join(workdir(), f"{form}.png")])


def draw_rc():
    """tree.sh draw's exit: 0, or 4 where gnuplot is missing (the terminal form is drawn all the same)."""
    return 4 if support.missing("gnuplot") else 0


def ascii_tree(record):
    return support.run(["python3", "scripts/report", "tree", "--mode", "ascii", record])


def copy_of(case, folders=("stages", "scripts", "plots/reference")):
    """A scratch copy of FOLDERS and of the README blocks' texts (docs/report-texts.tsv), as tree.sh reads."""
    copy = support.scratch(case)
    for d in folders:
        shutil.copytree(os.path.join(support.ROOT, d), os.path.join(copy, d))
    os.makedirs(os.path.join(copy, "docs"))
    shutil.copy(os.path.join(support.ROOT, "docs", "report-texts.tsv"), os.path.join(copy, "docs"))
    return copy


def shown(stage, kernel, page="README.md", root=support.ROOT):
    """The record whose picture stages/<stage>/PAGE under ROOT shows for KERNEL (the CSV beside the PNG its
    image links), a path from ROOT; None where it shows none."""
    with open(os.path.join(root, "stages", stage, page), encoding="utf-8") as f:
        link = re.search(rf"!\[[^\]]*\]\(([^)]*/{re.escape(kernel)}\.png)\)", f.read())
    return link and os.path.normpath(os.path.join("stages", stage, link[1]))[:-4] + ".csv"


def records_of(stage, kernel):
    """The committed records of STAGE's KERNEL, one for each GPU that recorded it."""
    return [p for p in COMMITTED if p.split(os.sep)[-2:] == [stage, f"{kernel}.csv"]]


def table_kernels(program):
    """The kernels of PROGRAM's table, less the library's rows (CUB's), in order."""
    return list(dict.fromkeys(k["name"] for k in support.kernels(program) if k["role"] != "library"))


@functools.lru_cache(None)
def recordable(stage):
    """Each kernel of STAGE's table run by its record build with the GPU hidden: (those that need only the
    GPU (exit 3), those refused with a reason (exit 5), the others with their exit)."""
    program, tree = support.program_of(stage), f"build/{stage}/tree"
    need, refused, other = [], [], []
    for k in table_kernels(program):
        r = support.run([tree, "--kernel", k], env=NO_GPU_ENV)
        if r.rc == 3:
            need.append(k)
        elif r.rc == 5 and re.search(rf"^[^ ]+: {re.escape(k)} cannot be recorded: [a-z]+ ", r.out, re.M):
            refused.append(k)
        else:
            other.append(f"{k} (exit {r.rc})")
    return need, refused, other


@support.per(list(COUNTS))
class Counts(support.Case):

    def test_each_counts_of_made_up_block(self, form):
        """tree counts: the shared-memory instructions and wavefronts of a made-up block."""
        r = self.expect(0, "", ["scripts/tree.sh", "counts", made_up(form)])
        self.assertEqual(r.out.strip(), COUNTS[form])


class Draw(support.Case):
    """The terminal form of made-up records."""

    def test_strided_additions_step_by_step(self):
        r = drawn("strided")
        self.assertEqual(r.rc, draw_rc(), r)
        self.assertRegex(r.out, r"(?m)^ +2 \| \+ \+ \+ .* \| 32 additions")

    def test_strided_2_way_conflict_and_banks(self):
        """The strided record's first loads: 2 wavefronts, on banks 1 3 5 ..."""
        self.assertRegex(drawn("strided").out, r"(?m)^   1 ld  1 \| 2 - \|  1  3  5")

    def test_strided_active_lanes_of_each_step(self):
        """8 active lanes of warp 0 at step 3."""
        self.assertRegex(drawn("strided").out, r"(?m)^   3 \| ########\.{24} ")

    def test_shuffle_lanes_each_lane_read(self):
        r = drawn("shuffle")
        self.assertEqual(r.rc, draw_rc(), r)
        self.assertRegex(r.out, r"shfl_down 16 +\| 16 17 18")

    def test_shuffle_down_unused_additions(self):
        """A shuffle down's 32 lanes make 16 + 24 + 28 + 30 + 31 additions, of which lane 0's sum needs 31."""
        self.assertRegex(drawn("shuffle").out, r"(?m)^129 additions, 98 of them unused ")

    def test_shuffle_first_lanes_after_barrier_bring_new_values(self):
        """Two warps' 129 additions each, then warp 0's 129 over the two warp sums and 30 zeros."""
        # The zeros come after the __syncthreads: were they taken for the lanes' old sums, warp 0's first-round
        # additions would count as used.
        r = ascii_tree(made_up("shuffle_first"))
        self.assertEqual(r.rc, 0, r)
        self.assertRegex(r.out, r"(?m)^387 additions, 294 of them unused ")

    def test_loop_global_loads_as_leaves(self):
        """After a loop of 4 global loads a thread: the loads as leaves, their sums in registers, the same tree."""
        r = ascii_tree(made_up("loop_shuffle_first"))
        self.assertEqual(r.rc, 0, r)
        self.assertRegex(r.out, r"(?m)^ +1 \| \+{64} \| each thread's loads, added in registers$")
        self.assertRegex(r.out, r"(?m)^Global loads before the tree: 256 elements, 4 a thread, ")
        self.assertRegex(r.out, r"(?m)^387 additions, 294 of them unused ")

    @support.needs("gnuplot")
    def test_draw_writes_png(self):
        self.assertEqual(drawn("shuffle").rc, 0, drawn("shuffle"))
        self.assertTrue(support.is_png(os.path.join(workdir(), "shuffle.png")), "no PNG drawn")

    def test_draw_without_gnuplot_terminal_form_then_exit_4(self):
        """On a PATH without gnuplot: the terminal form, then a line saying no PNG was drawn, exit 4."""
        bin_dir = support.tools_path(self, ("bash", "python3", "head", "grep", "mktemp", "rm", "dirname", "sed"))
        png = os.path.join(bin_dir, "x.png")
        r = self.expect(4, r"(?m)^gnuplot not found: no PNG drawn",
                        ["scripts/tree.sh", "draw", made_up("shuffle"), png], env={"PATH": bin_dir})
        self.assertRegex(r.out, r"(?m)^129 additions")
        self.assertFalse(os.path.exists(png))

    def test_draw_refuses_file_not_a_record_exit_2(self):
        self.expect(2, r"not a tree record", ["scripts/tree.sh", "draw", "Makefile",
                                              os.path.join(support.scratch(self), "x.png")])


class Readme(support.Case):

    def test_readme_tree_blocks_drawn_from_committed_records(self):
        self.expect(0, "", ["scripts/tree.sh", "readme", "--check"])

    def test_readme_check_finds_changed_record_exit_1(self):
        """A copy whose first committed record lost thread 0's events: its READMEs' tree blocks are out of date."""
        copy = copy_of(self)
        path = os.path.join(copy, shown(*RECORDS[0]))
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:2] + [line for line in lines[2:] if line.split(",")[1:2] != ["0"]]))
        self.expect(1, r"differs from what the results give",
                    ["bash", os.path.join(copy, "scripts", "tree.sh"), "readme", "--check"])

    def test_readme_shows_primary_gpus_record_else_another_gpus(self):
        """A copy where the first record is also a made-up GPU's, whose folder sorts first, and the primary's:
        its READMEs show the primary GPU's; without the primary's, the made-up GPU's."""
        copy = copy_of(self)
        stage, kernel = RECORDS[0]
        primary = support.read("plots/reference/primary").strip()
        record = shown(stage, kernel)
        for gpu in (primary, "0-made-up-gpu"):
            mine = os.path.join(copy, "plots", "reference", gpu, "tree", stage)
            os.makedirs(mine, exist_ok=True)
            for ext in (".csv", ".png"):
                if not os.path.exists(os.path.join(mine, kernel + ext)):
                    shutil.copy(os.path.join(support.ROOT, record[:-4] + ext), mine)

        def readmes_show(gpu):
            self.expect(0, "", ["bash", os.path.join(copy, "scripts", "tree.sh"), "readme"])
            for page in ("README.md", "README.zh-CN.md"):
                self.assertEqual(shown(stage, kernel, page, copy), f"plots/reference/{gpu}/tree/{stage}/{kernel}.csv",
                                 f"stages/{stage}/{page}")
        readmes_show(primary)
        shutil.rmtree(os.path.join(copy, "plots", "reference", primary, "tree"))
        readmes_show("0-made-up-gpu")


class RecordsInto(support.Case):
    """scripts/tree.sh record in a copy, its record build a made-up one that writes the committed records under
    the primary GPU's name (as make stage-NN tree on that GPU would record them), anywhere."""

    def test_record_writes_into_the_gpus_folder_and_readmes_show_it(self):
        """The stage's tree kernels into plots/reference/<primary>/tree/<stage>/, nothing into the stage's folder;
        its READMEs then show those; exit 0 (4 without gnuplot, no PNG drawn)."""
        self.need_build()
        stage = RECORDS[0][0]
        program = support.program_of(stage)
        kernels = [t["kernel"] for t in support.describe(program)["tree_kernels"]]
        primary = support.read("plots/reference/primary").strip()
        gpu = support.read_csv(os.path.join(support.ROOT, "plots", "reference", primary, "results.csv"))[0]["gpu"]
        copy = copy_of(self, ("stages", "scripts", "plots/reference", "plots/lab"))
        shutil.rmtree(os.path.join(copy, "plots", "reference", primary, "tree"), ignore_errors=True)
        os.makedirs(os.path.join(copy, "made-up"))
        os.makedirs(os.path.join(copy, "build", stage))
        shutil.copy(os.path.join(support.ROOT, program), os.path.join(copy, program))
        recorded = {}
        for k in kernels:
            title, *rest = support.read(shown(stage, k)).split("\n")
            recorded[k] = "\n".join([re.sub(r" threads, .* \(sm_", f" threads, {gpu} (sm_", title), *rest])
            with open(os.path.join(copy, "made-up", f"{k}.csv"), "w", encoding="utf-8") as f:
                f.write(recorded[k])
        fake = os.path.join(copy, "build", stage, "tree")
        with open(fake, "w", encoding="utf-8") as f:
            f.write('#!/bin/bash\n# --kernel K ... --record PATH: made-up/K.csv copied to PATH\n'
                    'while [ $# -gt 0 ]; do case $1 in --kernel) k=$2 ;; --record) r=$2 ;; esac; shift; done\n'
                    'cp "made-up/$k.csv" "$r"\n')
        os.chmod(fake, 0o755)
        def stage_files():
            return sorted(os.path.relpath(os.path.join(d, f), copy) for d, _, fs in os.walk(os.path.join(copy, "stages"))
                          for f in fs)
        before = stage_files()
        r = support.run(["bash", os.path.join(copy, "scripts", "tree.sh"), "record", stage],
                        env={"REDUCE_PROGRAMS": program, "PROGRAM": None})
        self.assertEqual(r.rc, draw_rc(), r)
        self.assertEqual(stage_files(), before, "tree.sh record wrote into the stages' folders")
        for k in kernels:
            path = f"plots/reference/{primary}/tree/{stage}/{k}.csv"
            with self.subTest(k):
                with open(os.path.join(copy, path), encoding="utf-8") as f:
                    self.assertEqual(f.read(), recorded[k], path)
                for page in ("README.md", "README.zh-CN.md"):
                    self.assertEqual(shown(stage, k, page, copy), path, f"stages/{stage}/{page}")


class CommittedRecords(support.Case):

    def test_committed_records_are_every_tree_kernel(self):
        """The committed records (plots/reference/*/tree/*/*.csv) are the tree kernels of every program's
        --describe."""
        self.need_build()
        kernels = sorted((s, k) for s in HARNESS
                         for k in (t["kernel"] for t in support.describe(support.program_of(s))["tree_kernels"]))
        self.assertTrue(kernels)
        self.assertEqual(RECORDS, kernels)

    @support.needs("gnuplot")
    def test_committed_records_draw_as_png(self):
        """(The committed picture itself is not compared: gnuplot's bytes differ between versions and fonts.)"""
        for record in COMMITTED:
            with self.subTest(record):
                png = os.path.join(support.scratch(self), "drawn.png")
                self.expect(0, r"additions", ["scripts/tree.sh", "draw", record, png])
                self.assertTrue(support.is_png(png), f"{png} is not a PNG")


@support.per(RECORDS, lambda r: f"{r[0]}_{r[1]}")
class EachCommittedRecord(support.Case):

    def test_each_committed_record_draws(self, record):
        for path in records_of(*record):
            with self.subTest(path):
                self.expect(0, r"(?m)^\d+ additions", ["python3", "scripts/report", "tree", "--mode", "ascii", path])

    def test_each_readme_shows_a_committed_record_and_its_picture(self, record):
        """Each README's picture of the kernel: a committed PNG (its link resolves), its record beside it."""
        stage, kernel = record
        for page in ("README.md", "README.zh-CN.md"):
            with self.subTest(page):
                path = shown(stage, kernel, page)
                self.assertIn(path, COMMITTED, f"stages/{stage}/{page} shows no committed record of {kernel}")
                self.assertTrue(support.is_png(os.path.join(support.ROOT, path[:-4] + ".png")), f"{path[:-4]}.png")

    def test_each_tree_kernel_without_gpu_one_line_exit_3(self, record):
        """The GPU hidden, the record build says in one line that there is none, exit 3."""
        self.need_build()
        stage, kernel = record
        r = self.expect(3, r"^error: no CUDA-capable GPU found", [f"build/{stage}/tree", "--kernel", kernel],
                        env=NO_GPU_ENV)
        self.assertEqual(len(r.out.strip().split("\n")), 1, r)

    @support.full_only
    @support.needs("gpu")
    def test_each_gpu_records_what_committed_record_holds(self, record):
        """The kernel recorded on this GPU (make test-full): the accesses of the committed record made on this
        GPU (its first line names its GPU) where there is one, else of the one the README shows."""
        self.need_build()
        stage, kernel = record
        new = os.path.join(support.scratch(self), "record.csv")
        self.expect(0, "", [f"build/{stage}/tree", "--kernel", kernel, "--record", new])
        self.expect(0, r"(?m)^\d+ additions", ["python3", "scripts/report", "tree", "--mode", "ascii", new])
        with open(new, encoding="utf-8") as f:
            title, *got = f.read().split("\n")
        gpu = title.rsplit(" threads, ", 1)[-1]
        mine = [p for p in records_of(stage, kernel) if support.read(p).split("\n")[0].endswith(f" threads, {gpu}")]
        committed = mine[0] if mine else shown(stage, kernel)
        self.assertTrue(got == support.read(committed).split("\n")[1:],
                        f"{kernel}'s record differs from {committed} (make stage-NN tree records it anew)")


@support.per(HARNESS)
class RecordBuild(support.Case):
    """build/<stage>/tree of each stage on the common harness."""

    def tree(self, stage):
        self.need_build()
        tree = f"build/{stage}/tree"
        self.assertTrue(support.built(tree), f"{tree} is not built")
        return tree

    def test_each_refuses_unknown_kernel_exit_2(self, stage):
        self.expect(2, r"unknown kernel 'nope'", [self.tree(stage), "--kernel", "nope"])

    def test_each_asks_for_one_kernel_exit_2(self, stage):
        self.expect(2, r"name the one kernel", [self.tree(stage)])

    def test_each_refuses_dtype_without_input_exit_2(self, stage):
        """--dtype names a raw --input file's type, which the record build reads none of: refused, not ignored."""
        kernel = table_kernels(support.program_of(stage))[0]
        self.expect(2, r"--dtype names the type of a raw --input", [self.tree(stage), "--kernel", kernel, "--dtype", "f32"])

    def test_each_kernel_recordable_or_refused_with_reason(self, stage):
        """Each kernel of its table needs only the GPU (exit 3 with none) or says why it cannot be recorded (5)."""
        self.tree(stage)
        need, _, other = recordable(stage)
        self.assertEqual(other, [], "kernels neither recordable nor refused with a reason")
        self.assertTrue(need, "no kernel can be recorded")

    def test_each_tree_kernels_in_its_table(self, stage):
        self.need_build()
        program = support.program_of(stage)
        unknown = [t["kernel"] for t in support.describe(program)["tree_kernels"] if t["kernel"] not in table_kernels(program)]
        self.assertEqual(unknown, [])

    @support.full_only
    @support.needs("gpu")
    def test_each_records_every_kernel_that_can_be(self, stage):
        """Every kernel that can be recorded records events (never "recorded nothing"), and the record draws."""
        tree = self.tree(stage)
        for k in recordable(stage)[0]:
            with self.subTest(k):
                new = os.path.join(support.scratch(self), f"{k}.csv")
                self.expect(0, r"recorded \d+ events", [tree, "--kernel", k, "--record", new])
                self.expect(0, r"(?m)^\d+ additions", ["python3", "scripts/report", "tree", "--mode", "ascii", new])


@support.per(OWN)
class ProgramOfItsOwn(support.Case):

    def test_each_tree_record_says_program_of_its_own_exit_5(self, stage):
        self.expect(5, r"a program of its own", ["scripts/tree.sh", "record", stage])


class Refusals(support.Case):

    def test_cpu_loops_cannot_be_recorded_exit_5(self):
        """Every kernel that is a loop on the CPU: its stage's record build says it cannot be recorded, exit 5."""
        self.need_build()
        loops = [(s, k["name"]) for s in HARNESS for k in support.kernels(support.program_of(s)) if k["role"] == "cpu"]
        self.assertTrue(loops, "no stage has a loop on the CPU")
        for stage, kernel in loops:
            with self.subTest(f"{stage} {kernel}"):
                self.expect(5, rf"{kernel} cannot be recorded: it is a loop on the CPU",
                            [f"build/{stage}/tree", "--kernel", kernel])

    def test_make_tree_without_gpu_says_so_exit_2(self):
        first = support.stage_num(HARNESS[0])
        self.expect_make(2, rf"^make stage-{first} tree runs kernels on an NVIDIA GPU", f"stage-{first}", "tree",
                         env=NO_GPU_ENV)

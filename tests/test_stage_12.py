"""Stage 12 (the sum across GPUs with NCCL): the build with and without NCCL and MPI, the program's own
options and --input refusals, the runs under mpirun (where the build has MPI and mpirun is here), the
stage's chart, then on the GPU: G = 1 in both modes, --input, and G = 2 where two GPUs are present."""
import functools
import json
import os
import re
import shutil
import tempfile
import time
import unittest

from tests import gpu_lib, support

STAGE = "12_multigpu"
MG = os.path.join(support.ROOT, "build/12_multigpu/multigpu")
# mpirun allowed to run as root (CI runs as root) and to start more ranks than the machine has cores.
MPIRUN_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
              "OMPI_MCA_rmaps_base_oversubscribe": "1"}
NO_MPI = "no MPI: make found neither MPI_HOME nor mpicc (apt-get install libopenmpi-dev openmpi-bin)"
# The checks of make stage-12 run: small sizes, the sum and the all-reduce.
CASE_ARGS = "--check --n 1000003 --sizes 4K,1M,4M --reps 3 --warmup 1"

_tmp = []


def module_tmp():
    """A folder for the files that several tests read, removed when the module ends."""
    if not _tmp:
        _tmp.append(tempfile.mkdtemp(prefix="reduce-test-"))
    return _tmp[0]


def tearDownModule():
    for d in _tmp:
        shutil.rmtree(d, True)


def mpirun():
    """The mpirun the Makefile uses: $MPI_HOME/bin's, else the PATH's."""
    home = os.environ.get("MPI_HOME")
    return os.path.join(home, "bin", "mpirun") if home else "mpirun"


@functools.lru_cache(None)
def build():
    return support.make("stage-12")


@functools.lru_cache(None)
def built_without_mpi():
    return "built without MPI" in support.run([MG, "--mpi", "--gpus", "1"]).out


@functools.lru_cache(None)
def good_files():
    """The .npy of 1000003 f32 values the tests sum, and the same values as raw bytes."""
    from tests import inputs
    d = module_tmp()
    return (inputs.write(os.path.join(d, "mg-in.npy"), "<f4", "1000003"),
            inputs.write(os.path.join(d, "mg-in.bin"), "<f4", "1000003", raw=True))


@functools.lru_cache(None)
def ranks_only():
    return support.run([mpirun(), "-np", "2", MG, "--mpi", "--ranks-only"], env=MPIRUN_ENV, timeout=120)


@functools.lru_cache(None)
def make_run(gpus, mode):
    """make stage-12 run with G = GPUS in MODE, CASE_ARGS and a CSV: a gpu_lib.Run."""
    with tempfile.TemporaryDirectory(prefix="reduce-test-") as d:
        csv = os.path.join(d, "mg.csv")
        r = support.make("stage-12", "run", f"MODE={mode}", f"GPUS={gpus}", f"ARGS={CASE_ARGS} --csv {csv}",
                         env=MPIRUN_ENV)
        text = open(csv, encoding="utf-8").read() if os.path.exists(csv) else ""
    return gpu_lib.Run(r, text)


@functools.lru_cache(None)
def input_run(gpus):
    npy = good_files()[0]
    return gpu_lib.run_csv([MG, "--gpus", str(gpus), "--input", npy, "--check", "--reps", "3", "--warmup", "1"])


def plot_csv(path):
    """A small CSV of the program's layout, made up only to exercise the plot (committed charts come from
    measured CSVs), with the program's description beside it naming its charts."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub\n"
                f"X,{STAGE},sum_g2,f32,1048576,10,800,10,0,1,,flushed,same,4194304,,\n"
                f"X,{STAGE},allreduce_g2,f32,262144,10,100,,0,1,,warm,same,1048576,,\n"
                f"X,{STAGE},allreduce_g2,f32,1048576,20,200,,0,1,,warm,same,4194304,,\n"
                f"X,{STAGE},allreduce_g2,bf16,524288,10,100,,0,1,,warm,same,1048576,,\n")
    with open(os.path.join(os.path.dirname(path), f"describe-{STAGE}.json"), "w", encoding="utf-8") as f:
        json.dump({"stage": STAGE, "charts": [{"name": "multigpu", "owned": True, "also_dtypes": []}]}, f)


def copies_left(marker):
    """How many processes have MARKER in their command line, a second after a run ended."""
    time.sleep(1)
    r = support.run(["pgrep", "-f", marker])
    return len(r.out.split()) if r.rc == 0 else 0


class Stage12(support.Case):
    def need_multigpu(self):
        """make stage-12: skipped where NCCL is not found, a failure where the build fails."""
        r = build()
        if "stage 12 needs NCCL" in r.out:
            self.skipTest(r.out.strip().split("\n")[0])
        if r.rc != 0 or not support.built("build/12_multigpu/multigpu"):
            self.fail(f"make stage-12 exited {r.rc}:\n{r.tail(10)}")

    def need_mpi(self):
        """The program built with MPI, and an mpirun to start it."""
        self.need_multigpu()
        if built_without_mpi():
            self.skipTest(NO_MPI)
        if not shutil.which(mpirun()):
            self.skipTest(f"{mpirun()} not found (apt-get install openmpi-bin)")

    def need_gpus(self, count):
        if support.gpus() < count:
            self.skipTest(f"{count} GPUs needed, {support.gpus()} here")

    def passing_rows(self, run, kernel, want):
        """WANT rows of KERNEL_g*, every one passing."""
        rows = [r for r in run.rows if r["kernel"].startswith(kernel + "_g")]
        self.assertEqual([f"{r['kernel']} {r['dtype']} n={r['n']} rel err {r['rel_err']}" for r in rows if r["pass"] != "1"],
                         [], f"{kernel} rows that do not pass")
        self.assertEqual(len(rows), want, f"{kernel} rows:\n{run.result.tail(15)}")

    def case_passes(self, gpus, mode):
        """make stage-12 run: all checks passed, the sum (f32) and the all-reduce (f32, bf16; 4 KiB to 4 MiB)."""
        run = make_run(gpus, mode)
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertIn("all checks passed", run.result.out)
        self.passing_rows(run, "sum", 1)
        self.passing_rows(run, "allreduce", 6)


class Build(Stage12):
    def test_make_stage_12_without_nccl_says_it_is_needed_and_where_it_looked_exit_2(self):
        self.expect_make(2, r"stage 12 needs NCCL, and it was not found \(looked in /nonexistent/include",
                         "NCCL_HOME=/nonexistent", "stage-12")

    def test_make_stage_12_run_without_nccl_says_it_is_needed_exit_2(self):
        self.expect_make(2, "stage 12 needs NCCL", "NCCL_HOME=/nonexistent", "stage-12", "run")

    def test_make_stage_12_check_without_nccl_says_why_exit_2(self):
        self.expect_make(2, "stage 12 needs NCCL", "NCCL_HOME=/nonexistent", "stage-12", "check")

    def test_make_stage_12_profile_without_nccl_says_why_exit_2(self):
        self.expect_make(2, "stage 12 needs NCCL", "NCCL_HOME=/nonexistent", "stage-12", "profile")

    def test_make_stage_12_sanitize_without_nccl_says_why_exit_2(self):
        self.expect_make(2, "stage 12 needs NCCL", "NCCL_HOME=/nonexistent", "stage-12", "sanitize")

    def test_make_all_without_nccl_builds_every_other_stage_and_leaves_stage_12_out(self):
        """a dry run into an empty build folder: make exits 0 and names every other program's build"""
        folder = support.scratch(self)
        r = support.make("-n", f"BUILD={folder}", "NCCL_HOME=/nonexistent", "all")
        self.assertEqual(r.rc, 0, repr(r))
        others = [p for p in support.programs() if support.stage_of(p) != STAGE]
        self.assertTrue(others, "make programs names no other stage's program")
        self.assertEqual([p for p in others if f" -o {folder}/{p[len('build/'):]}" not in r.out], [],
                         "programs the dry run does not build")
        self.assertNotIn(f" -o {folder}/{STAGE}/multigpu", r.out, "the dry run builds stage 12")  # rm -f of it is fine

    def test_a_program_left_from_a_build_with_nccl_is_removed_once_nccl_is_not_found(self):
        """a stage-12 binary of an earlier toolkit would be taken for one built here; the others stay"""
        folder = support.scratch(self)
        left = [os.path.join(folder, p[len("build/"):]) for p in support.programs()]
        for path in left:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        self.expect_make(0, "", f"BUILD={folder}", "NCCL_HOME=/nonexistent", f"{folder}/programs.txt")
        self.assertEqual([p for p in left if os.path.exists(p) == (f"/{STAGE}/" in p)], [],
                         "wanted stage 12's program removed and every other one kept")

    def test_make_stage_12_builds_the_program_with_nccl(self):
        self.need_multigpu()

    def test_mode_mpi_without_mpi_make_says_how_to_get_it_exit_2(self):
        self.expect_make(2, "MODE=mpi needs MPI, and none was found .*libopenmpi-dev",
                         "MPI_HOME=/nonexistent", "stage-12", "run", "MODE=mpi")

    def test_without_mpi_make_stage_12_builds_the_threads_mode_alone_and_says_how_to_get_mode_mpi(self):
        """a dry run in a build folder of its own"""
        self.need_multigpu()
        r = support.make("-n", f"BUILD={support.scratch(self)}", "MPI_HOME=/nonexistent", "stage-12")
        self.assertEqual(r.rc, 0, repr(r))
        self.assertRegex(r.out, "note: stage 12 built without MPI .*apt-get install libopenmpi-dev openmpi-bin")
        self.assertRegex(r.out, r"12_multigpu/multigpu\.cu")
        self.assertNotRegex(r.out, "-lmpi|WITH_MPI")

    def test_mode_processes_is_gone_exit_2_naming_the_two_modes(self):
        self.expect_make(2, "MODE=processes: give MODE=threads .* or MODE=mpi", "stage-12", "run", "MODE=processes")

    def test_no_launcher_of_our_own_in_the_makefile_or_stage_mk(self):
        """mpirun starts the copies: no id file, no wait loop"""
        for path in ("stages/12_multigpu/stage.mk", "Makefile"):
            with self.subTest(path=path):
                self.assertNotRegex(support.read(path), r"(?m)^[^#\n]*(nccl-id|id-file|wait -n)")

    def test_chart_through_the_reporting_programs_plot(self):
        """without gnuplot (exit 4), on another layout (exit 2), and drawn where gnuplot is installed"""
        from tests import charts_lib
        tmp = support.scratch(self)
        csv = os.path.join(tmp, "mg-plot.csv")
        plot_csv(csv)
        charts_lib.chart_script_checks(self, "12 chart", csv, "multigpu", tmp)


class Options(Stage12):
    """The common flags are tested for every program; here what is this program's own."""

    def test_help_names_gpus_g(self):
        self.need_multigpu()
        self.expect(0, "--gpus G", [MG, "--help"])

    def test_gpus_0_exit_2(self):
        self.need_multigpu()
        self.expect(2, "--gpus '0'", [MG, "--gpus", "0"])

    def test_gpus_x_exit_2(self):
        self.need_multigpu()
        self.expect(2, "--gpus 'x'", [MG, "--gpus", "x"])

    def test_sizes_not_a_multiple_of_4_bytes_exit_2(self):
        self.need_multigpu()
        self.expect(2, "multiple of 4 bytes", [MG, "--sizes", "1M,6"])

    def test_dtype_f16_exit_2(self):
        self.need_multigpu()
        self.expect(2, "--dtype 'f16'", [MG, "--dtype", "f16"])

    def test_ranks_only_without_mpi_exit_2(self):
        self.need_multigpu()
        self.expect(2, "--ranks-only goes with --mpi", [MG, "--ranks-only"])

    def test_started_by_an_mpi_launcher_without_mpi_exit_2(self):
        self.need_multigpu()
        self.expect(2, "one of 2 ranks: give --mpi", [MG], env={"OMPI_COMM_WORLD_SIZE": "2"})

    def test_unknown_mode_exit_2(self):
        self.need_multigpu()
        self.expect_make(2, "MODE=bogus: give MODE=threads", "stage-12", "run", "MODE=bogus")

    def test_input_the_refusals_every_program_shares(self):
        """each a subtest, exit 2, found before the GPU is opened"""
        from tests import inputs
        self.need_multigpu()
        inputs.bad_files(self, MG, STAGE, "<f4", "1000003", support.scratch(self))

    def test_input_of_f16_refused_the_sum_takes_f32_exit_2(self):
        from tests import inputs
        self.need_multigpu()
        half = inputs.write(os.path.join(support.scratch(self), "mg-half.npy"), "<f2", "1000")
        inputs.refused(self, MG, ["--input", half], inputs.type_refusal("f16", ["f32"]))

    def test_input_raw_bytes_with_dtype_bf16_hold_bf16_which_the_sum_does_not_take_exit_2(self):
        """refused naming the stages that take bf16 files, not this one (its all-reduce's bf16 is no file)"""
        from tests import inputs
        self.need_multigpu()
        r = inputs.refused(self, MG, ["--input", good_files()[1], "--dtype", "bf16"],
                           inputs.type_refusal("bf16", ["f32"]))
        self.assertNotIn(STAGE, re.search(r"take bf16 \(([^:]*):", r.out)[1].split())

    def test_input_with_sizes_the_allreduce_does_not_run_on_a_file_exit_2(self):
        self.need_multigpu()
        self.expect(2, "do not run on a file", [MG, "--input", good_files()[0], "--sizes", "4K"])

    def test_input_with_kernel_allreduce_the_file_is_the_sums_exit_2(self):
        self.need_multigpu()
        self.expect(2, "which --kernel leaves out", [MG, "--input", good_files()[0], "--kernel", "allreduce"])

    def test_input_a_good_npy_passes_every_check_of_the_file_then_the_gpu_is_needed_exit_3(self):
        self.need_multigpu()
        self.expect(3, "no CUDA-capable GPU found", [MG, "--input", good_files()[0]], env={"CUDA_VISIBLE_DEVICES": ""})

    def test_input_raw_bytes_with_dtype_f32_pass_every_check_of_the_file_then_exit_3(self):
        self.need_multigpu()
        self.expect(3, "no CUDA-capable GPU found", [MG, "--input", good_files()[1], "--dtype", "f32"],
                    env={"CUDA_VISIBLE_DEVICES": ""})

    def test_make_stage_12_profile_says_its_program_is_not_a_single_gpu_stage_program_exit_2(self):
        self.need_multigpu()
        self.expect_make(2, "not a single-GPU stage program", "stage-12", "profile")

    def test_make_stage_12_sanitize_says_its_program_is_not_a_single_gpu_stage_program_exit_2(self):
        self.need_multigpu()
        self.expect_make(2, "not a single-GPU stage program", "stage-12", "sanitize")


class Mpi(Stage12):
    """Built with MPI or not: --mpi says which; under mpirun, the ranks without a GPU."""

    def test_mpi_in_a_build_without_mpi_says_how_to_get_it_exit_2(self):
        self.need_multigpu()
        if not built_without_mpi():
            self.skipTest("this build has MPI")
        self.expect(2, "built without MPI .*libopenmpi-dev openmpi-bin", [MG, "--mpi"])

    def test_mpi_with_gpus_exit_2_each_rank_drives_one_gpu(self):
        self.need_mpi()
        self.expect(2, "--gpus and --mpi", [MG, "--mpi", "--gpus", "1"])

    def test_mpirun_2_ranks_only_the_ranks_meet_before_any_gpu_exit_0(self):
        self.need_mpi()
        r = ranks_only()
        self.assertEqual(r.rc, 0, repr(r))
        self.assertIn("every rank holds rank 0's NCCL id", r.out)

    def test_the_nccl_id_broadcast_both_ranks_hold_rank_0s_id_and_another_run_makes_another(self):
        """rank 0 makes NCCL's unique id, MPI_Bcasts it, and lists what every rank received"""
        self.need_mpi()
        first = ranks_only()
        self.assertEqual(len(re.findall(r"(?m)^rank [01]: .*NCCL id [0-9a-f]*$", first.out)), 2, repr(first))
        ids = set(re.findall(r"(?m)^rank [01]: host .*, local rank [01] of 2, NCCL id ([0-9a-f]{16})$", first.out))
        self.assertEqual(len(ids), 1, f"the ranks' ids: {sorted(ids)}")
        second = support.run([mpirun(), "-np", "2", MG, "--mpi", "--ranks-only"], env=MPIRUN_ENV, timeout=120)
        self.assertEqual(second.rc, 0, repr(second))
        self.assertNotRegex(second.out, rf"(?m)NCCL id {ids.pop()}$", "another run makes another id")

    def test_mpirun_2_with_no_gpu_both_ranks_reach_the_gpu_check_exit_3_no_copy_left(self):
        """the CSV path marks this run's copies"""
        self.need_mpi()
        csv = os.path.join(support.scratch(self), "mg-orphan.csv")
        r = support.run([mpirun(), "-np", "2", "env", "CUDA_VISIBLE_DEVICES=", MG, "--mpi", "--check", "--csv", csv],
                        env=MPIRUN_ENV, timeout=120)
        self.assertEqual(r.rc, 3, repr(r))
        self.assertEqual(r.out.count("no CUDA-capable GPU found"), 2, repr(r))
        self.assertEqual(copies_left(csv), 0, "copies left running")

    def test_mpirun_2_rank_0_failing_alone_ends_every_rank_exit_2_no_copy_left(self):
        """rank 0 cannot write its CSV; the other waits for it at the GPU check: MPI_Abort"""
        self.need_mpi()
        csv = os.path.join(support.scratch(self), "mg-none", "x.csv")
        r = support.run([mpirun(), "-np", "2", MG, "--mpi", "--csv", csv], env=MPIRUN_ENV, timeout=120)
        self.assertEqual(r.rc, 2, repr(r))
        self.assertIn("cannot write the CSV file", r.out)
        self.assertEqual(copies_left(os.path.dirname(csv)), 0, "copies left running")

    def test_make_mode_mpi_with_no_gpu_visible_fails_and_says_why_exit_2(self):
        self.need_mpi()
        self.expect_make(2, "stage-12 run MODE=mpi runs kernels on an NVIDIA GPU", "stage-12", "run", "MODE=mpi",
                         env={"CUDA_VISIBLE_DEVICES": ""})


class MpirunAsRoot(Stage12):
    """make stage-12 run MODE=mpi as root: one line says what Open MPI needs, before mpirun starts, and sets none
    of it. A stand-in MPIRUN, an id on the PATH that says the user, and GPU_USABLE=yes run the launcher without a
    GPU, as root or not."""
    NOTE = (r"(?m)^note: running as root, where Open MPI's mpirun stops with a warning: set OMPI_ALLOW_RUN_AS_ROOT=1 and "
            r"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, add --allow-run-as-root to MPIRUN_FLAGS, or run as a user$")

    def launch(self, uid, env=None, flags=None):
        """make stage-12 run MODE=mpi GPUS=2 where id -u says UID, with ENV and MPIRUN_FLAGS=FLAGS: its Result."""
        self.need_multigpu()
        if built_without_mpi():
            self.skipTest(NO_MPI)
        bin_dir = support.scratch(self)
        for name, body in (("mpirun", 'echo "mpirun started: $* (OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT-unset})"'),
                           ("id", f"echo {uid}")):
            with open(os.path.join(bin_dir, name), "w", encoding="utf-8") as f:
                f.write(f"#!/bin/sh\n{body}\n")
            os.chmod(os.path.join(bin_dir, name), 0o755)
        full = {"PATH": bin_dir + os.pathsep + os.environ["PATH"], "OMPI_ALLOW_RUN_AS_ROOT": None,
                "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": None, **(env or {})}
        r = support.make("stage-12", "run", "MODE=mpi", "GPUS=2", "GPU_USABLE=yes", f"MPIRUN={bin_dir}/mpirun",
                         *([f"MPIRUN_FLAGS={flags}"] if flags else []), env=full)
        self.assertEqual(r.rc, 0, repr(r))
        self.assertRegex(r.out, r"(?m)^mpirun started: -np 2 ")
        return r

    def test_as_root_one_line_before_mpirun_and_nothing_set(self):
        r = self.launch(0)
        self.assertEqual(len(re.findall(self.NOTE, r.out)), 1, repr(r))
        self.assertLess(re.search(self.NOTE, r.out).start(), r.out.index("mpirun started:"), repr(r))
        self.assertIn("(OMPI_ALLOW_RUN_AS_ROOT=unset)", r.out)

    def test_as_root_with_one_of_the_two_variables_the_line(self):
        self.assertRegex(self.launch(0, env={"OMPI_ALLOW_RUN_AS_ROOT": "1"}).out, self.NOTE)

    def test_no_line_as_root_allowed_or_as_a_user(self):
        allowed = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        for what, uid, env, flags in (("both variables set", 0, allowed, None),
                                      ("--allow-run-as-root", 0, None, "--bind-to none --allow-run-as-root"),
                                      ("a user", 1000, None, None)):
            with self.subTest(what):
                self.assertNotRegex(self.launch(uid, env=env, flags=flags).out, r"(?m)^note: running as root")


class Gpu(Stage12):
    """make stage-12 run with --check at small sizes: the CSV's rows must pass."""

    @support.needs("gpu")
    def test_g1_one_process_the_sum_and_the_allreduce_pass(self):
        self.need_multigpu()
        self.case_passes(1, "threads")

    @support.needs("gpu")
    def test_g1_busbw_is_0_and_the_reason_is_printed(self):
        self.need_multigpu()
        self.expect(0, "G = 1: busbw is 0", [MG, "--gpus", "1", "--n", "4096", "--sizes", "4K", "--dtype", "f32", "--reps", "1",
                                             "--warmup", "0"])

    @support.needs("gpu")
    def test_gpus_more_than_visible_exit_2(self):
        self.need_multigpu()
        self.expect(2, f"only {support.gpus()} GPU", [MG, "--gpus", str(support.gpus() + 1)])

    def input_passes(self, gpus):
        self.need_multigpu()
        self.need_gpus(gpus)
        run = input_run(gpus)
        self.assertEqual(run.result.rc, 0, repr(run.result))
        self.assertIn("all checks passed", run.result.out)

    def input_named(self, gpus):
        self.need_multigpu()
        self.need_gpus(gpus)
        run = input_run(gpus)
        self.assertIn(f"elements, input {good_files()[0]} (f32), over {gpus} GPU", run.result.out)
        self.assertEqual([(r["fill"], r["n"]) for r in run.rows if r["kernel"] == f"sum_g{gpus}"], [("input", "1000003")])

    @support.needs("gpu")
    def test_input_g1_the_sum_of_a_npy_this_test_wrote_passes_its_check(self):
        self.input_passes(1)

    @support.needs("gpu")
    def test_input_g1_the_table_names_the_file_the_csv_row_says_input(self):
        self.input_named(1)

    @support.needs("gpu")
    def test_input_g2_the_sum_of_a_npy_this_test_wrote_passes_its_check(self):
        self.input_passes(2)

    @support.needs("gpu")
    def test_input_g2_the_table_names_the_file_the_csv_row_says_input(self):
        self.input_named(2)

    @support.needs("gpu")
    def test_input_of_one_element_over_2_gpus_exit_2(self):
        from tests import inputs
        self.need_multigpu()
        self.need_gpus(2)
        one = inputs.write(os.path.join(support.scratch(self), "mg-one.npy"), "<f4", "1")
        self.expect(2, r"1 elements, fewer than the GPUs \(2\)", [MG, "--gpus", "2", "--input", one])

    @support.needs("gpu")
    def test_g1_under_mpi_the_sum_and_the_allreduce_pass(self):
        self.need_mpi()
        self.case_passes(1, "mpi")

    @support.needs("gpu")
    def test_g1_both_modes_give_the_same_sum(self):
        self.need_mpi()
        threads = [r["rel_err"] for r in make_run(1, "threads").rows if r["kernel"] == "sum_g1"]
        mpi = [r["rel_err"] for r in make_run(1, "mpi").rows if r["kernel"] == "sum_g1_procs"]
        self.assertEqual(len(threads), 1, "sum_g1 rows of MODE=threads")
        self.assertEqual(mpi, threads, "sum_g1_procs's rel err under MODE=mpi")

    @support.needs("gpu")
    def test_make_stage_12_check_mode_mpi_gpus_1_passes(self):
        self.need_mpi()
        self.expect_make(0, "all checks passed", "stage-12", "check", "MODE=mpi", "GPUS=1", env=MPIRUN_ENV)

    @support.needs("gpu")
    def test_mpirun_a_rank_without_a_gpu_stops_every_rank_exit_3(self):
        """Open MPI's -x gives each rank its own CUDA_VISIBLE_DEVICES; neither waits for the other"""
        self.need_mpi()
        self.expect(3, "stops: 1 of the 2 ranks found no usable GPU",
                    [mpirun(), "-np", "1", "-x", "CUDA_VISIBLE_DEVICES=0", MG, "--mpi", ":", "-np", "1", "-x",
                     "CUDA_VISIBLE_DEVICES=", MG, "--mpi"], env=MPIRUN_ENV, timeout=120)

    @support.needs("gpu")
    def test_g2_one_process_the_sum_and_the_allreduce_pass(self):
        self.need_multigpu()
        self.need_gpus(2)
        self.case_passes(2, "threads")

    @support.needs("gpu")
    def test_g2_under_mpi_the_sum_and_the_allreduce_pass(self):
        self.need_mpi()
        self.need_gpus(2)
        self.case_passes(2, "mpi")


if __name__ == "__main__":
    unittest.main()

"""The reporting program (scripts/report): its tables, charts, claims, targets and cited figures on made-up
CSVs, each shown an input it must reject; the fall check of the reference results (tests/verify_reference.py)
on made-up series; and the tables, charts and targets of the committed reference results."""
import contextlib
import csv
import functools
import glob
import importlib
import importlib.util
import io
import json
import os
import re
import shutil
import sys

from tests import charts_lib, support

# No test here needs a GPU: tests/run.py runs this module beside the GPU's, with CUDA seeing none.
HOST_ONLY = True

ROOT = support.ROOT
REPORT = os.path.join(ROOT, "scripts", "report")
HEADER = ("gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub,fill,"
          "rel_bound")
DEVICE = ["X,device,dram_peak,,,,1000,100,,,,,,,,,,", "X,device,d2d_copy,,,,900,90,,,,,,,,,,",
          "X,device,read_sol,,,,950,95,,,,,,,,,,", "X,device,launch_floor,,,2,,,,,,,,,,,,"]


@functools.lru_cache(None)
def report(name):
    """The reporting program's module NAME (scripts/report/NAME.py), imported on first use."""
    if REPORT not in sys.path:
        sys.path.insert(0, REPORT)
    return importlib.import_module(name)


@functools.lru_cache(None)
def profilers():
    """scripts/profilers.py, the reader of what the profilers print, as a module."""
    spec = importlib.util.spec_from_file_location("profilers", os.path.join(ROOT, "scripts", "profilers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def chart_objects(tokens):
    """The charts of a description, from tokens NAME[+][:TYPE...] (+: owned; :TYPE: drawn on TYPE too)."""
    return [{"name": name.rstrip("+"), "owned": name.endswith("+"), "also_dtypes": types}
            for name, *types in (token.split(":") for token in tokens.split())]


def describe_stage(folder, stage, tokens):
    """FOLDER's describe-<stage>.json: the stage, its baseline "base" and its charts (TOKENS, as chart_objects() takes)."""
    write(os.path.join(folder, f"describe-{stage}.json"),
          json.dumps({"stage": stage, "baseline": "base", "charts": chart_objects(tokens)}))


def add_to_description(folder, stage, kernels=(), **fields):
    """FIELDS, and KERNELS ("NAME DTYPE ROLE ACC" each) after its kernels, into FOLDER's describe-<stage>.json."""
    path = os.path.join(folder, f"describe-{stage}.json")
    d = json.loads(support.read(path))
    d.update(fields)
    d["kernels"] = d.get("kernels", []) + [dict(zip(("name", "dtype", "role", "accumulator"), k.split())) for k in kernels]
    write(path, json.dumps(d))


def made_up(folder, rows, charts_of):
    """A results CSV of ROWS (stage, kernel, dtype, n, median_us, fill[, {column: value}]) in FOLDER, with
    each stage's description (describe-<stage>.json: its charts, and the baseline "base") beside it. A column
    that HEADER lacks is added, blank in the other rows."""
    columns = HEADER.split(",")
    added = [c for c in dict.fromkeys(c for r in rows for more in r[6:] for c in more) if c not in columns]
    columns += added
    lines = [",".join(columns)] + [line + "," * len(added) for line in DEVICE]
    for stage, kernel, dtype, n, us, fill, *more in rows:
        gbps = 4 * n / us / 1e3
        row = dict(zip(columns, f"X,{stage},{kernel},{dtype},{n},{us},{gbps:.1f},{gbps / 10:.1f},1e-08,1,,flushed,"
                                f"same,{4 * n},1,1,{fill},1e-06".split(",")))
        row.update(*more)
        lines.append(",".join(row.get(c, "") for c in columns))
    path = os.path.join(folder, "results.csv")
    write(path, "\n".join(lines) + "\n")
    for stage, tokens in charts_of.items():
        describe_stage(folder, stage, tokens)
    return path


# The header of a stage's claims.csv (claims.py), and a target row of it: B's time over A's at least BY over N.
CLAIMS = "kind,label,a,b,is,by,n,cols,gpus,source\n"


def target(a, b, n, by, label):
    return {"kind": "target", "label": label, "a": a, "b": b, "is": "faster", "by": by, "n": n, "cols": "", "gpus": "all",
            "source": ""}


def run_of(path):
    """The claims' reading of a results CSV (its describe files beside it)."""
    return report("claims").Run(report("common").read_csv(path), path)


def fails(case, call, code=2):
    """Asserts that CALL() exits CODE (the reporting program's fail()); returns what it wrote on stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), case.assertRaises(SystemExit) as raised:
        call()
    case.assertEqual(raised.exception.code, code, err.getvalue())
    return err.getvalue()


class MadeUpResults(support.Case):
    """The reporting program on made-up CSVs."""

    def setUp(self):
        self.tmp = support.scratch(self)

    def folder(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(path)
        return path

    def test_missing_column_exits_2_naming_it(self):
        path = os.path.join(self.tmp, "bad.csv")
        write(path, "gpu,stage\nX,01\n")
        err = fails(self, lambda: report("common").read_csv(path, "gpu stage kernel"))
        self.assertIn("no column kernel", err)

    def test_a_csv_with_the_result_columns_and_an_older_one_read_alike(self):
        """The programs' CSV ends in result and result_bits; a reference written before them has neither, and
        the tables read both the same (a row missing its result fields is still refused)."""
        old = made_up(self.folder("old"), [("01_naive", "base", "f32", 1024, 10.0, "shifted")], {})
        new = os.path.join(self.tmp, "new.csv")
        lines = report("common").read_text(old).splitlines()
        write(new, "\n".join([lines[0] + ",result,result_bits"] + [line + ",," for line in lines[1:-1]]
                             + [lines[-1] + ",5000035.76601307,0x415312d8f1065baf"]) + "\n")
        need = report("tables").NEED
        self.assertEqual([{k: r[k] for k in need.split()} for r in report("common").read_csv(new, need)],
                         [{k: r[k] for k in need.split()} for r in report("common").read_csv(old, need)])
        write(new, "\n".join([lines[0] + ",result,result_bits"] + lines[1:]) + "\n")
        self.assertIn("fields do not match", fails(self, lambda: report("common").read_csv(new, need)))

    def test_two_fills_tables_and_charts_show_the_first_fill(self):
        """Two fills of one kernel: the tables and the charts show its first fill, not the last row."""
        path = made_up(self.folder("a"), [("01_a", "base", "f32", 1024, 10.0, "random"),
                                          ("01_a", "fast", "f32", 1024, 5.0, "random"),
                                          ("01_a", "base", "f32", 1024, 99.0, "ones"),
                                          ("01_a", "fast", "f32", 1024, 98.0, "ones")], {"01_a": "bandwidth+ scaling"})
        text = report("tables").table(path, "all")
        self.assertIn("| 01_a `fast` | 5.0 |", text)
        self.assertNotIn("98.0", text)
        self.assertIn("| `base` | 10.0 |\n| `fast` | 5.0 |", report("tables").times(path, "01_a", ["base", "fast"]))
        drawn = report("charts").Results(path)
        self.assertEqual(drawn.at("01_a", "fast", "f32", 1024)["median_us"], "5.0")
        self.assertEqual(drawn.at("01_a", "base", "f32", 1024)["median_us"], "10.0")

    def test_noisy_time_marked_with_tilde_and_note(self):
        """A time whose spread is above its program's noisy spread is marked ~, with the note; one below is not."""
        folder = self.folder("a")
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"),
                                ("01_a", "fast", "f32", 1024, 5.0, "random")], {"01_a": "bandwidth+ scaling"})
        lines = open(path, encoding="utf-8").read().split("\n")
        lines = [line + ("" if not line else ",spread" if i == 0 else ",0.500" if ",fast," in line
                         else ",0.020" if ",base," in line else ",") for i, line in enumerate(lines)]
        write(path, "\n".join(lines))
        add_to_description(folder, "01_a", noisy_spread=0.1)
        text = report("tables").table(path, "all")
        self.assertIn("| 01_a `fast` | 5.0~ |", text)
        self.assertIn("| 01_a `base` | 10.0 |", text)
        self.assertIn("\n~: ", text)

    def test_bound_of_whole_sum_shows_unchecked_failed_row_fail(self):
        """A row that passed a bound of the whole sum shows unchecked with its bound, never ok; a failed one FAIL."""
        path = made_up(self.folder("a"), [("01_a", "base", "f32", 1024, 10.0, "shifted"),
                                          ("01_a", "long", "f32", 1024, 50.0, "shifted",
                                           {"pass": "unchecked", "rel_bound": "2.5"}),
                                          ("01_a", "bad", "f32", 1024, 60.0, "shifted", {"pass": "0"})],
                       {"01_a": "bandwidth+"})
        table = report("tables").table(path, "stage", "01_a")
        self.assertRegex(table, r"`long`.*\| unchecked \(≤ 2\.5e\+00\) \|")
        self.assertRegex(table, r"`base`.*\| ok \(≤ 1\.0e-06\) \|")
        self.assertRegex(table, r"`bad`.*\| FAIL \(≤ 1\.0e-06\) \|")
        common = report("common")
        self.assertTrue(common.passed("unchecked"))
        self.assertFalse(common.passed("0"))
        self.assertEqual(common.verdict("unchecked"), "unchecked")

    def test_accuracy_tables_mark_each_verdict(self):
        """The accuracy tables mark each result: nothing where it passed, unchecked, xfail or FAIL."""
        path = os.path.join(self.tmp, "accuracy.csv")
        lines = ["gpu,stage,kernel,n,rel_err,pass,fill,rel_bound,cond"]
        for kernel, verdict in (("tight", "1"), ("loose", "unchecked"), ("over", "xfail"), ("wrong", "0")):
            lines.append(f"X,01_a,{kernel},65536,1e-07,{verdict},random,{'' if kernel == 'tight' else '2e-3'},")
        write(path, "\n".join(lines) + "\n")
        text = report("tables").accuracy_tables(path)
        for kernel, cell in (("tight", "1.0e-07 (-) |"), ("loose", "(2.0e-03) unchecked |"),
                             ("over", "(2.0e-03) xfail |"), ("wrong", "(2.0e-03) FAIL |")):
            with self.subTest(kernel):
                self.assertRegex(text, rf"`01 {kernel}` \| random \|[^\n]*{re.escape(cell)}")

    def test_speedups_from_one_baseline_faster_row_larger(self):
        """Speed-ups are computed from one baseline row: the faster row has the larger one."""
        path = made_up(self.folder("a"), [("01_a", "base", "f32", 1024, 10.0, "random"),
                                          ("02_b", "base2", "f32", 1024, 20.0, "random"),
                                          ("02_b", "fast", "f32", 1024, 8.0, "random")],
                       {"01_a": "bandwidth+", "02_b": "bandwidth+"})
        text = report("tables").table(path, "all")
        self.assertRegex(text, r"\| 02_b `fast` \| 8\.0 \|[^|]*\|[^|]*\| 1\.25x \|")
        self.assertRegex(text, r"\| 02_b `base2` \| 20\.0 \|[^|]*\|[^|]*\| 0\.50x \|")
        header, rows = markdown_table(text)
        self.assertEqual(inversions(header, rows, "speed-up"), [])

    def test_kernel_moved_chart_follows_description(self):
        """A kernel moved to another chart: its description, not the CSV, says which."""
        folder = self.folder("a")
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random")], {"01_a": "bandwidth+"})
        self.assertEqual(report("charts").chart_names(path), ["bandwidth"])
        describe_stage(folder, "01_a", "scaling")
        self.assertEqual(report("charts").chart_names(path), ["scaling"])

    def test_chart_draws_the_input_types_its_stages_declare(self):
        """A chart token's :TYPE puts the stage's kernels and the library on that type beside f32's: on lines a
        block each (N, GB/s, bytes read) after f32's, on bars a bar each numbered by its type; an input type
        no token names, and a type another stage declares, are not drawn."""
        folder = self.folder("a")
        rows = [("01_a", "base", "f32", 1024, "2.0", 4096), ("01_a", "base", "f32", 4096, "4.0", 16384),
                ("01_a", "wide", "f64", 1024, "2.7", 8192), ("01_a", "wide", "f64", 4096, "6.6", 32768),
                ("01_a", "half", "f16", 4096, "8.2", 8192), ("01_a", "cub", "f32", 4096, "3.6", 16384),
                ("01_a", "cub", "f64", 4096, "5.5", 32768), ("02_b", "b", "f32", 4096, "2.0", 16384),
                ("02_b", "b", "f64", 4096, "3.6", 32768)]
        path = made_up(folder, [(s, k, t, n, 1.0, "random", {"gbps": gbps, "bytes_read": str(b)})
                                for s, k, t, n, gbps, b in rows],
                       {"01_a": "roofline+:f64 bandwidth+:f64", "02_b": "roofline bandwidth+"})
        add_to_description(folder, "01_a", ["cub f32 library f32", "cub f64 library f64"])
        _, files = report("charts").chart_data(path)
        blocks = [b.split("\n") for b in files["roofline.data"].strip("\n").split("\n\n\n")]
        self.assertEqual(blocks, [['"01 base"', "1024\t2.0\t4096", "4096\t4.0\t16384"],
                                  ['"02 b"', "4096\t2.0\t16384"], ['"cub f32"', "4096\t3.6\t16384"],
                                  ['"01 wide"', "1024\t2.7\t8192", "4096\t6.6\t32768"],
                                  ['"cub f64"', "4096\t5.5\t32768"]])
        self.assertIn('kinds="1 1 -1 2 -2"; types="f32 f64"; widths="4 8"; typenote="f32 and f64";',
                      files["roofline.vars"])
        bars = [line.split("\t") for line in files["bandwidth.data"].strip("\n").split("\n")]
        self.assertEqual([(b[1], b[2], b[4], b[5]) for b in bars], [
            ('"01 base"', "4.0", "1", "1"), ('"01 wide"', "6.6", "1", "2"), ('"02 b"', "2.0", "2", "1"),
            ('"cub f32"', "3.6", "0", "1"), ('"cub f64"', "5.5", "0", "2")])
        self.assertIn('maxn=4096; types="f32 f64"; widths="4 8";', files["bandwidth.vars"])

    def test_plot_of_a_csv_whose_stages_name_no_chart_exits_2(self):
        """A CSV whose stages' descriptions name no chart: charts names none, plot exits 2 saying so."""
        path = made_up(self.folder("a"), [("01_a", "base", "f32", 1024, 10.0, "random")], {"01_a": ""})
        self.assertEqual(self.expect(0, "", [sys.executable, REPORT, "charts", path]).out, "")
        self.expect(2, "has no rows for any chart", [sys.executable, REPORT, "plot", path, self.tmp])

    def test_plot_script_on_a_made_up_results_csv(self):
        """The plot command without gnuplot (exit 4), on another layout (exit 2), drawing its chart."""
        path = made_up(self.folder("a"), [("01_a", "base", "f32", 1024, 10.0, "random"),
                                          ("01_a", "base", "f32", 4096, 20.0, "random")], {"01_a": "bandwidth+"})
        charts_lib.chart_script_checks(self, "made-up results", path, "bandwidth", self.tmp)

    def test_claim_that_no_longer_holds_fails_naming_numbers(self):
        """A claim that no longer holds fails, naming the claim and the numbers; swapped, it holds."""
        path = made_up(self.folder("gpu-a"), [("01_a", "base", "f32", 1024, 10.0, "random"),
                                              ("01_a", "fast", "f32", 1024, 12.0, "random")], {"01_a": "bandwidth+"})
        claims = report("claims")
        claim = {"label": "fast-is-faster", "a": "01_a:fast", "b": "01_a:base", "is": "faster", "n": "all", "by": "1",
                 "cols": "", "gpus": "all"}
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), [
            "FAIL fast-is-faster on the gpu-a, N = 1024: 01_a:fast 12.0 µs, 01_a:base 10.0 µs "
            "(b/a = 0.833; claimed: faster, by 1)"])
        claim["a"], claim["b"] = claim["b"], claim["a"]
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"),
                         ["ok   fast-is-faster on the gpu-a at 1 N"])

    def test_claim_of_errors_reads_the_error_column(self):
        """A claim of relative errors (less-exact, as-exact) compares rel_err, not times: one that no longer holds
        fails naming both errors; an error of 0 against 0 is as exact, against a positive one infinitely less."""
        path = made_up(self.folder("gpu-a"), [
            ("01_a", "narrow", "f32", 1024, 10.0, "random", {"rel_err": "4e-06"}),
            ("01_a", "wide", "f32", 1024, 20.0, "random", {"rel_err": "1e-06"}),
            ("01_a", "exact", "f32", 1024, 20.0, "random", {"rel_err": "0"}),
            ("01_a", "exact2", "f32", 1024, 30.0, "random", {"rel_err": "0"})], {"01_a": "bandwidth+"})
        claims = report("claims")
        claim = {"label": "narrow-off", "a": "01_a:wide", "b": "01_a:narrow", "is": "less-exact", "n": "all",
                 "by": "3", "cols": "", "gpus": "all"}
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), ["ok   narrow-off on the gpu-a at 1 N"])
        claim["by"] = "5"
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), [
            "FAIL narrow-off on the gpu-a, N = 1024: 01_a:wide error 1.0e-06, 01_a:narrow error 4.0e-06 "
            "(b/a = 4.000; claimed: less-exact, by 5)"])
        claim.update({"is": "as-exact", "by": "5", "a": "01_a:narrow", "b": "01_a:wide"})
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), ["ok   narrow-off on the gpu-a at 1 N"])
        claim["by"] = "3"
        self.assertRegex(claims.check(claim, run_of(path), "gpu-a")[0], r"^FAIL narrow-off .*\(b/a = 0\.250; ")
        claim.update({"a": "01_a:exact", "b": "01_a:exact2", "by": "1"})
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), ["ok   narrow-off on the gpu-a at 1 N"])
        claim.update({"b": "01_a:wide", "is": "less-exact", "by": "1000"})
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), ["ok   narrow-off on the gpu-a at 1 N"])

    def test_claim_at_row_lengths_and_other_type_reads_those_rows(self):
        """A claim at row lengths (cols) and on another input type reads those rows alone."""
        rows = [("rows", "a", "f32", 64, 2.0), ("rows", "b", "f32", 64, 1.0), ("rows", "a", "f32", 4096, 1.0),
                ("rows", "b", "f32", 4096, 3.0), ("x", "a", "i32", "", 1.0), ("x", "a", "f32", "", 5.0)]
        path = made_up(self.folder("g"), [(f"09_{s}", k, t, 1024, us, "random", {"cols": str(c)})
                                          for s, k, t, c, us in rows], {"09_rows": "rows+", "09_x": "bandwidth+"})
        claims = report("claims")
        claim = {"label": "a-long", "a": "09_rows:a", "b": "09_rows:b", "is": "faster", "n": "1024", "cols": "4096",
                 "by": "2", "gpus": "all"}
        self.assertEqual(claims.check(claim, run_of(path), "g"), ["ok   a-long on the g at 1 N"])
        claim["cols"] = "64 4096"
        lines = claims.check(claim, run_of(path), "g")
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^FAIL a-long on the g, N = 1024 \(64 columns\): ")
        claim.update(a="09_x:a:i32", b="09_x:a", n="1024", cols="", by="5")
        self.assertEqual(claims.check(claim, run_of(path), "g"), ["ok   a-long on the g at 1 N"])

    def test_claim_uncited_in_both_languages_fails(self):
        """A claim no README ties to a sentence in both languages fails: its mark, not its name, ties it."""
        pages = {"stages/01_a/README.md": "a is faster<!-- claim: a-long -->.",
                 "stages/01_a/README.zh-CN.md": "a 更快<!-- claim: a-long -->。"}
        claims = report("claims")
        self.assertEqual(claims.uncited("a-long", pages), [])
        pages["stages/01_a/README.zh-CN.md"] = "a 更快（`a-long`）。"
        self.assertEqual(claims.uncited("a-long", pages), [
            "FAIL a-long: no stage README ends a sentence with <!-- claim: a-long --> in both languages "
            "(a claim is for a sentence that makes it)"])

    def test_claim_name_in_prose_fails(self):
        """A claim's name shown to the reader fails, naming the page; inside its mark it does not, nor in a longer name."""
        claims = report("claims")
        self.assertEqual(claims.in_prose(["a-long"], {"x.md": "a is faster<!-- claim: a-long --> (a-longer)."}), [])
        self.assertEqual(claims.in_prose(["a-long"], {"x.md": "a is faster (`a-long` of `claims.csv`)."}), [
            "FAIL a-long: x.md shows the claim's name; say what was measured, and mark the sentence with "
            "<!-- claim: a-long -->"])

    def test_sentence_of_a_mark(self):
        """The sentence a mark ends: back to the sentence, clause or list item before it; marks side by side share it."""
        claims = report("claims")
        text = "First. On both GPUs a is faster<!-- claim: x --><!-- claim: y -->; b is level<!-- claim: z -->.\n" \
               "- item one\n- 两块 GPU 上都更快<!-- claim: w -->。"
        self.assertEqual([(c, said) for _, c, said in claims.marks({"p": text})], [
            ("x", "On both GPUs a is faster"), ("y", "On both GPUs a is faster"), ("z", "b is level"),
            ("w", "两块 GPU 上都更快")])
        self.assertTrue(all(claims.EVERY.search(said) for said in ("On both GPUs a is faster", "两块 GPU 上都更快",
                                                                   "在每块参考 GPU 上都成立", "on every reference GPU")))
        self.assertFalse(any(claims.EVERY.search(said) for said in ("b is level", "the table has each GPU's figure")))

    def claims_tree(self, claims_csv, cite, said="a sentence"):
        """A folder laid out as the repository for the claims command: a GPU's results (the primary reference),
        stage 01_a's claims (CLAIMS_CSV) and its READMEs, each with a sentence SAID marked with each claim named
        in CITE."""
        made_up(os.path.join(self.tmp, "plots", "reference", "gpu-a"),
                [("01_a", "base", "f32", 1024, 10.0, "random"), ("01_a", "fast", "f32", 1024, 12.0, "random")],
                {"01_a": "bandwidth+"})
        write(os.path.join(self.tmp, "plots", "reference", "primary"), "gpu-a\n")
        write(os.path.join(self.tmp, "stages", "01_a", "claims.csv"), CLAIMS + claims_csv)
        for page in ("README.md", "README.zh-CN.md"):
            write(os.path.join(self.tmp, "stages", "01_a", page),
                  "".join(f"{said}<!-- claim: {c} -->. " for c in cite) + "\n")
        return self.tmp

    def earlier_run(self, tree, slower_fast):
        """A second reference, gpu-b, in TREE: its run measured at the tree's first commit (a git checkout made
        here), its fast kernel SLOWER_FAST µs; then stage 01_a's reduce.cu changed since."""
        made_up(os.path.join(tree, "plots", "reference", "gpu-b"),
                [("01_a", "base", "f32", 1024, 10.0, "random", {"gpu": "Y"}),
                 ("01_a", "fast", "f32", 1024, slower_fast, "random", {"gpu": "Y"})], {"01_a": "bandwidth+"})
        write(os.path.join(tree, "stages", "01_a", "reduce.cu"), "one\n")

        def git(*args):
            r = support.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tree)
            self.assertEqual(r.rc, 0, r)
            return r.out.strip()
        git("init", "-q")
        git("add", "-A")
        git("commit", "-q", "-m", "one")
        write(os.path.join(tree, "plots", "reference", "gpu-b", "measured_at"), git("rev-parse", "HEAD") + "\n")
        return git

    def test_claims_of_a_stage_changed_since_an_earlier_run_are_not_held_to_it(self):
        """A claim false on gpu-b: held to it while its stage is as measured (exit 1), excused once the stage's
        kernel file changed since (exit 0, a skip line naming the stage); the primary is held all the same."""
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,2^10,,all,\n",
                                cite=("base-faster",))
        self.earlier_run(tree, 9.0)
        r = self.expect(1, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertIn("FAIL base-faster on the gpu-b, N = 1024", r.out)
        write(os.path.join(tree, "stages", "01_a", "reduce.cu"), "two\n")
        r = self.expect(0, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertEqual(r.out, "ok   base-faster on the gpu-a at 1 N\nskip base-faster on the gpu-b: not held to it, "
                                "01_a changed since its run (its README)\n")
        write(os.path.join(tree, "plots", "reference", "primary"), "gpu-b\n")  # the primary is never excused
        self.expect(1, "FAIL base-faster on the gpu-b", [sys.executable, REPORT, "claims"], cwd=tree)

    def test_claims_sentence_on_both_gpus_fails_where_one_is_not_checked(self):
        """A sentence saying a claim holds on both GPUs fails once one reference is excused from it; without
        "both" it passes."""
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,2^10,,all,\n",
                                cite=("base-faster",), said="On both GPUs base is faster")
        self.earlier_run(tree, 12.0)
        self.expect(0, "", [sys.executable, REPORT, "claims"], cwd=tree)
        write(os.path.join(tree, "stages", "01_a", "reduce.cu"), "two\n")
        r = self.expect(1, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertIn("FAIL base-faster: stages/01_a/README.md says it holds on every reference GPU, and it is not "
                      "checked on the gpu-b: \"On both GPUs base is faster\"", r.out)
        for page in ("README.md", "README.zh-CN.md"):
            write(os.path.join(tree, "stages", "01_a", page), "Base is faster<!-- claim: base-faster -->.\n")
        self.expect(0, "", [sys.executable, REPORT, "claims"], cwd=tree)

    def test_claims_command_exits_1_on_a_mark_of_an_unknown_claim(self):
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,2^10,,all,\n",
                                cite=("base-faster", "no-such-claim"))
        r = self.expect(1, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertIn("FAIL no-such-claim: stages/01_a/README.md marks a sentence with a claim no claims.csv has", r.out)

    def test_target_of_a_stage_changed_since_an_earlier_run_is_not_held_to_it(self):
        """The targets table: gpu-b's cell says it is not held once the stage changed since its run; the
        primary's cell keeps its verdict."""
        tree = self.claims_tree("", cite=())
        git = self.earlier_run(tree, 12.0)
        write(os.path.join(tree, "stages", "01_a", "claims.csv"), CLAIMS + "target,first | 一,01_a:fast,01_a:base,faster,1.5,2^10,,all,\n")
        cmd = [sys.executable, REPORT, "targets", "--stage", "01_a", "plots/reference/gpu-a/results.csv",
               "plots/reference/gpu-b/results.csv"]
        self.assertEqual(self.expect(0, "", cmd, cwd=tree).out.split("\n")[2],
                         "| first | 2^10 | ≥ 1.500 | **not met** (0.833 at 2^10) | **not met** (0.833 at 2^10) |")
        write(os.path.join(tree, "stages", "01_a", "reduce.cu"), "two\n")
        self.assertEqual(self.expect(0, "", cmd, cwd=tree).out.split("\n")[2],
                         "| first | 2^10 | ≥ 1.500 | **not met** (0.833 at 2^10) | not held: stage 01 changed since this run |")
        self.assertTrue(git("status", "--short"))
        write(os.path.join(tree, "plots", "reference", "primary"), "gpu-b\n")  # the primary is held to every target
        self.assertEqual(self.expect(0, "", cmd, cwd=tree).out.split("\n")[2],
                         "| first | 2^10 | ≥ 1.500 | **not met** (0.833 at 2^10) | **not met** (0.833 at 2^10) |")

    def test_claims_command_exits_1_on_a_false_or_uncited_claim(self):
        """make docs-check's claims: a claim of either kind false on the GPU's results, and one no README cites,
        exit 1."""
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,2^10,,all,\n"
                                "claim,fast-faster,01_a:fast,01_a:base,faster,1,all,,all,\n"
                                "claim,base-uncited,01_a:base,01_a:fast,faster,1.1,all,,all,\n"
                                "claim,base-close,01_a:base,01_a:fast,level,1.1,all,,all,\n",
                                cite=("base-faster", "fast-faster", "base-close"))
        r = self.expect(1, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertEqual(r.out.split("\n"), [
            "ok   base-faster on the gpu-a at 1 N",
            "FAIL fast-faster on the gpu-a, N = 1024: 01_a:fast 12.0 µs, 01_a:base 10.0 µs (b/a = 0.833; claimed: "
            "faster, by 1)",
            "FAIL base-uncited: no stage README ends a sentence with <!-- claim: base-uncited --> in both languages (a "
            "claim is for a sentence that makes it)",
            "ok   base-uncited on the gpu-a at 1 N",
            "FAIL base-close on the gpu-a, N = 1024: 01_a:base 10.0 µs, 01_a:fast 12.0 µs (b/a = 1.200; claimed: "
            "level, by 1.1)", ""])

    def test_claims_command_exits_0_when_every_claim_holds_and_is_cited(self):
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,2^10,,all,\n",
                                cite=("base-faster",))
        r = self.expect(0, "", [sys.executable, REPORT, "claims"], cwd=tree)
        self.assertEqual(r.out, "ok   base-faster on the gpu-a at 1 N\n")

    def test_claims_command_exits_2_on_an_unknown_comparison(self):
        tree = self.claims_tree("claim,base-slower,01_a:base,01_a:fast,slower,1,all,,all,\n",
                                cite=("base-slower",))
        self.expect(2, r"claim base-slower: is 'slower' \(faster, level, less-exact, as-exact\)", [sys.executable, REPORT, "claims"],
                    cwd=tree)

    def test_claims_command_exits_2_on_a_level_wider_than_15_percent(self):
        """Two times called level differ by at most 1.15x: a claim that allows more is refused; 1.15 is taken."""
        tree = self.claims_tree("claim,base-level,01_a:base,01_a:fast,level,1.16,all,,all,\n", cite=("base-level",))
        self.expect(2, r"claim base-level: level by 1.16: two times called level differ by at most 1.15x",
                    [sys.executable, REPORT, "claims"], cwd=tree)
        write(os.path.join(tree, "stages", "01_a", "claims.csv"), CLAIMS + "claim,base-level,01_a:base,01_a:fast,level,1.15,all,,all,\n")
        self.expect(1, r"FAIL base-level on the gpu-a, N = 1024: .* \(b/a = 1.200; claimed: level, by 1.15\)",
                    [sys.executable, REPORT, "claims"], cwd=tree)

    def test_claims_command_exits_2_on_an_unknown_time(self):
        tree = self.claims_tree("claim,base-faster,01_a:base,01_a:fast,faster,1.1,all,,all,\n", cite=("base-faster",))
        write(os.path.join(tree, "stages", "01_a", "claims.csv"), CLAIMS.replace("\n", ",time\n") +
              "claim,base-faster,01_a:base,01_a:fast,faster,1.1,all,,all,,gpu\n")
        self.expect(2, r"base-faster: time 'gpu' \(whole, or kernels: the launches alone\)",
                    [sys.executable, REPORT, "claims"], cwd=tree)

    def split_run(self, folder):
        """A run in which the CPU finishes "fast" and "slow": their launches (gpu_us) and finish (finish_us) apart;
        "base" ends on the GPU. fast's kernels take a third of slow's, its whole run half of slow's."""
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("01_a", "slow", "f32", 1024, 40.0, "random"),
                                ("01_a", "fast", "f32", 1024, 20.0, "random")], {"01_a": "bandwidth+"})
        parts = {"slow": "30.0,9.5", "fast": "10.0,9.5"}
        lines = open(path, encoding="utf-8").read().split("\n")
        write(path, "\n".join(line + (",gpu_us,finish_us" if i == 0 else "," + parts.get(line.split(",")[2], ",")
                                     if line else "") for i, line in enumerate(lines)))
        return path

    def test_claim_of_the_kernels_reads_their_own_time(self):
        """A claim with time kernels compares the launches alone (gpu_us), the run's whole time where it has none;
        without, the whole runs."""
        path, claims = self.split_run(self.folder("a")), report("claims")
        claim = {"label": "fast", "a": "01_a:fast", "b": "01_a:slow", "is": "faster", "n": "all", "by": "2.5",
                 "cols": "", "gpus": "all", "time": "kernels"}
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), ["ok   fast on the gpu-a at 1 N"])
        claim["time"] = ""
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), [
            "FAIL fast on the gpu-a, N = 1024: 01_a:fast 20.0 µs, 01_a:slow 40.0 µs (b/a = 2.000; claimed: faster, by 2.5)"])
        claim.update(a="01_a:base", b="01_a:fast", by="1.05", time="kernels")  # base has no gpu_us: its whole run
        self.assertEqual(claims.check(claim, run_of(path), "gpu-a"), [
            "FAIL fast on the gpu-a, N = 1024: 01_a:base 10.0 µs, 01_a:fast 10.0 µs (the kernels alone) (b/a = 1.000; "
            "claimed: faster, by 1.05)"])

    def test_tables_split_the_runs_the_cpu_finishes(self):
        """A row with gpu_us shows its kernels + finish, a row without leaves that cell blank; a CSV with none of
        them has no such column; the bars' last column is the kernels' GB/s (NaN without gpu_us)."""
        path = self.split_run(self.folder("a"))
        table = report("tables").table(path, "stage", "01_a")
        self.assertIn("| kernel | time (µs) | kernels + finish (µs) | GB/s |", table)
        self.assertIn("| `slow` | 40.0 | 30.0 + 9.5 | 0 |", table)
        self.assertIn("| `base` | 10.0 |  | 0 |", table)
        self.assertIn("kernels + finish: ", table)
        bars = report("charts").chart_data(path)[1]["bandwidth.data"].splitlines()
        self.assertEqual([line.split("\t")[-1] for line in bars], ["NaN", "0.136533", "0.4096"], bars)  # 4096 B / µs
        plain = made_up(self.folder("b"), [("01_a", "base", "f32", 1024, 10.0, "random")], {"01_a": "bandwidth+"})
        self.assertNotIn("finish", report("tables").table(plain, "stage", "01_a"))

    def test_chain_speedups_from_the_kernels_alone(self):
        """A chain: each step's speed-up of the kernels alone (gpu_us, else the whole run; a loop on the CPU has
        none), its finish, and its whole run's; without the article's times, no article columns."""
        folder = self.folder("a")
        path = self.split_run(folder)
        add_to_description(folder, "01_a", ["base f32 cpu f32"])
        cited = os.path.join(self.tmp, "cited.csv")
        write(cited, "# source: an article\n# n: 1024\nstep,stage,kernel,ms,gbps\n§1,01_a,base,,\n§2,01_a,slow,,\n"
                     "§3,01_a,fast,,\n")
        self.assertEqual(report("cited").cited(path, cited, "01_a").split("\n")[2:], [
            "| step | kernel | this run: kernels (µs) | GB/s | speed-up | finish (µs) | whole run (µs) | speed-up | check |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|",
            "| §1 | `base` | - | - | - | - | 10.0 | - | ok |",
            "| §2 | `slow` | 30.0 | 0 | - | 9.5 | 40.0 | 0.25x | ok |",
            "| §3 | `fast` | 10.0 | 0 | 3.00x | 9.5 | 20.0 | 2.00x | ok |", ""])
        write(cited, "# source: an article\n# gpu: T4\n# n: 1024\nstep,stage,kernel,ms,gbps\n§2,01_a,slow,4,1\n"
                     "§3,01_a,fast,2,2\n")
        self.assertIn("| §3 | `fast` | 2 | 2 | 2.00x | 10.0 | 0 | 3.00x | 9.5 | 20.0 | 2.00x | ok |",
                      report("cited").cited(path, cited, "01_a"))

    def test_kernels_time_of_a_profile(self):
        """profilers.py ncu --mode kernels: the median over the timed runs of a run's launches' summed time, and
        the launches a run; launches that do not divide into the runs exit 1."""
        ncu = os.path.join(self.tmp, "ncu.csv")
        rows = [(1, "k1", 9000), (2, "k2", 1000), (3, "k1", 4000), (4, "k2", 1000), (5, "k1", 6000), (6, "k2", 1000),
                (7, "k1", 2000), (8, "k2", 1000)]
        write(ncu, '"ID","Kernel Name","Metric Name","Metric Value"\n' + "".join(
            f'"{i}","{k}","gpu__time_duration.sum","{v}"\n' for i, k, v in rows))
        read = profilers().kernels_time
        self.assertEqual(read(ncu, 4, "gpu__time_duration.sum"), "5.000 2\n")  # runs 5, 7, 3 µs: the first is checked
        self.assertEqual(read(ncu, 2, "gpu__time_duration.sum"), "10.000 4\n")  # the second run's four launches
        fails(self, lambda: read(ncu, 3, "gpu__time_duration.sum"), 1)

    def test_claims_command_exits_2_on_an_unknown_kind(self):
        tree = self.claims_tree("guess,base-guess,01_a:base,01_a:fast,faster,1,all,,all,\n", cite=("base-guess",))
        self.expect(2, r"base-guess: kind 'guess' \(one of claim, target, cited, ratio, crossover\)",
                    [sys.executable, REPORT, "claims"], cwd=tree)

    def in_tree(self, stage, claims_csv):
        """Work in a folder of the repository's layout holding STAGE's claims.csv (CLAIMS_CSV rows) alone."""
        write(os.path.join(self.tmp, "stages", stage, "claims.csv"), CLAIMS + claims_csv)
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.tmp)

    def test_crossover_from_the_row_length_where_b_stays_ahead(self):
        """A row stage's crossover: the row length from which B's fastest kernel beats A's at every longer one; none
        where A's is ahead at the longest."""
        gbps = {"warp": (300, 200, 100), "warp_packed": (310, 150, 90), "block": (100, 210, 300)}
        path = made_up(self.folder("r"), [("09_r", k, "f32", 1 << 20, 4 * (1 << 20) / g / 1e3, "random", {"cols": str(c)})
                                          for k, row in gbps.items() for c, g in zip((32, 64, 128), row)],
                       {"09_r": "rows+"})
        self.in_tree("09_r", "crossover,one warp / one block | 一个 warp / 一个块,09_r:warp*,09_r:block,,,all,,,\n")
        self.assertIn("Crossover: from 64 columns per row on, the fastest one block beats the fastest one warp.",
                      report("tables").table(path, "stage", "09_r"))
        self.assertIn("分界点：从每行 64 列开始，最快的一个块 比最快的一个 warp 快。", report("tables").table(path, "stage", "09_r", "zh"))
        gbps["warp_packed"] = (310, 150, 400)
        path = made_up(self.folder("s"), [("09_r", k, "f32", 1 << 20, 4 * (1 << 20) / g / 1e3, "random", {"cols": str(c)})
                                          for k, row in gbps.items() for c, g in zip((32, 64, 128), row)],
                       {"09_r": "rows+"})
        self.assertIn("No crossover in this range: the fastest one warp is at least as fast at every row length.",
                      report("tables").table(path, "stage", "09_r"))

    def test_ratio_row_at_every_n(self):
        """A ratio assertion: B's time over A's at every N, in the stage's table of ratios; "-" where one is missing."""
        path = made_up(self.folder("q"), [("08_q", "fast", "f32", 1024, 10.0, "random"),
                                          ("08_q", "fast_det", "f32", 1024, 12.5, "random"),
                                          ("08_q", "fast", "f32", 4096, 20.0, "random")], {"08_q": "roofline+"})
        self.in_tree("08_q", "ratio,,08_q:fast_det,08_q:fast,,,all,,,\n")
        self.assertIn("| `fast_det` / `fast` | 0.800 | - |", report("tables").ratios(path, "08_q"))

    def test_ratio_rows_of_a_stage_without_the_roofline_chart(self):
        """A stage's own table of its ratio assertions: one kernel on two fills, under its label in each language, at
        every N of the stage's rows; "-" where the run lacks the fill (a fill not benched yet)."""
        path = made_up(self.folder("e"), [("13_e", "win", "f32", 1024, 10.0, "shifted"),
                                          ("13_e", "win", "f32", 4096, 20.0, "shifted"),
                                          ("13_e", "win", "f32", 1024, 25.0, "wide")], {"13_e": "bandwidth+"})
        self.in_tree("13_e", "ratio,`win` (shifted) / `win` (wide) | `win`（shifted）/ `win`（wide）,13_e:win,13_e:win@wide,,,all,,,\n"
                             "ratio,,13_e:win,13_e:win@binades,,,all,,,\n")
        table = report("tables").stage_ratios(path, "13_e")
        self.assertIn("| ratio at N = | 2^10 | 2^12 |", table)
        self.assertIn("| `win` (shifted) / `win` (wide) | 2.500 | - |", table)
        self.assertIn("| `win` / `win@binades` | - | - |", table)
        self.assertIn("| `win`（shifted）/ `win`（wide） | 2.500 | - |", report("tables").stage_ratios(path, "13_e", "zh"))

    def test_target_of_two_kernels_met_or_not_met_with_worst_ratio(self):
        """A target comparing two kernels (A/B): met or not met, with the worst ratio and where."""
        path = made_up(self.folder("gpu-t"), [("01_a", "base", "f32", 1024, 10.0, "random"),
                                              ("02_b", "fast", "f32", 1024, 8.0, "random"),
                                              ("01_a", "base", "f32", 4096, 20.0, "random"),
                                              ("02_b", "fast", "f32", 4096, 25.0, "random"),
                                              ("02_b", "fast", "f32", 4096, 5.0, "wide")],
                       {"01_a": "bandwidth+", "02_b": "bandwidth+"})
        targets = [target("02_b:fast", "01_a:base", "2^10", "1.2", "first | 一"),
                   target("02_b:fast", "01_a:base", "2^10..2^12", "1.0", "both | 二")]
        lines = report("claims").targets([path], "02_b", rows=targets).split("\n")
        self.assertIn("| met (1.250 at 2^10) |", lines[2])
        self.assertIn("| **not met** (0.800 at 2^12) |", lines[3])  # the first fill's row, not the wide one
        targets = [target("02_b:fast@wide", "01_a:base@random", "2^12", "4.0", "wide | 宽"),
                   target("02_b:fast@random", "01_a:base@wide", "2^12", "1.0", "none | 无")]
        lines = report("claims").targets([path], "02_b", rows=targets).split("\n")
        self.assertIn("| met (4.000 at 2^12) |", lines[2])  # the wide row of one kernel against the random of the other
        self.assertTrue(lines[3].endswith("| - |"), lines[3])  # a fill the run does not have: no ratio
        targets = [target("02_b:fast", "01_a:base", "2^10", "1.2502", "close | 近"),
                   target("02_b:fast", "01_a:base", "2^10", "1.2498", "met | 达")]
        lines = report("claims").targets([path], "02_b", rows=targets).split("\n")
        self.assertIn("| ≥ 1.2502 | **not met** (1.2500 at 2^10) |", lines[2])  # a miss never shown as the bound
        self.assertIn("| ≥ 1.250 | met (1.250 at 2^10) |", lines[3])

    def test_targets_of_each_ratio_kind_met_or_not_met(self):
        """Each ratio of a target (sol, cub, repository, ...) met or not met, with its worst ratio figured by hand."""
        path = made_up(self.folder("gpu-t"), [
            ("01_a", "base", "f32", 1048576, 10.0, "random"),
            ("02_b", "fast", "f32", 1048576, 8.0, "random", {"x_cub": "0.5"}),
            ("02_b", "fast_deterministic", "f32", 1048576, 16.0, "random", {"x_cub": "0.25"}),
            ("02_b", "half", "f16", 1048576, 4.0, "random", {"x_cub": "0.75", "bytes_read": "2097152"})],
            {"01_a": "bandwidth+", "02_b": "bandwidth+"})
        targets = [target("02_b:fastest", "sol", "2^20", "0.9", "sol"),  # (2 µs + 4194304 B / 950 GB/s) / 8 µs = 0.802
                   target("02_b:fastest", "library", "2^20", "1.0", "library"),  # the fastest fp32 kernel's x CUB, 0.5
                   target("02_b:fastest", "others", "2^20", "1.2", "others"),  # 10 µs / 8 µs = 1.25
                   target("02_b:fast_deterministic", "02_b:fastest", "2^20", "0.9", "deterministic"),  # 8 µs / 16 µs
                   target("02_b:fastest:each", "library", "2^20", "0.6", "types")]  # the types' best x CUB: 0.5, 0.75
        lines = report("claims").targets([path], "02_b", rows=targets).split("\n")
        for line, verdict in zip(lines[2:], ("**not met** (0.802 at 2^20)", "**not met** (0.500 at 2^20)",
                                             "met (1.250 at 2^20)", "**not met** (0.500 at 2^20)",
                                             "**not met** (0.500 at 2^20)")):
            with self.subTest(line.split("|")[1].strip()):
                self.assertTrue(line.endswith(f"| {verdict} |"), line)

    def cited_claim(self, folder):
        """A made-up cited.csv of the claim kind (an article's "slow is 100x slower than fast") and a run
        whose slow kernel failed its check: the cited table."""
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"),
                                ("01_a", "slow", "f32", 1024, 50.0, "random", {"pass": "0"}),
                                ("01_a", "fast", "f32", 1024, 5.0, "random")], {"01_a": "bandwidth+"})
        row = dict(target("01_a:fast", "01_a:slow", "1024", "100", "slow / fast"), kind="cited",
                   source="an article | 一篇文章")
        return report("claims").cited(path, "01_a", rows=[row])

    def test_cited_claim_beside_this_run_marks_a_failed_check(self):
        """A cited claim beside this run: its ratio of this run's times, FAIL where a kernel failed its check."""
        table = self.cited_claim(self.folder("a"))
        self.assertIn("| slow / fast | 01_a `slow` | 01_a `fast` | 1024 | about 100x | 50.0 | 5.0 | 10.00x | FAIL |",
                      table)

    def test_cited_figures_of_an_unknown_kind_exit_2(self):
        cited = os.path.join(self.tmp, "cited.csv")
        write(cited, "# source: an article\nclaim,kernel,times\nslow,01_a,100\n")
        err = fails(self, lambda: report("cited").Figures(cited, "en"))
        self.assertIn("its header line 'claim,kernel,times' names no kind of cited figures", err)

    def test_readme_citing_a_number_that_differs_fails_the_check(self):
        """A README whose cited table shows a number other than the run's differs: the check exits 1 naming it."""
        table = self.cited_claim(self.folder("a"))
        page = os.path.join(self.tmp, "README.md")
        write(page, f"# 01\n\n<!-- stage-results:begin -->\n{table}<!-- stage-results:end -->\n")
        readmes = report("readmes")
        self.assertEqual(readmes.update(page, {"stage-results": table}, True), 0)
        write(page, open(page, encoding="utf-8").read().replace("| 10.00x |", "| 12.00x |"))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = readmes.update(page, {"stage-results": table}, True)
        self.assertEqual(status, 1)
        self.assertEqual(err.getvalue(), f"{page} differs from what the results give: run make docs\n")
        self.assertIn("-| slow / fast | 01_a `slow` | 01_a `fast` | 1024 | about 100x | 50.0 | 5.0 | 12.00x |",
                      out.getvalue())

    def test_read_only_stage_table_says_gb_s_of_input_bytes(self):
        """A read-only stage's table says GB/s of input bytes, though GB/s to 0.01 rounds up by over 1% at 2^10."""
        folder = self.folder("a")
        path = made_up(folder, [("01_a", "base", "f32", 1 << 20, 2000.0, "random")], {"01_a": "bandwidth"})
        with open(path, "a", encoding="utf-8") as f:
            f.write("X,01_a,base,f32,1024,16.6,0.25,0.01,1e-08,1,,flushed,same,4096,1,1,random,1e-06\n")
        self.assertIn("GB/s of input bytes", report("tables").table(path, "stage", "01_a"))

    def test_sass_summary_counts_loads_by_width(self):
        """make stage-NN sass's summary counts a load by its width, with modifiers on either side of it."""
        ptxas, sass = os.path.join(self.tmp, "ptxas"), os.path.join(self.tmp, "sass")
        write(ptxas, "ptxas info    : Compiling entry function '_Z1kPKf' for 'sm_90'\n"
                     "ptxas info    : Used 32 registers, 68 bytes smem\n")
        write(sass, "        Function : _Z1kPKf\n"
                    "        /*0080*/                   LDG.E.EF.128 R4, desc[UR4][R2.64] ;\n"
                    "        /*0090*/                   LDG.E.128.CONSTANT R8, desc[UR4][R2.64+0x1000] ;\n"
                    "        /*00a0*/                   LDG.E.128 R12, desc[UR4][R2.64+0x2000] ;\n"
                    "        /*00b0*/                   LDG.E.64 R16, desc[UR4][R6.64] ;\n"
                    "        /*00c0*/                   LDG.E.EF R18, desc[UR4][R6.64] ;\n"
                    "        /*00d0*/                   LDG.E.U16.CONSTANT R19, desc[UR4][R6.64] ;\n"
                    "        /*00e0*/                   LDGSTS.E.128 [R20], desc[UR4][R6.64] ;\n"
                    "        /*00f0*/                   RED.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R6.64], R0 ;\n")
        line = profilers().sass(ptxas, sass).split("\n")[1]
        self.assertIn("LDG<=32 2  LDG.64 1  LDG.128 3 |", line)
        self.assertIn("RED/ATOM 1 | 32 registers, 68 bytes shared", line)


def verify_reference():
    return importlib.import_module("tests.verify_reference")


@functools.lru_cache(None)
def stage_table():
    """scripts/stage_table.py, the front page's table of the stages, as a module."""
    report("common")  # its imports: the reporting program's folder on the path
    spec = importlib.util.spec_from_file_location("stage_table", os.path.join(ROOT, "scripts", "stage_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def article_stage_problems(page, follows):
    """Where PAGE's table of the articles lists other stages than those whose "Follows." (FOLLOWS: {stage
    number: its paragraph}) cites the article: one line each."""
    problems = []
    for title, row in stage_table().articles("zh" if page.endswith(".zh-CN.md") else "en", page).items():
        listed = [f"{n:02d}" for a, b in re.findall(r"(\d\d)(?:–(\d\d))?", row[-1]) for n in range(int(a), int(b or a) + 1)]
        citing = [n for n, paragraph in follows.items() if title in paragraph]
        if listed != citing:
            problems.append(f"{page}: {title}: lists {', '.join(listed)}; the stages' READMEs cite it in {', '.join(citing)}")
    return problems


class StageTable(support.Case):
    """The front page's table of the stages, made from the stages' READMEs (scripts/stage_table.py), and the
    stages its table of the articles lists, checked against them."""

    def setUp(self):
        self.tmp = support.scratch(self)

    def test_the_articles_tables_list_the_stages_that_cite_each_article(self):
        for page, lang in (("README.md", "en"), ("README.zh-CN.md", "zh")):
            follows = {support.stage_num(s): stage_table().follows(f"stages/{s}/", lang) for s in support.stages()}
            with self.subTest(page=page):
                self.assertEqual(article_stage_problems(page, follows), [])
        follows = {support.stage_num(s): stage_table().follows(f"stages/{s}/") for s in support.stages()}
        wrong = dict(follows, **{"07": ""})
        self.assertEqual(len(article_stage_problems("README.md", wrong)), 2, "07 cites the chapter and LeetCUDA")

    def cell(self, lang, follows):
        folder = os.path.join(self.tmp, "stages", "02_b") + "/"
        os.makedirs(folder, exist_ok=True)
        write(folder + ("README.zh-CN.md" if lang == "zh" else "README.md"), f"# 02\n\n{follows}\n\n**Idea.** 《x》\n")
        return stage_table().articles_cell(folder, lang)

    def test_articles_cell_gives_short_names_and_sections_in_their_order(self):
        self.assertEqual(self.cell("en", "**Follows.** 《Reduce kernel 总览》 (LeetCUDA) §3.5 「提高线程利用率」 (its\n"
                                         "table); 《常见手撕算子-reduce》 §5 「每个线程多处理几个数据」."), "LeetCUDA §3.5, blog §5")
        self.assertEqual(self.cell("en", "**Follows.** the warp shuffle article (untitled) §1 「__shfl_sync()」 to §4 "
                                         "「allreduce 算法」."), "shuffle article §1–§4")
        self.assertEqual(self.cell("zh", "**对应文章。** 《第 7 章 · Reduction / Scan /\nAtomics》§7.8.4「数值精度新挑战"
                                         "」、§7.1「v1」到\n§7.3。"), "第 7 章 §7.8.4、§7.1–§7.3")
        self.assertEqual(self.cell("en", "**Follows.** No article section: it answers 《第 7 章 · Reduction / Scan / "
                                         "Atomics》 §7.7.4's question."), "beyond the articles")
        self.assertEqual(self.cell("zh", "**对应文章。** 文章里没有对应的小节：《第 7 章 · Reduction / Scan / Atomics》"
                                         "§7.7.4。"), "超出文章范围")

    def test_a_stage_without_its_line_in_short_is_refused_exit_2(self):
        for page in ("README.md", "README.zh-CN.md"):
            shutil.copy(os.path.join(ROOT, page), os.path.join(self.tmp, page))
        os.makedirs(os.path.join(self.tmp, "stages", "01_a"))
        write(os.path.join(self.tmp, "stages", "01_a", "README.md"), "# 01\n\n**Follows.** 《常见手撕算子-reduce》 §1.\n\n"
                                                                     "**In short.** A loop.\n")
        with contextlib.chdir(self.tmp):
            self.assertEqual(stage_table().stage_table("en").split("\n")[2], "| [01_a](stages/01_a) | A loop | blog §1 |")
            write("stages/01_a/README.md", "# 01\n\n**Follows.** 《常见手撕算子-reduce》 §1.\n\n**Idea.** A loop.\n")
            err = fails(self, lambda: stage_table().stage_table("en"))
        self.assertIn("stages/01_a/README.md has no paragraph **In short.**", err)


class FallCheck(support.Case):
    """The reference check that a kernel's time does not fall as N grows (no_fall), on made-up series."""

    def falls(self, times):
        """no_fall's verdict on a made-up stage whose kernels take TIMES {kernel: (µs at 2^10, µs at 2^12)}
        (the launch floor: 2 µs)."""
        rows = [("01_a", k, "f32", n, us, "random") for k, pair in times.items() for n, us in zip((1024, 4096), pair)]
        return verify_reference().no_fall(made_up(support.scratch(self), rows, {"01_a": "bandwidth"}))[0]

    def test_batch_slow_as_a_whole_fails(self):
        """A batch slow as a whole fails the fall check, though no kernel falls by a launch floor."""
        ok, what = self.falls({"a": (5.0, 3.5), "b": (5.5, 3.9), "c": (9.0, 9.1)})
        self.assertFalse(ok, what)
        self.assertIn("median time falls to 0.71", what)

    def test_one_kernel_falling_by_over_25_percent_and_a_launch_floor_fails(self):
        ok, what = self.falls({"a": (12.6, 8.9), "b": (5.0, 5.1), "c": (9.0, 9.1)})
        self.assertFalse(ok, what)
        self.assertIn("01_a a f32 flushed: 12.6 us at n=1024, 8.9 us at n=4096", what)

    def test_one_kernel_falling_by_less_than_a_launch_floor_passes(self):
        """One kernel's fall of more than 25% but less than a launch floor passes: its own cost, not the batch's."""
        ok, what = self.falls({"a": (5.1, 3.8), "b": (5.0, 5.1), "c": (9.0, 9.1)})
        self.assertTrue(ok, what)

    def finished_on_cpu(self, kernel_us):
        """no_fall's verdict where kernel a's CPU finish falls from 11 to 6 µs (its whole time from 15 to 10)
        and its kernels take KERNEL_US (µs at 2^10, µs at 2^12)."""
        rows = [("01_a", "a", "f32", n, whole, "random", {"gpu_us": f"{k}", "finish_us": f"{whole - k}"})
                for n, whole, k in zip((1024, 4096), (15.0, 10.0), kernel_us)]
        rows += [("01_a", k, "f32", n, us, "random") for k, pair in {"b": (5.0, 5.1), "c": (9.0, 9.1)}.items()
                 for n, us in zip((1024, 4096), pair)]
        return verify_reference().no_fall(made_up(support.scratch(self), rows, {"01_a": "bandwidth"}))[0]

    def test_a_fall_of_the_cpus_finish_alone_passes(self):
        """Where the CPU finishes, the kernels' own time is what may not fall: a CPU's slow finish is not a
        slow batch of the GPU's."""
        ok, what = self.finished_on_cpu((4.0, 4.0))
        self.assertTrue(ok, what)

    def test_a_fall_of_the_kernels_finished_on_the_cpu_fails(self):
        ok, what = self.finished_on_cpu((12.0, 4.0))
        self.assertFalse(ok, what)
        self.assertIn("01_a a f32 flushed: 12 us at n=1024, 4 us at n=4096", what)


# ---- the committed reference results --------------------------------------------------------------------

def references(name):
    """The committed plots/reference/<gpu>/NAME files, relative to the repository."""
    return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "plots", "reference", "*", name)))


def reference_name(path):
    """plots/reference/<gpu>/NAME.csv as <gpu>_NAME."""
    return f"{os.path.basename(os.path.dirname(path))}_{os.path.splitext(os.path.basename(path))[0]}"


def markdown_table(text):
    """The cells of the first Markdown table in TEXT: its header's, and each data row's."""
    lines = [line for line in text.split("\n") if line.startswith("|")]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    return (rows[0], rows[2:]) if rows else ([], [])


def column(header, prefix):
    """The index of the first column whose header starts with PREFIX."""
    return next(i for i, cell in enumerate(header) if cell.startswith(prefix))


def inversions(header, rows, prefix):
    """The pairs of rows of a table with a time column where the faster has the smaller value in the column
    PREFIX (speed-up, x CUB); rows with "-" there are left out."""
    t, c = header.index("time (µs)"), column(header, prefix)
    timed = [(float(r[t].rstrip("~")), float(r[c].rstrip("x")), r[0]) for r in rows
             if re.fullmatch(r"[0-9.]+~?", r[t]) and r[c] != "-"]
    return [(a[2], b[2]) for a in timed for b in timed if a[0] < b[0] and a[1] < b[1]]


def baseline(rows, folder):
    """The speed-up's baseline of a results CSV: its first stage's baseline kernel (its description's), fp32."""
    stage = next(r["stage"] for r in rows if r["pass"] != "")
    return stage, json.loads(support.read(os.path.join(folder, f"describe-{stage}.json")))["baseline"]


@support.per(lambda: references("results.csv"), name_of=reference_name)
class CommittedTables(support.Case):
    """The tables of the committed results, a subtest per table (all, best, each stage's)."""

    def test_each_faster_row_has_larger_speedup(self, csv):
        """Between two rows of a table, the faster has the larger speed-up (all and best: x CUB too)."""
        # A stage's table may show no speed-up where its rows have none in the CSV (a scan, a histogram) or
        # the baseline was not measured at the table's N; a row stage's table is GB/s by row length.
        path = os.path.join(ROOT, csv)
        tables = report("tables")
        rows = [r for r in support.read_csv(path) if r["l2"] != "warm"]
        stages = list(dict.fromkeys(r["stage"] for r in rows if r["pass"] != ""))
        self.assertTrue(stages, f"{csv} has no stage's rows")
        for mode, stage in [("all", ""), ("best", "")] + [("stage", s) for s in stages]:
            with self.subTest(table=stage or mode):
                text = tables.table(path, mode, stage)
                header, cells = markdown_table(text)
                self.assertTrue(cells, f"no table rows in:\n{text}")
                if "time (µs)" not in header:
                    self.assertRegex(" ".join(header), r"^kernel( \d+)+$", "neither a time column nor row lengths")
                    self.assertTrue(all(r["cols"] for r in rows if r["stage"] == stage),
                                    f"a table by row length, and rows of {stage} without cols in {csv}")
                    continue
                for prefix in ("speed-up",) if mode == "stage" else ("speed-up", "x CUB"):
                    wrong = inversions(header, cells, prefix)
                    if wrong:
                        self.fail(f"{len(wrong)} pairs of rows whose faster has the smaller {prefix}, e.g. {wrong[:2]}")
                speedups = [r for r in cells if r[column(header, "speed-up")] != "-"]
                if mode != "stage":
                    self.assertGreater(len(speedups), 1, f"the {mode} table has no two speed-ups")
                elif not speedups:
                    n = float(re.search(r"N = (\d+)", text)[1])
                    mine = [r for r in rows if r["stage"] == stage and float(r["n"] or 0) == n]
                    base_stage, base_kernel = baseline(rows, os.path.dirname(path))
                    measured = [r for r in rows if (r["stage"], r["kernel"], r["dtype"]) ==
                                (base_stage, base_kernel, "f32") and float(r["n"]) == n]
                    self.assertTrue(mine, f"no rows of {stage} at its table's N = {n:.0f} in {csv}")
                    self.assertTrue(all(r["speedup"] == "" for r in mine) or not measured,
                                    f"{stage}'s table shows no speed-up, though {csv} has speed-ups of its rows "
                                    f"and the baseline {base_stage} {base_kernel} at N = {n:.0f}")


@support.per(lambda: references("results.csv") + references("multigpu.csv"), name_of=reference_name)
class CommittedCharts(support.Case):
    """The charts of the committed results."""

    def test_each_names_its_charts(self, csv):
        """The CSV has the rows of some chart of plots/*.gp (its stages' descriptions name their charts)."""
        r = self.expect(0, "", [sys.executable, REPORT, "charts", csv])
        self.assertTrue(r.out.split(), f"{csv} has the rows of no chart")

    def test_each_draws_the_fp64_kernels_of_the_stages_that_own_its_charts(self, csv):
        """Every kernel with fp64 rows (L2 flushed, its first fill) of a stage that owns a chart of GB/s (shape
        lines or bars) is on that chart, and so is the library on fp64: a block of its GB/s and bytes at every
        N on lines, a bar with its GB/s at the chart's N on bars."""
        path, folder = os.path.join(ROOT, csv), os.path.dirname(os.path.join(ROOT, csv))
        fills, f64 = {}, {}  # f64: (stage, kernel): {N: (GB/s, bytes read)} as the CSV writes them
        for r in support.read_csv(path):
            if r["pass"] != "" and r["l2"] != "warm" and not r["cols"]:
                first = fills.setdefault((r["stage"], r["kernel"], r["dtype"]), r["fill"])
                if r["dtype"] == "f64" and r["fill"] == first:
                    f64.setdefault((r["stage"], r["kernel"]), {})[r["n"]] = (r["gbps"], r["bytes_read"])
        shapes = {os.path.basename(gp)[:-3]: re.search(r"^# shape: *(\S+)", support.read(gp), re.M)[1]
                  for gp in glob.glob(os.path.join(ROOT, "plots", "*.gp"))}
        _, files = report("charts").chart_data(path)
        checked = 0
        for (stage, kernel), at in f64.items():
            d = json.loads(support.read(os.path.join(folder, f"describe-{stage}.json")))
            owned = [c["name"] for c in d["charts"] if c["owned"]]
            library = any(k["name"] == kernel and k["role"] == "library" for k in d["kernels"])
            title = f'"{kernel} f64"' if library else f'"{stage.split("_")[0]} {kernel}"'
            for chart in (c for c in owned if shapes.get(c) in ("lines", "bars")):
                checked += 1
                data = files.get(f"{chart}.data", "")
                with self.subTest(chart=chart, kernel=f"{stage} {kernel}"):
                    if shapes[chart] == "lines":
                        block = next((b.split("\n")[1:] for b in data.strip("\n").split("\n\n\n")
                                      if b.split("\n")[0] == title), None)
                        self.assertIsNotNone(block, f"{chart}.data has no block {title}")
                        self.assertEqual([line.split("\t")[0] for line in block], sorted(at, key=int))
                        if not library:  # the library's is the median of the stages drawn on fp64
                            self.assertEqual(block, ["%s\t%s\t%s" % (n, *at[n]) for n in sorted(at, key=int)])
                    else:
                        n = re.search(r"maxn=(\d+);", files[f"{chart}.vars"])[1]
                        bars = [b.split("\t") for b in data.split("\n") if b.split("\t")[1:2] == [title]]
                        self.assertEqual(len(bars), 1, f"{chart}.data has no bar {title}, or several")
                        if not library:
                            self.assertEqual(bars[0][2], at[n][0], f"{title}'s GB/s at N = {n}")
        if not checked:
            self.skipTest(f"{csv} has no fp64 rows of a stage that owns a chart of GB/s")

    @support.needs("gnuplot")
    def test_each_charts_render(self, csv):
        names = self.expect(0, "", [sys.executable, REPORT, "charts", csv]).out.split()
        out = support.scratch(self)
        self.expect(0, "", [sys.executable, REPORT, "plot", csv, out])
        for name in names:
            with self.subTest(chart=name):
                self.assertTrue(support.is_png(os.path.join(out, f"{name}.png")), f"{name}.png not drawn")


@support.per(lambda: references("accuracy.csv"), name_of=reference_name)
class CommittedAccuracy(support.Case):
    """The accuracy lab's chart (make accuracy) from its committed results."""

    @support.needs("gnuplot")
    def test_each_chart_renders(self, csv):
        png = os.path.join(support.scratch(self), "accuracy.png")
        self.expect(0, "", [sys.executable, REPORT, "plot-accuracy", csv, png])
        self.assertTrue(support.is_png(png), f"{png} not drawn")


class MakePlot(support.Case):
    @support.needs("gnuplot")
    def test_make_plot_draws_from_the_committed_results(self):
        self.expect_make(0, "drew the charts", "plot")


def stage_targets():
    """{stage: its target rows} of every stage whose claims.csv has targets."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "stages", "*", "claims.csv"))):
        with open(path, encoding="utf-8") as f:
            rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#")) if r["kind"] == "target"]
        if rows:
            found[os.path.basename(os.path.dirname(path))] = rows
    return found


@support.per(lambda: sorted(stage_targets()))
class StageTargets(support.Case):
    """A stage's targets (the target rows of stages/NN_*/claims.csv) on the committed results."""

    def test_each_target_has_a_verdict_on_every_gpu(self, stage):
        want = stage_targets()[stage]
        refs = references("results.csv")
        r = self.expect(0, "", [sys.executable, REPORT, "targets", "--stage", stage, *refs])
        lines = r.out.rstrip("\n").split("\n")
        self.assertEqual(len(lines[0].strip("|").split("|")) - 3, len(refs), f"a column per GPU:\n{r.out}")
        self.assertEqual(len(lines) - 2, len(want), f"a row per target:\n{r.out}")
        primary = refs.index(os.path.join("plots", "reference", support.read("plots/reference/primary").strip(),
                                          "results.csv"))
        for line in lines[2:]:
            cells = line.strip().strip("|").split("|")[3:]
            with self.subTest(target=line.split("|")[1].strip()):  # a verdict, or (not the primary's) not held
                self.assertTrue(all(re.search(r" \([0-9.]+ at 2\^\d+\)", c) or (
                    i != primary and re.fullmatch(r" not held: stages? [0-9, and]+ changed since this run ", c))
                    for i, c in enumerate(cells)), line)

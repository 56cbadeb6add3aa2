"""Unit tests of the reporting program (scripts/report) and of the reference checks (tests/verify_reference.py),
on made-up CSVs and on the committed results.
Prints a line per test, "ok   NAME" or "FAIL NAME: why" (tests/run.sh counts them); exits 1 if one failed.
usage: python3 tests/test_report.py   (from the repository root)"""
import contextlib
import glob
import io
import os
import re
import sys
import tempfile

sys.path.insert(0, "scripts/report")
import charts  # noqa: E402
import claims  # noqa: E402
import common  # noqa: E402
import profile  # noqa: E402  (the report's, first on the path: not the standard library's)
import tables  # noqa: E402

sys.path.insert(0, "tests")
import verify_reference  # noqa: E402

HEADER = "gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2,bits,bytes_read,speedup,x_cub,fill,rel_bound"
DEVICE = ["X,00_device,dram_peak,,,,1000,100,,,,,,,,,,", "X,00_device,d2d_copy,,,,900,90,,,,,,,,,,",
          "X,00_device,read_sol,,,,950,95,,,,,,,,,,", "X,00_device,launch_floor,,,2,,,,,,,,,,,,"]
results = []


def test(name):
    def wrap(fn):
        try:
            fn()
            results.append(f"ok   {name}")
        except AssertionError as e:
            results.append(f"FAIL {name}: {e}")
        except SystemExit as e:
            results.append(f"FAIL {name}: exit {e.code}")
        return fn
    return wrap


def made_up(folder, rows, charts_of):
    """A results CSV of ROWS (stage,kernel,dtype,n,median_us,fill) in FOLDER, with each stage's
    description (describe-<stage>.txt: its charts, and stage 01's baseline) beside it."""
    lines = [HEADER] + DEVICE
    for stage, kernel, dtype, n, us, fill in rows:
        gbps = 4 * n / us / 1e3
        lines.append(f"X,{stage},{kernel},{dtype},{n},{us},{gbps:.1f},{gbps / 10:.1f},1e-08,1,,flushed,same,{4 * n},1,1,{fill},1e-06")
    path = os.path.join(folder, "results.csv")
    open(path, "w").write("\n".join(lines) + "\n")
    for stage, tokens in charts_of.items():
        open(os.path.join(folder, f"describe-{stage}.txt"), "w").write(
            f"stage: {stage}\nbaseline: base\ncharts: {tokens}\n")
    return path


def table_rows(text):
    """(µs, speed-up) of each data row of a Markdown table, by its header's columns ("-": none)."""
    out, time_col, speed_col = [], None, None
    for line in text.split("\n"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if time_col is None:
            if "time (µs)" in cells:
                time_col = cells.index("time (µs)")
                speed_col = next(i for i, c in enumerate(cells) if c.startswith("speed-up"))
            continue
        if len(cells) > speed_col and re.match(r"^[0-9.]+$", cells[time_col]):
            out.append((float(cells[time_col]), cells[speed_col]))
    return out


def consistent(text):
    """Whether, between any two rows of a table, the faster has the larger speed-up."""
    rows = [(us, float(s[:-1])) for us, s in table_rows(text) if s != "-"]
    return all(not (a[0] < b[0] and a[1] < b[1]) for a in rows for b in rows)


with tempfile.TemporaryDirectory() as tmp:
    @test("a missing column is an error that names it (exit 2)")
    def _():
        path = os.path.join(tmp, "bad.csv")
        open(path, "w").write("gpu,stage\nX,01\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                common.read_csv(path, "gpu stage kernel")
                raise AssertionError("read without an error")
            except SystemExit as e:
                assert e.code == 2, f"exit {e.code}"
        assert "no column kernel" in err.getvalue(), err.getvalue()

    @test("two fills of one kernel: the tables and the charts show its first fill, not the last row")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("01_a", "fast", "f32", 1024, 5.0, "random"),
                                ("01_a", "base", "f32", 1024, 99.0, "ones"), ("01_a", "fast", "f32", 1024, 98.0, "ones")],
                       {"01_a": "bandwidth+ scaling"})
        text = tables.table(path, "all")
        assert "| 01_a `fast` | 5.0 |" in text and "98.0" not in text, text
        drawn = charts.Results(path)
        assert drawn.at("01_a", "fast", "f32", 1024)["median_us"] == "5.0" and \
            drawn.at("01_a", "base", "f32", 1024)["median_us"] == "10.0", drawn.rows

    @test("a time whose spread stays above its program's noisy spread is marked ~, with the note")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("01_a", "fast", "f32", 1024, 5.0, "random")],
                       {"01_a": "bandwidth+ scaling"})
        lines = open(path).read().split("\n")
        lines = [l + ("" if not l else ",spread" if i == 0 else ",0.500" if ",fast," in l else ",0.020" if ",base," in l
                      else ",") for i, l in enumerate(lines)]
        open(path, "w").write("\n".join(lines))
        with open(os.path.join(folder, "describe-01_a.txt"), "a") as f:
            f.write("noisy spread: 0.10\n")
        text = tables.table(path, "all")
        assert "| 01_a `fast` | 5.0~ |" in text and "| 01_a `base` | 10.0 |" in text and "\n~: " in text, text

    @test("a row that passed a bound of the whole sum shows unchecked with its bound, never ok; a failed one FAIL")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "shifted"), ("01_a", "long", "f32", 1024, 50.0, "shifted"),
                                ("01_a", "bad", "f32", 1024, 60.0, "shifted")], {"01_a": "bandwidth+"})
        rows = [line.split(",") for line in open(path).read().split("\n") if line]
        for r in rows:  # columns 9 and 17: pass and rel_bound
            if r[2] == "long":
                r[9], r[17] = "unchecked", "2.5"
            elif r[2] == "bad":
                r[9] = "0"
        open(path, "w").write("\n".join(",".join(r) for r in rows) + "\n")
        table = tables.table(path, "stage", "01_a")
        assert "unchecked (≤ 2.5e+00)" in table and "ok (≤ 1.0e-06)" in table and "FAIL (≤ 1.0e-06)" in table, table
        assert common.passed("unchecked") and not common.passed("0") and common.verdict("unchecked") == "unchecked", table

    @test("the accuracy tables mark each result: nothing where it passed, unchecked, xfail or FAIL")
    def _():
        path = os.path.join(tempfile.mkdtemp(dir=tmp), "accuracy.csv")
        lines = ["gpu,stage,kernel,n,rel_err,pass,fill,rel_bound,cond"]
        for kernel, verdict in (("tight", "1"), ("loose", "unchecked"), ("over", "xfail"), ("wrong", "0")):
            lines.append(f"X,01_a,{kernel},65536,1e-07,{verdict},random,{'' if kernel == 'tight' else '2e-3'},")
        open(path, "w").write("\n".join(lines) + "\n")
        text = tables.accuracy_tables(path)
        for kernel, cell in (("tight", "1.0e-07 (-) |"), ("loose", "(2.0e-03) unchecked |"), ("over", "(2.0e-03) xfail |"),
                             ("wrong", "(2.0e-03) FAIL |")):
            assert re.search(rf"`01 {kernel}` \| random \|[^\n]*{re.escape(cell)}", text), (kernel, text)

    @test("speed-ups are computed from one baseline row: the faster row has the larger one")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("02_b", "base2", "f32", 1024, 20.0, "random"),
                                ("02_b", "fast", "f32", 1024, 8.0, "random")],
                       {"01_a": "bandwidth+", "02_b": "bandwidth+"})
        text = tables.table(path, "all")
        assert table_rows(text), text
        assert re.search(r"\| 02_b `fast` \| 8\.0 \|[^|]*\|[^|]*\| 1\.25x \|", text), text
        assert consistent(text), text

    @test("a kernel moved to another chart: its description, not the CSV, says which")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random")], {"01_a": "bandwidth+"})
        assert charts.chart_names(path) == ["bandwidth"], charts.chart_names(path)
        open(os.path.join(folder, "describe-01_a.txt"), "w").write("stage: 01_a\nbaseline: base\ncharts: scaling\n")
        assert charts.chart_names(path) == ["scaling"], charts.chart_names(path)

    @test("a claim that no longer holds fails, naming the claim and the numbers")
    def _():
        folder = os.path.join(tmp, "gpu-a")
        os.makedirs(folder)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("01_a", "fast", "f32", 1024, 12.0, "random")],
                       {"01_a": "bandwidth+"})
        claim = {"claim": "fast-is-faster", "a": "01_a:fast", "b": "01_a:base", "is": "faster", "n": "all", "by": "1", "gpus": "all"}
        lines, held = claims.check(claim, claims.times_of(path), "gpu-a")
        assert not held and lines[0].startswith("FAIL fast-is-faster on the gpu-a, N = 1024: 01_a:fast 12.0 µs"), lines
        claim["a"], claim["b"] = claim["b"], claim["a"]
        lines, held = claims.check(claim, claims.times_of(path), "gpu-a")
        assert held, lines

    @test("a target comparing two kernels (A/B): met or not met, with the worst ratio and where")
    def _():
        folder = os.path.join(tmp, "gpu-t")
        os.makedirs(folder)
        path = made_up(folder, [("01_a", "base", "f32", 1024, 10.0, "random"), ("02_b", "fast", "f32", 1024, 8.0, "random"),
                                ("01_a", "base", "f32", 4096, 20.0, "random"), ("02_b", "fast", "f32", 4096, 25.0, "random"),
                                ("02_b", "fast", "f32", 4096, 5.0, "wide")], {"01_a": "bandwidth+", "02_b": "bandwidth+"})
        targets = os.path.join(tmp, "targets.csv")
        open(targets, "w").write("what,n_min,n_max,at_least,label\n02_b:fast/01_a:base,2^10,2^10,1.2,first | 一\n"
                                 "02_b:fast/01_a:base,2^10,2^12,1.0,both | 二\n")
        lines = tables.targets([path], "02_b", targets).split("\n")
        assert "| met (1.250 at 2^10) |" in lines[2], lines[2]
        assert "| **not met** (0.800 at 2^12) |" in lines[3], lines[3]  # the first fill's row, not the wide one
        open(targets, "w").write("what,n_min,n_max,at_least,label\n02_b:fast@wide/01_a:base@random,2^12,2^12,4.0,wide | 宽\n"
                                 "02_b:fast@random/01_a:base@wide,2^12,2^12,1.0,none | 无\n")
        lines = tables.targets([path], "02_b", targets).split("\n")
        assert "| met (4.000 at 2^12) |" in lines[2], lines[2]  # the wide row of one kernel against the random of the other
        assert lines[3].endswith("| - |"), lines[3]  # a fill the run does not have: no ratio

    @test("a claim at row lengths (cols) and on another input type reads those rows alone")
    def _():
        path = os.path.join(tmp, "cols.csv")
        rows = [("rows", "a", "f32", 64, 2.0), ("rows", "b", "f32", 64, 1.0), ("rows", "a", "f32", 4096, 1.0),
                ("rows", "b", "f32", 4096, 3.0), ("", "a", "i32", "", 1.0), ("", "a", "f32", "", 5.0)]
        open(path, "w").write("stage,kernel,dtype,n,median_us,l2,fill,cols\n" + "".join(
            f"09_{s or 'x'},{k},{t},1024,{us},flushed,random,{c}\n" for s, k, t, c, us in rows))
        claim = {"claim": "a-long", "a": "09_rows:a", "b": "09_rows:b", "is": "faster", "n": "1024", "cols": "4096",
                 "by": "2", "gpus": "all"}
        assert claims.check(claim, claims.times_of(path), "g")[1]
        claim["cols"] = "64 4096"
        lines, held = claims.check(claim, claims.times_of(path), "g")
        assert not held and "N = 1024 (64 columns)" in lines[0], lines
        claim.update(a="09_x:a:i32", b="09_x:a", n="1024", cols="", by="5")
        assert claims.check(claim, claims.times_of(path), "g")[1]

    @test("a claim no README cites in both languages fails")
    def _():
        pages = {"stages/01_a/README.md": "as `a-long` says", "stages/01_a/README.zh-CN.md": "见 `a-long`"}
        assert claims.uncited("a-long", pages) is None
        pages["stages/01_a/README.zh-CN.md"] = "见 a-long"
        assert claims.uncited("a-long", pages).startswith("FAIL a-long: no stage README cites it")

    @test("a read-only stage's table says GB/s of input bytes, though GB/s to 0.01 rounds up by over 1% at 2^10")
    def _():
        folder = tempfile.mkdtemp(dir=tmp)
        path = made_up(folder, [("01_a", "base", "f32", 1 << 20, 2000.0, "random")], {"01_a": "bandwidth"})
        open(path, "a").write("X,01_a,base,f32,1024,16.6,0.25,0.01,1e-08,1,,flushed,same,4096,1,1,random,1e-06\n")
        text = tables.table(path, "stage", "01_a")
        assert "GB/s of input bytes" in text, text

    def falls(times):
        """no_fall's verdict on a made-up stage whose kernels take TIMES {kernel: (us at 2^10, us at 2^12)}
        (the launch floor: 2 us)."""
        folder = tempfile.mkdtemp(dir=tmp)
        rows = [("01_a", k, "f32", n, us, "random") for k, pair in times.items() for n, us in zip((1024, 4096), pair)]
        return verify_reference.no_fall(made_up(folder, rows, {"01_a": "bandwidth"}))[0]

    @test("a batch slow as a whole fails the fall check, though no kernel falls by a launch floor")
    def _():
        ok, what = falls({"a": (5.0, 3.5), "b": (5.5, 3.9), "c": (9.0, 9.1)})
        assert not ok and "median time falls to 0.71" in what, what

    @test("one kernel whose time falls by more than 25% and a launch floor fails the fall check")
    def _():
        ok, what = falls({"a": (12.6, 8.9), "b": (5.0, 5.1), "c": (9.0, 9.1)})
        assert not ok and "01_a a f32 flushed: 12.6 us at n=1024, 8.9 us at n=4096" in what, what

    @test("one kernel's fall of more than 25% but less than a launch floor passes: its own cost, not the batch's")
    def _():
        ok, what = falls({"a": (5.1, 3.8), "b": (5.0, 5.1), "c": (9.0, 9.1)})
        assert ok, what

    @test("make stage-NN sass's summary counts a load by its width, with modifiers on either side of it")
    def _():
        ptxas, sass = os.path.join(tmp, "ptxas"), os.path.join(tmp, "sass")
        open(ptxas, "w").write("ptxas info    : Compiling entry function '_Z1kPKf' for 'sm_90'\n"
                               "ptxas info    : Used 32 registers, 68 bytes smem\n")
        open(sass, "w").write("        Function : _Z1kPKf\n"
                              "        /*0080*/                   LDG.E.EF.128 R4, desc[UR4][R2.64] ;\n"
                              "        /*0090*/                   LDG.E.128.CONSTANT R8, desc[UR4][R2.64+0x1000] ;\n"
                              "        /*00a0*/                   LDG.E.128 R12, desc[UR4][R2.64+0x2000] ;\n"
                              "        /*00b0*/                   LDG.E.64 R16, desc[UR4][R6.64] ;\n"
                              "        /*00c0*/                   LDG.E.EF R18, desc[UR4][R6.64] ;\n"
                              "        /*00d0*/                   LDG.E.U16.CONSTANT R19, desc[UR4][R6.64] ;\n"
                              "        /*00e0*/                   LDGSTS.E.128 [R20], desc[UR4][R6.64] ;\n"
                              "        /*00f0*/                   RED.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R6.64], R0 ;\n")
        line = profile.sass(ptxas, sass).split("\n")[1]
        assert "LDG<=32 2  LDG.64 1  LDG.128 3 |" in line and "RED/ATOM 1 | 32 registers, 68 bytes shared" in line, line

for csv in sorted(glob.glob("plots/reference/*/results.csv")):
    stages = [s for s in dict.fromkeys(r["stage"] for r in common.read_csv(csv, "stage")) if s != "00_device"]

    @test(f"every table of {csv}: between two rows, the faster has the larger speed-up")
    def _():
        bad = [m for m in ("all", "best") if not consistent(tables.table(csv, m))]
        bad += [s for s in stages if not consistent(tables.table(csv, "stage", s))]
        assert not bad, "inconsistent: " + " ".join(bad)

print("\n".join(results))
sys.exit(1 if any(r.startswith("FAIL") for r in results) else 0)

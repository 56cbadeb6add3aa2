"""Deliberate defects that the test suite must catch (make mutants): each mutant changes one piece of text
in one file of a copy of the tree, runs the tests that should see it (python3 tests/run.py --only PATTERN),
and is killed when they fail. Before the mutants, each pattern's tests run once on the unchanged copy and
must pass (a mutant killed by tests that fail anyway proves nothing). Prints a table; exits 1 if a mutant
survives, a mutation no longer applies (its text is not in the file exactly once), or a baseline fails.

usage: python3 tests/mutants.py [--gpu] [--only NAME_PATTERN] [--list]
  --gpu    the mutants that only a GPU can catch as well (a kernel off by one, a missing barrier, a wrong
           tolerance); without a GPU they are not run
  --only   the mutants whose name matches the regular expression"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, file, text, replacement, tests that must fail: a --only pattern of tests/run.py, needs a GPU)
MUTANTS = [
    # The exact host reference and its rounding (common/reference.c) and the error bounds (common/bounds.c), caught by its unit tests.
    ("exact sum: a value's higher digits added at half their weight", "common/reference.c",
     "k < 3; k++, mag >>= 32)", "k < 3; k++, mag >>= 33)", "test_host_unit", False),
    ("exact sum: the sticky bit of the digits below the top three forgotten", "common/reference.c",
     "    for (int k = 0; k < low; k++) sticky |= a.digit[k] != 0;\n", "", "test_host_unit", False),
    ("exact sum: the sticky bit of the top digits' bits below the half forgotten", "common/reference.c",
     "            sticky |= (w & (((unsigned __int128)1 << (drop - 1)) - 1)) != 0;\n", "",
     "test_host_unit", False),
    ("unit roundoff one bit too large", "common/chain.c",
     "    return ldexp(1.0, -significand_bits);", "    return ldexp(1.0, 1 - significand_bits);", "test_host_unit", False),
    ("error bound 1000 times looser", "common/bounds.c",
     "    return fmin(worst, prob) + reference_error(ref);", "    return 1000.0 * fmin(worst, prob) + reference_error(ref);",
     "test_host_unit", False),
    ("log-sum-exp bound 1000 times looser", "common/bounds.c",
     "    return e_sum + e_log + e_add + e_ref;", "    return 1000.0 * (e_sum + e_log + e_add + e_ref);", "test_host_unit", False),
    ("sum-of-squares bound counts one rounding for the whole row", "common/bounds.c",
     "double du = (s.serial + s.tree > 1.0 ? s.serial + s.tree : 1.0) * unit_roundoff(24);",
     "double du = unit_roundoff(24);", "test_host_unit", False),
    ("sum-of-squares bound blind to fp32's underflow", "common/bounds.c",
     " + 2.0 * (double)n * ldexp(1.0, -150) + reference_error(ref);", " + reference_error(ref);", "test_host_unit", False),
    ("moments bound 1000 times looser", "common/bounds.c",
     "    t.var = (moved + gk", "    t.var = 1000.0 * (moved + gk", "test_host_unit", False),
    ("moments bound blind to fp32's underflow", "common/bounds.c",
     "under = 0x1p-150;", "under = 0.0;", "test_host_unit", False),
    ("binades fill one binade past 2^47", "common/fill.c",
     "#define BINADES_TOP_FIELD 173", "#define BINADES_TOP_FIELD 174", "test_host_unit", False),
    ("a result passes on the bound's far side", "common/bounds.c",
     "    return fabs(result - ref->sum) <= tol;", "    return fabs(result - ref->sum) <= 2.0 * tol;", "test_host_unit", False),
    ("integers summing below 2^p no longer exact", "common/bounds.c",
     "    if (ref->all_integers && ref->abs_sum <= ldexp(1.0, narrow < 24 ? narrow : 24)) return 0.0;\n", "",
     "test_host_unit", False),
    # The .npy and raw reader (common/array_file.c), caught through the programs' --input refusals and its unit tests.
    ("npy: a version 2 header read at version 1's offset", "common/array_file.c",
     "fseek(f, (long)(major == 1 ? 10 : 12), SEEK_SET)", "fseek(f, 10L, SEEK_SET)", "test_host_unit|test_input", False),
    ("npy: a version 2 header's length read as 2 bytes", "common/array_file.c",
     "        if (major != 1) len |= (uint64_t)magic[10] << 16 | (uint64_t)magic[11] << 24;\n", "", "test_host_unit", False),
    ("npy: Fortran order accepted", "common/array_file.c",
     'if (strncmp(f, "False", 5)) return', 'if (0) return', "test_host_unit|test_input", False),
    ("npy: big-endian float32 taken for little-endian", "common/array_file.c",
     """{"'<f4'", "f32"}, {"'<f2'", "f16"}""", """{"'<f4'", "f32"}, {"'>f4'", "f32"}, {"'<f2'", "f16"}""",
     "test_host_unit|test_input", False),
    ("npy: int32 read as float32", "common/array_file.c",
     """{"'<i4'", "i32"}""", """{"'<i4'", "f32"}""", "test_host_unit|test_input", False),
    ("npy: bytes after the array accepted", "common/array_file.c",
     "        else if (bytes != a.count * size)", "        else if (bytes < a.count * size)", "test_host_unit|test_input", False),
    ("npy: a truncated file accepted", "common/array_file.c",
     "        else if (bytes != a.count * size)", "        else if (bytes > a.count * size)", "test_host_unit|test_input", False),
    ("raw: a partial last element accepted", "common/array_file.c",
     "        if (!data_at && bytes % size)", "        if (0)", "test_host_unit|test_input", False),
    # The option parser (common/parse.c, common/program.cu).
    ("sizes: 0 accepted", "common/parse.c",
     "    if (*p || v == 0 || v > MAX_ELEMENTS) return -1;", "    if (*p || v > MAX_ELEMENTS) return -1;",
     "test_host_unit|test_programs", False),
    ("sizes: 2^k shifts past 64 bits", "common/parse.c",
     "if (v != 2 || parse_u64(&p, &k) || k > 40) return -1;", "if (v != 2 || parse_u64(&p, &k)) return -1;",
     "test_host_unit", False),
    ("sizes: 2^k + c wraps past 2^64", "common/parse.c",
     "            if (c > MAX_ELEMENTS) return -1;\n", "", "test_host_unit", False),
    ("sizes: 2^32 and more wrapped to 32 bits", "common/parse.c",
     "    *out = rows * cols;\n", "    *out = (uint32_t)(rows * cols);\n", "test_host_unit", False),
    ("--reps 0 accepted", "common/program.cu",
     "if (parse_int(v, 1, 100000, &num))", "if (parse_int(v, 0, 100000, &num))", "test_programs", False),
    ("--input beside --n accepted", "common/program.cu",
     "    if (o->sizes_given) usage_error", "    if (0) usage_error", "test_input", False),
    ("--input beside --fill accepted", "common/program.cu",
     "    if (strlen(o->fill) != fill_len || strncmp(o->fill, p->fills, fill_len))",
     "    if (0 && (strlen(o->fill) != fill_len || strncmp(o->fill, p->fills, fill_len)))", "test_input", False),
    ("--dtype without --input accepted", "common/program.cu",
     "    if (o->input_dtype && !o->input_path) usage_error", "    if (0) usage_error", "test_input", False),
    ("--input: a refused type's takers never named", "common/program.cu",
     "        if (strstr(types, padded)) {", "        if (0) {", "test_input", False),
    ("--l2 takes any word", "common/program.cu",
     'if (strcmp(v, "flushed") && strcmp(v, "warm")) usage_error', 'if (0) usage_error', "test_programs", False),
    # The reporting program: speed-ups, claims of both kinds and their citing, targets, README blocks.
    ("report: the speed-up inverted", "scripts/report/tables.py",
     "speedup = base[n] / us if n in base", "speedup = us / base[n] if n in base", "test_report|test_docs", False),
    ("claims: faster holds at half the factor", "scripts/report/claims.py",
     'over(vb, va) >= by if claim["is"] in', 'over(vb, va) >= by / 2 if claim["is"] in', "test_report|test_docs", False),
    ("claims: level holds at twice the spread", "scripts/report/claims.py",
     "over(max(va, vb), min(va, vb)) <= by)", "over(max(va, vb), min(va, vb)) <= 2 * by)", "test_report|test_docs", False),
    ("claims: cited in English alone enough", "scripts/report/claims.py",
     'cite in page and cite in pages.get(path.replace(".md", ".zh-CN.md"), "")', "cite in page", "test_report|test_docs",
     False),
    ("claims: a claim about the kernels read from the whole runs", "scripts/report/claims.py",
     'float(r.get("gpu_us") or r["median_us"]) if time == "kernels"', 'float(r["median_us"]) if time == "kernels"',
     "test_report", False),
    ("chain: a step's kernels timed with their finish", "scripts/report/cited.py",
     'float(r.get("gpu_us") or r["median_us"])', 'float(r["median_us"])', "test_report", False),
    ("targets: a ratio of two kernels inverted", "scripts/report/claims.py",
     "found += [us(rb) / us(ra) for rb in self.named(b, n, cols)]",
     "found += [us(ra) / us(rb) for rb in self.named(b, n, cols)]", "test_report|test_docs", False),
    ("README blocks: a stale block passes docs-check", "scripts/report/readmes.py",
     "    if old == new or not check:\n        return 0", "    if old is not None or not check:\n        return 0",
     "test_docs|test_report", False),
    # The checks of the committed references.
    ("references: a row 1% above the DRAM peak allowed", "tests/verify_reference.py",
     'num(r["gbps"]) > num(peak) * 1.001', 'num(r["gbps"]) > num(peak) * 1.01', "test_reference", False),
    ("references: one flushed reading enough", "tests/verify_reference.py",
     "FLUSHED_READINGS = 9", "FLUSHED_READINGS = 1", "test_reference", False),
    ("references: an fp32 row checked at ten times its unchecked_from", "tests/verify_reference.py",
     'num(r["rel_bound"]) >= (wide_limit(limits, r) or 1)]', 'num(r["rel_bound"]) >= 10 * (wide_limit(limits, r) or 1)]',
     "test_reference", False),
    ("references: a multi-GPU row at 101% of the peak allowed", "tests/verify_reference.py",
     'num(r["pct_peak"]) > 100.1]', 'num(r["pct_peak"]) > 101]', "test_reference", False),
    # The Makefile's refusals.
    ("make: a verb without a stage goes on", "Makefile",
     '	  echo "error: name a stage: make stage-NN $1 (NN: $(foreach s,$(STAGES),$(call stage_num,$s)))" >&2; \\\n	  exit 2; fi',
     '	  echo "error: name a stage: make stage-NN $1 (NN: $(foreach s,$(STAGES),$(call stage_num,$s)))" >&2; \\\n	  exit 0; fi',
     "test_make", False),
    ("make: check runs without a GPU", "Makefile",
     "    $(filter run check,$(MAKECMDGOALS)) \\\n", "    $(filter run,$(MAKECMDGOALS)) \\\n", "test_make", False),
    ("make: an nvcc of CUDA 12.4 accepted", "Makefile", "NVCC_MIN := 12.5", "NVCC_MIN := 12.4", "test_make", False),
    ("make: a missing demo is not an error", "Makefile",
     "has no demo (stages/$$s/demo.cu; stages with one:$(foreach s,$(DEMOS), $(call stage_num,$s)))\" >&2; exit 2; fi",
     "has no demo (stages/$$s/demo.cu; stages with one:$(foreach s,$(DEMOS), $(call stage_num,$s)))\" >&2; exit 0; fi",
     "test_make", False),
    # The handout and the grader.
    ("handout: the solutions kept", "scripts/stage_tool.sh",
     "grep -vE '^(solutions|tests/grade)/' \"$tmp/files\"", "grep -vE '^(tests/grade)/' \"$tmp/files\"", "test_classroom", False),
    ("no_answers: a pasted solution not found", "tests/no_answers.py",
     "for body, name in wanted.items() if body in text]", "for body, name in wanted.items() if body in text and 0]",
     "test_classroom", False),
    ("no_answers: only stages/ searched", "tests/no_answers.py",
     "os.walk(copy)", 'os.walk(os.path.join(copy, "stages"))', "test_classroom", False),
    # The teaching tools.
    ("diff: against the first stage of its file name", "scripts/lib.sh",
     '| tail -n 1; } # PROGRAM: the last of those of its name', '| head -n 1; } # PROGRAM: the last of those of its name',
     "test_teaching", False),
    # The test runner (tests/run.py): nothing may go missing from the count.
    ("runner: the HOST_ONLY process dying is no FAIL", "tests/run.py",
     """            result.bad(f"the HOST_ONLY modules' process ended without its results (exit {rc})")\n""", "",
     "test_runner", False),
    ("runner: a HOST_ONLY test skipped for want of a GPU stays a skip", "tests/run.py",
     'for name in lane["skipped_for_want_of_a_gpu"] if gpu_here else []:', "for name in []:", "test_runner", False),
    ("runner: a pattern that matches no test passes", "tests/run.py",
     """        print(f"no test matches '{args.only}'")\n        return 1""",
     """        print(f"no test matches '{args.only}'")\n        return 0""", "test_runner", False),
    # Stage 13's fp64 arithmetic (__host__ __device__), caught on the host by tests/test_stage_13.cu and the
    # oracle of fractions.
    ("13: fp64's rounding forgets its sticky bit", "stages/13_exact/exact_sum.cuh",
     "    w |= sticky;\n    const int low_bit", "    const int low_bit", "test_stage_13", False),
    ("13: fp64's windows take a field too low", "stages/13_exact/exact_sum.cuh",
     "((uint32_t)(a + 929) << 21) - 1u", "((uint32_t)(a + 928) << 21) - 1u", "test_stage_13", False),
    ("13: fp64's fp32 subnormal ties rounded to odd", "stages/13_exact/exact_sum.cuh",
     "q += half && (rest || (q & 1));", "q += half && (rest || !(q & 1));", "test_stage_13", False),
    # A declared bound, against the committed reference's without a GPU (--bounds-for).
    ("05: reduce_warp_shuffle's bound 1000 times looser", "stages/05_shuffle/reduce.cu",
     'reduce_warp_shuffle, "reduce_warp_shuffle", BLOCK_1024);\n    r->chain.tree = LOG2_WARP + LOG2_WARPS_1024;',
     'reduce_warp_shuffle, "reduce_warp_shuffle", BLOCK_1024);\n    r->chain.tree = 1000 * (LOG2_WARP + LOG2_WARPS_1024);',
     "test_bounds", False),
    # What only a GPU shows (--gpu): a kernel off by one, a missing barrier, a tolerance made loose.
    ("02: the barrier after the loads missing", "stages/02_shared/reduce.cu",
     "    if (i + BLOCK < n) v += x[i + BLOCK];\n    s_x[tid] = v;\n    __syncthreads();\n",
     "    if (i + BLOCK < n) v += x[i + BLOCK];\n    s_x[tid] = v;\n",
     "test_gpu.*02_shared|test_stage_02", True),
    ("06: the grid-stride loop one element short", "stages/06_gridstride/reduce.cu",
     "tid; i < n; i += stride) sum +=", "tid; i + 1 < n; i += stride) sum +=", "test_gpu.*06_gridstride|test_stage_06", True),
    ("09: Welford's merge weighs the wrong side", "stages/09_rows/reduce.cu",
     "a.mean + d * w;", "a.mean + d * (n > 0.0f ? a.n / n : 0.0f);", "test_gpu.*09_rows|test_stage_09", True),
    ("11: top-p's cut counts one token short", "stages/11_scan_histogram/scan_histogram.cu",
     "(i == 0 || scanned[i - 1] < threshold)) *kept = i + 1;", "(i == 0 || scanned[i - 1] < threshold)) *kept = i;",
     "test_stage_11", True),
    ("09: the per-group abs-max takes signed values", "stages/09_rows/reduce.cu",
     "m = MaxOp()(m, fabsf(p[i]));", "m = MaxOp()(m, p[i]);", "test_gpu.*09_rows|test_stage_09", True),
    ("09: the sum of squares skips a row's last element", "stages/09_rows/reduce.cu",
     "for (uint64_t i = threadIdx.x; i < cols; i += BLOCK) s = fmaf(p[i], p[i], s);",
     "for (uint64_t i = threadIdx.x; i + 1 < cols; i += BLOCK) s = fmaf(p[i], p[i], s);", "test_gpu.*09_rows|test_stage_09",
     True),
    ("08: the tail one element short", "stages/08_roofline/reduce.cu",
     "    if (t < n - tail) acc +=", "    if (t + 1 < n - tail) acc +=", "test_gpu.*08_roofline|test_stage_08", True),
    ("03: the error bound's tree 1000 times deeper", "stages/03_atomic/reduce.cu",
     "    r->chain.tree = LOG2_BLOCK;\n", "    r->chain.tree = 1000 * LOG2_BLOCK;\n", "test_gpu.*03_atomic|test_stage_03", True),
    ("06: the error bound's loop 1000 times longer", "stages/06_gridstride/reduce.cu",
     "    r->chain.serial = PER_THREAD;\n", "    r->chain.serial = 1000 * PER_THREAD;\n", "test_gpu.*06_gridstride|test_stage_06", True),
    ("13: windows_f64's value after the last vector dropped", "stages/13_exact/exact_sum.cuh",
     "    if (t < n - tail) take_value64(", "    if (t + 1 < n - tail) take_value64(", "test_stage_13", True),
    ("13: windows_f32's column loses its carries", "stages/13_exact/exact_sum.cuh",
     "        digit(fine, k + 1) += carry;\n", "", "test_stage_13", True),
    ("the finish (the copy of the partials, their sum) timed as the kernels' part", "common/timing.h",
     "                timing_launched(&tm);\n                t->finish(t->work);\n",
     "                t->finish(t->work);\n                timing_launched(&tm);\n",
     "test_gpu.*kernels_own_time", True),
    ("08: the error bound's tree 1000 times deeper", "stages/08_roofline/reduce.cu",
     "    r->chain.tree = BLOCK_SUM_LEVELS;\n", "    r->chain.tree = 1000 * BLOCK_SUM_LEVELS;\n", "test_gpu.*08_roofline|test_stage_08", True),
]


def tree_files():
    """The files of the working tree: in a git checkout, tracked or untracked but not ignored; elsewhere
    every file but the build's and the results'."""
    git = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    if git.returncode == 0:
        return [f for f in git.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]
    files = []
    for top, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(top, ROOT)
        dirs[:] = [d for d in dirs if os.path.normpath(os.path.join(rel, d)) not in (".git", "build", "plots/results")
                   and d != "__pycache__"]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return files


def copy_tree(dest, files):
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), os.path.join(dest, f), follow_symlinks=False)
    if os.path.isdir(os.path.join(ROOT, "build")):
        shutil.copytree(os.path.join(ROOT, "build"), os.path.join(dest, "build"), symlinks=True)
    if os.path.isdir(os.path.join(ROOT, ".git")):
        shutil.copytree(os.path.join(ROOT, ".git"), os.path.join(dest, ".git"), symlinks=True)


def run_tests(tree, pattern):
    # The copy's own Makefile lists its programs: the lists an outer make exported name this tree's.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "REDUCE_PROGRAMS", "BENCH_PROGRAMS")}
    start = time.time()
    p = subprocess.run([sys.executable, "tests/run.py", "--only", pattern], cwd=tree, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode("utf-8", "replace")
    last = next((line for line in reversed(out.split("\n")) if re.match(r"^\d+ passed, ", line)), "no summary line")
    return p.returncode, last, time.time() - start, out


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if re.search(args.only, m[0], re.I) and (args.gpu or not m[5])]
    if args.list:
        for name, path, _, _, pattern, gpu in chosen:
            print(f"{name:55} {path:32} {pattern}{'  (GPU)' if gpu else ''}")
        return 0
    files = tree_files()
    problems = 0
    for name, path, text, _, _, _ in chosen:
        count = open(os.path.join(ROOT, path), encoding="utf-8").read().count(text)
        if count != 1:
            print(f"FAIL mutant '{name}': its text is in {path} {count} times, not once")
            problems += 1
    if problems:
        return 1
    work = tempfile.mkdtemp(prefix="reduce-mutants-")
    try:
        base = os.path.join(work, "base")
        copy_tree(base, files)
        for pattern in sorted({m[4] for m in chosen}):
            rc, last, seconds, out = run_tests(base, pattern)
            print(f"baseline {pattern}: {last} ({seconds:.0f} s)", flush=True)
            if rc != 0:
                print("\n".join("     | " + line for line in out.rstrip().split("\n")[-15:]))
                problems += 1
        if problems:
            print("a baseline fails: the mutants would prove nothing")
            return 1
        rows = []
        for name, path, text, replacement, pattern, _ in chosen:
            tree = os.path.join(work, "mutant")
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(base, tree, symlinks=True)
            target = os.path.join(tree, path)
            body = open(target, encoding="utf-8").read()
            with open(target, "w", encoding="utf-8") as f:
                f.write(body.replace(text, replacement))
            rc, last, seconds, _ = run_tests(tree, pattern)
            verdict = "killed" if rc != 0 else "SURVIVED"
            rows.append((name, path, pattern, last, seconds, verdict))
            print(f"{verdict:8} {name} ({path}; {pattern}: {last}; {seconds:.0f} s)", flush=True)
        survived = sum(r[5] == "SURVIVED" for r in rows)
        print("\n| mutant | file | tests run | their result | s | verdict |\n|---|---|---|---|---:|---|")
        for name, path, pattern, last, seconds, verdict in rows:
            print(f"| {name} | `{path}` | `{pattern}` | {last} | {seconds:.0f} | {verdict} |")
        print(f"\n{len(rows) - survived} of {len(rows)} mutants killed, {survived} survived")
        return 1 if survived else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

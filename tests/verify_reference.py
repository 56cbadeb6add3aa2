"""The committed reference results checked, a line per check (tests/test_reference.py makes each check a test).
Of plots/reference/: the results of at least two GPUs (<gpu>/results.csv). Of each plots/reference/<gpu>/:
  results.csv, multigpu.csv  every row passed verification (stage, pass)
  results.csv                no flushed row above the DRAM peak, nor faster than the speed of light
                             (stage, kernel, dtype, n, median_us, gbps, l2, bytes_read)
  flush_check.csv            every reading as it must be, at least 9 flushed
                             (l2, input_bytes, dram_bytes_min, ratio_min, pass)
  multigpu.csv               no row above 100.1% of its GPUs' peak (kernel, n, pct_peak, l2)
  results.csv                every check can fail: no row passed a bound a result of 0 would pass, nor one
                             of its kernel's unchecked_from or more (describe-<stage>.json: below 1 for an
                             fp32, fp64, Kahan or int32 accumulator; such a row is unchecked); on the bench's
                             data such a row is unchecked only where its chain of additions is longer than
                             2^17 or runs through every input (an empty bound: exact) (stage, kernel, dtype,
                             pass, fill, rel_bound, chain); up to N = 2^14 a result one average element
                             short fails each checked row
  accuracy.csv               every result within its bound (stage, kernel, n, pass, fill, cond)
  demo-<stage>.txt           a demo's "bits:" lines (results that are the same on every GPU) are the same
                             in every reference that has that demo
  cccl-<stage>.txt etc.      a program's tables as it printed them, committed beside the reference
                             (cccl-*.txt): every row of a kernel whose bits are the same in every run has
                             the same result and verdict in every reference that has the file, and every
                             row of a kernel with an exact accumulator (describe-<stage>.json) passed with
                             error 0; the first size from which a kernel fails there (on every larger size
                             of the fills it fails on, passing on the others) and the largest size below it
                             where it passes (at every checked size below, on those fills) are the same on
                             every GPU and quoted by its stage's README, in both languages, with the fills
  sanitize-<stage>.txt       compute-sanitizer's output committed beside the reference: in every reference
                             if in one; each run on that folder's GPU, clean (a zero summary) with every kernel
                             verified, and each of the four tools run on every kernel of the stage's own
                             (describe-<stage>.json: not a library's)
  limits.csv                 a row for each limit kernel of a program and for CUB at each of its bench
                             sizes (its describe-<stage>.json: stage, limit kernels, bench sizes), and
                             every profiled run read its input from DRAM (stage, kernel, dtype, n, dram_bytes)
  results.csv                no time falls as N grows by more than 25%: a batch's median (a stage's kernels at
                             one N, fill and L2 state), or a kernel's by more than a launch floor as well
                             (stage, kernel, dtype, n, median_us, l2, fill, cols)
  README.md                  with a measured_at (the commit of its run), its line of the stages changed since
                             is what git says: stages/<stage>/*.cu, *.cuh, *.mk and common/* (every stage), blob by blob
Of each two of them: a GPU kernel's time ratio between the two at one N within a factor of 2 of its ratios at
the neighbouring N (results.csv; describe-<stage>.json for the kernels that run on the CPU).
usage: python3 tests/verify_reference.py [REFERENCE_DIR...]: "ok   " or "FAIL " and what was checked, a line
each; exit 1 if one fails, 2 (with the traceback) if a check could not run."""
import argparse
import contextlib
import glob
import io
import math
import os
import re
import statistics
import struct
import subprocess
import sys
import traceback

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts", "report"))
from common import describe_module as description, is_device_row, passed, read_csv  # noqa: E402


def num(v):
    """A CSV field as a number: 0 where it is empty or not a finite number."""
    try:
        return float(v) if math.isfinite(float(v)) else 0
    except ValueError:
        return 0

FLUSHED_READINGS = 9
FALL = 0.75       # within one kernel's series, a time may not fall below this fraction of the N before
RATIO_FACTOR = 2  # a kernel's time ratio between two GPUs at one N within this factor of its neighbours'
# A row passed with a bound of its kernel's unchecked_from (describe-<stage>.json) or more is unchecked; on the
# bench's data, a row of a kernel whose unchecked_from is below 1 (an fp32-or-wider accumulator's) only where its
# chain is longer than LONG_CHAIN. A path of d additions can absorb the inputs below 2u (d + 1) max|x|
# (bounds.c's stagnation term): on the shifted data a fraction t of them, t = 2u (d + 1) 3/2, adding t^2 of the
# sum to the bound: 5e-4 at d = 2^17, 2e-3 at 2^18, beside lambda sqrt(d) u 1.25 (3e-4 at 2^17).
LONG_CHAIN = 2 ** 17
LOST_N = 2 ** 14  # up to this N every such row's bound is below one element of average size (1/N of the sum)



def verdict(problems, ok_line, bad_line):
    """One check's verdict: OK_LINE where there are no PROBLEMS, else BAD_LINE followed by them."""
    if not problems:
        return [(True, ok_line)]
    return [(False, f"{bad_line}{'; '.join(problems)}".rstrip())]


def committed(dirs):
    """Reference results are committed, of at least two GPUs."""
    refs = [f"{d}/results.csv" for d in dirs if os.path.isfile(f"{d}/results.csv")]
    lines = [] if refs else [(False, "reference results are committed under plots/reference/<gpu>/results.csv")]
    if len(refs) >= 2:
        gpus = "".join(os.path.basename(os.path.dirname(r)) + " " for r in refs)
        return lines + [(True, f"reference results of more than one GPU are committed ({gpus})")]
    return lines + [(False, f"reference results of at least two GPUs are committed (found: {' '.join(refs)})")]


def rows_passed(csv):
    failed = [r for r in read_csv(csv, "stage pass") if not is_device_row(r) and not passed(r["pass"])]
    if not failed:
        return [(True, f"every row of {csv} passed verification")]
    return [(False, f"{len(failed)} rows of {csv} failed verification")]


def below_peak(csv):
    """No flushed row above the theoretical DRAM peak (the dram_peak row, read before the rows, as the
    CSV has it), 0.1% allowed for the CSV's rounding."""
    peak, over = "", []
    for r in read_csv(csv, "stage kernel n gbps l2 pass"):
        if is_device_row(r):
            if r["kernel"] == "dram_peak":
                peak = r["gbps"]
        elif r["l2"] != "warm" and num(r["gbps"]) > num(peak) * 1.001:
            over.append(f"{r['stage']} {r['kernel']} n={r['n']} {r['gbps']} GB/s")
    return verdict(over, f"no flushed row of {csv} exceeds the theoretical DRAM peak",
                   f"rows of {csv} above the DRAM peak: ")


def within_light(csv):
    """No flushed row faster than the speed of light of the bytes it reads: the shortest launch floor
    plus its bytes_read over the fastest read-only bandwidth (read_sol). Bytes written are not counted:
    a write can sit in L2 until after the timed run. 0.1%: the CSV's rounding."""
    sol, floor, runs, problems = 0, None, [], []
    for r in read_csv(csv, "stage kernel dtype n median_us gbps l2 bytes_read pass"):
        if is_device_row(r):
            if r["kernel"] == "read_sol":
                sol = max(sol, num(r["gbps"]))
            if r["kernel"] == "launch_floor" and (floor is None or num(r["median_us"]) < floor):
                floor = num(r["median_us"])
        elif r["l2"] == "flushed":
            if r["bytes_read"] == "":
                problems.append(f"no bytes_read: {r['stage']} {r['kernel']}")
                break
            runs.append(r)
    if sol <= 0:
        problems.append("no read_sol row")
    else:
        for r in runs:
            limit = (floor or 0) + num(r["bytes_read"]) / sol / 1e3
            if num(r["median_us"]) * 1.001 < limit:
                problems.append(f"{r['stage']} {r['kernel']} {r['dtype']} n={r['n']}: "
                                f"{num(r['median_us']):.2f} us < {limit:.2f} us")
    return verdict(problems, f"no flushed row of {csv} beats the speed of light",
                   f"rows of {csv} faster than the speed of light: ")


def as_it_must_be(r):
    """A flush check reading: a flushed run read >= 99% of its input from DRAM (by the ratio and the
    bytes), a warm control under 50%; and the check passed."""
    ratio = num(r["ratio_min"])
    flushed = r["l2"] == "flushed" and ratio >= 0.99 and num(r["dram_bytes_min"]) >= 0.99 * num(r["input_bytes"])
    return (flushed or (r["l2"] == "warm" and ratio < 0.5)) and passed(r["pass"])


def flush_readings(flush):
    if not os.path.isfile(flush):
        return [(False, f"{flush}: the flush check's readings are committed with the results "
                        "(make bench on a machine with ncu)")]
    rows = read_csv(flush, "l2 input_bytes dram_bytes_min ratio_min pass")
    good = sum(as_it_must_be(r) for r in rows)
    flushed = sum(r["l2"] == "flushed" for r in rows)
    if good == len(rows) and flushed >= FLUSHED_READINGS:
        return [(True, f"{flush}: every timed run read >= 99% of its input from DRAM ({flushed} flushed "
                       "readings, the warm controls under 50%)")]
    return [(False, f"{flush}: {good} of {len(rows)} readings as they must be ({flushed} flushed)")]


def multigpu_below_peak(csv):
    over = [f"{r['kernel']} n={r['n']} {r['pct_peak']}%" for r in read_csv(csv, "kernel n pct_peak l2")
            if r["l2"] != "warm" and r["pct_peak"] != "" and num(r["pct_peak"]) > 100.1]
    return verdict(over, f"no flushed row of {csv} exceeds the DRAM peak of its GPUs",
                   f"rows of {csv} above the DRAM peak: ")


def described_kernels(folder, stage):
    """The kernels of describe-<stage>.json, {name, dtype, role, accumulator} each ([] without it)."""
    path = f"{folder}/describe-{stage}.json"
    return describe(path)["kernels"] if os.path.isfile(path) else []


def accumulators(folder, stage):
    """{kernel: accumulator} of a stage's description."""
    return {k["name"]: k["accumulator"] for k in described_kernels(folder, stage) if k["accumulator"]}


def unchecked_from(folder, stage):
    """{(kernel, dtype): the relative bound from which its pass is unchecked} of a stage's description, for the
    kernels the harness checks (unchecked_from not null)."""
    return {(k["name"], k["dtype"]): k["unchecked_from"] for k in described_kernels(folder, stage)
            if k["unchecked_from"] is not None}


def wide_limit(limits, r):
    """A row's kernel's unchecked_from where it is below 1 (an fp32-or-wider accumulator's), else None."""
    limit = limits.get(r["stage"], {}).get((r["kernel"], r["dtype"]))
    return limit if limit is not None and limit < 1 else None


def checks_can_fail(folder):
    """No row passed a bound that cannot hold it to account (its kernel's unchecked_from, or the whole sum); on
    the bench's data, a wide accumulator's row is unchecked only where its chain is long."""
    csv = f"{folder}/results.csv"
    rows = [r for r in read_csv(csv, "stage kernel dtype n pass fill rel_bound chain") if not is_device_row(r)]
    bench = {s: describe(f"{folder}/describe-{s}.json")["bench_fills"][:1]
             for s in {r["stage"] for r in rows} if os.path.isfile(f"{folder}/describe-{s}.json")}
    limits = {s: unchecked_from(folder, s) for s in bench}

    def is_wide(r):
        return wide_limit(limits, r) is not None
    loose = [f"{r['stage']} {r['kernel']} {r['fill']} n={r['n']} ≤ {r['rel_bound']}" for r in rows
             if r["pass"] == "1" and r["rel_bound"] and num(r["rel_bound"]) >= (wide_limit(limits, r) or 1)]
    wide = [r for r in rows if [r["fill"]] == bench.get(r["stage"]) and is_wide(r)]
    # Long: more than 2^17 additions on one path, or one path through every input (a loop over all of them,
    # an atomic per element), where inputs join a running total that can absorb them.
    long_rows = [r for r in wide if r["chain"] and (num(r["chain"]) > LONG_CHAIN or num(r["chain"]) >= num(r["n"]))]
    short_unchecked = [f"{r['stage']} {r['kernel']} n={r['n']} ≤ {r['rel_bound']} (chain {r['chain']})" for r in wide
                       if r not in long_rows and r["pass"] == "unchecked"]
    tight = [r for r in wide if r["pass"] == "1"]
    tight_from = sorted({f"{wide_limit(limits, r):g}" for r in wide})
    return (verdict(loose, f"no row of {csv} passed a bound a result of 0 would pass, nor one of its kernel's "
                           f"unchecked_from or more ({', '.join(tight_from) or 'none below 1'} for fp32, fp64, Kahan "
                           "and int32 accumulators; such a row is unchecked)",
                    f"rows of {csv} marked ok with a bound that cannot hold them to account: ") +
            verdict(short_unchecked, f"{len(tight)} bench rows of fp32, fp64, Kahan and int32 accumulators in {csv} "
                                     f"are checked below their unchecked_from; the {len(wide) - len(tight)} others' chains are "
                                     f"longer than 2^{LONG_CHAIN.bit_length() - 1} or run through every input",
                    f"bench rows of wide accumulators in {csv} unchecked with a short chain: ") if wide else
            [(False, f"{csv} has bench rows of fp32, fp64, Kahan or int32 accumulators (describe-<stage>.json names them)")]) + \
        lost_element(csv, tight)


def lost_element(csv, wide):
    """A result missing one element of average size (1/N of the sum) fails every tight wide row up to LOST_N,
    and where a row cannot see it, the smallest loss it does see is named (docs/results.md: what a check
    cannot see)."""
    small = [r for r in wide if num(r["n"]) <= LOST_N]
    missed = [f"{r['stage']} {r['kernel']} n={r['n']} ≤ {r['rel_bound']}" for r in small
              if r["rel_bound"] and num(r["rel_bound"]) * num(r["n"]) >= 1]  # an empty bound: exact
    blind = [num(r["rel_bound"]) * num(r["n"]) for r in wide if r["rel_bound"] and num(r["rel_bound"]) * num(r["n"]) >= 1]
    beyond = (f"; past it, {len(blind)} rows see a loss of {math.ceil(max(blind))} average elements at worst"
              if blind else "")
    return verdict(missed if small else ["none at that size"],
                   f"a result one average element short fails all {len(small)} tight bench rows of wide accumulators "
                   f"in {csv} up to N = 2^{LOST_N.bit_length() - 1}{beyond}",
                   f"tight bench rows of wide accumulators in {csv} up to N = 2^{LOST_N.bit_length() - 1} "
                   "that a result one average element short passes: ")


def within_bound(folder):
    """The accuracy lab's results (make accuracy): each passed or failed as expected (xfail)."""
    acc = f"{folder}/accuracy.csv"
    if not os.path.isfile(acc):
        return [(False, f"the accuracy lab's results are committed for {os.path.basename(folder)} ({acc})")]
    outside = [f"{r['stage']} {r['kernel']} {r['fill']} n={r['n']} {r['cond']}"
               for r in read_csv(acc, "stage kernel n pass fill cond")
               if not is_device_row(r) and not passed(r["pass"]) and r["pass"] != "xfail"]
    return verdict(outside, f"every result of {acc} lies within its bound",
                   f"results of {acc} outside their bound: ")


def committed_files(refs, kind):
    """The names of the KIND-*.txt files committed beside any of the references REFS, sorted."""
    return sorted({os.path.basename(p) for d in refs for p in glob.glob(f"{d}/{kind}-*.txt")})


def primary(refs):
    """The reference folder plots/reference/primary names (the current commit's; the others are records of
    earlier commits), else the first."""
    path = os.path.join(os.path.dirname(refs[0]), "primary")
    name = open(path, encoding="utf-8").read().strip() if os.path.isfile(path) else ""
    return next((d for d in refs if os.path.basename(d) == name), refs[0])


def same_bits(refs):
    """The "bits:" lines of each demo output (its results that every GPU must give alike) agree across GPUs: the
    primary reference's are those of the current demo, and a record of an earlier commit, whose demo may have
    had fewer cases, has no bits: line that the primary's lacks (a result that differs is one)."""
    lines, demos, main = [], committed_files(refs, "demo"), primary(refs)
    for demo in demos:
        bits = {d: [line for line in open(f"{d}/{demo}", encoding="utf-8").read().split("\n") if line.startswith("bits:")]
                for d in refs if os.path.isfile(f"{d}/{demo}")}
        if not any(bits.values()):
            continue
        if main not in bits:
            lines += verdict([f"no {demo} for {os.path.basename(main)}, the primary reference"], "", f"{demo}: ")
            continue
        ours = set(bits[main])
        differ = [f"{os.path.basename(d)} has {len([x for x in b if x not in ours])} of its {len(b)} lines that "
                  f"{os.path.basename(main)}'s lack" for d, b in bits.items() if any(x not in ours for x in b)]
        lines += verdict(differ, f"{demo}: its {len(bits[main])} bits: lines on {os.path.basename(main)}, and every "
                                 f"one of the {len(bits)} GPUs' among them", f"{demo}: bits that differ between GPUs: ")
    return lines


TABLE_ROW = re.compile(r"^(\w+) +(\S+) +(\S+) +\S+ +(ok|FAIL|-) +.* (same|vary)$")


def table_rows(path):
    """A program's printed tables: {(the "N = ..." heading up to its ';', kernel, its k-th row there):
    (result, rel_err, verdict, bits)}."""
    rows, heading = {}, ""
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("N = "):
            heading = line.split(";")[0]
        elif m := TABLE_ROW.match(line):
            k = sum(key[:2] == (heading, m[1]) for key in rows)
            rows[(heading, m[1], k)] = (m[2], m[3], m[4], m[5])
    return rows


def file_stage(path):
    """The stage whose program wrote a file committed beside the references: <kind>-<stage>.txt,
    <kind>-<what>-<stage>.txt (cccl-large-13_exact.txt)."""
    return re.sub(r"^[a-z]+(-[a-z]+)?-|\.txt$", "", os.path.basename(path))


def same_result(a, b):
    """Whether two tables' results are one value: the same text, or the text of one printed before results
    were shown in full (9 significant digits) beside the other's value, in fp64 or rounded to fp32."""
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False

    def shown_before(v):
        texts = {f"{v:.9g}"}
        if abs(v) <= 3.4028234663852886e38:
            texts.add(f"{struct.unpack('<f', struct.pack('<f', v))[0]:.9g}")
        return texts
    return a in shown_before(y) or b in shown_before(x)


def same_tables(refs):
    """The printed tables committed beside the references (cccl-*.txt): a result that is the same in every
    run is the same on every GPU, and an exact kernel's is exact."""
    lines = []
    for name in committed_files(refs, "cccl"):
        stage = file_stage(name)
        tables = {d: table_rows(f"{d}/{name}") for d in refs if os.path.isfile(f"{d}/{name}")}
        first = next(iter(tables.values()))
        differ = [f"{os.path.basename(d)}: {key[1]} at {key[0]}: {rows[key][0]} {rows[key][2]}, not {row[0]} {row[2]}"
                  for d, rows in tables.items() for key, row in first.items()
                  if row[3] == "same" and key in rows and (not same_result(rows[key][0], row[0]) or rows[key][2] != row[2])]
        inexact = [f"{os.path.basename(d)}: {key[1]} at {key[0]}: error {row[1]}, {row[2]}"
                   for d, rows in tables.items() for key, row in rows.items()
                   if accumulators(d, stage).get(key[1]) == "exact" and (num(row[1]) != 0 or row[2] != "ok")]
        count = sum(len(rows) for rows in tables.values())
        lines += verdict(differ + inexact + ([f"no rows in {name}"] if not count else []),
                         f"{name}: its {count} rows on {len(tables)} GPUs: every run-to-run identical result the same on "
                         "every GPU, every exact kernel's error 0",
                         f"{name}: rows that differ between GPUs or are not exact: ")
    return lines


HEADING = re.compile(r"^N = (\d+).*?, fill (\w+)")


def first_failures(refs):
    """The sizes from which a kernel of the printed tables (cccl-*.txt) fails, quoted by its stage's README:
    {stage: {kernel: (first failing N, fills it fails on, fills it passes on, the largest N below the first
    failing one where it passes on a fill it fails on later, and those fills)}} of every GPU, and the problems
    (a failure that does not hold from that size up, a fill it fails on where it does not pass at every size
    checked below, or a GPU where any of them differs)."""
    found, problems = {}, []
    for d in refs:
        verdicts_of = {}
        for path in sorted(glob.glob(f"{d}/cccl-*.txt")):
            stage = file_stage(path)
            for (heading, kernel, _), row in table_rows(path).items():
                if m := HEADING.match(heading):
                    verdicts_of.setdefault((stage, kernel), []).append((int(m[1]), m[2], row[2]))
        for (stage, kernel), rows in sorted(verdicts_of.items()):
            failing = sorted({fill for _, fill, v in rows if v == "FAIL"})
            if not failing:
                continue
            first = min(n for n, _, v in rows if v == "FAIL")
            passing = sorted({fill for n, fill, _ in rows if n >= first} - set(failing))
            problems += [f"{os.path.basename(d)}: {kernel} at {n}, fill {fill}: {v}, not {'FAIL' if fill in failing else 'ok'}"
                         for n, fill, v in rows if n >= first and v != ("FAIL" if fill in failing else "ok")]
            # On a fill it fails on, every size checked below the first failure passes.
            below = [(n, fill, v) for n, fill, v in rows if n < first and fill in failing]
            checked_fills = {fill for _, fill, v in below if v == "ok"}
            problems += [f"{os.path.basename(d)}: {kernel} at {n}, fill {fill}: {v}, not ok below {first}"
                         for n, fill, v in below if fill in checked_fills and v != "ok"]
            last_ok = max((n for n, fill, v in below if v == "ok"), default=0)
            facts = (first, failing, passing, last_ok, sorted(checked_fills))
            seen = found.setdefault(stage, {}).setdefault(kernel, facts)
            if seen != facts:
                problems.append(f"{os.path.basename(d)}: {kernel} fails from {first} on {' '.join(failing)}, passing up to "
                                f"{last_ok}; elsewhere from {seen[0]} on {' '.join(seen[1])}, passing up to {seen[3]}")
    return found, problems


def failures_quoted(refs):
    """Each kernel's first failing size in the printed tables, the same on every GPU and quoted by its stage's
    README (both languages) in a paragraph or list item that names the fills it fails and passes on, and in a
    sentence there that names the kernel, the largest size below it where it passes (2^k where it is a power of
    two) and the fills it passes on there."""
    found, problems = first_failures(refs)
    said = []
    for stage, kernels in sorted(found.items()):
        pages = sorted(glob.glob(f"{ROOT}/stages/{stage}/README*.md"))
        problems += [] if pages else [f"stages/{stage} has no README to quote its printed tables' failures"]
        for kernel, (first, failing, passing, last_ok, fills_below) in sorted(kernels.items()):
            up_to = f"2^{last_ok.bit_length() - 1}" if last_ok and last_ok & (last_ok - 1) == 0 else f"{last_ok:,}"
            below_it = f"below it up to {up_to} on {' and '.join(fills_below)}" if last_ok else ""
            for page in pages:
                parts = re.split(r"\n\n|\n(?=- )", open(page, encoding="utf-8").read())
                quoting = [p for p in parts if f"{first:,}" in p and kernel in p]
                sentences = [s for p in quoting for s in re.split(r"(?<=\.)\s+|(?<=。)", p)
                             if kernel in s and up_to in s and all(fill in s for fill in fills_below)]
                if not any(all(fill in p for fill in failing + passing) for p in quoting) or (last_ok and not sentences):
                    problems.append(f"{os.path.basename(page)} of {stage} does not say that {kernel} fails from {first:,} "
                                    f"on {' and '.join(failing)} (and passes on {' and '.join(passing) or 'no other fill'}"
                                    f"{', and passes ' + below_it if below_it else ''})")
            said.append(f"{kernel} from {first:,} on {' and '.join(failing)}, right on {' and '.join(passing) or 'no other fill'}"
                        f"{', passing ' + below_it if below_it else ''}")
    return verdict(problems, "the printed tables' failures hold from their first size up, the same on every GPU, and "
                   f"the READMEs quote them: {'; '.join(said) or 'none'}", "printed tables' failures: ")


# A run's line: the tool, any options of compute-sanitizer's own (such as --kernel-name-exclude kns=common_,
# which leaves the harness's kernels uninstrumented), the program, then its kernels.
SANITIZER_RUN = re.compile(r"^== compute-sanitizer --tool (\w+) (?:--[\w-]+ \S+ )*\S+ --kernel (\S+)", re.M)
SANITIZER_TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
CLEAN = re.compile(r"^========= (ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\))$", re.M)


def sanitizers_clean(refs):
    """compute-sanitizer's output committed beside the references (sanitize-<stage>.txt, a "== compute-sanitizer
    ..." line before each run's output): on every GPU alike, each run on its folder's GPU and clean, and every
    tool run on every kernel of the stage's own."""
    lines = []
    for name in committed_files(refs, "sanitize"):
        stage, problems, runs = file_stage(name), [], 0
        for d in refs:
            gpu, path = os.path.basename(d), f"{d}/{name}"
            if not os.path.isfile(path):
                if d == primary(refs):  # a record of an earlier commit may predate the file
                    problems.append(f"no {name} for {gpu}, the primary reference")
                continue
            output = open(path, encoding="utf-8").read()
            on = read_csv(f"{d}/results.csv", "gpu")[0]["gpu"]
            starts = [m.start() for m in SANITIZER_RUN.finditer(output)] + [len(output)]
            covered = {tool: set() for tool in SANITIZER_TOOLS}
            for a, b in zip(starts, starts[1:]):
                run, m = output[a:b], SANITIZER_RUN.match(output[a:b])
                runs += 1
                problems += [f"{gpu}: {m[1]} on {m[2]}: {what}" for what, ok in (
                    ("not clean", CLEAN.search(run)), ("a kernel not verified", "all kernels passed verification" in run),
                    (f"not on the {on}", f"stage {stage} on {on} (" in run)) if not ok]
                covered.setdefault(m[1], set()).update(m[2].split(","))
            own = {k["name"] for k in described_kernels(d, stage) if k["role"] != "library"}
            problems += [] if own else [f"{gpu}: no kernels of {stage}'s own in describe-{stage}.json"]
            problems += [f"{gpu}: {tool} not run on {' '.join(sorted(own - covered[tool]))}"
                         for tool in SANITIZER_TOOLS if own - covered[tool]]
        lines += verdict(problems + ([f"no runs in {name}"] if not runs else []),
                         f"{name}: its {runs} runs on {len(refs)} GPUs clean, each tool on every kernel of {stage}'s own",
                         f"{name}: ")
    return lines


def describe(path):
    """A program's --describe saved beside the results (describe-<stage>.json), read by scripts/describe.py."""
    return description.read(path)


def limits_cover(folder, lim, program):
    """LIM has a row for each limit kernel PROGRAM declares and for CUB, at each of its bench sizes."""
    stage, limit_kernels, sizes = program.get("stage", ""), program["limit_kernels"], len(program.get("bench_sizes", []))
    if not os.path.isfile(lim):
        return [(False, f"make limits' results are committed for {os.path.basename(folder)} ({lim})")]
    count = {}
    for r in read_csv(lim, "stage kernel n"):
        if r["stage"] == stage:
            count[r["kernel"]] = count.get(r["kernel"], 0) + 1
    short = [f"{k} ({count.get(k, 0)} of {sizes} sizes)" for k in ["cub"] + limit_kernels if count.get(k, 0) != sizes]
    if not short:
        return [(True, f"{lim} has {stage}'s limit kernels and CUB at each of its {sizes} bench sizes")]
    return [(False, f"{lim} has {stage}'s limit kernels and CUB at each bench size: {' '.join(short)}")]


def element_bytes(dtype):
    return 1 if re.match(r'^fp8|^[iu]8$', dtype) else 2 if dtype.endswith("16") else 4


def read_from_dram(lim):
    """Each profiled run (the counters are of flushed runs) read at least 99% of its input from DRAM."""
    short = [f"{r['stage']} {r['kernel']} n={r['n']}: {r['dram_bytes']} bytes"
             for r in read_csv(lim, "stage kernel dtype n dram_bytes")
             if num(r["dram_bytes"]) < 0.99 * num(r["n"]) * element_bytes(r["dtype"])]
    return verdict(short, f"every profiled run of {lim} read at least 99% of its input from DRAM",
                   f"runs of {lim} that read less than their input from DRAM: ")


def limits(folder):
    """What limits each N (make limits): the rows of every program with limit kernels, read from DRAM."""
    lim = f"{folder}/limits.csv"
    programs = [describe(p) for p in sorted(glob.glob(f"{folder}/describe-*.json"))]
    if not programs:
        return [(False, f"{folder}: the programs' descriptions are committed with the results (describe-<stage>.json)")]
    lines = []
    for program in programs:
        if program.get("limit_kernels"):
            lines += checked(limits_cover, folder, lim, program)
    return lines + (checked(read_from_dram, lim) if os.path.isfile(lim) else [])


def series(csv, column="median_us"):
    """{(stage, kernel, dtype, l2, fill, cols): {n: the shortest time at n}} of a results CSV's timed rows, in
    COLUMN: median_us, the whole run; gpu_us, the kernels' own time where the CPU finishes (median_us
    elsewhere)."""
    out = {}
    for r in read_csv(csv, "stage kernel dtype n median_us l2 pass"):
        us = num(r.get(column) or r["median_us"])
        if not is_device_row(r) and us > 0:
            key = (r["stage"], r["kernel"], r["dtype"], r["l2"], r.get("fill", ""), r.get("cols", ""))
            times = out.setdefault(key, {})
            n = int(num(r["n"]))
            times[n] = min(times.get(n, float("inf")), us)
    return out


def launch_floor(csv):
    """The shortest launch floor of a results CSV's device rows (0 where it has none)."""
    floors = [num(r["median_us"]) for r in read_csv(csv, "stage kernel median_us pass")
              if is_device_row(r) and r["kernel"] == "launch_floor"]
    return min(floors, default=0)


def no_fall(csv):
    """A batch measured slow as a whole (an idle GPU's clocks, another load) shows as a time that falls as
    N grows. So from one N to the next: in a batch (a stage's kernels timed at one N, fill and L2 state)
    the median kernel's time does not fall by more than 25%, and within one kernel's series no time falls
    by more than 25% and more than a launch floor. A single kernel's fall below a launch floor is that
    kernel's own fixed cost at a small N, not a slow batch: CUB's sum takes longer at 2^10 elements
    than at 2^12 in every series of both reference GPUs. Where the CPU finishes, the kernels' own time
    (gpu_us) is read: the CPU's copy and loop, which can take most of a small N's time, are no measure of
    the GPU's batch."""
    falls, floor, batches = [], launch_floor(csv), {}
    for key, times in series(csv, "gpu_us").items():
        ns = sorted(times)
        for a, b in zip(ns, ns[1:]):
            if times[b] < FALL * times[a] and times[a] - times[b] > floor:
                falls.append(f"{key[0]} {key[1]} {key[2]} {key[3]}: {times[a]:g} us at n={a}, {times[b]:g} us at n={b}")
            batches.setdefault((key[0], key[3], key[4], key[5], a, b), []).append(times[b] / times[a])
    for (stage, l2, fill, _, a, b), ratios in sorted(batches.items()):
        if statistics.median(ratios) < FALL:
            falls.append(f"{stage} ({fill}, L2 {l2}): its kernels' median time falls to "
                         f"{statistics.median(ratios):.2f} of n={a}'s at n={b}")
    return verdict(falls, f"within every batch and every kernel's series of {csv}, no time falls by more "
                          "than 25% as N grows (a kernel's: and more than a launch floor)",
                   f"times of {csv} that fall as N grows: ")


def on_gpu(d, stage, kernel):
    """Whether KERNEL of STAGE runs on the GPU, by the description saved beside the results."""
    return not any(k["name"] == kernel and k["role"] == "cpu" for k in described_kernels(d, stage))


def ratios_in_step(a, b):
    """A kernel's time ratio between the GPUs of folders A and B at one N is within a factor of 2 of its
    ratios at the neighbouring N (GPU rows only): a batch measured slow on one GPU stands out."""
    sa, sb, odd = series(f"{a}/results.csv"), series(f"{b}/results.csv"), []
    for key in sorted(set(sa) & set(sb)):
        if not on_gpu(a, key[0], key[1]):
            continue
        ns = sorted(set(sa[key]) & set(sb[key]))
        ratio = {n: sa[key][n] / sb[key][n] for n in ns}
        for i, n in enumerate(ns):
            near = [ratio[m] for m in ns[max(i - 1, 0):i + 2] if m != n]
            if near and not min(near) / RATIO_FACTOR <= ratio[n] <= max(near) * RATIO_FACTOR:
                odd.append(f"{key[0]} {key[1]} {key[2]} {key[3]} n={n}: {ratio[n]:.2f}, "
                           f"beside {' '.join('%.2f' % x for x in near)}")
    return verdict(odd, f"every kernel's time ratio between {os.path.basename(a)} and {os.path.basename(b)} "
                        "is in step with its neighbours'", f"time ratios out of step between {a} and {b}: ")


CHANGED = "Changed since, in their kernels or harness"  # how a reference's page starts its line of them


def changed_by_git(commit, root=ROOT):
    """The stages whose stages/<stage>/*.cu or *.mk, or any common/* file (every stage), differ between COMMIT and
    the files in ROOT now, each file's blob compared; (None, why) where git cannot tell."""
    def git(*args, stdin=None):
        try:
            p = subprocess.run(["git", "-C", root, *args], input=stdin, capture_output=True, text=True)
        except OSError:
            return None
        return p.stdout if p.returncode == 0 else None

    if git("rev-parse", "--verify", "-q", f"{commit}^{{commit}}") is None:
        return None, f"no git checkout at {root} holds commit {commit}"

    def watched(path):
        return path.startswith("common/") or (path.startswith("stages/") and path.count("/") == 2
                                                and path.endswith((".cu", ".cuh", ".mk")))
    then = {line.split("\t", 1)[1]: line.split()[2] for line in git("ls-tree", "-r", commit, "--", "stages",
                                                                    "common").splitlines()}
    then = {path: blob for path, blob in then.items() if watched(path)}
    patterns = ("stages/*/*.cu", "stages/*/*.cuh", "stages/*/*.mk", "common/**")
    paths = sorted(os.path.relpath(p, root) for pattern in patterns
                   for p in glob.glob(os.path.join(root, pattern), recursive=True) if os.path.isfile(p))
    now = dict(zip(paths, git("hash-object", "--stdin-paths", stdin="".join(f"{p}\n" for p in paths)).split()))
    stages = {d for d in os.listdir(os.path.join(root, "stages")) if os.path.isdir(os.path.join(root, "stages", d))}
    out = set()
    for path in (p for p in set(then) | set(now) if then.get(p) != now.get(p)):
        out |= stages if path.startswith("common/") else {path.split("/")[1]}
    return sorted(out), None


def changed_listed(folder, root=ROOT):
    """A reference page's line of the stages changed since its run (its measured_at) against git's blobs: (its
    verdicts, None), or (None, why) where there is nothing to check or git cannot tell."""
    try:
        commit = open(f"{folder}/measured_at", encoding="utf-8").read().split()[0]
    except (OSError, IndexError):
        return None, f"{folder} records no commit (measured_at)"
    stages, why = changed_by_git(commit, root)
    if stages is None:
        return None, why
    lines = [line for line in open(f"{folder}/README.md", encoding="utf-8").read().split("\n")
             if line.startswith(CHANGED)]
    listed = lines[0].split(":", 1)[1].split(".")[0].strip() if lines else "(no such line)"
    listed = [] if listed == "none" else listed.split(", ")
    problems = [] if listed == stages else [f"its page lists {', '.join(listed) or 'none'}; git: {', '.join(stages) or 'none'}"]
    return verdict(problems, f"{folder}/README.md lists the stages changed since {commit[:12]} as git does",
                   f"{folder}/README.md: the stages changed since {commit[:12]}: "), None


def checked(check, *args):
    """CHECK(*ARGS)'s verdicts; where a CSV it reads is not of its layout, one FAIL with read_csv's message."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return check(*args)
    except SystemExit:
        return [(False, err.getvalue().strip().replace("error: ", "", 1))]


def verdicts(dirs):
    """Every check of the reference folders DIRS: [(passed, what was checked)]."""
    dirs = [d.rstrip("/") for d in dirs]
    refs = [d for d in dirs if os.path.isfile(f"{d}/results.csv")]
    lines = committed(dirs)
    for csv in [f"{d}/results.csv" for d in refs] + [f"{d}/multigpu.csv" for d in dirs]:
        if os.path.isfile(csv):
            lines += checked(rows_passed, csv)
    for d in refs:
        lines += checked(below_peak, f"{d}/results.csv") + checked(within_light, f"{d}/results.csv")
        lines += checked(flush_readings, f"{d}/flush_check.csv")
    for d in dirs:
        if os.path.isfile(f"{d}/multigpu.csv"):
            lines += checked(multigpu_below_peak, f"{d}/multigpu.csv")
    for d in refs:
        lines += checked(checks_can_fail, d)
    for d in refs:
        lines += checked(within_bound, d)
    lines += checked(same_bits, refs) + checked(same_tables, refs) + checked(failures_quoted, refs)
    lines += checked(sanitizers_clean, refs)
    for d in refs:
        lines += limits(d)
    for d in refs:
        lines += checked(no_fall, f"{d}/results.csv")
    for d in refs:
        lines += changed_listed(d)[0] or []
    for i, a in enumerate(refs):
        for b in refs[i + 1:]:
            lines += checked(ratios_in_step, a, b)
    return lines


def text(lines):
    return "".join(f"{'ok  ' if passed else 'FAIL'} {what}\n" for passed, what in lines)


def cli(argv):
    parser = argparse.ArgumentParser(prog="python3 tests/verify_reference.py", description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="*", metavar="REFERENCE_DIR",
                        help="plots/reference/<gpu> folders (default: every one with a results.csv)")
    args = parser.parse_args(argv[1:])
    dirs = args.dirs or sorted(os.path.dirname(p) for p in glob.glob("plots/reference/*/results.csv"))
    try:
        lines = verdicts(dirs)
    except Exception:  # a check that crashes is not a check that passed: exit 2, not 1 or 0
        traceback.print_exc()
        return 2
    print(text(lines), end="")
    return 0 if all(passed for passed, _ in lines) else 1


if __name__ == "__main__":
    sys.exit(cli(sys.argv))

#!/usr/bin/env bash
# make audit (on a machine with a GPU): everything that can go wrong, for every kernel of every
# single-GPU program (make programs; "gpus: one" in its --describe, which gives what each part needs).
# usage: scripts/audit.sh [PART...]   PART: sanitize offset nonfinite repro edge flush (default: all six)
#   sanitize   make stage-NN sanitize: memcheck, racecheck, synccheck, initcheck at small N; the
#              deliberately wrong kernels must be caught
#   offset     the input 1 and 3 elements past an aligned address: every kernel right, or refusing
#              (vector loads), never a fault (the programs whose --help has --offset)
#   nonfinite  a NaN, then a +Inf in the input: the result must be NaN (+Inf) and say so (the programs
#              whose fills include nan and inf)
#   repro      5 runs of every kernel on the same data: which give the same bits (float atomics need
#              not; anything else must, or the program fails it as a race)
#   edge       every program at its edge sizes (64-bit indices), and its kernels of 8-bit inputs at
#              N = 2^32 + 17
#   flush      the L2 flush, proven with DRAM counters (scripts/flush_check.sh; needs ncu: without it
#              this part says so and is not counted as a finding)
# Prints a summary table and exits 1 on any unexpected finding; a part that does not apply to a program
# is listed as skipped, with the reason, and is not a finding.
set -u
cd "$(dirname "$0")/.."
parts=${*:-sanitize offset nonfinite repro edge flush}
for part in $parts; do
    case $part in
    sanitize | offset | nonfinite | repro | edge | flush) ;;
    *) echo "error: unknown part '$part' (sanitize offset nonfinite repro edge flush)" >&2; exit 2 ;;
    esac
done
source scripts/lib.sh
# AUDIT_STAGES="STAGE ..." (stage folder names) audits only those stages.
programs=
for p in $(programs); do
    s=$(basename "$(dirname "$p")")
    [ -z "${AUDIT_STAGES:-}" ] || [[ " $AUDIT_STAGES " == *" $s "* ]] || continue
    if [ ! -x "$p" ]; then echo "$p is not built (make stage-${s%%_*} says why): not audited"; continue; fi
    [ "$(describe "$p" gpus)" = one ] && programs="$programs $p"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=$tmp/summary
unexpected=0
note() { printf '%-10s %-20s %-8s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; [ "$3" = ok ] || [ "$3" = skipped ] || unexpected=$((unexpected + 1)); }

# run PART ARGS...: the program $p with --check; ok when it exits 0.
run() {
    local part=$1
    shift
    "$p" --check "$@" >"$tmp/$part-$s.log" 2>&1
}

for part in $parts; do
    echo "== $part"
    if [ "$part" = flush ]; then
        if ! command -v ncu >/dev/null; then
            echo "the flush part needs ncu (Nsight Compute, part of the CUDA toolkit): not run"
            note flush all skipped "needs ncu"
        elif scripts/flush_check.sh >"$tmp/flush.log" 2>&1; then
            note flush all ok "$(grep -c '^ok ' "$tmp/flush.log") readings: every timed run read >= 99% of its input from DRAM"
        else
            note flush all FAIL "$(grep -E '^FAIL|error' "$tmp/flush.log" | head -n 2 | tr '\n' ' ')"
        fi
        continue
    fi
    for p in $programs; do
        s=$(basename "$(dirname "$p")")
        case $part in
        sanitize)
            if scripts/stage_tool.sh sanitize "$s" >"$tmp/san-$s.log" 2>&1; then
                note sanitize "$s" ok "4 tools clean$(grep -c '^Deliberately' "$tmp/san-$s.log" | sed 's/^0$//; s/^[1-9].*/; wrong kernels caught/')"
            else
                note sanitize "$s" FINDING "$(grep -E 'FINDING|NOT caught' "$tmp/san-$s.log" | head -n 2 | tr '\n' ' ')"
            fi
            ;;
        offset)
            if ! "$p" --help | grep -q -- '--offset'; then
                note offset "$s" skipped "its program has no --offset"
                continue
            fi
            for k in 1 3; do
                if run offset --n 1000003 --offset $k --reps 1 --warmup 0; then
                    refused=$(grep -c 'skipped: the input is not' "$tmp/offset-$s.log")
                    note offset "$s" ok "--offset $k: all right$( [ "$refused" -gt 0 ] && echo ", $refused vector kernels refused the unaligned input")"
                else
                    note offset "$s" FAIL "--offset $k: $(grep -E 'FAIL|error' "$tmp/offset-$s.log" | head -n 1)"
                fi
            done
            ;;
        nonfinite)
            fills=" $(describe "$p" fills) "
            if [[ $fills != *" nan "* || $fills != *" inf "* ]]; then
                note nonfinite "$s" skipped "its fills ($(echo $fills)) have no nan and inf"
                continue
            fi
            for f in nan inf; do
                if run nonfinite --n 1000003 --fill $f --reps 1 --warmup 0; then
                    # The table's rows: kernel, result, errors, then ok/FAIL.
                    shown=$(awk -v f=$f '$5 == "ok" && tolower($2) ~ f' "$tmp/nonfinite-$s.log" | wc -l)
                    note nonfinite "$s" ok "--fill $f: every kernel passes, $shown rows give $f (int8 has no NaN or Inf and fp8 e4m3 no Inf: those pass with finite sums)"
                else
                    note nonfinite "$s" FAIL "--fill $f: $(grep -E 'FAIL' "$tmp/nonfinite-$s.log" | head -n 1)"
                fi
            done
            ;;
        repro)
            # The CSV's pass (10) and bits (13) columns of every kernel's row.
            if run repro --n 2^24 --reps 5 --warmup 0 --csv "$tmp/repro-$s.csv"; then
                same=$(awk -F, 'NR > 1 && $2 != "00_device" && $10 == 1 && $13 == "same" { print $3 }' "$tmp/repro-$s.csv" | sort -u | tr '\n' ' ')
                vary=$(awk -F, 'NR > 1 && $2 != "00_device" && $10 == 1 && $13 == "vary" { print $3 }' "$tmp/repro-$s.csv" | sort -u | tr '\n' ' ')
                note repro "$s" ok "same bits: ${same:-none}| varying (float atomics): ${vary:-none}"
            else
                note repro "$s" FAIL "$(grep -B1 -E 'a race|FAIL' "$tmp/repro-$s.log" | head -n 2 | tr '\n' ' ')"
            fi
            ;;
        edge)
            edge=$(describe "$p" "edge sizes")
            if [ -z "$edge" ]; then
                note edge "$s" FAIL "its --describe names no edge sizes"
                continue
            fi
            if run edge --n "$edge" --reps 1 --warmup 0; then
                note edge "$s" ok "N = $edge: every kernel passes"
            else
                note edge "$s" FAIL "N = $edge: $(grep -E 'FAIL|error' "$tmp/edge-$s.log" | head -n 1)"
            fi
            # The default reductions of 8-bit inputs: past 2^32 elements in 4 GiB. (The histograms' u8
            # samples are left out: their 32-bit counters stop them at 2^32 samples, and they say so.)
            eight=$("$p" --describe | awk '$1 == "kernel:" && $4 == "default" && $3 ~ /^(fp8_|i8$)/ { printf "%s%s", sep, $2; sep = "," }')
            if [ -n "$eight" ]; then
                if run edge8 --n 2^32+17 --kernel "$eight" --reps 1 --warmup 0; then
                    note edge "$s" ok "N = 2^32+17, 8-bit inputs ($eight): every kernel passes"
                else
                    note edge "$s" FAIL "N = 2^32+17: $(grep -E 'FAIL|error' "$tmp/edge8-$s.log" | head -n 1)"
                fi
            fi
            ;;
        esac
    done
done
echo
echo "audit summary"
printf '%-10s %-20s %-8s %s\n' part stage result detail
cat "$summary"
echo
if [ $unexpected -eq 0 ]; then echo "audit: no unexpected findings"; else echo "audit: $unexpected unexpected findings"; fi
[ $unexpected -eq 0 ]

#!/usr/bin/env bash
# make audit (on a machine with a GPU): everything that can go wrong, for every kernel of every stage.
# usage: scripts/audit.sh [PART...]   PART: sanitize offset nonfinite repro edge flush (default: all six)
#   sanitize   make stage-NN sanitize: memcheck, racecheck, synccheck, initcheck at small N; the
#              deliberately wrong kernels must be caught
#   offset     the input 1 and 3 elements past an aligned address: every kernel right, or refusing
#              (vector loads), never a fault
#   nonfinite  a NaN, then a +Inf in the input: the result must be NaN (+Inf) and say so
#   repro      5 runs of every kernel on the same data: which give the same bits (float atomics need
#              not; anything else must, or the harness fails it as a race)
#   edge       N = 2^31 + 17 (64-bit indices) for every stage, and 2^32 + 17 for the 8-bit inputs
#   flush      the L2 flush, proven with DRAM counters (scripts/flush_check.sh; needs ncu: without it
#              this part says so and is not counted as a finding)
# Prints a summary table and exits 1 on any unexpected finding.
set -u
cd "$(dirname "$0")/.."
parts=${*:-sanitize offset nonfinite repro edge flush}
# AUDIT_STAGES="08_roofline 09_rows" audits only those stages.
stages=${AUDIT_STAGES:-$(ls stages/[0-9][0-9]_*/reduce.cu | xargs -n1 dirname | xargs -n1 basename)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=$tmp/summary
unexpected=0
note() { printf '%-10s %-20s %-8s %s\n' "$1" "$2" "$3" "$4" >>"$summary"; [ "$3" = ok ] || unexpected=$((unexpected + 1)); }

# run PART STAGE ARGS...: the stage program with --check; ok when it exits 0.
run() {
    local part=$1 s=$2
    shift 2
    "build/$s/reduce" --check "$@" >"$tmp/$part-$s.log" 2>&1
}

for part in $parts; do
    echo "== $part"
    if [ "$part" = flush ]; then
        if ! command -v ncu >/dev/null; then
            echo "the flush part needs ncu (Nsight Compute, part of the CUDA toolkit): not run"
            printf '%-10s %-20s %-8s %s\n' flush all skipped "needs ncu" >>"$summary"
        elif scripts/flush_check.sh >"$tmp/flush.log" 2>&1; then
            note flush all ok "$(grep -c '^ok ' "$tmp/flush.log") readings: every timed run read >= 99% of its input from DRAM"
        else
            note flush all FAIL "$(grep -E '^FAIL|error' "$tmp/flush.log" | head -2 | tr '\n' ' ')"
        fi
        continue
    fi
    for s in $stages; do
        case $part in
        sanitize)
            if scripts/stage_tool.sh sanitize "$s" >"$tmp/san-$s.log" 2>&1; then
                note sanitize "$s" ok "4 tools clean$(grep -c '^Deliberately' "$tmp/san-$s.log" | sed 's/^0$//; s/^[1-9].*/; wrong kernels caught/')"
            else
                note sanitize "$s" FINDING "$(grep -E 'FINDING|NOT caught' "$tmp/san-$s.log" | head -2 | tr '\n' ' ')"
            fi
            ;;
        offset)
            for k in 1 3; do
                if run offset "$s" --n 1000003 --offset $k --reps 1 --warmup 0; then
                    refused=$(grep -c 'skipped: the input is not' "$tmp/offset-$s.log")
                    note offset "$s" ok "--offset $k: all right$( [ "$refused" -gt 0 ] && echo ", $refused vector kernels refused the unaligned input")"
                else
                    note offset "$s" FAIL "--offset $k: $(grep -E 'FAIL|error' "$tmp/offset-$s.log" | head -1)"
                fi
            done
            ;;
        nonfinite)
            for f in nan inf; do
                if run nonfinite "$s" --n 1000003 --fill $f --reps 1 --warmup 0; then
                    shown=$(awk -v f=$f '$(NF - 5) == "ok" && tolower($2) ~ f' "$tmp/nonfinite-$s.log" | wc -l)
                    note nonfinite "$s" ok "--fill $f: every kernel passes, $shown rows give $f (int8 has no NaN or Inf and fp8 e4m3 no Inf: those pass with finite sums)"
                else
                    note nonfinite "$s" FAIL "--fill $f: $(grep -E 'FAIL' "$tmp/nonfinite-$s.log" | head -1)"
                fi
            done
            ;;
        repro)
            if run repro "$s" --n 2^24 --reps 5 --warmup 0; then
                same=$(awk '$(NF - 5) == "ok" && $NF == "same" { print $1 }' "$tmp/repro-$s.log" | sort -u | tr '\n' ' ')
                vary=$(awk '$(NF - 5) == "ok" && $NF == "vary" { print $1 }' "$tmp/repro-$s.log" | sort -u | tr '\n' ' ')
                note repro "$s" ok "same bits: ${same:-none}| varying (float atomics): ${vary:-none}"
            else
                note repro "$s" FAIL "$(grep -B1 -E 'a race|FAIL' "$tmp/repro-$s.log" | head -2 | tr '\n' ' ')"
            fi
            ;;
        edge)
            # A row stage: one row of 2^31+17, and a matrix past 2^31 elements.
            edge=2^31+17
            "build/$s/reduce" --list | grep -q DeviceSegmentedReduce && edge=2^31+17,2^16x32769
            if run edge "$s" --n $edge --reps 1 --warmup 0; then
                note edge "$s" ok "N = $edge: every kernel passes"
            else
                note edge "$s" FAIL "N = 2^31+17: $(grep -E 'FAIL|error' "$tmp/edge-$s.log" | head -1)"
            fi
            eight=$("build/$s/reduce" --list | awk '$1 ~ /(^|_)(fp8|i8)_/ { printf "%s%s", sep, $1; sep = "," }')
            if [ -n "$eight" ]; then
                if run edge8 "$s" --n 2^32+17 --kernel "$eight" --reps 1 --warmup 0; then
                    note edge "$s" ok "N = 2^32+17, 8-bit inputs ($eight): every kernel passes"
                else
                    note edge "$s" FAIL "N = 2^32+17: $(grep -E 'FAIL|error' "$tmp/edge8-$s.log" | head -1)"
                fi
            fi
            ;;
        *)
            echo "error: unknown part '$part' (sanitize offset nonfinite repro edge flush)" >&2
            exit 2
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

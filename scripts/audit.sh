#!/usr/bin/env bash
# make audit [PARTS=...] (make help says what it checks), on every single-GPU program. Prints a summary
# and exits 1 on an unexpected finding; a part that does not apply to a program is listed as skipped.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
all="sanitize offset nonfinite repro edge flush evidence" programs='' unexpected=0 parts=${*:-$all}
for part in $parts; do [[ " $all " == *" $part "* ]] || { echo "error: unknown part '$part' ($all)" >&2; exit 2; }; done
for p in $(programs); do
    single "$p" "$p is not built (make stage-$(stage_of "$p" | cut -d_ -f1) says why): not audited" && programs+=" $p"
done
note() { # PART STAGE RESULT DETAIL: a row of the summary; fails on a finding
    printf '%-10s %-20s %-8s %s\n' "$1" "$2" "$3" "$4" >>"$tmp/summary"
    [ "$3" = ok ] || [ "$3" = skipped ] || { unexpected=$((unexpected + 1)); return 1; }
}
check() { # PART WHAT ARGS...: $p --check ARGS into $tmp/PART-$s.log; a failure noted: WHAT, its first $fails line
    local part=$1 what=$2; shift 2
    "$p" --check "$@" >"$tmp/$part-$s.log" 2>&1 ||
        note "${part%8}" "$s" FAIL "$what: $(grep -E "${fails:-FAIL|error}" "$tmp/$part-$s.log" | head -n 1)"
}
bits() { # same|vary CSV: the passing kernels whose bits are the same (vary) from run to run
    awk -F, -v b="$1" "$named"' $c["pass"] == 1 && $c["bits"] == b { print $c["kernel"] }' "$2" | sort -u | tr '\n' ' '
}
lines() { grep -E "$@" | head -n 2 | tr '\n' ' '; } # GREP_ARGS...: the first two lines found, on one line
for part in $parts; do
    echo "== $part"
    if [ "$part" = flush ]; then
        if ! command -v ncu >/dev/null; then
            echo "the flush part needs ncu (Nsight Compute, part of the CUDA toolkit): not run"
            note flush all skipped "needs ncu"
        elif scripts/flush_check.sh >"$tmp/flush.log" 2>&1; then
            note flush all ok "$(grep -c '^ok ' "$tmp/flush.log") readings: every timed run read >= 99% of its input from DRAM"
        else note flush all FAIL "$(lines '^FAIL|error' "$tmp/flush.log")"; fi
        continue
    fi
    if [ "$part" = evidence ]; then # what the READMEs say of SASS and counters, kept beside the results
        dir=plots/results/$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | slug)
        mkdir -p "$dir"
    fi
    for p in $programs; do
        s=$(stage_of "$p")
        case $part in
        evidence) # make stage-NN sass (its summary) and profile, as plots/results/<gpu>/{sass,profile}-<stage>.txt
            for verb in sass profile; do
                if make --no-print-directory -s "stage-${s%%_*}" "$verb" >"$tmp/$verb-$s.txt" 2>&1; then
                    if [ $verb = sass ]; then sed -n '/^Summary per kernel/,$p' "$tmp/$verb-$s.txt"; else cat "$tmp/$verb-$s.txt"; fi >"$dir/$verb-$s.txt"
                    note evidence "$s" ok "$verb: $dir/$verb-$s.txt"
                elif grep -q "not found" "$tmp/$verb-$s.txt"; then note evidence "$s" skipped "$(head -n 1 "$tmp/$verb-$s.txt")"
                else note evidence "$s" FAIL "$verb: $(tail -n 1 "$tmp/$verb-$s.txt")"; fi
            done ;;
        sanitize) # make stage-NN sanitize: the 4 tools clean, the deliberately wrong kernels caught
            if scripts/stage_tool.sh sanitize "$s" >"$tmp/san-$s.log" 2>&1; then
                note sanitize "$s" ok "4 tools clean$(grep -c '^Deliberately' "$tmp/san-$s.log" | sed 's/^0$//; s/^[1-9].*/; wrong kernels caught/')"
            else note sanitize "$s" FINDING "$(lines 'FINDING|NOT caught' "$tmp/san-$s.log")"; fi ;;
        offset) # the input 1 and 3 elements past an aligned address: right, or refused, never a fault
            "$p" --help | grep -q -- '--offset' || { note offset "$s" skipped "its program has no --offset"; continue; }
            for k in 1 3; do
                check offset "--offset $k" --n 1000003 --offset $k --reps 1 --warmup 0 || continue
                refused=$(grep -c 'skipped: the input is not' "$tmp/offset-$s.log")
                note offset "$s" ok "--offset $k: all right$( [ "$refused" -gt 0 ] && echo ", $refused vector kernels refused the unaligned input")"
            done ;;
        nonfinite) # a NaN, then a +Inf: the result must be NaN (+Inf) and say so (rows: kernel, result, errors, ok)
            fills=$(describe "$p" fills)
            [[ " $fills " == *" nan "* && " $fills " == *" inf "* ]] ||
                { note nonfinite "$s" skipped "its fills ($fills) have no nan and inf"; continue; }
            for f in nan inf; do
                fails=FAIL check nonfinite "--fill $f" --n 1000003 --fill $f --reps 1 --warmup 0 || continue
                shown=$(awk -v f=$f '$5 == "ok" && tolower($2) ~ f' "$tmp/nonfinite-$s.log" | wc -l)
                note nonfinite "$s" ok "--fill $f: every kernel passes, $shown rows give $f (int8 has no NaN or Inf and fp8 e4m3 no Inf: those pass with finite sums)"
            done ;;
        repro) # 5 runs on the same data: float atomics may vary, anything else must give the same bits
            if "$p" --check --n 2^24 --reps 5 --warmup 0 --csv "$tmp/repro-$s.csv" >"$tmp/repro-$s.log" 2>&1; then
                note repro "$s" ok "same bits: $(bits same "$tmp/repro-$s.csv")| varying (float atomics): $(bits vary "$tmp/repro-$s.csv")"
            else note repro "$s" FAIL "$(lines -B1 'a race|FAIL' "$tmp/repro-$s.log")"; fi ;;
        edge) # the edge sizes (64-bit indices), and the 8-bit inputs' default reductions at N = 2^32 + 17
            edge=$(describe "$p" edge_sizes)
            [ -n "$edge" ] || { note edge "$s" FAIL "its --describe names no edge sizes"; continue; }
            check edge "N = $edge" --n "$edge" --reps 1 --warmup 0 && note edge "$s" ok "N = $edge: every kernel passes"
            # (The histograms' u8 samples are left out: their 32-bit counters stop at 2^32 samples, and say so.)
            eight=$(describe "$p" kernels | awk '$3 == "default" && $2 ~ /^(fp8_|i8$)/ { printf "%s%s", sep, $1; sep = "," }')
            [ -n "$eight" ] && check edge8 "N = 2^32+17" --n 2^32+17 --kernel "$eight" --reps 1 --warmup 0 &&
                note edge "$s" ok "N = 2^32+17, 8-bit inputs ($eight): every kernel passes" ;;
        esac
    done
done
printf '\naudit summary\n%-10s %-20s %-8s %s\n' part stage result detail
cat "$tmp/summary"
[ $unexpected -eq 0 ] || { printf '\naudit: %s unexpected findings\n' $unexpected; exit 1; }
printf '\naudit: no unexpected findings\n'

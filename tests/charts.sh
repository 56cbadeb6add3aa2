# shellcheck shell=bash
# Charts and README tables from the committed reference results: sourced by tests/run.sh once
# ok/bad/skipped/expect and $tmp exist.
refs=$(ls plots/reference/*/results.csv 2>/dev/null)
if [ -z "$refs" ]; then
    bad "reference results are committed under plots/reference/<gpu>/results.csv"
fi
[ "$(echo "$refs" | grep -c .)" -ge 2 ] && ok "reference results of more than one GPU are committed ($(echo $refs | xargs -n1 dirname | xargs -n1 basename | tr '\n' ' '))" ||
    bad "reference results of at least two GPUs are committed (found: $refs)"
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
# by_name CSV PROGRAM: the awk PROGRAM over a results CSV, its columns read by name ($col["stage"]).
by_name() { awk -f scripts/csv.awk -f <(printf '%s' "$2") "$1"; }
# chart_key GP KEY: the value of "# KEY: value" in the header of the chart GP.
chart_key() { sed -n "/^#/!q; s/^# $2: *//p" "$1"; }
for csv in plots/reference/*/results.csv plots/reference/*/multigpu.csv; do
    [ -f "$csv" ] || continue
    # The charts whose rows the CSV has: a stage names the chart (NAME or NAME+), or owns it (NAME+)
    # for a chart that goes into a stage's README.
    tokens=" $(by_name "$csv" 'BEGIN { need = "charts" } { print $col["charts"] }' | tr ' ' '\n' | sort -u | tr '\n' ' ') "
    charts=
    for gp in plots/*.gp; do
        name=$(chart_key "$gp" chart)
        case " $(chart_key "$gp" readme) " in *" stage "*) owned=1 ;; *) owned=0 ;; esac
        if [[ $tokens == *" $name+ "* ]] || { [ $owned = 0 ] && [[ $tokens == *" $name "* ]]; }; then charts="$charts $name"; fi
    done
    out=$tmp/charts/$(basename "$(dirname "$csv")")
    if ! command -v gnuplot >/dev/null; then
        skipped "charts render from $csv ($(missing gnuplot))"
    elif [ -z "$charts" ]; then
        bad "$csv has the rows of no chart of plots/*.gp (its charts column)"
    elif scripts/plot.sh "$csv" "$out" >"$tmp/plot" 2>&1; then
        for name in $charts; do
            if is_png "$out/$name.png"; then ok "$name chart renders from $csv"; else bad "$name chart renders from $csv"; fi
        done
    else
        bad "charts render from $csv:"
        tail -n 5 "$tmp/plot" | sed 's/^/     | /'
    fi
    bad_rows=$(by_name "$csv" 'BEGIN { need = "stage pass" } $col["stage"] != "00_device" && $col["pass"] != 1' | wc -l)
    if [ "$bad_rows" -eq 0 ]; then ok "every row of $csv passed verification"; else bad "$bad_rows rows of $csv failed verification"; fi
done
for csv in $refs; do
    # Physical limits. With L2 flushed, no row may be faster than DRAM can deliver the bytes its GB/s
    # counts, nor than the speed of light of the bytes it reads (the shortest launch floor plus its
    # bytes_read over the fastest read-only bandwidth of the run). Bytes written are not counted there:
    # a write can sit in L2 until after the timed run. 0.1%: the CSV's rounding.
    over=$(by_name "$csv" 'BEGIN { need = "stage kernel n gbps l2" }
        $col["stage"] == "00_device" && $col["kernel"] == "dram_peak" { peak = $col["gbps"] }
        $col["stage"] != "00_device" && $col["l2"] != "warm" && $col["gbps"] + 0 > peak * 1.001 { printf "%s %s n=%s %s GB/s; ", $col["stage"], $col["kernel"], $col["n"], $col["gbps"] }')
    if [ -z "$over" ]; then ok "no flushed row of $csv exceeds the theoretical DRAM peak"; else bad "rows of $csv above the DRAM peak: $over"; fi
    beat=$(by_name "$csv" 'BEGIN { need = "stage kernel dtype n median_us gbps l2 bytes_read" }
        $col["stage"] == "00_device" {
            if ($col["kernel"] == "read_sol" && $col["gbps"] + 0 > sol) sol = $col["gbps"] + 0
            if ($col["kernel"] == "launch_floor" && (floor == "" || $col["median_us"] + 0 < floor)) floor = $col["median_us"] + 0
            next
        }
        $col["l2"] == "flushed" {
            if ($col["bytes_read"] == "") { print "no bytes_read: " $col["stage"] " " $col["kernel"]; exit }
            t[NR] = $col["median_us"]; b[NR] = $col["bytes_read"]; name[NR] = $col["stage"] " " $col["kernel"] " " $col["dtype"] " n=" $col["n"]
        }
        END { if (sol <= 0) { print "no read_sol row"; exit }
              for (r in t) { limit = floor + b[r] / sol / 1e3; if (t[r] * 1.001 < limit) printf "%s: %.2f us < %.2f us; ", name[r], t[r], limit } }')
    if [ -z "$beat" ]; then ok "no flushed row of $csv beats the speed of light"; else bad "rows of $csv faster than the speed of light: $beat"; fi
    flush=$(dirname "$csv")/flush_check.csv
    if [ -f "$flush" ]; then
        readings=$(awk -F, 'NR > 1 && (($6 == "flushed" && $9 + 0 >= 0.99 && $8 + 0 >= 0.99 * $5) || ($6 == "warm" && $9 + 0 < 0.5)) && $10 == 1' "$flush" | wc -l)
        flushed=$(awk -F, 'NR > 1 && $6 == "flushed"' "$flush" | wc -l)
        if [ "$readings" -eq $(($(wc -l <"$flush") - 1)) ] && [ "$flushed" -ge 9 ]; then
            ok "$flush: every timed run read >= 99% of its input from DRAM ($flushed flushed readings, the warm controls under 50%)"
        else
            bad "$flush: $readings of $(($(wc -l <"$flush") - 1)) readings as they must be ($flushed flushed)"
        fi
    else
        bad "$flush: the flush check's readings are committed with the results (make bench on a machine with ncu)"
    fi
done
for csv in plots/reference/*/multigpu.csv; do
    [ -f "$csv" ] || continue
    over=$(by_name "$csv" 'BEGIN { need = "kernel n pct_peak l2" }
        $col["l2"] != "warm" && $col["pct_peak"] != "" && $col["pct_peak"] + 0 > 100.1 { printf "%s n=%s %s%%; ", $col["kernel"], $col["n"], $col["pct_peak"] }')
    if [ -z "$over" ]; then ok "no flushed row of $csv exceeds the DRAM peak of its GPUs"; else bad "rows of $csv above the DRAM peak: $over"; fi
done
if command -v gnuplot >/dev/null; then
    expect "make plot draws from the committed reference results" 0 "drew the charts" -- make --no-print-directory -s plot
else
    skipped "make plot draws from the committed reference results ($(missing gnuplot))"
fi
expect "README.md tables are the ones generated from the reference CSV" 0 "" -- scripts/reference.sh --check
# The accuracy lab (make accuracy): committed for every GPU with reference results; its chart draws
# from it, and every result lies within the bound its check used.
for dir in $(echo "$refs" | xargs -n1 dirname); do
    acc=$dir/accuracy.csv
    if [ ! -f "$acc" ]; then
        bad "the accuracy lab's results are committed for $(basename "$dir") ($acc)"
        continue
    fi
    outside=$(by_name "$acc" 'BEGIN { need = "stage kernel n pass fill cond" }
        $col["stage"] != "00_device" && $col["pass"] != 1 && $col["pass"] != "xfail" { printf "%s %s %s n=%s %s; ", $col["stage"], $col["kernel"], $col["fill"], $col["n"], $col["cond"] }')
    if [ -z "$outside" ]; then ok "every result of $acc lies within its bound"; else bad "results of $acc outside their bound: $outside"; fi
    if ! command -v gnuplot >/dev/null; then
        skipped "the accuracy chart renders from $acc ($(missing gnuplot))"
    elif scripts/plot_accuracy.sh "$acc" "$tmp/accuracy.png" >"$tmp/plot" 2>&1 && is_png "$tmp/accuracy.png"; then
        ok "the accuracy chart renders from $acc"
    else
        bad "the accuracy chart renders from $acc:"
        tail -n 5 "$tmp/plot" | sed 's/^/     | /'
    fi
done
# What limits each N (make limits): committed for every GPU with reference results, a row for each limit
# kernel a program declares and for CUB at each of its bench sizes, and each profiled run read at least
# its input from DRAM (the counters are of flushed runs).
for dir in $(echo "$refs" | xargs -n1 dirname); do
    lim=$dir/limits.csv
    for p in $(make --no-print-directory -s programs); do
        [ -x "$p" ] || continue
        kernels=$("$p" --describe | sed -n 's/^limit kernels: *//p')
        [ -n "$kernels" ] || continue
        s=$("$p" --describe | sed -n 's/^stage: *//p')
        sizes=$("$p" --describe | sed -n 's/^bench sizes: *//p' | tr ',' '\n' | grep -c .)
        if [ ! -f "$lim" ]; then
            bad "make limits' results are committed for $(basename "$dir") ($lim)"
            continue
        fi
        missing=$(by_name "$lim" 'BEGIN { need = "stage kernel n" } $col["stage"] == "'"$s"'" { c[$col["kernel"]]++ }
            END { split("cub '"$kernels"'", k, " "); for (i in k) if (c[k[i]] != '"$sizes"') printf "%s (%d of '"$sizes"' sizes) ", k[i], c[k[i]] }')
        if [ -z "$missing" ]; then ok "$lim has $s's limit kernels and CUB at each of its $sizes bench sizes"
        else bad "$lim has $s's limit kernels and CUB at each bench size: $missing"; fi
    done
    [ -f "$lim" ] || continue
    short=$(by_name "$lim" 'BEGIN { need = "stage kernel dtype n dram_bytes" }
        { b = $col["dtype"] ~ /^fp8|^i8$/ ? 1 : $col["dtype"] ~ /16$/ ? 2 : 4
          if ($col["dram_bytes"] + 0 < 0.99 * $col["n"] * b) printf "%s %s n=%s: %s bytes; ", $col["stage"], $col["kernel"], $col["n"], $col["dram_bytes"] }')
    if [ -z "$short" ]; then ok "every profiled run of $lim read at least 99% of its input from DRAM"; else bad "runs of $lim that read less than their input from DRAM: $short"; fi
done
# A stage's targets (stages/NN_*/targets.csv): every target gets a verdict on every committed GPU.
for targets in stages/*/targets.csv; do
    [ -f "$targets" ] || continue
    s=$(basename "$(dirname "$targets")")
    want=$(grep -vcE '^(#|what,|$)' "$targets")
    # shellcheck disable=SC2086
    got=$(awk -f scripts/csv.awk -v stage="$s" -v targets="$targets" -f scripts/targets.awk $refs |
        awk -F'|' 'NR > 2 { v = 0; for (i = 5; i < NF; i++) v += $i ~ / \([0-9]/; if (v == NF - 5) n++ } END { print n + 0 }')
    if [ "$got" = "$want" ]; then ok "$s: each of its $want targets has a verdict on every committed GPU"
    else bad "$s: $got of its $want targets have a verdict on every committed GPU"; fi
done
# A stage README that shows its demo's output (<!-- demo-output:begin -->): the output is committed for
# every GPU with reference results (make bench keeps it as demo-<stage>.txt).
for readme in stages/*/README.md; do
    grep -qx '<!-- demo-output:begin -->' "$readme" || continue
    s=$(basename "$(dirname "$readme")")
    missing=$(for dir in $(echo "$refs" | xargs -n1 dirname); do [ -s "$dir/demo-$s.txt" ] || echo "$dir"; done | tr '\n' ' ')
    if [ -z "$missing" ]; then ok "$s: its demo's output is committed for every GPU"
    else bad "$s: its demo's output is missing in $missing"; fi
done

# shellcheck shell=bash
# Charts and README tables from the committed reference results: sourced by tests/run.sh once
# ok/bad/skipped/expect and $tmp exist.
refs=$(ls plots/reference/*/results.csv 2>/dev/null)
# The committed results checked (python3 tests/verify_reference.py): of at least two GPUs; every row
# passed verification; with L2 flushed, none above the DRAM peak or faster than the speed of light; the
# flush check's readings; the accuracy lab's results within their bounds; make limits' rows, each read
# from DRAM. A line per check, ok or FAIL; exit 1 if one failed, 2 if it could not run.
verdicts=$(python3 tests/verify_reference.py)
verify_rc=$?
while read -r verdict line; do
    [ -n "$verdict" ] || continue
    if [ "$verdict" = ok ]; then ok "$line"; else bad "$line"; fi
done <<<"$verdicts"
[ $verify_rc -le 1 ] || bad "python3 tests/verify_reference.py checks the committed reference results (exit $verify_rc)"
is_png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
for csv in plots/reference/*/results.csv plots/reference/*/multigpu.csv; do
    [ -f "$csv" ] || continue
    # The charts whose rows the CSV has, as the reporting program chooses them (its stages' descriptions
    # name their charts).
    charts=$(python3 scripts/report charts "$csv")
    out=$tmp/charts/$(basename "$(dirname "$csv")")
    if ! command -v gnuplot >/dev/null; then
        skipped "charts render from $csv ($(missing gnuplot))"
    elif [ -z "$charts" ]; then
        bad "$csv has the rows of no chart of plots/*.gp (its stages' descriptions name their charts)"
    elif python3 scripts/report plot "$csv" "$out" >"$tmp/plot" 2>&1; then
        for name in $charts; do
            if is_png "$out/$name.png"; then ok "$name chart renders from $csv"; else bad "$name chart renders from $csv"; fi
        done
    else
        bad "charts render from $csv:"
        tail -n 5 "$tmp/plot" | sed 's/^/     | /'
    fi
done
if command -v gnuplot >/dev/null; then
    expect "make plot draws from the committed reference results" 0 "drew the charts" -- make --no-print-directory -s plot
else
    skipped "make plot draws from the committed reference results ($(missing gnuplot))"
fi
expect "make docs-check: every generated block is the one the committed results give, every claim holds" 0 "" -- \
    make --no-print-directory -s docs-check
# The accuracy lab's chart (make accuracy) draws from its committed results (verify checks they are).
for dir in $(echo "$refs" | xargs -n1 dirname); do
    acc=$dir/accuracy.csv
    [ -f "$acc" ] || continue
    if ! command -v gnuplot >/dev/null; then
        skipped "the accuracy chart renders from $acc ($(missing gnuplot))"
    elif python3 scripts/report plot-accuracy "$acc" "$tmp/accuracy.png" >"$tmp/plot" 2>&1 && is_png "$tmp/accuracy.png"; then
        ok "the accuracy chart renders from $acc"
    else
        bad "the accuracy chart renders from $acc:"
        tail -n 5 "$tmp/plot" | sed 's/^/     | /'
    fi
done
# A stage's targets (stages/NN_*/targets.csv): every target gets a verdict on every committed GPU.
for targets in stages/*/targets.csv; do
    [ -f "$targets" ] || continue
    s=$(basename "$(dirname "$targets")")
    want=$(grep -vcE '^(#|what,|$)' "$targets")
    # shellcheck disable=SC2086
    got=$(python3 scripts/report targets --stage "$s" --targets "$targets" $refs |
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

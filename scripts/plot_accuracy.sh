#!/usr/bin/env bash
# Draw the accuracy lab's chart (plots/lab/accuracy.gp) from its CSV (scripts/accuracy.sh).
# usage: scripts/plot_accuracy.sh CSV PNG
# Three panels: relative error against N on the random and on the wide data, and against the
# condition number at one N on the cond data; a line per kernel ("NN kernel"), and the bound its
# check used, dashed, in the same colour. An exact result (error 0) has no point on a log axis.
# Exit codes: 2 bad CSV, 4 gnuplot missing, other: gnuplot failed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:?usage: scripts/plot_accuracy.sh CSV PNG}
png=${2:?usage: scripts/plot_accuracy.sh CSV PNG}
[ -s "$csv" ] || { echo "error: $csv is missing or empty" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "gnuplot not found: $png not drawn" >&2; exit 4; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# $tmp/data: for each panel (random, wide, cond) and each kernel, a block "title", then lines x rel_err
# rel_bound, sorted by x; blocks separated by two blank lines, the panels in that order with the same
# kernels (an empty block where a kernel has no rows), so that block i + p * series is kernel i's in panel p.
awk -f "$here/scripts/csv.awk" -v out="$tmp/data" -v vars="$tmp/vars" -f <(cat <<'AWK'
BEGIN { need = "gpu stage kernel n rel_err pass fill rel_bound cond"; split("random wide cond", panel, " ") }
$col["stage"] == "00_device" || $col["kernel"] == "cub" { next }
{
    label = substr($col["stage"], 1, index($col["stage"], "_") - 1) " " $col["kernel"]
    if (!(label in seen)) { seen[label] = 1; order[++count] = label }
    x = $col["fill"] == "cond" ? $col["cond"] : $col["n"]
    key = label SUBSEP $col["fill"]
    pts[key] = pts[key] sprintf("%s %s %s\n", x, $col["rel_err"] + 0 > 0 ? $col["rel_err"] : "NaN", $col["rel_bound"] == "" ? "NaN" : $col["rel_bound"])
    if ($col["fill"] == "cond") condn = $col["n"]
    gpu = $col["gpu"]
}
END {
    for (p = 1; p <= 3; p++)
        for (i = 1; i <= count; i++) {
            printf "\"%s\"\n", order[i] > out
            m = split(pts[order[i] SUBSEP panel[p]], line, "\n")
            for (a = 1; a < m; a++) for (b = a + 1; b < m; b++) {
                split(line[a], u, " "); split(line[b], v, " ")
                if (u[1] + 0 > v[1] + 0) { t = line[a]; line[a] = line[b]; line[b] = t }
            }
            for (a = 1; a < m; a++) print line[a] > out
            printf "\n\n" > out
        }
    printf "series = %d; condn = %.0f; gpu = \"%s\"\n", count, condn, gpu > vars
}
AWK
) "$csv"
gnuplot -e "datafile='$tmp/data'; out='$png'; load '$tmp/vars'" "$here/plots/lab/accuracy.gp"

#!/usr/bin/env bash
# Draw stage 11's chart from a CSV written by build/11_scan_histogram/scan_histogram --csv, with gnuplot.
# usage: scripts/plot_scan_histogram.sh CSV OUTDIR
#   OUTDIR/scan_histogram.png  left: scan GB/s (bytes read + written) against N, one line per kernel and
#                              CUB; right: histogram GB/s (bytes read) of every kernel at the largest N,
#                              uniform and skewed data side by side (log scale: the contention shows)
# Other stages' rows are ignored; the last row wins for a repeated (kernel, dtype, n); a kernel whose
# check failed is marked "(FAIL)".
# Exit codes: 2 bad CSV or no stage-11 rows, 4 gnuplot missing (the code of every missing tool), other: gnuplot failed.
set -eu
usage='usage: scripts/plot_scan_histogram.sh CSV OUTDIR'
csv=${1:?$usage}
out=${2:?$usage}
header='gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2'
[ -s "$csv" ] || { echo "error: $csv is missing or empty" >&2; exit 2; }
[ "$(head -1 "$csv")" = "$header" ] || { echo "error: $csv does not start with the header $header" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot not found: install it (e.g. apt-get install gnuplot-nox)" >&2; exit 4; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk -F, -v dir="$tmp" '
    function sort(a, k,   i, j, t) {
        for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    }
    NR == 1 || $2 != "11_scan_histogram" { next }
    { gpu = $1; n = $5 + 0 }
    $4 == "i32" {
        if (!($3 in seen)) { seen[$3] = 1; order[++count] = $3 }
        g[$3, n] = $7; f[$3, n] = $10 != 1; ns[n] = 1
        next
    }
    $4 ~ /^u(8|16)_(uniform|skewed)$/ {
        data = $4; sub(/^u[0-9]+_/, "", data)
        if (!($3 in hseen)) { hseen[$3] = 1; horder[++hcount] = $3 }
        h[$3, data, n] = $7; hf[$3, n] = hf[$3, n] || $10 != 1
        if (n > maxn) maxn = n
    }
    END {
        if (!count && !hcount) exit
        nn = 0
        for (n in ns) sorted[++nn] = n + 0
        sort(sorted, nn)
        for (s = 1; s <= count; s++) {
            k = order[s]; bad = 0
            for (i = 1; i <= nn; i++) if ((k, sorted[i]) in f) bad = bad || f[k, sorted[i]]
            printf "\"%s%s\"\n", k, bad ? " (FAIL)" : "" > (dir "/scan")
            for (i = 1; i <= nn; i++) if ((k, sorted[i]) in g) printf "%d\t%s\n", sorted[i], g[k, sorted[i]] > (dir "/scan")
            printf "\n\n" > (dir "/scan")
        }
        for (s = 1; s <= hcount; s++) {
            k = horder[s]
            if (!((k, "uniform", maxn) in h) && !((k, "skewed", maxn) in h)) continue
            u = (k, "uniform", maxn) in h ? h[k, "uniform", maxn] : "NaN"
            w = (k, "skewed", maxn) in h ? h[k, "skewed", maxn] : "NaN"
            printf "\"%s%s\"\t%s\t%s\n", k, hf[k, maxn] ? " (FAIL)" : "", u, w > (dir "/hist")
        }
        printf "gpu=\"%s\"; series=%d; maxn=%d; minn=%d; maxs=%d;\n", gpu, count, maxn, nn ? sorted[1] : 0, nn ? sorted[nn] : 0 > (dir "/vars")
    }' "$csv"
[ -s "$tmp/vars" ] || { echo "error: $csv has no stage 11 rows (stage 11_scan_histogram)" >&2; exit 2; }
[ -e "$tmp/scan" ] || : >"$tmp/scan"
[ -e "$tmp/hist" ] || : >"$tmp/hist"

cat >"$tmp/chart.gp" <<'EOF'
set terminal pngcairo size 1800,750 font 'sans,11' noenhanced
set output out
set multiplot layout 1,2 title sprintf('%s: stage 11, medians with L2 flushed before every run', gpu)
set grid
set key top left
if (series > 0) {
    set title 'scan of int32: GB/s of bytes read + written (8 N) against N'
    set logscale x 2
    if (minn >= maxs) { set xrange [maxs / 2.0 : maxs * 2.0] }
    set format x '2^%L'
    set xlabel 'N (elements)'
    set ylabel 'GB/s'
    set yrange [0:*]
    plot for [i = 0:series - 1] scanfile index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1)
} else {
    set title 'scan: no rows'
    unset key
    plot [0:1] [0:1] NaN notitle
}
unset logscale x
set format x '% h'
unset xrange
set title sprintf('histograms at N = %d: GB/s of samples read (log scale)', maxn)
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set yrange [*:*]
set xtics rotate by -30 left
set xlabel ''
set ylabel 'GB/s'
set key top right opaque box
set bmargin 10
if (histrows > 0) {
    plot histfile using 2:xtic(1) title 'uniform' lc rgb '#4477aa', '' using 3 title 'skewed (90% in one bin)' lc rgb '#cc6677'
} else {
    unset logscale y
    plot [0:1] [0:1] NaN notitle
}
unset multiplot
EOF
gnuplot -e "$(cat "$tmp/vars") histrows=$(grep -c . "$tmp/hist" || true); scanfile='$tmp/scan'; histfile='$tmp/hist'; out='$out/scan_histogram.png'" "$tmp/chart.gp"
echo "$out/scan_histogram.png"

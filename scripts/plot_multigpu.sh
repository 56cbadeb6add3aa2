#!/usr/bin/env bash
# Draw stage 12's all-reduce chart from a CSV written by build/12_multigpu/multigpu --csv, with gnuplot.
# usage: scripts/plot_multigpu.sh CSV OUTDIR [NVLINK_GBPS [LABEL]]
#   OUTDIR/multigpu.png  bus bandwidth (GB/s) against message size (bytes, log 2), one line per
#                        number of GPUs, dtype and mode (one process, or one process per GPU);
#                        rows of G = 1 hold algbw (busbw is 0 there) and are drawn as such;
#                        a point whose check failed is marked with a red cross
#   NVLINK_GBPS          a horizontal line at this figure (e.g. the GPU's published NVLink bandwidth per
#                        direction), labelled LABEL; a CSV row with kernel nvlink_peak gives it too
# Last row wins for a repeated (kernel, dtype, n).
# Exit codes: 2 bad CSV or arguments, 4 gnuplot missing (the code of every missing tool); other: gnuplot failed.
set -eu
usage='usage: scripts/plot_multigpu.sh CSV OUTDIR [NVLINK_GBPS [LABEL]]'
csv=${1:?$usage}
out=${2:?$usage}
link=${3:-}
link_label=${4:-NVLink}
header='gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2'
[ -s "$csv" ] || { echo "error: $csv is missing or empty" >&2; exit 2; }
[ "$(head -1 "$csv")" = "$header" ] || { echo "error: $csv does not start with the header $header" >&2; exit 2; }
if [ -n "$link" ] && ! [[ $link =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "error: NVLINK_GBPS '$link': give GB/s as a number, e.g. 450" >&2; exit 2
fi
command -v gnuplot >/dev/null || { echo "error: gnuplot not found: install it (e.g. apt-get install gnuplot-nox)" >&2; exit 4; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk -F, -v dir="$tmp" -v link="$link" '
    NR == 1 { next }
    $2 != "12_multigpu" { next }
    $3 == "nvlink_peak" { if (link == "") link = $7; next }
    $3 !~ /^allreduce_g[0-9]+/ { next }
    {
        gpu = $1
        key = $3 SUBSEP $4
        if (!(key in seen)) { seen[key] = 1; order[++count] = key }
        bytes = $5 * ($4 == "bf16" ? 2 : 4)
        val[key, bytes] = $7; fail[key, bytes] = $10 != 1; sizes[bytes] = 1
        if ($7 + 0 > top) top = $7 + 0
    }
    END {
        if (!count) exit
        nn = 0
        for (b in sizes) sorted[++nn] = b + 0
        for (i = 2; i <= nn; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) { t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
        for (s = 1; s <= count; s++) {
            split(order[s], k, SUBSEP)
            g = k[1]; sub(/^allreduce_g/, "", g); procs = g ~ /_procs$/; sub(/_procs$/, "", g)
            title = sprintf("G=%s %s%s%s", g, k[2], procs ? ", one process per GPU" : "", g == 1 ? " (algbw: no link crossed)" : "")
            printf "\"%s\"\n", title > (dir "/data")
            for (i = 1; i <= nn; i++) if ((order[s], sorted[i]) in val)
                printf "%d\t%s\t%d\n", sorted[i], val[order[s], sorted[i]], fail[order[s], sorted[i]] > (dir "/data")
            printf "\n\n" > (dir "/data")
        }
        tics = ""
        for (i = 1; i <= nn; i++) {
            b = sorted[i]
            if (b >= 2^30 && b % 2^30 == 0) l = (b / 2^30) "G"
            else if (b >= 2^20 && b % 2^20 == 0) l = (b / 2^20) "M"
            else if (b >= 2^10 && b % 2^10 == 0) l = (b / 2^10) "K"
            else l = b
            tics = tics (i > 1 ? ", " : "") sprintf("\"%s\" %d", l, b)
        }
        if (link + 0 > top) top = link + 0
        printf "gpu=\"%s\"; series=%d; minb=%d; maxb=%d; link=%s; top=%s;\n", gpu, count, sorted[1], sorted[nn], link == "" ? 0 : link, top > (dir "/vars")
        printf "set xtics (%s)\n", tics > (dir "/tics")
    }' "$csv"
[ -s "$tmp/data" ] || { echo "error: $csv has no stage 12 all-reduce rows (kernel allreduce_gN)" >&2; exit 2; }

cat >"$tmp/chart.gp" <<EOF
set terminal pngcairo size 1400,700 font 'sans,11' noenhanced
set output out
set title sprintf('%s: ncclAllReduce bus bandwidth against message size (busbw = algbw x 2(G-1)/G)', gpu)
set logscale x 2
set xrange [minb / 1.5 : maxb * 1.5]
load '$tmp/tics'
set xlabel 'message size (bytes per GPU)'
set ylabel 'bus bandwidth (GB/s)'
set yrange [0:top * 1.15]
set grid
set key outside right center
set rmargin 44
if (link > 0) {
    set arrow 1 from graph 0, first link to graph 1, first link nohead lw 2 lc rgb '#c00000' dt 2
    set label 1 sprintf('%s %.0f GB/s', link_label, link) at graph 0.01, first link offset 0, 0.7 tc rgb '#c00000'
}
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1), \
     for [i = 0:series - 1] datafile index i using 1:(\$3 != 0 ? \$2 : 1/0) with points pt 2 ps 3 lc rgb '#c00000' notitle
EOF
gnuplot -e "$(cat "$tmp/vars") datafile='$tmp/data'; out='$out/multigpu.png'; link_label='$link_label'" "$tmp/chart.gp"
echo "$out/multigpu.png"

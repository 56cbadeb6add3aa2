#!/usr/bin/env bash
# Draw the charts of a results CSV (as written by --csv / make bench) with gnuplot.
# usage: scripts/plot.sh CSV OUTDIR [--dumb]
#   OUTDIR/bandwidth.png  GB/s of every stage's kernels at the largest N, CUB last, peak and copy lines
#   OUTDIR/scaling.png    GB/s against N for each stage's best kernel (best at the largest N) and CUB,
#                         with the speed of light (launch floor + bytes / read-only bandwidth) as a curve
#   OUTDIR/roofline.png   GB/s against N: stage 08, CUB, the best fp32 kernels of stages 06 and 07, and
#                         the peak, copy and speed-of-light lines (only when the CSV has stage 08 rows)
#   OUTDIR/l2.png         time against N of the kernels timed both with L2 flushed and left warm (l2
#                         column "warm"), and of CUB the same way, with the L2 size, the launch floor
#                         and the speed of light marked (only when the CSV has warm rows)
#   OUTDIR/dtypes.png     stage 07 (every input type) at its largest N: GB/s and elements/s, CUB
#                         per input type (only when the CSV has stage 07 rows)
#   OUTDIR/library.png    stage 10 (the library's reductions, precisions) at its largest N, next to the
#                         best kernels of stages 06 and 08 (only when the CSV has stage 10 rows)
#   OUTDIR/rows.png       stage 09: GB/s against the row length, every kernel and CUB (only when the
#                         CSV has row-stage rows: a value in the cols column)
#   --dumb                also print the bandwidth chart in the terminal
# CUB is measured once per stage program; the charts use the median of those rows at each N. The
# device rows likewise come from every program: the charts take the fastest read-only bandwidth and the
# shortest launch floor any of them measured (the highest speed of light). Rows with the input left in
# L2 on purpose (l2 = warm) appear only on the L2 chart.
# Exit codes: 2 bad CSV, 4 gnuplot missing (the code of every missing tool), other: gnuplot failed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:?usage: scripts/plot.sh CSV OUTDIR [--dumb]}
out=${2:?usage: scripts/plot.sh CSV OUTDIR [--dumb]}
header='gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass,cols,l2'
[ -s "$csv" ] || { echo "error: $csv is missing or empty" >&2; exit 2; }
[ "$(head -1 "$csv")" = "$header" ] || { echo "error: $csv does not start with the header $header" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot not found: install it (e.g. apt-get install gnuplot-nox)" >&2; exit 4; }
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Last row wins for a repeated (stage, kernel, n); CUB: median over stages at each n.
awk -F, -v dir="$tmp" '
    function median(list,   a, k, i, j, t) {
        k = split(list, a, " ")
        for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    NR == 1 { next }
    $2 == "00_device" {
        if ($3 == "dram_peak") peak = $7
        if ($3 == "d2d_copy") copy = $7
        if ($3 == "read_sol" && $7 + 0 > sol) sol = $7 + 0
        if ($3 == "launch_floor" && (floor == "" || $6 + 0 < floor)) floor = $6 + 0
        if ($3 == "l2_size") l2n = $5 + 0
        next
    }
    $4 == "f32" && $11 == "" {  # every fp32 time, for the L2 chart: flushed, and warm where the CSV has it
        key = $2 SUBSEP $3
        if ($12 == "warm") { if (!(key in wseen)) { wseen[key] = 1; worder[++wcount] = key }; wus[key, $5 + 0] = $6 }
        else fus[key, $5 + 0] = $6
        lns[$5 + 0] = 1
    }
    $12 == "warm" { next }
    $11 != "" {  # a row stage: GB/s against cols
        key = $3
        if (!(key in seenr)) { seenr[key] = 1; orderr[++countr] = key }
        gbpsr[key, $11 + 0] = $7; colsr[$11 + 0] = 1; totalr = $5
        next
    }
    $2 ~ /^07_/ {
        key = $3 SUBSEP $4
        if (!(key in seen7)) { seen7[key] = 1; order7[++count7] = key }
        n7 = $5 + 0; if (n7 > maxn7) maxn7 = n7
        gbps7[key, n7] = $7; us7[key, n7] = $6
    }
    $2 ~ /^10_/ && $4 == "f32" {  # the library stage: its own bars, next to stages 06 and 08
        n10 = $5 + 0; if (n10 > maxn10) maxn10 = n10
        if (!($3 in seen10)) { seen10[$3] = 1; order10[++count10] = $3 }
        g10[$3, n10] = $7; p10[$3, n10] = $8
    }
    $4 != "f32" || substr($2, 1, 2) + 0 > 8 { next }  # the progression: stages 01-08 (later ones chart on their own)
    { gpu = $1; n = $5 + 0; if (n > maxn) maxn = n; if ($2 == "01_naive" && n > maxn01) maxn01 = n }
    $3 == "cub" { cub[n] = cub[n] " " $7; ns[n] = 1; next }
    {
        key = $2 SUBSEP $3
        if (!(key in seen)) { seen[key] = 1; order[++count] = key }
        gbps[key, n] = $7; pct[key, n] = $8; pass[key, n] = $10; ns[n] = 1
        if (n > stage_maxn[$2]) stage_maxn[$2] = n
    }
    END {
        if (maxn01) maxn = maxn01 # bars and best kernels at the largest N of the baseline stage
        minn = maxn
        for (n in ns) if (n + 0 < minn) minn = n + 0
        printf "gpu=\"%s\"; maxn=%d; minn=%d; peak=%s; copy=%s; sol=%s; floor=%s; l2n=%d\n", gpu, maxn, minn, peak + 0, copy + 0, sol + 0, floor + 0, l2n > (dir "/vars")
        # The L2 chart: each kernel with warm rows (CUB of its stage included), flushed and warm.
        nl = 0
        for (n in lns) lsorted[++nl] = n + 0
        for (i = 2; i <= nl; i++) for (j = i; j > 1 && lsorted[j - 1] > lsorted[j]; j--) { t = lsorted[j]; lsorted[j] = lsorted[j - 1]; lsorted[j - 1] = t }
        for (w = 1; w <= wcount; w++) {
            split(worder[w], k, SUBSEP)
            for (mode = 1; mode <= 2; mode++) {
                printf "\"%s %s, L2 %s\"\n", substr(k[1], 1, 2), k[2], mode == 1 ? "flushed" : "warm" > (dir "/l2")
                for (i = 1; i <= nl; i++) {
                    key = worder[w] SUBSEP lsorted[i]
                    if (mode == 1 && (key in fus)) printf "%d\t%s\n", lsorted[i], fus[key] > (dir "/l2")
                    if (mode == 2 && (key in wus)) printf "%d\t%s\n", lsorted[i], wus[key] > (dir "/l2")
                }
                printf "\n\n" > (dir "/l2")
            }
        }
        if (wcount) print 2 * wcount > (dir "/l2series")
        for (i = 1; i <= count; i++) {
            split(order[i], k, SUBSEP)
            if (!((order[i], maxn) in gbps)) continue
            stage = substr(k[1], 1, 2) + 0
            flag = pass[order[i], maxn] == 1 ? "" : " (FAIL)"
            printf "%d\t\"%s %s%s\"\t%s\t%.0f\t%d\n", ++bar, substr(k[1], 1, 2), k[2], flag, gbps[order[i], maxn], pct[order[i], maxn], stage > (dir "/bars")
            if (!(k[1] in best) || gbps[order[i], maxn] + 0 > gbps[best[k[1]], maxn] + 0) { if (!(k[1] in best)) stages[++nstages] = k[1]; best[k[1]] = order[i] }
        }
        if (maxn in cub) { m = median(cub[maxn]); p = peak > 0 ? 100 * m / peak : 0; printf "%d\t\"cub\"\t%s\t%.0f\t%d\n", ++bar, m, p, 0 > (dir "/bars") }
        nn = 0
        for (n in ns) sorted[++nn] = n + 0
        for (i = 2; i <= nn; i++) for (j = i; j > 1 && sorted[j - 1] > sorted[j]; j--) { t = sorted[j]; sorted[j] = sorted[j - 1]; sorted[j - 1] = t }
        for (s = 1; s <= nstages; s++) {
            split(best[stages[s]], k, SUBSEP)
            printf "\"%s %s\"\n", substr(k[1], 1, 2), k[2] > (dir "/scaling")
            for (i = 1; i <= nn; i++) if ((best[stages[s]], sorted[i]) in gbps) printf "%d\t%s\n", sorted[i], gbps[best[stages[s]], sorted[i]] > (dir "/scaling")
            printf "\n\n" > (dir "/scaling")
        }
        printf "\"cub\"\n" > (dir "/scaling")
        for (i = 1; i <= nn; i++) if (sorted[i] in cub) printf "%d\t%s\n", sorted[i], median(cub[sorted[i]]) > (dir "/scaling")
        print nstages + 1 > (dir "/series")
        # Roofline chart: stage 08 against CUB and the best fp32 kernel of stages 06 and 07, each
        # chosen at the largest N of that stage.
        if (("08_roofline" SUBSEP "roofline_f32") in seen) {
            nr = 0
            split("08_roofline:roofline_f32 08_roofline:roofline_f32_deterministic", fixed, " ")
            for (j = 1; j <= 2; j++) { split(fixed[j], kk, ":"); rseries[++nr] = kk[1] SUBSEP kk[2] }
            for (i = 1; i <= count; i++) {
                split(order[i], k, SUBSEP)
                if (k[1] !~ /^0[67]_/) continue
                m = stage_maxn[k[1]]
                if (!(k[1] in rbest) || gbps[order[i], m] + 0 > gbps[rbest[k[1]], m] + 0) rbest[k[1]] = order[i]
            }
            for (st in rbest) rseries[++nr] = rbest[st]
            for (j = 1; j <= nr; j++) {
                split(rseries[j], k, SUBSEP)
                printf "\"%s %s\"\n", substr(k[1], 1, 2), k[2] > (dir "/roofline")
                for (i = 1; i <= nn; i++) if ((rseries[j], sorted[i]) in gbps) printf "%d\t%s\n", sorted[i], gbps[rseries[j], sorted[i]] > (dir "/roofline")
                printf "\n\n" > (dir "/roofline")
            }
            printf "\"cub\"\n" > (dir "/roofline")
            for (i = 1; i <= nn; i++) if (sorted[i] in cub) printf "%d\t%s\n", sorted[i], median(cub[sorted[i]]) > (dir "/roofline")
            print nr + 1 > (dir "/rseries")
        }
        groups = "f32 f16 bf16 fp8_e4m3 fp8_e5m2 i8"
        for (i = 1; i <= count7; i++) {
            if (!((order7[i], maxn7) in gbps7)) continue
            split(order7[i], k, SUBSEP)
            g = index(" " groups " ", " " k[2] " ") ? split(substr(groups, 1, index(groups, k[2])), tmp, " ") : 0
            label = k[1] == "cub" ? "cub " k[2] : k[1]
            printf "%d\t\"%s\"\t%s\t%.2f\t%d\t%d\n", ++bar7, label, gbps7[order7[i], maxn7], maxn7 / us7[order7[i], maxn7] / 1e3, g, k[1] == "cub" > (dir "/dtypes")
        }
        if (bar7) printf "maxn7=%d;\n", maxn7 > (dir "/vars7")
        for (i = 1; i <= count10; i++) {
            if (!((order10[i], maxn10) in g10)) continue
            printf "%d\t\"10 %s\"\t%s\t%.0f\t%d\n", ++bar10, order10[i], g10[order10[i], maxn10], p10[order10[i], maxn10], order10[i] == "cub" ? 0 : 10 > (dir "/bars10")
        }
        for (i = 1; bar10 && i <= count; i++) {  # the hand-written best of stages 06 and 08 at that N
            split(order[i], k, SUBSEP)
            if (k[1] !~ /^0[68]_/ || !((order[i], maxn10) in gbps)) continue
            if (!(k[1] in lbest) || gbps[order[i], maxn10] + 0 > gbps[lbest[k[1]], maxn10] + 0) lbest[k[1]] = order[i]
        }
        for (st in lbest) {
            split(lbest[st], k, SUBSEP)
            printf "%d\t\"%s %s\"\t%s\t%.0f\t%d\n", ++bar10, substr(k[1], 1, 2), k[2], gbps[lbest[st], maxn10], pct[lbest[st], maxn10], substr(k[1], 1, 2) + 0 > (dir "/bars10")
        }
        if (bar10) printf "maxn=%d;\n", maxn10 > (dir "/vars10")
        nc = 0
        for (c in colsr) csorted[++nc] = c + 0
        for (i = 2; i <= nc; i++) for (j = i; j > 1 && csorted[j - 1] > csorted[j]; j--) { t = csorted[j]; csorted[j] = csorted[j - 1]; csorted[j - 1] = t }
        for (j = 1; j <= countr; j++) {
            printf "\"%s\"\n", orderr[j] > (dir "/rows")
            for (i = 1; i <= nc; i++) if ((orderr[j], csorted[i]) in gbpsr) printf "%d\t%s\n", csorted[i], gbpsr[orderr[j], csorted[i]] > (dir "/rows")
            printf "\n\n" > (dir "/rows")
        }
        if (countr) printf "series=%d; total=%s;\n", countr, totalr > (dir "/varsr")
    }' "$csv"
[ -s "$tmp/bars" ] || { echo "error: $csv has no kernel rows" >&2; exit 2; }

vars="$(cat "$tmp/vars"); series=$(cat "$tmp/series");"
gnuplot -e "$vars datafile='$tmp/bars'; term='png'; out='$out/bandwidth.png'" "$here/plots/bandwidth.gp"
gnuplot -e "$vars datafile='$tmp/scaling'; term='png'; out='$out/scaling.png'" "$here/plots/scaling.gp"
if [ -s "$tmp/roofline" ]; then
    gnuplot -e "$vars series=$(cat "$tmp/rseries"); datafile='$tmp/roofline'; term='png'; out='$out/roofline.png'" "$here/plots/roofline.gp"
fi
if [ -s "$tmp/dtypes" ]; then
    gnuplot -e "$vars $(cat "$tmp/vars7") datafile='$tmp/dtypes'; out='$out/dtypes.png'" "$here/plots/dtypes.gp"
fi
if [ -s "$tmp/bars10" ]; then
    gnuplot -e "$vars $(cat "$tmp/vars10") datafile='$tmp/bars10'; term='png'; out='$out/library.png'" "$here/plots/bandwidth.gp"
fi
if [ -s "$tmp/rows" ]; then
    gnuplot -e "$vars $(cat "$tmp/varsr") datafile='$tmp/rows'; out='$out/rows.png'" "$here/plots/rows.gp"
fi
if [ -s "$tmp/l2" ]; then
    gnuplot -e "$vars series=$(cat "$tmp/l2series"); datafile='$tmp/l2'; out='$out/l2.png'" "$here/plots/l2.gp"
fi
if [ "${3:-}" = --dumb ]; then
    gnuplot -e "$vars datafile='$tmp/bars'; term='dumb'; out=''" "$here/plots/bandwidth.gp"
    awk -F'\t' '{ gsub(/"/, "", $2); printf "  %2d %-44s %7.0f GB/s %4d%%\n", $1, $2, $3, $4 }' "$tmp/bars"
fi

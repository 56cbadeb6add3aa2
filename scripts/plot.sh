#!/usr/bin/env bash
# Draw the charts of a results CSV (results.csv, or multigpu.csv: the same columns) with gnuplot.
# usage: scripts/plot.sh CSV OUTDIR [--dumb]
#   --dumb   also print in the terminal the bar charts that go into the top README
# Every plots/*.gp is a chart. Its header (the comment lines it starts with) says what it draws:
#   # chart: NAME    its rows, drawn into OUTDIR/NAME.png: those of every stage whose charts column has
#                    the token NAME (the stage's best fp32 kernel at its largest N) or NAME+ (every
#                    kernel of the stage, which owns the chart)
#   # shape: SHAPE   how those rows become series (below)
#   # readme: WHERE  front: the front page (README.md) shows it; top: the results page
#                    (docs/results.md) and each GPU's page do; stage: the README of each stage that
#                    owns it does; or several of these. A chart for a stage's README is drawn only when the
#                    CSV has the rows of a stage that owns it; any other when a stage names it.
#   # alt: EN | ZH   the image's alt text in English and in Chinese; {stage} stands for the numbers of
#                    the stages that own the chart, {others} for those of the other stages on it
# Adding a chart is adding a .gp file (and its token to the stages whose rows it draws).
# Shapes (the rows with the input left in L2, l2 = warm, are only on the l2 shape and the all-reduce;
# bars and lines list the stages that own the chart first, then the others, in the CSV's order):
#   bars    GB/s at one N, a bar per fp32 kernel, CUB last: N is the largest N of the first stage
#           listed; datafile lines: index, "label", GB/s, % of peak, stage number (0: CUB); maxn
#   lines   GB/s of fp32 kernels against N, CUB last; datafile blocks: "title", then lines N GB/s;
#           series, minn, maxn
#   l2      the median time against N of each fp32 kernel with rows in L2 both flushed and warm;
#           datafile blocks alternate flushed and warm: "title", then lines N µs; series
#   cols    GB/s against the row length (cols column) of each kernel; datafile blocks: "title", then
#           lines cols GB/s; series, total (elements of the matrix)
#   types   a bar per kernel and input type at the stage's largest N, CUB of each type beside its
#           kernels; datafile lines: index, "label", GB/s, Gelem/s, input type number, 1 for CUB; maxn
#   panels  the kernels measured on one input type as lines against N (datafile blocks as for lines;
#           series, minn, maxn), those measured on several (data sets, as in u8_uniform and u8_skewed)
#           as bars at the largest N, a column per data set (histfile lines: "label", GB/s per data
#           set; histrows, sets: the data sets' names, barn: the N)
#   busbw   the all-reduce rows (kernel allreduce_gG[_procs]): GB/s against the bytes each GPU holds
#           (bytes_read); datafile blocks: "title", then lines bytes GB/s failed; series, minb, maxb,
#           top, sizetics (a gnuplot command), link and link_label: a line at NVLINK_GBPS (a published
#           figure the CSV does not hold; unset: no line), labelled NVLINK_LABEL (default "NVLink")
# Every chart also gets: datafile, out (the PNG), term ('png' or 'dumb'), plotdir (plots/), gpu, peak
# and copy (GB/s), sol (the fastest read-only GB/s any program measured), floor (the shortest launch
# floor, µs), l2n (elements of fp32 that fill L2), stage and others (as {stage} and {others} above).
# CUB, where several stages measured it, is the median of their CUB rows at each N. A repeated row
# (same stage, kernel, input type, N, cols and l2): the last one wins. A kernel whose check failed is
# marked (FAIL).
# Exit codes: 2 bad CSV, 4 gnuplot missing (the code of every missing tool), 1 a chart file without its
# header lines, other: gnuplot failed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
usage='usage: scripts/plot.sh CSV OUTDIR [--dumb]'
csv=${1:?$usage}
out=${2:?$usage}
[ -s "$csv" ] || { echo "error: $csv is missing or empty" >&2; exit 2; }

# key FILE KEY: the value of "# KEY: value" in the header of the chart FILE.
key() { sed -n "/^#/!q; s/^# $2: *//p" "$1"; }

# The charts, for the awk program below: NAME:SHAPE:OWNED (OWNED 1: drawn only for a stage that owns it).
charts='' terminal=''
declare -A chart_file
for gp in "$here"/plots/*.gp; do
    name=$(key "$gp" chart) shape=$(key "$gp" shape) readme=$(key "$gp" readme)
    [ -n "$name" ] && [ -n "$shape" ] || { echo "error: $gp lacks the header lines '# chart: NAME' and '# shape: SHAPE'" >&2; exit 1; }
    case " $readme " in *" stage "*) owned=1 ;; *) owned=0 ;; esac
    charts="$charts $name:$shape:$owned"
    chart_file[$name]=$gp
    case " $readme " in *" top "*) [ "$shape" = bars ] && terminal="$terminal $name" ;; esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# For each chart whose rows are present: $tmp/NAME.vars (gnuplot assignments), $tmp/NAME.data and,
# for panels, $tmp/NAME.hist.
prog='
BEGIN { need = "gpu stage kernel dtype n median_us gbps pct_peak pass cols l2 bytes_read charts" }
function number(s) { return substr(s, 1, index(s, "_") - 1) }
function sort(a, k,   i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
function median(list,   a, k) {
    k = split(list, a, " ")
    sort(a, k)
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
# join(LIST): "a", "a and b", "a, b and c" from the space-separated LIST.
function join(list,   a, k, i, s) {
    k = split(list, a, " ")
    for (i = 1; i <= k; i++) s = s (i == 1 ? "" : i == k ? " and " : ", ") a[i]
    return s
}
function quote(s) { gsub(/["\\]/, "\\\\&", s); return "\"" s "\"" }
$col["stage"] == "00_device" {
    name = $col["kernel"]; v = $col["gbps"] + 0
    if (name == "dram_peak") peak = v
    if (name == "d2d_copy") copy = v
    if (name == "read_sol" && v > sol) sol = v
    if (name == "launch_floor" && (floor == "" || $col["median_us"] + 0 < floor)) floor = $col["median_us"] + 0
    if (name == "l2_size") l2n = $col["n"] + 0
    next
}
{
    s = $col["stage"]; k = $col["kernel"]; t = $col["dtype"]; n = $col["n"] + 0; c = $col["cols"]; warm = $col["l2"] == "warm"
    id = s SUBSEP k SUBSEP t SUBSEP n SUBSEP c SUBSEP warm
    if (!(id in row)) row[id] = ++rows
    r = row[id]
    S[r] = s; K[r] = k; T[r] = t; N[r] = n; US[r] = $col["median_us"]; G[r] = $col["gbps"]; PCT[r] = $col["pct_peak"]
    FAIL[r] = $col["pass"] != 1; C[r] = c; WARM[r] = warm; B[r] = $col["bytes_read"]
    if (c == "") { if (warm) warmrow[s, k, t, n] = r; else plain[s, k, t, n] = r }
    gpu = $col["gpu"]
    if (!(s in tokens)) { stages[++nstages] = s; tokens[s] = " " $col["charts"] " " }
    if (!((s, k) in kseen)) { kseen[s, k] = 1; kernels[s, ++nkernels[s]] = k }
    if (!((s, k, t) in ktseen)) { ktseen[s, k, t] = 1; kts[s, ++nkts[s]] = k SUBSEP t }
    if (!(n in nseen)) { nseen[n] = 1; ns[++nns] = n }
}
# The largest N of stage s among its one-vector rows, of input type t ("": any).
function largest(s, t,   i, m) {
    for (i = 1; i <= nns; i++) if (ns[i] > m && has(s, t, ns[i])) m = ns[i]
    return m
}
function has(s, t, n,   j, kt) {
    for (j = 1; j <= nkts[s]; j++) { split(kts[s, j], kt, SUBSEP); if ((t == "" || kt[2] == t) && (s, kt[1], kt[2], n) in plain) return 1 }
    return 0
}
# The fastest fp32 kernel of stage s at its largest N, CUB aside.
function best(s,   n, i, k, b) {
    n = largest(s, "f32")
    for (i = 1; i <= nkernels[s]; i++) {
        k = kernels[s, i]
        if (k != "cub" && (s, k, "f32", n) in plain && (b == "" || G[plain[s, k, "f32", n]] + 0 > G[plain[s, b, "f32", n]] + 0)) b = k
    }
    return b
}
# For the chart being drawn: role[s] is "own" (NAME+), "best" (NAME) or ""; pick[s] the best kernel of a
# "best" stage; listed[1 .. nlisted] the chart stages, those that own it first.
# on(s, k): kernel k of stage s is on the chart: every kernel of a stage that owns it, the best of another.
function on(s, k) { return role[s] == "own" || (role[s] == "best" && k == pick[s]) }
# series(FILE, TITLE, s, k, t, WHAT): a block of FILE: kernel k of stage s on input type t at every N,
# WHAT: gbps, flushed (the time) or warm (the time with the input left in L2). Sets minn and maxn.
function series(file, title, s, k, t, what,   i, r, lines, bad) {
    for (i = 1; i <= nns; i++) {
        if (what == "warm") { if (!((s, k, t, ns[i]) in warmrow)) continue; r = warmrow[s, k, t, ns[i]] }
        else { if (!((s, k, t, ns[i]) in plain)) continue; r = plain[s, k, t, ns[i]] }
        lines = lines sprintf("%.0f\t%s\n", ns[i], what == "gbps" ? G[r] : US[r]); bad = bad || FAIL[r]
        if (minn == "" || ns[i] < minn) minn = ns[i]
        if (ns[i] > maxn) maxn = ns[i]
    }
    if (lines == "") return 0
    printf "%s\n%s\n\n", quote(title (bad ? " (FAIL)" : "")), lines > file
    return 1
}
# The median GB/s of the fp32 CUB rows of the chart stages at N, "" for none.
function cub(n,   i, list) {
    for (i = 1; i <= nlisted; i++) if ((listed[i], "cub", "f32", n) in plain) list = list " " G[plain[listed[i], "cub", "f32", n]]
    return list == "" ? "" : median(list)
}
function bars(file,   i, j, s, k, n, r, ref, bar, m) {
    n = largest(listed[1], "f32")
    for (i = 1; i <= nlisted; i++) {
        s = listed[i]
        for (j = 1; j <= nkernels[s]; j++) {
            k = kernels[s, j]
            if (k == "cub" || !on(s, k) || !((s, k, "f32", n) in plain)) continue
            r = plain[s, k, "f32", n]
            printf "%d\t%s\t%s\t%.0f\t%d\n", ++bar, quote(number(s) " " k (FAIL[r] ? " (FAIL)" : "")), G[r], PCT[r], number(s) > file
        }
    }
    m = cub(n)
    if (m != "") printf "%d\t\"cub\"\t%s\t%.0f\t0\n", ++bar, m, (peak > 0 ? 100 * m / peak : 0) > file
    return bar ? sprintf("maxn=%.0f;", n) : ""
}
function lines(file,   i, j, s, k, count, m, block) {
    minn = ""; maxn = 0
    for (i = 1; i <= nlisted; i++) {
        s = listed[i]
        for (j = 1; j <= nkernels[s]; j++) { k = kernels[s, j]; if (k != "cub" && on(s, k)) count += series(file, number(s) " " k, s, k, "f32", "gbps") }
    }
    if (!count) return ""
    for (i = 1; i <= nns; i++) { m = cub(ns[i]); if (m != "") block = block sprintf("%.0f\t%s\n", ns[i], m) }
    if (block != "") { printf "\"cub\"\n%s\n\n", block > file; count++ }
    return sprintf("series=%d; minn=%.0f; maxn=%.0f;", count, minn, maxn)
}
function l2(file,   i, j, s, k, count) {
    for (i = 1; i <= nstages; i++) {
        s = stages[i]
        for (j = 1; j <= nkernels[s]; j++) {
            k = kernels[s, j]
            if (!on(s, k) || !warm_rows(s, k)) continue
            count += series(file, number(s) " " k ", L2 flushed", s, k, "f32", "flushed")
            count += series(file, number(s) " " k ", L2 warm", s, k, "f32", "warm")
        }
    }
    return count ? sprintf("series=%d;", count) : ""
}
function warm_rows(s, k,   i) { for (i = 1; i <= nns; i++) if ((s, k, "f32", ns[i]) in warmrow) return 1; return 0 }
function cols(file,   r, i, j, s, k, lengths, seen, nl, gbps, block, total, count) {
    for (r = 1; r <= rows; r++) {
        if (role[S[r]] != "own" || C[r] == "" || WARM[r]) continue
        if (!((C[r] + 0) in seen)) { seen[C[r] + 0] = 1; lengths[++nl] = C[r] + 0 }
        gbps[S[r], K[r], C[r] + 0] = G[r]; total = N[r]
    }
    sort(lengths, nl)
    for (i = 1; i <= nstages; i++) {
        s = stages[i]
        for (j = 1; j <= nkernels[s]; j++) {
            k = kernels[s, j]; block = ""
            for (r = 1; r <= nl; r++) if ((s, k, lengths[r]) in gbps) block = block sprintf("%d\t%s\n", lengths[r], gbps[s, k, lengths[r]])
            if (block != "") { printf "%s\n%s\n\n", quote(k), block > file; count++ }
        }
    }
    return count ? sprintf("series=%d; total=%.0f;", count, total) : ""
}
function types(file,   i, j, s, n, kt, r, type, ntypes, bar) {
    for (i = 1; i <= nstages; i++) {
        s = stages[i]
        if (role[s] != "own") continue
        n = largest(s, "")
        for (j = 1; j <= nkts[s]; j++) {
            split(kts[s, j], kt, SUBSEP)
            if (!(kt[2] in type)) type[kt[2]] = ++ntypes
            if (!((s, kt[1], kt[2], n) in plain)) continue
            r = plain[s, kt[1], kt[2], n]
            printf "%d\t%s\t%s\t%.2f\t%d\t%d\n", ++bar, quote((kt[1] == "cub" ? "cub " kt[2] : kt[1]) (FAIL[r] ? " (FAIL)" : "")), G[r], n / US[r] / 1e3, type[kt[2]], (kt[1] == "cub") > file
        }
    }
    return bar ? sprintf("maxn=%.0f;", n) : ""
}
# The data set of input type t: its name after the first "_" (u8_skewed: skewed).
function dataset(t) { sub(/^[^_]*_/, "", t); return t }
function panels(file, hist,   i, j, s, k, kt, r, types_of, sets, nsets, names, barn, value, bad, line, count, nvalues, histrows) {
    minn = ""; maxn = 0
    for (i = 1; i <= nstages; i++) {
        s = stages[i]
        if (role[s] != "own") continue
        for (j = 1; j <= nkts[s]; j++) { split(kts[s, j], kt, SUBSEP); types_of[s, kt[1]]++ }
        for (j = 1; j <= nkts[s]; j++) {
            split(kts[s, j], kt, SUBSEP)
            if (types_of[s, kt[1]] == 1) { count += series(file, kt[1], s, kt[1], kt[2], "gbps"); continue }
            if (!(dataset(kt[2]) in sets)) { sets[dataset(kt[2])] = ++nsets; names = names (nsets > 1 ? " " : "") dataset(kt[2]) }
            for (r = 1; r <= nns; r++) if ((s, kt[1], kt[2], ns[r]) in plain && ns[r] > barn) barn = ns[r]
        }
    }
    for (i = 1; i <= nstages; i++) {
        s = stages[i]
        if (role[s] != "own") continue
        for (j = 1; j <= nkernels[s]; j++) {
            k = kernels[s, j]
            if (types_of[s, k] < 2) continue
            split("", value); bad = 0; nvalues = 0
            for (r = 1; r <= nkts[s]; r++) {
                split(kts[s, r], kt, SUBSEP)
                if (kt[1] != k || !((s, k, kt[2], barn) in plain)) continue
                value[sets[dataset(kt[2])]] = G[plain[s, k, kt[2], barn]]; bad = bad || FAIL[plain[s, k, kt[2], barn]]; nvalues++
            }
            if (!nvalues) continue
            line = quote(k (bad ? " (FAIL)" : ""))
            for (r = 1; r <= nsets; r++) line = line "\t" (r in value ? value[r] : "NaN")
            print line > hist; histrows++
        }
    }
    if (!count && !histrows) return ""
    return sprintf("series=%d; minn=%.0f; maxn=%.0f; histrows=%d; barn=%.0f; sets=%s;", count, minn, maxn, histrows, barn, quote(names))
}
# A size in bytes as a tic label: 1K, 2M, 1G.
function size(b) { return b >= 2^30 && b % 2^30 == 0 ? b / 2^30 "G" : b >= 2^20 && b % 2^20 == 0 ? b / 2^20 "M" : b >= 2^10 && b % 2^10 == 0 ? b / 2^10 "K" : b }
function busbw(file,   r, i, id, kt, g, procs, order, at, count, title, seen, bytes, nb, sorted, tics, top, link, label) {
    for (r = 1; r <= rows; r++) {
        if (role[S[r]] != "own" || K[r] !~ /^allreduce_g[0-9]+(_procs)?$/) continue
        id = K[r] SUBSEP T[r]
        if (!(id in seen)) { seen[id] = 1; order[++count] = id }
        at[id, B[r] + 0] = r
        if (!((B[r] + 0) in bytes)) { bytes[B[r] + 0] = 1; sorted[++nb] = B[r] + 0 }
        if (G[r] + 0 > top) top = G[r] + 0
    }
    if (!count) return ""
    sort(sorted, nb)
    for (i = 1; i <= count; i++) {
        split(order[i], kt, SUBSEP)
        g = kt[1]; sub(/^allreduce_g/, "", g); procs = sub(/_procs$/, "", g)
        title = sprintf("G=%s %s%s%s", g, kt[2], procs ? ", one process per GPU" : "", g == 1 ? " (algbw: no link crossed)" : "")
        printf "%s\n", quote(title) > file
        for (r = 1; r <= nb; r++) if ((order[i], sorted[r]) in at) printf "%.0f\t%s\t%d\n", sorted[r], G[at[order[i], sorted[r]]], FAIL[at[order[i], sorted[r]]] > file
        printf "\n\n" > file
    }
    for (r = 1; r <= nb; r++) tics = tics (r > 1 ? ", " : "") sprintf("\047%s\047 %.0f", size(sorted[r]), sorted[r])
    link = ENVIRON["NVLINK_GBPS"] + 0
    label = ENVIRON["NVLINK_LABEL"] != "" ? ENVIRON["NVLINK_LABEL"] : "NVLink"
    if (link > top) top = link
    return sprintf("series=%d; minb=%.0f; maxb=%.0f; top=%s; link=%s; link_label=%s; sizetics=%s;", count, sorted[1], sorted[nb], top, link, quote(label), quote("set xtics (" tics ")"))
}
END {
    sort(ns, nns)
    count = split(charts, list, " ")
    for (c = 1; c <= count; c++) {
        split(list[c], chart, ":")
        name = chart[1]; shape = chart[2]; own = ""; others = ""; nlisted = 0
        for (i = 1; i <= nstages; i++) {
            s = stages[i]
            role[s] = index(tokens[s], " " name "+ ") ? "own" : index(tokens[s], " " name " ") ? "best" : ""
            pick[s] = role[s] == "best" ? best(s) : ""
            if (role[s] == "own") { own = own " " number(s); listed[++nlisted] = s }
        }
        for (i = 1; i <= nstages; i++) if (role[stages[i]] == "best") { others = others " " number(stages[i]); listed[++nlisted] = stages[i] }
        if (own == "" && (others == "" || chart[3])) continue
        file = dir "/" name ".data"
        vars = shape == "bars" ? bars(file) : shape == "lines" ? lines(file) : shape == "l2" ? l2(file) : shape == "cols" ? cols(file) : \
               shape == "types" ? types(file) : shape == "panels" ? panels(file, dir "/" name ".hist") : shape == "busbw" ? busbw(file) : "?"
        if (vars == "?") { printf "error: chart %s: unknown shape %s\n", name, shape > "/dev/stderr"; exit 1 }
        if (vars == "") continue
        printf "gpu=%s; peak=%s; copy=%s; sol=%s; floor=%s; l2n=%.0f; stage=%s; others=%s; %s\n", quote(gpu), peak + 0, copy + 0, sol + 0, floor + 0, l2n, \
            quote(join(own)), quote(join(others)), vars > (dir "/" name ".vars")
    }
}'
awk -f "$here/scripts/csv.awk" -v dir="$tmp" -v charts="$charts" -f <(printf '%s' "$prog") "$csv"
drawn=("$tmp"/*.vars)
[ -e "${drawn[0]}" ] || { echo "error: $csv has no rows for any chart of plots/*.gp (the charts column names them)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "error: gnuplot not found: install it (e.g. apt-get install gnuplot-nox)" >&2; exit 4; }
mkdir -p "$out"
for vars in "${drawn[@]}"; do
    name=$(basename "$vars" .vars)
    gnuplot -e "$(cat "$vars") datafile='$tmp/$name.data'; histfile='$tmp/$name.hist'; plotdir='$here/plots'; term='png'; out='$out/$name.png'" "${chart_file[$name]}"
    if [ "${3:-}" = --dumb ] && [[ " $terminal " == *" $name "* ]]; then
        gnuplot -e "$(cat "$vars") datafile='$tmp/$name.data'; plotdir='$here/plots'; term='dumb'; out=''" "${chart_file[$name]}"
        awk -F'\t' '{ gsub(/"/, "", $2); printf "  %2d %-44s %7.0f GB/s %4d%%\n", $1, $2, $3, $4 }' "$tmp/$name.data"
    fi
done

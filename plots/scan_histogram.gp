# chart: scan_histogram
# shape: panels
# readme: stage
# alt: scan and histogram bandwidth | scan 与直方图的带宽
# Left: scan GB/s (bytes read + written) against N, one line per kernel and CUB. Right: histogram GB/s
# (bytes read) of every kernel at the largest N, one bar per data set (uniform and skewed) side by side,
# on a log scale so that the contention shows.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each
# headed by its "title", then lines "N GB/s"), series, minn and maxn (the N of those lines); histfile
# (lines: "label", GB/s for each data set), histrows, sets (the data sets' names), barn (their N);
# out, gpu, stage (its number).
set terminal pngcairo size 1800,750 font 'sans,11' noenhanced
set output out
set multiplot layout 1,2 title sprintf('%s: stage %s, medians with L2 flushed before every run', gpu, stage)
set grid
set key top left
if (series > 0) {
    set title 'scan of int32: GB/s of bytes read + written (8 N) against N'
    set logscale x 2
    if (minn >= maxn) { set xrange [maxn / 2.0 : maxn * 2.0] }
    set format x '2^%L'
    set xlabel 'N (elements)'
    set ylabel 'GB/s'
    set yrange [0:*]
    plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1)
} else {
    set title 'scan: no rows'
    unset key
    plot [0:1] [0:1] NaN notitle
}
unset logscale x
set format x '% h'
unset xrange
set title sprintf('histograms at N = %d: GB/s of samples read (log scale)', barn)
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
setname(s) = s eq 'skewed' ? 'skewed (90% in one bin)' : s
if (histrows > 0) {
    plot for [i = 1:words(sets)] histfile using (column(i + 1)):xtic(1) title setname(word(sets, i)) lc rgb word('#4477aa #cc6677 #ddcc77 #117733', i)
} else {
    unset logscale y
    plot [0:1] [0:1] NaN notitle
}
unset multiplot

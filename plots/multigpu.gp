# chart: multigpu
# shape: busbw
# readme: stage
# alt: ncclAllReduce bus bandwidth against message size | ncclAllReduce 的总线带宽随消息大小的变化
# Bus bandwidth (GB/s) against message size (bytes, log 2), one line per number of GPUs, dtype and mode
# (one process, or one process per GPU); rows of G = 1 hold algbw (busbw is 0 there) and are drawn as
# such; a point whose check failed is marked with a red cross; a horizontal line at the link's GB/s.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each
# headed by its "title", then lines "bytes GB/s failed"), series, minb and maxb (the sizes), sizetics
# (the command that labels them), top (the largest GB/s), link and link_label (0: no line), out, gpu.
set terminal pngcairo size 1400,700 font 'sans,11' noenhanced
set output out
set title sprintf('%s: ncclAllReduce bus bandwidth against message size (busbw = algbw x 2(G-1)/G)', gpu)
set logscale x 2
set xrange [minb / 1.5 : maxb * 1.5]
eval sizetics
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
     for [i = 0:series - 1] datafile index i using 1:($3 != 0 ? $2 : 1/0) with points pt 2 ps 3 lc rgb '#c00000' notitle

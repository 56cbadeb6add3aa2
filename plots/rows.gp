# chart: rows
# shape: cols
# readme: stage
# alt: GB/s against the row length, per kernel | 各 kernel 的 GB/s 随行长的变化
# The row stage: GB/s against the row length at a fixed matrix size, one line per kernel and
# CUB's segmented reduce, so that the crossover between a warp and a block per row shows. Past the
# palette's eight colours the lines are dashed, with other points, so no two look alike.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "cols GB/s"), series, out, gpu, peak, total (elements of the matrix), stage (its number).
set terminal pngcairo size 1400,700 font 'sans,11' noenhanced
set output out
set title sprintf('%s: stage %s, one sum (or log-sum-exp) per row of a %.0f-element fp32 matrix', gpu, stage, total)
set logscale x 2
set format x '2^%L'
set xlabel 'columns per row (hidden)'
set ylabel 'GB/s (matrix read + row results written)'
set yrange [0:peak * 1.1]
set grid
set key outside right center
set rmargin 40
set arrow 1 from graph 0, first peak to graph 1, first peak nohead lw 2 lc rgb '#c00000' dt 2
set label 1 sprintf('DRAM peak %.0f', peak) at graph 0.01, first peak offset 0, 0.7 tc rgb '#c00000'
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt (i < 8 ? 7 : 5) dt 1 + (i >= 8) \
    title columnheader(1)

# The accuracy lab (scripts/accuracy.sh, drawn by python3 scripts/report plot-accuracy; not a chart of the bench
# results, so not in plots/*.gp): relative error against N on random and on wide data, and against
# the condition number on cond data; each kernel's bound dashed in its colour.
# Variables (gnuplot -e): datafile (3 x series blocks: "title", then lines "x rel_err rel_bound"), series,
# out, gpu, condn (N of the cond panel).
set terminal pngcairo size 1800,700 font 'sans,11' noenhanced
set output out
set multiplot layout 1,3 title sprintf('%s: relative error of the sum (solid) and the bound its check used (dashed); an exact result has no point, equal results overlap', gpu)
set logscale xy
set format y '1e%L'
set grid
set yrange [1e-12:10]
set key bottom left font 'sans,9' noenhanced
set format x '2^%L'
set logscale x 2
set xlabel 'N'
set ylabel 'relative error'
set title 'random: uniform in [-1, 1)'
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt 7 lc i + 1 title columnheader(1), \
     for [i = 0:series - 1] datafile index i using 1:3 with lines lw 1 dt 2 lc i + 1 notitle
set title 'wide: half near 1e6, half near 1e-6'
unset key
plot for [i = 0:series - 1] datafile index series + i using 1:2 with linespoints lw 2 pt 7 lc i + 1 notitle, \
     for [i = 0:series - 1] datafile index series + i using 1:3 with lines lw 1 dt 2 lc i + 1 notitle
set logscale x 10
set format x '1e%L'
set xlabel 'condition number sum|x| / |sum x|'
set title sprintf('cond: N = %.0f', condn)
set yrange [1e-12:*]
plot for [i = 0:series - 1] datafile index 2 * series + i using 1:2 with linespoints lw 2 pt 7 lc i + 1 notitle, \
     for [i = 0:series - 1] datafile index 2 * series + i using 1:3 with lines lw 1 dt 2 lc i + 1 notitle
unset multiplot

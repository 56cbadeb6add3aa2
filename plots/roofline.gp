# Chart 4: the roofline stage against the library and the earlier stages: GB/s against N (log scale),
# with the theoretical peak, the measured device-to-device copy, and the speed of light (launch floor +
# bytes / read-only bandwidth) as a curve.
# Variables (gnuplot -e): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N GB/s"), series, out, gpu, peak, copy, sol (read-only GB/s), floor (launch floor, µs).
set terminal pngcairo size 1400,700 font 'sans,11' noenhanced
set output out
set title sprintf('%s: stage 08 at the bandwidth limit, against CUB and stages 06-07 (fp32)', gpu)
set logscale x 2
set format x '2^%L'
set xlabel 'N (elements)'
set ylabel 'GB/s'
set yrange [0:peak * 1.1]
set grid
set key outside right center
set rmargin 40
set arrow 1 from graph 0, first peak to graph 1, first peak nohead lw 2 lc rgb '#c00000' dt 2
set label 1 sprintf('DRAM peak %.0f', peak) at graph 0.01, first peak offset 0, 0.7 tc rgb '#c00000'
set arrow 3 from graph 0, first copy to graph 1, first copy nohead lw 1 lc rgb '#606060' dt 3
set label 3 sprintf('copy %.0f', copy) at graph 0.3, first copy offset 0, -0.8 tc rgb '#606060'
speed_of_light(n) = 4.0 * n / (floor * 1e3 + 4.0 * n / sol)
set samples 400
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt 7 title columnheader(1), \
     speed_of_light(x) with lines lw 2 lc rgb '#2060c0' dt 4 title sprintf('speed of light (%.2f us + bytes / %.0f GB/s)', floor, sol)

# chart: roofline
# shape: lines
# readme: top stage
# alt: stage {stage} against CUB and the speed of light | 阶段 {stage} 对比 CUB 与 SOL（带宽上限）
# The roofline stage against the library and the earlier stages: GB/s against N (log scale),
# with the theoretical peak, the measured device-to-device copy, and the speed of light (launch floor +
# bytes / read-only bandwidth) as a curve; below, each time over the speed of light at its N (1: at the
# limit), which reads at the small sizes too.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N GB/s"), series, out, gpu, peak, copy, sol (read-only GB/s), floor (launch floor, µs),
# stage (the roofline stage's number) and others (those of the stages whose best kernel is drawn).
set terminal pngcairo size 1400,1100 font 'sans,11' noenhanced
set output out
set multiplot layout 2,1 title sprintf('%s: stage %s at the bandwidth limit, against CUB and stages %s (fp32)', gpu, stage, others)
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
sol_us(n) = floor + 4.0 * n / sol / 1e3
set samples 400
# A colour per stage (more than gnuplot's eight), CUB (the last block) in dark grey.
array colours[12] = ['#9400d3', '#009e73', '#56b4e9', '#e69f00', '#f0e442', '#0072b2', '#e51e10', '#000000', \
                     '#8c564b', '#17becf', '#bcbd22', '#7f7f7f']
plot for [i = 0:series - 2] datafile index i using 1:2 with linespoints lw 2 pt 7 lc rgb colours[i % 12 + 1] \
         title columnheader(1), \
     datafile index (series - 1) using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#404040' title columnheader(1), \
     speed_of_light(x) with lines lw 2 lc rgb '#2060c0' dt 4 title sprintf('speed of light (%.2f us + bytes / %.0f GB/s)', floor, sol)
unset arrow 1; unset label 1; unset arrow 3; unset label 3
set ylabel 'time / speed of light'
set yrange [0.9:*]
set arrow 4 from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb '#2060c0' dt 4
# the time of 4N bytes at G GB/s, in µs, over the speed of light's
plot for [i = 0:series - 2] datafile index i using 1:(4.0 * $1 / ($2 * 1e3) / sol_us($1)) with linespoints lw 2 pt 7 \
         lc rgb colours[i % 12 + 1] notitle, \
     datafile index (series - 1) using 1:(4.0 * $1 / ($2 * 1e3) / sol_us($1)) with linespoints lw 2 pt 6 dt 2 \
         lc rgb '#404040' notitle
unset multiplot

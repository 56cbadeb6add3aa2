# chart: scaling
# shape: lines
# readme: top
# alt: bandwidth and time against N | 带宽和时间随 N 的变化
# GB/s and the time in µs against N (log scale) for each stage's best kernel and CUB.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N GB/s"), series (number of blocks), term ('png' or 'dumb'), out, gpu, maxn, minn (the
# largest and smallest N), peak, copy, sol (read-only GB/s), floor (launch floor, µs) and l2n (fp32
# elements that fill L2).
if (term eq 'dumb') { set terminal dumb size 130,60 } else { set terminal pngcairo size 1400,1100 font 'sans,11' noenhanced; set output out }
# Two panels on one N axis: GB/s (linear, where the large sizes read) and the time in µs (logarithmic,
# where the small ones do: there every kernel sits near the launch floor). The L2 size is marked on
# both: below it a flushed input still comes from DRAM, but the whole input is in flight at once.
set multiplot layout 2,1 title sprintf('%s: bandwidth and time against N (best kernel of each stage, fp32)', gpu)
set logscale x 2
if (minn >= maxn) { set xrange [maxn / 2.0 : maxn * 2.0] }
set format x '2^%L'
set xlabel 'N (elements)'
set ylabel 'GB/s'
set yrange [0:peak * 1.1]
set grid
set key outside right center
set rmargin 34
set arrow 1 from graph 0, first peak to graph 1, first peak nohead lw 2 lc rgb '#c00000' dt 2
set label 1 sprintf('DRAM peak %.0f', peak) at graph 0.01, first peak offset 0, 0.7 tc rgb '#c00000'
set arrow 2 from graph 0, first copy to graph 1, first copy nohead lw 2 lc rgb '#606060' dt 3
set label 2 sprintf('copy %.0f', copy) at graph 0.01, first copy offset 0, -0.8 tc rgb '#606060'
if (l2n > 0) { set arrow 3 from first l2n, graph 0 to first l2n, graph 1 nohead lw 1 lc rgb '#808080' dt 2; \
               set label 3 'L2 size' at first l2n, graph 0.95 offset 0.5, 0 tc rgb '#606060' }
# The speed of light at N fp32 elements: 4N bytes in the launch floor plus 4N / the read-only bandwidth.
speed_of_light(n) = 4.0 * n / (floor * 1e3 + 4.0 * n / sol)
sol_us(n) = floor + 4.0 * n / sol / 1e3
set samples 400
# A colour per stage (more than gnuplot's eight), CUB (the last block) in dark grey.
array colours[12] = ['#9400d3', '#009e73', '#56b4e9', '#e69f00', '#f0e442', '#0072b2', '#e51e10', '#000000', \
                     '#8c564b', '#17becf', '#bcbd22', '#7f7f7f']
plot for [i = 0:series - 2] datafile index i using 1:2 with linespoints lw 2 pt 7 lc rgb colours[i % 12 + 1] \
         title columnheader(1), \
     datafile index (series - 1) using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#404040' title columnheader(1), \
     (sol > 0 ? speed_of_light(x) : NaN) with lines lw 2 lc rgb '#2060c0' dt 4 title 'speed of light'
unset arrow 1; unset label 1; unset arrow 2; unset label 2
set logscale y 10
set format y '%g'
set ylabel 'time (µs), log scale'
set autoscale y
if (floor > 0) { set arrow 4 from graph 0, first floor to graph 1, first floor nohead lw 2 lc rgb '#c00000' dt 2; \
                 set label 4 sprintf('launch floor %.1f µs', floor) at graph 0.01, first floor offset 0, 0.7 tc rgb '#c00000' }
# time in µs of 4N bytes at G GB/s
plot for [i = 0:series - 2] datafile index i using 1:(4.0 * $1 / ($2 * 1e3)) with linespoints lw 2 pt 7 \
         lc rgb colours[i % 12 + 1] notitle, \
     datafile index (series - 1) using 1:(4.0 * $1 / ($2 * 1e3)) with linespoints lw 2 pt 6 dt 2 lc rgb '#404040' notitle, \
     (sol > 0 ? sol_us(x) : NaN) with lines lw 2 lc rgb '#2060c0' dt 4 notitle
unset multiplot

# chart: scaling
# shape: lines
# readme: top
# alt: bandwidth and time against N | 带宽和时间随 N 的变化
# GB/s and the time in µs against N (log scale) for each stage's best kernel and CUB.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N GB/s bytes"), series (number of blocks), kinds (a word per block: its type's number in
# types, negative for the library's), types, widths (their bytes an element), typenote (types as a phrase),
# term ('png' or 'dumb'), out, gpu, maxn, minn (the largest and smallest N), peak, copy, sol (read-only
# GB/s), floor (launch floor, µs) and l2n (fp32 elements that fill L2).
if (term eq 'dumb') { set terminal dumb size 130,60 } else { set terminal pngcairo size 1400,1100 font 'sans,11' noenhanced; set output out }
# Two panels on one N axis: GB/s (linear, where the large sizes read) and the time in µs (logarithmic,
# where the small ones do: there every kernel sits near the launch floor). The L2 size is marked on
# both: below it a flushed input still comes from DRAM, but the whole input is in flight at once.
set multiplot layout 2,1 title sprintf('%s: bandwidth and time against N (best kernel of each stage, %s)', gpu, typenote)
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
# The speed of light at N elements of W bytes: WN bytes in the launch floor plus WN / the read-only
# bandwidth, in GB/s; and of B bytes, in µs.
speed_of_light(n, w) = w * n / (floor * 1e3 + w * n / sol)
sol_us(b) = floor + b / sol / 1e3
set samples 400
# A colour per block (more than gnuplot's eight), the library's in dark grey and dashed; circles for the
# first type, squares for the others, filled for the kernels, open for the library.
array colours[12] = ['#9400d3', '#009e73', '#56b4e9', '#e69f00', '#f0e442', '#0072b2', '#e51e10', '#000000', \
                     '#8c564b', '#17becf', '#bcbd22', '#7f7f7f']
kind(i) = int(word(kinds, i + 1))
colour(i) = kind(i) < 0 ? '#404040' : colours[i % 12 + 1]
point(i) = (abs(kind(i)) > 1 ? 4 : 6) + (kind(i) > 0)
dash(i) = kind(i) < 0 ? 2 : kind(i) > 1 ? '__ ' : 1
width(j) = word(widths, j) + 0
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt point(i) dt dash(i) lc rgb colour(i) \
         title columnheader(1), \
     for [j = 1:words(types)] (sol > 0 ? speed_of_light(x, width(j)) : NaN) with lines lw 2 \
         lc rgb (j > 1 ? '#90b0e0' : '#2060c0') dt 4 title 'speed of light' . (words(types) > 1 ? ', ' . word(types, j) : '')
unset arrow 1; unset label 1; unset arrow 2; unset label 2
set logscale y 10
set format y '%g'
set ylabel 'time (µs), log scale'
set autoscale y
if (floor > 0) { set arrow 4 from graph 0, first floor to graph 1, first floor nohead lw 2 lc rgb '#c00000' dt 2; \
                 set label 4 sprintf('launch floor %.1f µs', floor) at graph 0.01, first floor offset 0, 0.7 tc rgb '#c00000' }
# time in µs of B bytes at G GB/s
plot for [i = 0:series - 1] datafile index i using 1:($3 / ($2 * 1e3)) with linespoints lw 2 pt point(i) dt dash(i) \
         lc rgb colour(i) notitle, \
     for [j = 1:words(types)] (sol > 0 ? sol_us(width(j) * x) : NaN) with lines lw 2 lc rgb (j > 1 ? '#90b0e0' : '#2060c0') \
         dt 4 notitle
unset multiplot

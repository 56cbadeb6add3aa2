# chart: roofline
# shape: lines
# readme: top stage
# alt: stage {stage} against CUB and the speed of light | 阶段 {stage} 对比 CUB 与 SOL（带宽上限）
# The roofline stage against the library and the earlier stages: GB/s against N (log scale),
# with the theoretical peak, the measured device-to-device copy, and the speed of light (launch floor +
# bytes / read-only bandwidth) as a curve for each input type's bytes; below, each time over the speed of
# light of the bytes it read (1: at the limit), which reads at the small sizes too. GB/s counts the bytes
# read, so the types compare; a type after the first (f64: twice the bytes at each N) is drawn with squares.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N GB/s bytes"), series, kinds (a word per block: its type's number in types, negative for the
# library's), types, widths (their bytes an element), typenote (types as a phrase), out, gpu, peak, copy, sol
# (read-only GB/s), floor (launch floor, µs), stage (the roofline stage's number) and others (those of the
# stages whose best kernel is drawn).
set terminal pngcairo size 1400,1100 font 'sans,11' noenhanced
set output out
set multiplot layout 2,1 title sprintf('%s: stage %s at the bandwidth limit, against CUB and stages %s (%s)', gpu, stage, others, \
                                      typenote)
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
# The speed of light at N elements of W bytes, in GB/s, and of B bytes, in µs.
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
sol_title(j) = sprintf('speed of light%s (%.2f us + %dN bytes / %.0f GB/s)', words(types) > 1 ? ', ' . word(types, j) : '', \
                       floor, width(j), sol)
plot for [i = 0:series - 1] datafile index i using 1:2 with linespoints lw 2 pt point(i) dt dash(i) lc rgb colour(i) \
         title columnheader(1), \
     for [j = 1:words(types)] speed_of_light(x, width(j)) with lines lw 2 lc rgb (j > 1 ? '#90b0e0' : '#2060c0') dt 4 \
         title sol_title(j)
unset arrow 1; unset label 1; unset arrow 3; unset label 3
set ylabel 'time / speed of light'
set yrange [0.9:*]
set arrow 4 from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb '#2060c0' dt 4
# the time of B bytes at G GB/s, in µs, over the speed of light's
plot for [i = 0:series - 1] datafile index i using 1:($3 / ($2 * 1e3) / sol_us($3)) with linespoints lw 2 pt point(i) \
         dt dash(i) lc rgb colour(i) notitle
unset multiplot

# chart: l2
# shape: l2
# readme: top stage
# alt: time against N with L2 flushed and left warm | 刷新 L2 与保留 L2 时的时间随 N 的变化
# What the L2 flush protects against. Time against N (both logarithmic) of the kernels timed
# twice, with L2 flushed before every run (the input from DRAM) and left warm (an input that fits in L2
# is read from it), with the L2 size, the launch floor and the speed of light marked.
# Variables (gnuplot -e, see docs/report.md): datafile (blocks separated by two blank lines, each headed by its "title",
# then lines "N µs"; flushed and warm blocks alternate), series, out, gpu, l2n (fp32 elements that fill
# L2), floor (launch floor, µs), sol (read-only GB/s).
set terminal pngcairo size 1400,700 font 'sans,11' noenhanced
set output out
set title sprintf('%s: L2 flushed against L2 warm (fp32): where the cache, not DRAM, would be measured', gpu)
set logscale x 2
set logscale y 10
set format x '2^%L'
set xtics 4
set xlabel 'N (elements)'
set ylabel 'median time (µs)'
set grid
set key outside right center
set rmargin 42
set arrow 1 from first l2n, graph 0 to first l2n, graph 1 nohead lw 2 lc rgb '#808080' dt 2
set label 1 sprintf('L2 = %.0f MiB', l2n * 4.0 / 1048576) at first l2n, graph 0.95 offset 0.5, 0 tc rgb '#808080'
set arrow 2 from graph 0, first floor to graph 1, first floor nohead lw 1 lc rgb '#c00000' dt 3
set label 2 sprintf('launch floor %.2f us', floor) at graph 0.01, first floor offset 0, -0.8 tc rgb '#c00000'
speed_of_light_us(n) = floor + 4.0 * n / sol / 1e3
set samples 400
plot for [i = 0:series - 1:2] datafile index i using 1:2 with linespoints lw 2 pt 7 lc (i / 2 + 1) title columnheader(1), \
     for [i = 1:series - 1:2] datafile index i using 1:2 with linespoints lw 2 pt 6 dt 2 lc (i / 2 + 1) title columnheader(1), \
     speed_of_light_us(x) with lines lw 2 lc rgb '#2060c0' dt 4 title 'speed of light'

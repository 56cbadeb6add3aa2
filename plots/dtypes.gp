# chart: dtypes
# shape: types
# readme: stage
# alt: bandwidth and elements per second by input type | 各输入类型的带宽与每秒元素数
# The stage's kernels for every input type at its largest N: GB/s of input bytes (top) and
# billions of elements per second (bottom), CUB on each input type in dark grey.
# Variables (gnuplot -e, see docs/report.md): datafile (columns: index, "label", GB/s, Gelem/s,
# input-type number 1-6, 1 for CUB), out (PNG path), gpu, maxn (N), peak and copy (GB/s).
set terminal pngcairo size 1500,1000 font 'sans,10' noenhanced
set output out
set multiplot layout 2,1 title sprintf("%s: LeetCUDA reduce kernels by input type at N = %d", gpu, maxn)
colour(t, cub) = cub > 0 ? 0x303030 : word('0x4e79a7 0xf28e2b 0xe15759 0x76b7b2 0x59a14f 0xb07aa1', int(t)) + 0
set boxwidth 0.75
set style fill solid 0.8 border -1
set grid ytics
set key off
set xrange [0.3:*]
set rmargin 17
set xtics rotate by -40 left nomirror font ',9'
set ylabel 'GB/s of input bytes'
set yrange [0:peak * 1.15]
set arrow 1 from graph 0, first peak to graph 1, first peak nohead lw 2 lc rgb '#c00000' dt 2
set label 1 sprintf('DRAM peak %.0f', peak) at graph 1, first peak offset 0.5, 0 left tc rgb '#c00000'
set arrow 2 from graph 0, first copy to graph 1, first copy nohead lw 2 lc rgb '#606060' dt 3
set label 2 sprintf('copy %.0f', copy) at graph 1, first copy offset 0.5, 0 left tc rgb '#606060'
plot datafile using 1:3:(colour($5, $6)):xtic(2) with boxes lc rgb variable, \
     '' using 1:3:(sprintf('%.0f', $3)) with labels offset 0, 0.7 font ',8'
unset arrow 1
unset arrow 2
unset label 1
unset label 2
set ylabel 'billion elements / s'
set yrange [0:*]
plot datafile using 1:4:(colour($5, $6)):xtic(2) with boxes lc rgb variable, \
     '' using 1:4:(sprintf('%.0f', $4)) with labels offset 0, 0.7 font ',8'
unset multiplot

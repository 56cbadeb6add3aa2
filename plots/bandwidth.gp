# chart: bandwidth
# shape: bars
# readme: front top
# alt: bandwidth per stage and kernel | 各阶段各 kernel 的带宽
# GB/s of every kernel at the largest N, one bar each, coloured by stage, CUB last; a bar of an input
# type after the first (f64: twice the bytes of f32 at the same N) is hatched. Where the CPU adds the
# block sums, an empty box over the bar is the GB/s of the kernels alone: the gap is the finish.
# Variables (gnuplot -e, see docs/report.md): datafile (columns: index, "label", GB/s, % of peak, stage
# number, input-type number in types, GB/s of the kernels alone or NaN), term ('png' or 'dumb'), out (PNG path), gpu, maxn, peak and copy
# (GB/s), types (the input types drawn) and widths (their bytes an element).
if (term eq 'dumb') { set terminal dumb size 130,36 } else { set terminal pngcairo size 1500,760 font 'sans,10' noenhanced; set output out }
sizes = ''
do for [j = 1:words(types)] {
    sizes = sizes . sprintf('%s%s%s, %.0f MiB', j > 1 ? '; ' : '', word(types, j), j > 1 ? ' hatched' : '', \
                            maxn * word(widths, j) / 1048576.0)
}
set title sprintf("%s: reduction bandwidth at N = %d (%s); empty box: the kernels alone, where the CPU finishes", gpu, maxn, sizes)
set ylabel 'GB/s (input bytes / median time)'
set yrange [0:peak * 1.12]
set xrange [0.3:*]
set xtics rotate by -40 left nomirror font ',9'
set grid ytics
set key off
set boxwidth 0.75
set style fill solid 0.8 border -1
set bmargin 13
set rmargin 18
set arrow 1 from graph 0, first peak to graph 1, first peak nohead lw 2 lc rgb '#c00000' dt 2
set label 1 sprintf('DRAM peak %.0f', peak) at graph 1, first peak offset 0.5, 0 left tc rgb '#c00000'
set arrow 2 from graph 0, first copy to graph 1, first copy nohead lw 2 lc rgb '#606060' dt 3
set label 2 sprintf('copy %.0f', copy) at graph 1, first copy offset 0.5, 0 left tc rgb '#606060'
if (term eq 'dumb') {
    set xtics norotate font ''
    set bmargin 3
    set xlabel 'bar number (legend below)'
    plot datafile using 1:3:xtic(sprintf('%d', $1)) with boxes, '' using 1:3:(sprintf('%d%%', $4)) with labels offset 0, 1, \
         '' using 1:7 with points pt '+'
} else {
    plot datafile using 1:3:($5 == 0 ? 0x303030 : word('0x4e79a7 0xf28e2b 0xe15759 0x76b7b2 0x59a14f 0xedc948 0xb07aa1 0xff9da7 0x9c755f', int($5 - 1) % 9 + 1) + 0):xtic(2) with boxes lc rgb variable, \
         '' using 1:($6 > 1 ? $3 : NaN) with boxes fs transparent pattern 4 border -1 lc rgb '#ffffff', \
         '' using 1:7 with boxes lc rgb '#303030' dt 2 fs empty, \
         '' using 1:3:(sprintf('%d%%', $4)) with labels offset 0, 0.7 font ',9'
}

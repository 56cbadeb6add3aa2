# The pictures of one tree record (make stage-NN tree, scripts/tree.sh): the reduction tree, the active
# lanes per step, the bank of every shared-memory access and the shuffles of warp 0, on one PNG.
# Variables (gnuplot -e, see scripts/tree.sh): dir (the .dat files of python3 scripts/report tree --mode data), out
# (PNG path), name (the title), counts (its shared-memory totals), threads, steps, accesses, conflicts,
# additions, unused and shuffles (of the record).
set terminal pngcairo size 1600,1200 font 'sans,10' noenhanced
set output out
colours = '0x4e79a7 0xf28e2b 0xe15759 0x76b7b2 0x59a14f 0xedc948 0xb07aa1 0xff9da7 0x9c755f 0x303030'
warp_colour(w) = w < 0 ? 0x909090 : word(colours, int(w) % 10 + 1) + 0
unused_colour = 0xdadada
set multiplot layout 2,2 title name."\n".counts font ',12'
set key off
set grid
set xrange [-1:threads]
if (unused > 0) {
    set title sprintf('the tree: an edge for every addition, coloured by the warp that adds; grey: the %d of %d no result needs', unused, additions)
} else {
    set title sprintf('the tree: an edge for every addition (%d), coloured by the warp that adds; dots: values from registers', additions)
}
set xlabel 'position: the shared-memory slot written, or the thread for a shuffle'
set ylabel 'step'
set yrange [-0.5:steps + 0.5]
if (steps <= 30) { set ytics 1 }
plot dir.'/edges.dat' using 1:($6 > 0 ? NaN : $2):3:4 with vectors nohead lw 0.8 lc rgb unused_colour, \
     '' using 1:($6 > 0 ? $2 : NaN):3:4:(warp_colour($5)) with vectors nohead lw 1.2 lc rgb variable, \
     dir.'/nodes.dat' using 1:2:($5 > 0 ? warp_colour($3) : unused_colour) with points pt 7 ps 0.5 lc rgb variable
set title 'active lanes per step (coloured by warp): divergence shows as gaps within a warp'
set xlabel 'thread (warp x 32 + lane)'
plot dir.'/lanes.dat' using 1:2:(warp_colour($3)) with points pt 5 ps 0.6 lc rgb variable
set xlabel 'thread (warp x 32 + lane)'
set ylabel 'access, in order (a load or a store of a step, its warps side by side)'
if (accesses > 0) {
    if (conflicts > 0) {
        set title 'the bank of every shared-memory access (colour); red: the wavefronts of a warp instruction with a bank conflict'
    } else {
        set title 'the bank of every shared-memory access (colour): one wavefront per warp instruction, no bank conflict'
    }
    set yrange [accesses + 0.5:0.5]
    if (accesses <= 40) { set ytics 1 } else { set ytics autofreq }
    set cbrange [0:31]
    set cblabel 'bank'
    set palette defined (0 '#313695', 8 '#74add1', 16 '#ffffbf', 24 '#f46d43', 31 '#a50026')
    if (conflicts > 0) {
        plot dir.'/banks.dat' using 1:2:3 with points pt 5 ps 0.6 lc palette, \
             dir.'/conflicts.dat' using 1:($2 - 0.45):(sprintf('%dx', $3)) with labels font ',8' tc rgb '#c00000'
    } else {
        plot dir.'/banks.dat' using 1:2:3 with points pt 5 ps 0.6 lc palette
    }
    unset colorbox
} else {
    set title 'the bank of every shared-memory access'
    set label 1 'no shared-memory access in this kernel' at graph 0.5, graph 0.5 center
    set yrange [0:1]
    plot 2 notitle
    unset label 1
}
set yrange [*:*]
if (steps <= 30) { set ytics 1 } else { set ytics autofreq }
set title 'shuffles of warp 0: each arrow from the lane read to the lane reading it'
set xlabel 'lane'
set ylabel 'step'
set xrange [-1:32]
if (shuffles > 0) {
    plot dir.'/shuffles.dat' using 1:2:($3 - $1):(0.8) with vectors head size 0.6,20 filled lw 1 lc rgb '#4e79a7', \
         '' using 3:($2 + 0.8) with points pt 7 ps 0.4 lc rgb '#e15759'
} else {
    set label 1 'no shuffle in this kernel' at graph 0.5, graph 0.5 center
    set yrange [0:1]
    plot 2 notitle
}
unset multiplot

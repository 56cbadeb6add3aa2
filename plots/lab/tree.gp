# The pictures of one tree record (make stage-NN tree, scripts/tree.sh): the reduction tree, the active
# lanes per step, the bank of every shared-memory access and the shuffles of warp 0, on one PNG.
# Variables (gnuplot -e, see scripts/tree.sh): dir (the .dat files of scripts/tree.awk mode=data), out
# (PNG path), name (the title), threads, steps and shuffles (of the record).
set terminal pngcairo size 1600,1200 font 'sans,10' noenhanced
set output out
colours = '0x4e79a7 0xf28e2b 0xe15759 0x76b7b2 0x59a14f 0xedc948 0xb07aa1 0xff9da7 0x9c755f 0x303030'
warp_colour(w) = w < 0 ? 0x909090 : word(colours, int(w) % 10 + 1) + 0
set multiplot layout 2,2 title name font ',12'
set key off
set grid
set xrange [-1:threads]
set title 'the tree: an edge for every addition (coloured by the warp that adds; grey dots: the elements)'
set xlabel 'position: the shared-memory slot written, or the lane for a shuffle'
set ylabel 'step'
set yrange [-0.5:steps + 0.5]
plot dir.'/edges.dat' using 1:2:3:4:(warp_colour($5)) with vectors nohead lw 1.2 lc rgb variable, \
     dir.'/nodes.dat' using 1:2:(warp_colour($3)) with points pt 7 ps 0.5 lc rgb variable
set title 'active lanes per step (coloured by warp): divergence shows as gaps within a warp'
set xlabel 'thread (warp x 32 + lane)'
plot dir.'/lanes.dat' using 1:2:(warp_colour($3)) with points pt 5 ps 0.6 lc rgb variable
set title 'the bank of every shared-memory access (colour); right: wavefronts of that warp instruction'
set ylabel 'access (step by step, loads and stores in order)'
set yrange [*:*] reverse
set cbrange [0:31]
set xrange [-1:threads * 1.08]
set cblabel 'bank'
set palette defined (0 '#313695', 8 '#74add1', 16 '#ffffbf', 24 '#f46d43', 31 '#a50026')
plot dir.'/banks.dat' using 1:2:3 with points pt 5 ps 0.6 lc palette, \
     '' using (threads + 0.5):2:(sprintf('%dx', $4)) with labels left font ',7'
unset colorbox
set yrange [*:*] noreverse
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

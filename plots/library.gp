# chart: library
# shape: bars
# readme: stage
# alt: the library and the precisions against stages {others} | 库函数与各种精度对比阶段 {others}
# The library stage's reductions and precisions at its largest N, next to the best kernels of the
# stages that name this chart, CUB last: the bars of bandwidth.gp.
# Variables (gnuplot -e, see docs/report.md): those of bandwidth.gp, and plotdir (the folder of both).
load plotdir . '/bandwidth.gp'

#!/usr/bin/env bash
# On a machine with a GPU: build for it, run the whole test suite and the benchmark, and collect
# what a reviewer needs in one folder.
# usage: scripts/gpu_check.sh OUTDIR [bench]
#   OUTDIR/info.log   GPU, driver and compiler
#   OUTDIR/test.log   make test
#   OUTDIR/bench.log  make bench (only with "bench"), plus results.csv and the charts
set -u
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu_check.sh OUTDIR [bench]}
mkdir -p "$out"
{ nvidia-smi; nvcc --version; } >"$out/info.log" 2>&1
make --no-print-directory all >"$out/build.log" 2>&1 || { tail -n 30 "$out/build.log"; exit 1; }
make --no-print-directory test >"$out/test.log" 2>&1
test_rc=$?
if [ "${2:-}" = bench ]; then
    make --no-print-directory bench >"$out/bench.log" 2>&1 || echo "make bench failed: see bench.log"
    for f in plots/results/*/results.csv plots/results/*/*.png; do
        [ -f "$f" ] && cp "$f" "$out/"
    done
    # The end of the bench: the bandwidth chart drawn in the terminal and where the results are.
    tail -n 45 "$out/bench.log"
fi
grep -E "^(FAIL|skip)" "$out/test.log" | head -n 40
tail -n 1 "$out/test.log"
exit $test_rc

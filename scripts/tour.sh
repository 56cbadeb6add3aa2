#!/usr/bin/env bash
# make tour: the stages in order. For each: its idea (from its README), the headline of its diff from
# the previous stage, a run at a moderate N, and the bandwidth chart so far, drawn in the terminal.
# On a terminal it waits for Enter between stages (q stops); otherwise it runs straight through.
# usage: scripts/tour.sh STAGE...    (TOUR_N sets N, default 2^24; stage 07 runs 4096x4096, the same N)
set -u
cd "$(dirname "$0")/.."
n=${TOUR_N:-2^24}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$tmp/tour.csv
interactive=0
[ -t 0 ] && [ -t 1 ] && interactive=1
prev=
for s in "$@"; do
    echo
    echo "================================================================================"
    echo "Stage $s"
    echo "================================================================================"
    sed -n '/^\*\*Idea\.\*\*/,/^$/p' "stages/$s/README.md" | sed 's/\*\*Idea\.\*\* *//'
    if [ -n "$prev" ]; then
        added=$(diff "stages/$prev/reduce.cu" "stages/$s/reduce.cu" | grep -c '^>')
        removed=$(diff "stages/$prev/reduce.cu" "stages/$s/reduce.cu" | grep -c '^<')
        kernels=$(grep -ho '^__global__ void [a-z0-9_]*' "stages/$s/reduce.cu" | awk '{ print $3 }' |
            grep -vxF -f <(grep -ho '^__global__ void [a-z0-9_]*' "stages/$prev/reduce.cu" | awk '{ print $3 }') | tr '\n' ' ')
        echo "Diff from $prev: $added lines in, $removed lines out; new kernels: ${kernels:-none} (make stage-$(echo "$s" | cut -c1-2) diff shows it)"
    fi
    echo
    size=$n
    [ "$("build/$s/reduce" --list | sed -n 's/^default sizes: //p')" = "2^26" ] || size=4096x4096
    "build/$s/reduce" --n "$size" --reps 5 --warmup 1 --csv "$csv" || exit $?
    if command -v gnuplot >/dev/null; then
        echo
        echo "The chart so far (fp32 kernels, GB/s at N = $n):"
        scripts/plot.sh "$csv" "$tmp/charts" --dumb | sed '/^ *$/d'
    else
        echo "(gnuplot not found: no chart; apt-get install gnuplot-nox)"
    fi
    prev=$s
    if [ $interactive = 1 ]; then
        read -r -p "Enter: next stage, q: stop " answer
        [ "$answer" = q ] && break
    fi
done

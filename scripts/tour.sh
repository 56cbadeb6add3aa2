#!/usr/bin/env bash
# make tour: the stages in order (make programs). For each: its idea (from its README), the headline of
# its diff from the previous stage built the same way, a run of its program, and the bandwidth chart so
# far, drawn in the terminal. On a terminal it waits for Enter between stages (q stops); otherwise it
# runs straight through.
# usage: scripts/tour.sh   (TOUR_N=N runs every program at N; default: the last, largest, of each
#                           program's default sizes, so a stage with sizes of its own runs at one of them)
set -u
cd "$(dirname "$0")/.."
source scripts/lib.sh
kernels_of() { grep -ho '^__global__ void [a-z0-9_]*' "$1" | awk '{ print $3 }'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$tmp/tour.csv
interactive=0
[ -t 0 ] && [ -t 1 ] && interactive=1
seen=
for p in $(programs); do
    s=$(basename "$(dirname "$p")")
    src=stages/$s/$(basename "$p").cu
    echo
    echo "================================================================================"
    echo "Stage $s"
    echo "================================================================================"
    sed -n '/^\*\*Idea\.\*\*/,/^$/p' "stages/$s/README.md" | sed 's/\*\*Idea\.\*\* *//'
    # The previous stage whose program is built from a file of the same name.
    prev=$(for q in $seen; do [ "$(basename "$q")" = "$(basename "$src")" ] && echo "$q"; done | tail -n 1)
    if [ -n "$prev" ]; then
        added=$(diff "$prev" "$src" | grep -c '^>')
        removed=$(diff "$prev" "$src" | grep -c '^<')
        kernels=$(kernels_of "$src" | grep -vxF -f <(kernels_of "$prev") | tr '\n' ' ')
        echo "Diff from $(basename "$(dirname "$prev")"): $added lines in, $removed lines out; new kernels: ${kernels:-none} (make stage-${s%%_*} diff shows it)"
    elif [ -n "$seen" ]; then
        echo "A program of its own: $src"
    fi
    seen="$seen $src"
    echo
    if [ ! -x "$p" ]; then
        echo "($p is not built: make stage-${s%%_*} says why)"
    elif [ "$(describe "$p" gpus)" != one ]; then
        echo "(it runs on several GPUs: make stage-${s%%_*} run runs it)"
    else
        size=${TOUR_N:-$(describe "$p" "default sizes" | tr ',' '\n' | tail -n 1)}
        "$p" --n "$size" --reps 5 --warmup 1 --csv "$csv" || exit $?
        if command -v gnuplot >/dev/null; then
            echo
            echo "The chart so far (fp32 kernels, GB/s):"
            python3 scripts/report plot "$csv" "$tmp/charts" --dumb | sed '/^ *$/d'
        else
            echo "(gnuplot not found: no chart; apt-get install gnuplot-nox)"
        fi
    fi
    if [ $interactive = 1 ]; then
        read -r -p "Enter: next stage, q: stop " answer
        [ "$answer" = q ] && break
    fi
done

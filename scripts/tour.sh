#!/usr/bin/env bash
# make tour (make help says what it shows). On a terminal it waits for Enter between stages (q stops);
# otherwise it runs straight through.
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
kernels_of() { grep -ho '^__global__ void [a-z0-9_]*' "$1" | awk '{ print $3 }'; }
rule=$(printf "=%.0s" {1..80})
for p in $(programs); do
    s=$(stage_of "$p") src=$(source_of "$p")
    printf '\n%s\nStage %s\n%s\n' "$rule" "$s" "$rule"
    sed -n '/^\*\*Idea\.\*\*/,/^$/p' "stages/$s/README.md" | sed 's/\*\*Idea\.\*\* *//'
    prev=$(previous "$p")
    if [ -n "$prev" ]; then
        prev=$(source_of "$prev")
        read -r added removed < <(diff "$prev" "$src" | awk '/^>/ { a++ } /^</ { r++ } END { print a + 0, r + 0 }')
        kernels=$(kernels_of "$src" | grep -vxF -f <(kernels_of "$prev") | tr '\n' ' ')
        echo "Diff from $(stage_of "$prev"): $added lines in, $removed lines out; new kernels: ${kernels:-none}" \
            "(make stage-${s%%_*} diff shows it)"
    elif [ -n "$(earlier "$p")" ]; then echo "A program of its own: $src"; fi
    echo
    if [ ! -x "$p" ]; then echo "($p is not built: make stage-${s%%_*} says why)"
    elif [ "$(describe "$p" several_gpus)" != false ]; then echo "(it runs on several GPUs: make stage-${s%%_*} run runs it)"
    else
        size=$(describe "$p" default_sizes) && size=${size##*,} # the last, largest
        "$p" --n "$size" --reps 5 --warmup 1 --csv "$tmp/tour.csv" || exit $?
        if command -v gnuplot >/dev/null; then
            printf '\n%s\n' "The chart so far (fp32 kernels, GB/s):"
            report plot "$tmp/tour.csv" "$tmp/charts" --dumb | sed '/^ *$/d'
        else echo "(gnuplot not found: no chart; apt-get install gnuplot-nox)"; fi
    fi
    if [ -t 0 ] && [ -t 1 ]; then read -r -p "Enter: next stage, q: stop " answer; [ "$answer" = q ] && break; fi
done

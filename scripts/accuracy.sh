#!/usr/bin/env bash
# make accuracy: the accuracy lab. Every single-GPU program's accuracy kernels (its --describe) on three
# kinds of data, each result checked against the fp64 reference of the values it read:
#   random  uniform in [-1, 1), at N = 2^10, 2^12, ..., 2^28
#   wide    half near 1e6, half near 1e-6 (course chapter §7.7.4), at the same N
#   cond    at N = 2^24, condition number sum|x| / |sum x| = 1e2, 1e4, ..., 1e14
# Writes plots/results/<gpu>/accuracy.csv (the programs' CSV columns, and cond: the condition number
# asked for, empty for the other fills) and draws accuracy.png there (plots/lab/accuracy.gp).
# `make reference` copies both beside the bench results; the READMEs' accuracy tables come from them.
# usage: scripts/accuracy.sh   (the programs built: make all)
# Exit codes: 0 every result within its bound, 1 a result outside it, 2 a program or the CSV failed,
# 3 no usable GPU.
set -eu
cd "$(dirname "$0")/.."
source scripts/lib.sh
sizes=2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28
cond_n=2^24
conds="1e2 1e4 1e6 1e8 1e10 1e12 1e14"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p plots/results
csv=plots/results/accuracy.csv
rm -f "$csv"
status=0

# run CSV_TAG COND PROGRAM ARGS...: one run of PROGRAM into $tmp/CSV_TAG.csv, its rows then added to the
# lab's CSV with the cond column (COND, or "-" for none).
run() {
    local tag=$1 cond=$2 rc=0 header=1
    shift 2
    [ -s "$tmp/all.csv" ] && header=0
    "$@" --check --reps 1 --warmup 0 --csv "$tmp/$tag.csv" >"$tmp/out" 2>&1 || rc=$?
    case $rc in
        0) ;;
        1) status=1; grep -E '(^|[[:space:]])FAIL([[:space:]]|$)' "$tmp/out" | sed 's/^/  /' ;;
        3) tail -n 1 "$tmp/out" >&2; exit 3 ;;
        *) tail -n 3 "$tmp/out" >&2; exit 2 ;;
    esac
    awk -v cond="$cond" -v header=$header \
        'FNR == 1 { if (header == 1) print $0 ",cond"; next } { print $0 "," (cond == "-" ? "" : cond) }' \
        "$tmp/$tag.csv" >>"$tmp/all.csv"
    rm -f "$tmp/$tag.csv"
}

for p in $(programs); do
    [ -x "$p" ] || { echo "== $p is not built (make all says why): not in the lab"; continue; }
    [ "$(describe "$p" gpus)" = one ] || continue
    kernels=$(describe "$p" "accuracy kernels")
    [ -n "$kernels" ] || continue
    stage=$(describe "$p" stage)
    for fill in random wide; do
        echo "== $stage, fill $fill, N = $sizes: $kernels"
        run "$stage-$fill" - "$p" --n "$sizes" --fill "$fill" --kernel "${kernels// /,}"
    done
    echo "== $stage, fill cond, N = $cond_n, condition numbers $conds: $kernels"
    for c in $conds; do
        run "$stage-cond-$c" "$c" "$p" --n "$cond_n" --fill cond --cond "$c" --kernel "${kernels// /,}"
    done
done
[ -s "$tmp/all.csv" ] || { echo "error: no program has accuracy kernels (--describe: accuracy kernels)" >&2; exit 2; }
mv "$tmp/all.csv" "$csv"
slug=$(gpu_folder "$csv")
dir=plots/results/$slug
mkdir -p "$dir"
mv "$csv" "$dir/accuracy.csv"
if ! command -v python3 >/dev/null; then
    echo "python3 not found: no chart drawn (the reporting program, scripts/report, needs it: apt-get install python3)"
elif command -v gnuplot >/dev/null; then
    python3 scripts/report plot-accuracy "$dir/accuracy.csv" "$dir/accuracy.png"
else
    echo "gnuplot not found: no chart drawn (python3 scripts/report plot-accuracy draws it where gnuplot is installed)"
fi
echo "results in $dir/accuracy.csv$([ $status = 0 ] && echo ", every result within its bound" || echo ": some results FAILED their check")"
exit $status

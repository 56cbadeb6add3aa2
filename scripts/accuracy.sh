#!/usr/bin/env bash
# make accuracy (make help, docs/results.md), into plots/results/<gpu>/accuracy.csv with a cond column.
# Exit codes: 0 every result within its bound, 1 a result outside it, 2 a program failed, 3 no usable GPU.
set -e
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
sizes=2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28 cond_n=2^24 conds="1e2 1e4 1e6 1e8 1e10 1e12 1e14" status=0
run() { # COND ARGS...: a checked run of $p, its rows added to the lab's CSV with the cond column
    local cond=$1 rc=0 first=1; shift
    [ -s "$tmp/all.csv" ] && first=
    "$p" "$@" --check --reps 1 --warmup 0 --csv "$tmp/run.csv" >"$tmp/out" 2>&1 || rc=$?
    case $rc in
    0) ;;
    1) status=1; grep -E '(^|[[:space:]])FAIL([[:space:]]|$)' "$tmp/out" | sed 's/^/  /' ;;
    3) tail -n 1 "$tmp/out" >&2; exit 3 ;;
    *) tail -n 3 "$tmp/out" >&2; exit 2 ;;
    esac
    awk -v cond="$cond" -v first="$first" 'FNR == 1 { if (first) print $0 ",cond"; next } { print $0 "," cond }' \
        "$tmp/run.csv" >>"$tmp/all.csv"
    rm -f "$tmp/run.csv"
}
for p in $(programs); do
    single "$p" "== $p is not built (make all says why): not in the lab" || continue
    kernels=$(describe "$p" accuracy_kernels) stage=$(describe "$p" stage)
    [ -n "$kernels" ] || continue
    for fill in random wide; do
        echo "== $stage, fill $fill, N = $sizes: $kernels"
        run '' --n "$sizes" --fill "$fill" --kernel "${kernels// /,}"
    done
    echo "== $stage, fill cond, N = $cond_n, condition numbers $conds: $kernels"
    for c in $conds; do run "$c" --n "$cond_n" --fill cond --cond "$c" --kernel "${kernels// /,}"; done
done
[ -s "$tmp/all.csv" ] || die "no program has accuracy kernels (--describe: accuracy kernels)"
dir=$(keep "$tmp/all.csv" accuracy.csv)
chart chart "python3 scripts/report plot-accuracy draws it" plot-accuracy "$dir/accuracy.csv" "$dir/accuracy.png"
echo "results in $dir/accuracy.csv$([ $status = 0 ] && echo ", every result within its bound" || echo ": some results FAILED their check")"
exit $status

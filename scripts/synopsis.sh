#!/usr/bin/env bash
# The READMEs' blocks that the programs print themselves, so that no README can fall behind them:
#   docs/README.md and docs/README.zh-CN.md, between <!-- synopsis:begin --> and <!-- synopsis:end -->:
#     the --help of the first single-GPU stage program, as the program prints it;
#   README.md and README.zh-CN.md, between <!-- bench:begin --> and <!-- bench:end -->: what make bench
#     runs, a line per single-GPU program from its --describe (its kernels, bench sizes and fills, and
#     the kernels it times again with the L2 warm).
# usage: scripts/synopsis.sh [--check]   (the programs built: make all)
#   --check: change nothing; exit 1 (with a diff) where a README differs from what the programs print.
set -u
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; fi
describe() { "$1" --describe | sed -n "s/^$2: *//p"; }
programs=()
for p in ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; do
    [ -x "$p" ] && [ "$(describe "$p" gpus)" = one ] && programs+=("$p")
done
[ ${#programs[@]} -gt 0 ] || { echo "error: no single-GPU stage program is built (make all)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
# fill README TAG BLOCK: the block into the README, or (--check) the difference.
fill() {
    scripts/readme_fill.sh $([ $check = 1 ] && echo --check) "$1" "$2" "$3" scripts/synopsis.sh
    local rc=$?
    [ $rc -eq 2 ] && exit 2
    [ $rc -eq 0 ] || status=1
}

{ echo '```'; echo "\$ ${programs[0]} --help"; "${programs[0]}" --help; echo '```'; } >"$tmp/synopsis"
fill docs/README.md synopsis "$tmp/synopsis"
fill docs/README.zh-CN.md synopsis "$tmp/synopsis"

# bench_table LANG: a row per program. A list of sizes is shown by its first and last and its count.
bench_table() {
    if [ "$1" = zh ]; then
        echo '| 阶段 | 程序 | kernel 数 | 基准测试规模 | 基准测试数据 | 另在 L2 保温时计时 |'
    else
        echo '| stage | program | kernels | bench sizes | bench fills | also timed with the L2 warm |'
    fi
    echo '|---|---|---:|---|---|---|'
    local p sizes count kernels
    for p in "${programs[@]}"; do
        sizes=$(describe "$p" "bench sizes")
        count=$(echo "$sizes" | tr ',' '\n' | grep -c .)
        [ "$count" -gt 2 ] && sizes="${sizes%%,*} … ${sizes##*,} ($count $([ "$1" = zh ] && echo 个规模 || echo sizes))"
        sizes=${sizes//,/, }
        kernels=$("$p" --describe | awk '$1 == "kernel:" && $4 != "wrong"' | wc -l)
        printf '| [%s](stages/%s) | `%s` | %d | %s | %s | %s |\n' "$(describe "$p" stage)" "$(describe "$p" stage)" "$p" "$kernels" "$sizes" \
            "$(describe "$p" "bench fills")" "$(describe "$p" "warm-L2 kernels" | sed 's/[^ ][^ ]*/`&`/g')"
    done
}
bench_table en >"$tmp/bench.en"
bench_table zh >"$tmp/bench.zh"
fill README.md bench "$tmp/bench.en"
fill README.zh-CN.md bench "$tmp/bench.zh"
exit $status

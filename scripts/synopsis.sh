#!/usr/bin/env bash
# The program synopsis of README.md and README.zh-CN.md, between <!-- synopsis:begin --> and
# <!-- synopsis:end -->: the --help of the first single-GPU stage program, as the program prints it, so
# that the READMEs cannot fall behind its options.
# usage: scripts/synopsis.sh [--check]   (the programs built: make all)
#   --check: change nothing; exit 1 (with a diff) where a README differs from what the program prints.
set -eu
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; fi
describe() { "$1" --describe | sed -n "s/^$2: *//p"; }
program=
for p in ${REDUCE_PROGRAMS:-$(make --no-print-directory -s programs)}; do
    if [ -x "$p" ] && [ "$(describe "$p" gpus)" = one ]; then program=$p; break; fi
done
[ -n "$program" ] || { echo "error: no single-GPU stage program is built (make all)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ echo '```'; echo "\$ $program --help"; "$program" --help; echo '```'; } >"$tmp/block"
status=0
for readme in README.md README.zh-CN.md; do
    scripts/readme_fill.sh $([ $check = 1 ] && echo --check) "$readme" synopsis "$tmp/block" scripts/synopsis.sh
    rc=$?
    [ $rc -eq 2 ] && exit 2
    [ $rc -eq 0 ] || status=1
done
exit $status

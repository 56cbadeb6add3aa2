#!/usr/bin/env bash
# Fill a README's generated block, the lines between <!-- TAG:begin --> and <!-- TAG:end -->, with the
# file BLOCK (scripts/readme_block.awk); --check changes nothing and shows the difference.
# usage: scripts/readme_fill.sh [--check] README TAG BLOCK HOW
#   HOW: what regenerates it, named where --check finds a difference.
# Exit codes: 0 filled or the same, 1 a difference (--check), 2 the README lacks the markers.
set -u
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
readme=$1 tag=$2 block=$3 how=$4
grep -qx "<!-- $tag:begin -->" "$readme" && grep -qx "<!-- $tag:end -->" "$readme" ||
    { echo "error: $readme lacks the lines <!-- $tag:begin --> and <!-- $tag:end -->" >&2; exit 2; }
new=$(mktemp)
trap 'rm -f "$new"' EXIT
awk -v tag="$tag" -v block="$block" -f scripts/readme_block.awk "$readme" >"$new"
if [ $check = 1 ]; then
    diff -u "$readme" "$new" || { echo "$readme's $tag block differs: run $how" >&2; exit 1; }
else
    cp "$new" "$readme"
fi

#!/usr/bin/env bash
# make test-time: how long make test and make test-full take in a fresh clone of this repository's HEAD
# (build included), each with its closing line. The budgets: make test within 4 minutes on a GPU machine
# and 8 on a 2-core machine without one.
# usage: scripts/test_time.sh [LOG_DIR]  (LOG_DIR: where each run's whole output is kept; default: a scratch folder)
cd "$(dirname "$0")/.." && source scripts/lib.sh || exit 2
logs=${1:-$tmp}
mkdir -p "$logs"
git clone -q . "$tmp/clone" || die "cannot clone this repository into $tmp/clone"
status=0
for goal in test test-full; do
    start=$(date +%s)
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$tmp/clone" "$goal" >"$logs/$goal.log" 2>&1 || status=1
    echo "make $goal: $(($(date +%s) - start)) s, $(grep -E '^[0-9]+ passed, ' "$logs/$goal.log" | tail -n 1)"
done
exit $status

#!/usr/bin/env bash
# make stage-NN exercise | solution: build the stage's exercise (or its solution), run its check, and
# say pass or fail; on a failing exercise, print the hints from stages/NN_*/exercise.cu (in English,
# then in Chinese: its " * Hint:" and " * 提示：" lines).
# usage: scripts/exercise.sh exercise|solution STAGE
# Exit codes: 0 passes, 1 fails its check, 2 no exercise, 3 no usable GPU.
set -u
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/exercise.sh exercise|solution STAGE}
stage=${2:?usage: scripts/exercise.sh exercise|solution STAGE}
src=stages/$stage/exercise.cu
[ -f "$src" ] || { echo "stage $stage has no exercise" >&2; exit 2; }
bin=build/$stage/$kind
sizes=$("$bin" --list | sed -n 's/^check sizes: //p')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for fill in random ones; do
    "$bin" --check --n "$sizes" --fill $fill --reps 1 --warmup 0 >>"$log" 2>&1
    rc=$?
    [ $rc -eq 3 ] && { tail -3 "$log"; exit 3; }
    [ $rc -ne 0 ] && status=1
done
what="the $kind of stage $stage ($src$( [ "$kind" = solution ] && echo " with solutions/$stage.cu"))"
if [ $status -eq 0 ]; then
    echo "PASS: $what passes its check at N = $sizes, random and ones data"
    exit 0
fi
echo "FAIL: $what does not pass its check yet. Failing rows:"
awk '$5 == "FAIL" { print "  " $0 }' "$log" | head -8
if [ "$kind" = exercise ]; then
    echo "Hints (from $src):"
    awk '/^ \* (Hint:|提示：)/ { sub(/^ \* (Hint:|提示：) */, "  - "); hint = 1 }
         hint && /^ \*   / { sub(/^ \* */, "    ") }
         hint && !/^  - |^    / { hint = 0 }
         hint { sub(/ *\*\/ *$/, ""); print }' "$src"
fi
exit 1

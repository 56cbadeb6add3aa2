#!/usr/bin/env bash
# make stage-NN exercise | solution: run the check of the stage's exercise (or its solution), built by
# make as build/<stage>/exercise (solution), at the check sizes and with each check fill its --describe
# gives, and say pass or fail; on a failing exercise, print the hints from stages/NN_*/exercise.cu (in
# English, then in Chinese: its " * Hint:" and " * 提示：" lines).
# usage: scripts/exercise.sh exercise|solution STAGE
# Exit codes: 0 passes, 1 fails its check, 2 no exercise (or a usage error of the program), 3 no usable GPU.
set -u
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/exercise.sh exercise|solution STAGE}
stage=${2:?usage: scripts/exercise.sh exercise|solution STAGE}
src=stages/$stage/exercise.cu
[ -f "$src" ] || { echo "error: stage $stage has no exercise (no $src)" >&2; exit 2; }
bin=build/$stage/$kind
describe() { "$bin" --describe | sed -n "s/^$1: *//p"; }
sizes=$(describe "check sizes")
fills=$(describe "check fills")
[ -n "$sizes" ] && [ -n "$fills" ] || { echo "error: $bin --describe names no check sizes or no check fills" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
for fill in $fills; do
    "$bin" --check --n "$sizes" --fill "$fill" --reps 1 --warmup 0 >>"$log" 2>&1
    rc=$?
    # 1: a failed check; anything else is not a verdict on the exercise (no GPU, a usage error).
    [ $rc -gt 1 ] && { tail -n 3 "$log"; exit $rc; }
    [ $rc -ne 0 ] && status=1
done
what="the $kind of stage $stage ($src$( [ "$kind" = solution ] && echo " with solutions/$stage.cu"))"
if [ $status -eq 0 ]; then
    echo "PASS: $what passes its check at N = $sizes, fills: $fills"
    exit 0
fi
echo "FAIL: $what does not pass its check yet. Failing rows:"
grep -E '(^|[[:space:]])FAIL([@[:space:]]|$)' "$log" | head -n 8 | sed 's/^/  /'
if [ "$kind" = exercise ]; then
    echo "Hints (from $src):"
    awk '/^ \* (Hint:|提示：)/ { sub(/^ \* (Hint:|提示：) */, "  - "); hint = 1 }
         hint && /^ \*   / { sub(/^ \* */, "    ") }
         hint && !/^  - |^    / { hint = 0 }
         hint { sub(/ *\*\/ *$/, ""); print }' "$src"
fi
exit 1

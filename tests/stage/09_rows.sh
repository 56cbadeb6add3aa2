# shellcheck shell=bash
# Stage 09 (a sum per row): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when a
# GPU is present) exist. Its options first (no GPU needed), then its rows on the GPU.
rows_program=build/09_rows/reduce
expect "09 --rows without --cols is a usage error" 2 "--rows needs --cols" -- $rows_program --rows 5
expect "09 --cols longer than the matrix is a usage error" 2 "each H must be at most" -- $rows_program --n 1000 --cols 2000
expect "09 a bad matrix size is a usage error" 2 "--n '3x0'" -- $rows_program --n 3x0
if [ "$gpu" = 1 ]; then
    # Random shapes (rows x cols, both odd or not), every kernel against its fp64 row sums, --fill ones
    # (every row sums to exactly cols), --rows/--cols, and a matrix past 2^31 elements.
    shapes=$(awk 'BEGIN { srand(909); for (i = 0; i < 30; i++) printf "%s%dx%d", i ? "," : "", 1 + int(rand() * 3000), 1 + int(rand() * 5000) }')
    $rows_program --check --n "$shapes" --reps 1 --warmup 0 --seed 9 --offset 1 --csv "$tmp/rows.csv" >"$tmp/rows" 2>&1
    rc=$?
    rows=$(awk -F, 'NR > 1 && $2 == "09_rows"' "$tmp/rows.csv" | wc -l)
    failed=$(awk -F, 'NR > 1 && $2 == "09_rows" && $10 != 1 { printf "%s %s/%s; ", $3, $5, $11 }' "$tmp/rows.csv")
    if [ $rc -eq 0 ] && [ "$rows" -eq 180 ] && [ -z "$failed" ]; then ok "09 fuzz: 30 random shapes x 6 kernels (unaligned rows) pass"
    else bad "09 fuzz (exit $rc, $rows rows): $failed"; fi
    $rows_program --check --rows 777 --cols 1000 --fill ones --reps 1 --warmup 0 --csv "$tmp/ones.csv" >"$tmp/ones" 2>&1
    rc=$?
    exact=$(awk -F, 'NR > 1 && $2 == "09_rows" && $9 + 0 == 0 && $10 == 1' "$tmp/ones.csv" | wc -l)
    if [ $rc -eq 0 ] && [ "$exact" -eq 6 ]; then ok "09 --fill ones: every kernel gives exactly 1000 for each of 777 rows"
    else bad "09 --fill ones (exit $rc): $exact of 6 kernels exact"; tail -8 "$tmp/ones" | sed 's/^/     | /'; fi
    expect "09 a matrix of 2^16 x 32769 (past 2^31 elements): every kernel passes" 0 "all kernels passed" -- \
        $rows_program --check --n 2^16x32769 --reps 1 --warmup 0
else
    skipped "09 random shapes, --fill ones per row, a matrix past 2^31 elements (no GPU: nvidia-smi -L finds none)"
fi

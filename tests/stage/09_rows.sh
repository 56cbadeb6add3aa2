# shellcheck shell=bash
# Stage 09 (a sum per row): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and $gpu (1 when a
# GPU is present) exist. Its options first (no GPU needed), then its rows on the GPU.
rows_program=build/09_rows/reduce
expect "09 --rows without --cols is a usage error" 2 "--rows needs --cols" -- $rows_program --rows 5
expect "09 --cols longer than the matrix is a usage error" 2 "each H must be at most" -- $rows_program --n 1000 --cols 2000
expect "09 a bad matrix size is a usage error" 2 "--n '3x0'" -- $rows_program --n 3x0
if [ "$gpu" = 1 ]; then
    # Every kernel of the table (and CUB's row), from --describe; the log-sum-exp kernels are the softmax ones.
    kernels=$($rows_program --describe | grep -c '^kernel: ')
    lse_kernels=$($rows_program --describe | grep -c '^kernel: rows_[a-z_]*softmax')
    # Random shapes (rows x cols, both odd or not), every kernel against its fp64 row sums, --fill ones
    # (every row sums to exactly cols), --rows/--cols, and a matrix past 2^31 elements.
    shapes=$(awk 'BEGIN { srand(909); for (i = 0; i < 30; i++) printf "%s%dx%d", i ? "," : "", 1 + int(rand() * 3000), 1 + int(rand() * 5000) }')
    $rows_program --check --n "$shapes" --reps 1 --warmup 0 --seed 9 --offset 1 --csv "$tmp/rows.csv" >"$tmp/rows" 2>&1
    rc=$?
    rows=$(awk -F, 'NR > 1 && $2 == "09_rows"' "$tmp/rows.csv" | wc -l)
    failed=$(awk -F, 'NR > 1 && $2 == "09_rows" && $10 != 1 { printf "%s %s/%s; ", $3, $5, $11 }' "$tmp/rows.csv")
    if [ $rc -eq 0 ] && [ "$rows" -eq $((30 * kernels)) ] && [ -z "$failed" ]; then ok "09 fuzz: 30 random shapes x $kernels kernels (unaligned rows) pass"
    else bad "09 fuzz (exit $rc, $rows rows): $failed"; fi
    $rows_program --check --rows 777 --cols 1000 --fill ones --reps 1 --warmup 0 --csv "$tmp/ones.csv" >"$tmp/ones" 2>&1
    rc=$?
    exact=$(awk -F, 'NR > 1 && $2 == "09_rows" && $3 !~ /softmax/ && $9 + 0 == 0 && $10 == 1' "$tmp/ones.csv" | wc -l)
    lse=$(awk -F, 'NR > 1 && $2 == "09_rows" && $3 ~ /softmax/ && $10 == 1' "$tmp/ones.csv" | wc -l)
    if [ $rc -eq 0 ] && [ "$exact" -eq $((kernels - lse_kernels)) ] && [ "$lse" -eq "$lse_kernels" ]; then
        ok "09 --fill ones: every sum kernel gives exactly 1000 for each of 777 rows, the log-sum-exp kernels 1 + log 1000 within their bound"
    else bad "09 --fill ones (exit $rc): $exact of $((kernels - lse_kernels)) sum kernels exact, $lse of $lse_kernels log-sum-exp kernels pass"; tail -n 8 "$tmp/ones" | sed 's/^/     | /'; fi
    # A NaN (+Inf) at element 777: its row must give NaN (+Inf) from every kernel, the sums and the
    # log-sum-exps alike, and every other row its finite value.
    for f in nan inf; do
        expect "09 --fill $f: the row holding it gives $f from every kernel, the other rows pass" 0 "all kernels passed" -- \
            $rows_program --check --n 7x1000,1000x7,3x333,1x1000003 --fill $f --reps 1 --warmup 0
    done
    # A row of one element: its log-sum-exp is the element itself, exactly (exp(0) = 1, log(1) = 0).
    $rows_program --check --n 1000x1 --kernel rows_softmax_two_pass,rows_online_softmax --reps 1 --warmup 0 --csv "$tmp/one.csv" >"$tmp/one" 2>&1
    rc=$?
    exact=$(awk -F, 'NR > 1 && $3 ~ /softmax/ && $9 + 0 == 0 && $10 == 1' "$tmp/one.csv" | wc -l)
    if [ $rc -eq 0 ] && [ "$exact" -eq "$lse_kernels" ]; then ok "09 rows of one element: every log-sum-exp kernel gives the element exactly"
    else bad "09 rows of one element (exit $rc): $exact of $lse_kernels log-sum-exp kernels exact"; fi
    # The sub-warp kernel and the chooser at every row length up to 48, around each width's threshold,
    # rows starting past an aligned address: each row read once, by a group of 1, 2, ..., 32 lanes.
    expect "09 rows_subwarp_per_row and rows_auto at cols 1 ... 48 and around every width (unaligned rows)" 0 "all kernels passed" -- \
        $rows_program --check --rows 37 --kernel rows_subwarp_per_row,rows_auto --offset 3 --reps 1 --warmup 0 \
        --cols "$(seq -s, 1 48),63,64,65,127,128,129,255,256,257,511,512,513,2047,2048,2049"
    expect "09 a matrix of 2^16 x 32769 (past 2^31 elements): every kernel passes" 0 "all kernels passed" -- \
        $rows_program --check --n 2^16x32769 --reps 1 --warmup 0
    # The exercise's solution (several blocks per row) past its check sizes: few long rows cut into
    # slices, rows starting past an aligned address; --fill ones makes every row exactly its length, and
    # three runs must give the same bits (the finish is a second kernel, not atomics).
    for f in $(solved 09_rows && echo ones random); do
        expect "09 exercise solution: few long rows in slices, unaligned, --fill $f, the same bits every run" 0 \
            "all kernels passed" -- build/09_rows/solution --check --n 1x2^22+3,2x777777,3x100003,9x8191,5x4096 \
            --fill $f --offset 1 --seed 9 --reps 3 --warmup 0
    done
else
    skipped "09 random shapes, --fill ones, nan and inf per row, rows of one element, every sub-warp width, a matrix past 2^31 elements, the exercise's solution on few long rows (no GPU: nvidia-smi -L finds none)"
fi

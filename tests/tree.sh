# shellcheck shell=bash
# make stage-NN tree (scripts/tree.sh, build/<stage>/tree): sourced by tests/run.sh once ok/bad/skipped/
# expect, describe, $tmp, $gpu and $PROGRAMS exist. The host half draws made-up records (tests/tree_record.awk)
# and the committed ones, and checks the bad input; the GPU half records every tree kernel.
echo "== see the tree (make stage-NN tree)"
for form in interleaved strided sequential shuffle; do
    awk -v form=$form -v threads=64 -f tests/tree_record.awk >"$tmp/tree-$form.csv"
done
# The wavefronts a made-up block of 64 threads implies: the strided tree's accesses 2*s*tid are 2-way
# conflicts in all but the last steps, the other two forms have none.
for want in "interleaved:ld 22 22:st 13 13" "strided:ld 12 22:st 8 13" "sequential:ld 12 12:st 8 8" "shuffle:ld 1 1:st 2 2"; do
    form=${want%%:*}
    got=$(scripts/tree.sh counts "$tmp/tree-$form.csv" | tr '\n' ':')
    if [ "$got" = "${want#*:}:" ]; then ok "tree counts of a made-up $form block: ${want#*:}"
    else bad "tree counts of a made-up $form block: $got, wanted ${want#*:}"; fi
done
expect "tree draws a made-up strided record: its additions step by step" 0 "^ +2 \| \+ \+ \+ .* \| 32 additions" -- \
    bash -c "scripts/tree.sh draw $tmp/tree-strided.csv $tmp/tree-strided.png 2>&1"
grep -qE '^   1 ld  1 \| 2 - \|  1  3  5' "$tmp/out" && ok "tree shows the strided tree's 2-way conflict and its banks" ||
    bad "tree should show the strided record's first loads as 2 wavefronts on banks 1 3 5 ..."
grep -qE '^   3 \| ########\.{24} ' "$tmp/out" && ok "tree shows the active lanes of each step" ||
    bad "tree should show 8 active lanes of warp 0 at step 3 of the strided record"
expect "tree draws a made-up shuffle record: the lanes each lane read" 0 "shfl_down 16 +\| 16 17 18" -- \
    bash -c "scripts/tree.sh draw $tmp/tree-shuffle.csv $tmp/tree-shuffle.png 2>&1"
if command -v gnuplot >/dev/null; then
    [ "$(head -c 4 "$tmp/tree-shuffle.png" | od -An -c | tr -d ' ')" = '211PNG' ] && ok "tree draws a PNG" || bad "tree drew no PNG"
else
    skipped "tree draws a PNG (gnuplot not installed)"
fi
expect "tree draw on a file that is not a record, exit 2" 2 "not a tree record" -- scripts/tree.sh draw Makefile "$tmp/x.png"
expect "the READMEs' tree blocks are drawn from the committed records" 0 "" -- scripts/tree.sh readme --check
for png in stages/*/tree/*.png; do
    [ -f "$png" ] || continue
    # (The committed picture itself is not compared: gnuplot's bytes differ between versions and fonts.)
    expect "the record beside $png draws" 0 "drawn" -- scripts/tree.sh draw "${png%.png}.csv" "$tmp/again.png"
done
# Every harness program has a record build, whose bad input and refusals are those of every program.
for p in $PROGRAMS; do
    s=$(basename "$(dirname "$p")")
    t=build/$s/tree
    if [ ! -x "$t" ]; then
        expect "make stage-${s%%_*} tree says a program of its own cannot be recorded (exit 5)" 5 "a program of its own" -- \
            scripts/tree.sh record "$s"
        continue
    fi
    expect "$s tree: an unknown kernel, exit 2" 2 "unknown kernel 'nope'" -- "$t" --kernel nope
    expect "$s tree: no kernel named, exit 2" 2 "name the one kernel" -- "$t"
    for k in $(describe "$p" "tree kernels"); do
        expect "$s tree --kernel $k with no GPU: one line, exit 3" 3 "no CUDA-capable GPU found" -- env CUDA_VISIBLE_DEVICES= "$t" --kernel "$k"
        [ "$(grep -c . "$tmp/out")" = 1 ] && ok "$s tree with no GPU: that line only" || bad "$s tree with no GPU printed $(grep -c . "$tmp/out") lines"
    done
    for k in $("$p" --describe | awk '$1 == "kernel:" && $4 == "cpu" { print $2 }'); do
        expect "$s tree --kernel $k: a CPU loop cannot be recorded, exit 5" 5 "$k cannot be recorded: it is a loop on the CPU" -- "$t" --kernel "$k"
    done
done
expect "make stage-NN tree with no usable GPU says so" 2 "make tree runs kernels, so it needs an NVIDIA GPU" -- \
    env CUDA_VISIBLE_DEVICES= make --no-print-directory -s "stage-$(basename "$(dirname "$(echo "$PROGRAMS" | head -1)")" | cut -c1-2)" tree
if [ "$gpu" = 1 ]; then
    for p in $PROGRAMS; do
        s=$(basename "$(dirname "$p")")
        [ -x "build/$s/tree" ] || continue
        for k in $(describe "$p" "tree kernels"); do
            "build/$s/tree" --kernel "$k" --record "$tmp/rec.csv" >"$tmp/out" 2>&1
            rc=$?
            if [ $rc -eq 0 ] && scripts/tree.sh draw "$tmp/rec.csv" "$tmp/rec.png" >"$tmp/draw" 2>&1; then ok "$s tree records and draws $k on the GPU"
            else bad "$s tree --kernel $k (exit $rc)"; tail -3 "$tmp/out" "$tmp/draw" | sed 's/^/     | /'; fi
        done
    done
else
    skipped "every tree kernel recorded on the GPU and drawn (no GPU: nvidia-smi -L finds none)"
fi

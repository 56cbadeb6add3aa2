# shellcheck shell=bash
# make stage-NN tree (scripts/tree.sh, build/<stage>/tree): sourced by tests/run.sh once ok/bad/skipped/
# expect, describe, $tmp, $gpu and $PROGRAMS exist. The host half draws made-up records (tests/tree_record.py)
# and the committed ones, and checks the bad input; the GPU half records every kernel that can be
# recorded, and draws the tree kernels.
echo "== see the tree (make stage-NN tree)"
for form in interleaved strided sequential shuffle shuffle_first loop_shuffle_first; do
    python3 tests/tree_record.py $form 64 >"$tmp/tree-$form.csv"
done
# The wavefronts a made-up block of 64 threads implies: the strided tree's accesses 2*s*tid are 2-way
# conflicts in all but the last steps, the other forms have none.
for want in "interleaved:ld 22 22:st 13 13" "strided:ld 12 22:st 8 13" "sequential:ld 12 12:st 8 8" "shuffle:ld 1 1:st 2 2" "shuffle_first:ld 1 1:st 2 2"; do
    form=${want%%:*}
    got=$(scripts/tree.sh counts "$tmp/tree-$form.csv" | tr '\n' ':')
    if [ "$got" = "${want#*:}:" ]; then ok "tree counts of a made-up $form block: ${want#*:}"
    else bad "tree counts of a made-up $form block: $got, wanted ${want#*:}"; fi
done
# scripts/tree.sh draw prints the terminal form, then draws the PNG with gnuplot; without gnuplot it
# says so after the terminal form (exit 4).
if command -v gnuplot >/dev/null; then drawn=0; else drawn=4; fi
expect "tree draws a made-up strided record: its additions step by step" $drawn "^ +2 \| \+ \+ \+ .* \| 32 additions" -- \
    bash -c "scripts/tree.sh draw $tmp/tree-strided.csv $tmp/tree-strided.png 2>&1"
grep -qE '^   1 ld  1 \| 2 - \|  1  3  5' "$tmp/out" && ok "tree shows the strided tree's 2-way conflict and its banks" ||
    bad "tree should show the strided record's first loads as 2 wavefronts on banks 1 3 5 ..."
grep -qE '^   3 \| ########\.{24} ' "$tmp/out" && ok "tree shows the active lanes of each step" ||
    bad "tree should show 8 active lanes of warp 0 at step 3 of the strided record"
expect "tree draws a made-up shuffle record: the lanes each lane read" $drawn "shfl_down 16 +\| 16 17 18" -- \
    bash -c "scripts/tree.sh draw $tmp/tree-shuffle.csv $tmp/tree-shuffle.png 2>&1"
# A shuffle down's 32 lanes make 16 + 24 + 28 + 30 + 31 additions, of which lane 0's sum needs 31.
grep -q '^129 additions, 98 of them unused ' "$tmp/out" && ok "tree tells a shuffle down's unused additions from the 31 lane 0 needs" ||
    bad "tree should count 129 additions, 98 of them unused, in the made-up shuffle record"
# Shuffle first with two warps: each warp's 129 additions (31 used), and warp 0's 129 again over the two
# warp sums and 30 zeros. The zeros come after the __syncthreads: were they taken for the lanes' old
# sums, warp 0's first-round additions would count as used.
expect "tree of a made-up shuffle-first block: lanes that read nothing after a barrier bring new values" 0 \
    "^387 additions, 294 of them unused " -- python3 scripts/report tree --mode ascii "$tmp/tree-shuffle_first.csv"
# The same block after a loop of 4 global loads a thread: the loads are the leaves, each thread's sum of
# them a row of its own, and the tree above it the same 387 additions.
expect "tree of a made-up block with a loop: the global loads as leaves, their sums in registers, the same tree" 0 \
    "\| each thread's loads, added in registers Global loads before the tree: 256 elements, 4 a thread, .*387 additions, 294 of them unused " -- \
    bash -c "python3 scripts/report tree --mode ascii $tmp/tree-loop_shuffle_first.csv | grep -E '^ +1 \| \+{64} \| each thread|^Global|^[0-9]+ additions' | tr '\n' ' '"
if command -v gnuplot >/dev/null; then
    [ "$(head -c 4 "$tmp/tree-shuffle.png" | od -An -c | tr -d ' ')" = '211PNG' ] && ok "tree draws a PNG" || bad "tree drew no PNG"
else
    skipped "tree draws a PNG ($(missing gnuplot))"
    expect "tree without gnuplot draws the terminal form and says no PNG was drawn, exit 4" 4 "^gnuplot not found: no PNG drawn" -- \
        bash -c "scripts/tree.sh draw $tmp/tree-shuffle.csv $tmp/tree-shuffle.png 2>&1"
fi
expect "tree draw on a file that is not a record, exit 2" 2 "not a tree record" -- scripts/tree.sh draw Makefile "$tmp/x.png"
expect "the READMEs' tree blocks are drawn from the committed records" 0 "" -- scripts/tree.sh readme --check
# draw_record RECORD PNG: draw a record as make stage-NN tree does (without gnuplot, the terminal form).
draw_record() { if [ "$drawn" = 0 ]; then scripts/tree.sh draw "$1" "$2"; else python3 scripts/report tree --mode ascii "$1"; fi; }
[ "$drawn" = 0 ] || skipped "the committed records drawn again as PNG ($(missing gnuplot)): drawn on the terminal instead"
for png in stages/*/tree/*.png; do
    [ -f "$png" ] || continue
    # (The committed picture itself is not compared: gnuplot's bytes differ between versions and fonts.)
    expect "the record beside $png draws" 0 "additions" -- draw_record "${png%.png}.csv" "$tmp/again.png"
done
# The kernels of a program's table (not CUB's rows).
table_kernels() { "$1" --describe | awk '$1 == "kernel:" && $4 != "library" { print $2 }'; }
# Every harness program has a record build, whose bad input and refusals are those of every program.
: >"$tmp/recordable"
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
    # Every kernel of the table: one that cannot be recorded says why before it looks for a GPU (exit 5,
    # its reason); any other needs only the GPU (exit 3 here), and the GPU half records each of those.
    unexplained=""
    untraceable=0
    recordable=0
    for k in $(table_kernels "$p"); do
        env CUDA_VISIBLE_DEVICES= "$t" --kernel "$k" >"$tmp/out" 2>&1
        rc=$?
        if [ $rc -eq 5 ] && grep -qE "^[^ ]+: $k cannot be recorded: [a-z]+ " "$tmp/out"; then untraceable=$((untraceable + 1))
        elif [ $rc -eq 3 ]; then recordable=$((recordable + 1)); echo "$s $k" >>"$tmp/recordable"
        else unexplained="$unexplained $k (exit $rc)"; fi
    done
    if [ -z "$unexplained" ] && [ $recordable -gt 0 ]; then
        ok "$s tree: each kernel is recorded on a GPU ($recordable) or says why it cannot be ($untraceable)"
    else
        bad "$s tree: kernels neither recorded nor refused with a reason:${unexplained:- none}; recordable: $recordable"
    fi
done
unknown=$(for p in $PROGRAMS; do for k in $(describe "$p" "tree kernels"); do table_kernels "$p" | grep -qx "$k" || echo "$k"; done; done | tr '\n' ' ')
[ -z "$unknown" ] && ok "every stage's tree kernels are kernels of its table" || bad "tree kernels not in their stage's table: $unknown"
first_stage=$(basename "$(dirname "$(echo "$PROGRAMS" | head -n 1)")")
expect "make stage-NN tree with no usable GPU says so" 2 "make stage-${first_stage%%_*} tree runs kernels on an NVIDIA GPU" -- \
    env CUDA_VISIBLE_DEVICES= make --no-print-directory -s "stage-${first_stage%%_*}" tree
if [ "$gpu" = 1 ]; then
    for p in $PROGRAMS; do
        s=$(basename "$(dirname "$p")")
        [ -x "build/$s/tree" ] || continue
        for k in $(describe "$p" "tree kernels"); do
            "build/$s/tree" --kernel "$k" --record "$tmp/rec.csv" >"$tmp/out" 2>&1
            rc=$?
            if [ $rc -eq 0 ] && draw_record "$tmp/rec.csv" "$tmp/rec.png" >"$tmp/draw" 2>&1; then ok "$s tree records and draws $k on the GPU"
            else bad "$s tree --kernel $k (exit $rc)"; tail -n 3 "$tmp/out" "$tmp/draw" | sed 's/^/     | /'; fi
            # The README's picture is this record: the same accesses (its first line names the GPU).
            if cmp -s <(tail -n +2 "$tmp/rec.csv") <(tail -n +2 "stages/$s/tree/$k.csv"); then ok "$s tree: $k records what stages/$s/tree/$k.csv holds"
            else bad "$s tree: $k's record differs from stages/$s/tree/$k.csv (make stage-${s%%_*} tree records it anew)"; fi
        done
    done
    # Every other kernel that can be recorded records something (never "recorded nothing") that draws.
    while read -r s k; do
        "build/$s/tree" --kernel "$k" --record "$tmp/rec.csv" </dev/null >"$tmp/out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && python3 scripts/report tree --mode ascii "$tmp/rec.csv" >"$tmp/draw" 2>&1; then ok "$s tree records $k on the GPU ($(sed -n 's/.*recorded \([0-9]*\) events.*/\1/p' "$tmp/out") events)"
        else bad "$s tree --kernel $k (exit $rc)"; tail -n 3 "$tmp/out" "$tmp/draw" | sed 's/^/     | /'; fi
    done <"$tmp/recordable"
else
    skipped "every tree kernel recorded on the GPU and drawn (no GPU: nvidia-smi -L finds none)"
    skipped "every kernel that can be recorded records on the GPU (no GPU: nvidia-smi -L finds none)"
fi

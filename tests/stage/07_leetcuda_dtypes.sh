# shellcheck shell=bash
# Stage 07 (input types and packed loads): sourced by tests/run.sh once ok/bad/skipped/expect, $tmp and
# $gpu (1 when a GPU is present) exist.
dtypes=build/07_leetcuda_dtypes/reduce
if [ "$gpu" = 1 ]; then
    expect "07 --offset 1: the packed kernels refuse it, the rest pass" 0 "f32x4_f32 +skipped: the input is not 16-byte aligned" -- \
        $dtypes --check --n 1000003 --offset 1 --reps 1 --warmup 0
    # LeetCUDA's launch: a block of K/PACK threads per row where that is 32 ... 1024, else 1024/PACK
    # threads; rows whose K/PACK is not whole or not a power of two, and a last pack past N.
    expect "07 S x K shapes: a block per row, and the other branch of the launcher" 0 "all kernels passed verification" -- \
        $dtypes --check --n 64x256,3x4097,5x100,1024x2048,2x8200 --reps 1 --warmup 0
    # Values near each type's maximum: the narrow accumulators must overflow and say so (xfail), the
    # int32 one must stay exact, and an expected overflow is not a failure of --check.
    $dtypes --fill large --n 4096 --reps 1 --warmup 0 --check --csv "$tmp/large.csv" >"$tmp/large" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q "fp16 accumulator cannot hold" "$tmp/large"; then ok "07 --fill large: overflow reported, --check exits 0"; else bad "07 --fill large (exit $rc)"; fi
    # f16x2_f32 adds its pair in fp16 (as LeetCUDA does) before the fp32 warp tree: it overflows too.
    for k in fp8_e4m3_f16 fp8_e4m3x16_pack_f16 fp8_e5m2_f16 fp8_e5m2x16_pack_f16 f16_f16 f16x2_f16 f16x2_f32 f16x8_pack_f16; do
        v=$(awk -F, -v k=$k '$3 == k { print $10 }' "$tmp/large.csv")
        if [ "$v" = xfail ]; then ok "07 $k overflows its fp16 accumulator: xfail"; else bad "07 $k with --fill large: '$v', wanted xfail"; fi
    done
    for k in f16_f32 f16x8_pack_f32 i8_i32 i8x16_pack_i32; do
        v=$(awk -F, -v k=$k '$3 == k { print $10 }' "$tmp/large.csv")
        if [ "$v" = 1 ]; then ok "07 $k holds the large sums: pass"; else bad "07 $k with --fill large: '$v', wanted 1"; fi
    done
    if command -v cuobjdump >/dev/null; then
        expect "make stage-07 sass: 16-byte loads in the pack kernels" 0 "LDG.128 [1-9]" -- make --no-print-directory -s stage-07 sass
    else
        skipped "make stage-07 sass: 16-byte loads in the pack kernels ($(missing cuobjdump))"
    fi
else
    skipped "07 an unaligned input refused by the packed kernels (no GPU: nvidia-smi -L finds none)"
    skipped "07 S x K shapes through both branches of the launcher (no GPU: nvidia-smi -L finds none)"
    skipped "07 --fill large: overflow reported as an expected failure (no GPU: nvidia-smi -L finds none)"
    skipped "07 16-byte loads in the SASS (no GPU: nvidia-smi -L finds none)"
fi

# shellcheck shell=bash
# --input FILE (sum your own data), in every single-GPU program that has it; a stage's own tests may call
# bad_files for a program of its own. Sourced by tests/run.sh once ok/bad/skipped/expect, describe, stage_of,
# $SINGLE_GPU, $tmp and $gpu exist. Every bad file is a one-line error and exit 2, found before the GPU is
# opened; where a GPU is, a file this test writes is summed and checked.
echo "== --input: sum your own data"
npy() { python3 tests/npy.py "$@"; }
# bad_files PROGRAM LABEL DESCR SHAPE: the refusals every program that reads a file shares (read_input), on
# files of its type DESCR and SHAPE written here: each a one-line error, exit 2, before the GPU is opened.
# Leaves $tmp/in.npy and $tmp/raw.bin, that type's good files.
bad_files() {
    local p=$1 s=$2 d=$3 shape=$4
    npy "$tmp/in.npy" "$d" "$shape"
    expect "$s --input: a missing file, exit 2" 2 "^error: --input $tmp/none.npy: cannot read it" -- "$p" --input "$tmp/none.npy"
    printf '\223NUMPY\001\000\020\000{garbage}      \n' >"$tmp/bad.npy"
    expect "$s --input: a malformed .npy header, exit 2" 2 "malformed \.npy header" -- "$p" --input "$tmp/bad.npy"
    npy "$tmp/short.npy" "$d" "$shape" --drop 3
    expect "$s --input: a truncated .npy, exit 2" 2 ": truncated: the header says" -- "$p" --input "$tmp/short.npy"
    npy "$tmp/big.npy" ">f4" 1000
    expect "$s --input: a big-endian .npy, exit 2" 2 "dtype '>f4'" -- "$p" --input "$tmp/big.npy"
    npy "$tmp/raw.bin" "$d" "$shape" --raw
    expect "$s --input: raw bytes without --dtype, exit 2" 2 "give their --dtype" -- "$p" --input "$tmp/raw.bin"
    expect "$s --input with --n: the file sets N, exit 2" 2 "give no --n" -- "$p" --input "$tmp/in.npy" --n 1000
}
for p in $SINGLE_GPU; do
    s=$(stage_of "$p")
    if ! "$p" --help | grep -q -- "--input FILE"; then skipped "$s --input (its program reads no file yet)"; continue; fi
    types=" $(describe "$p" "input types") "
    case $types in *" f32 "*) d='<f4' t=f32 ;; *" f16 "*) d='<f2' t=f16 ;; *" i8 "*) d='|i1' t=i8 ;; *) d='<i4' t=i32 ;; esac
    shape=1000003 && [ "$(describe "$p" "row stage")" = yes ] && shape=7,1001
    bad_files "$p" "$s" "$d" "$shape"
    in=(--input "$tmp/in.npy" --reps 1 --warmup 0)
    expect "$s --input: a .npy whose type --dtype contradicts, exit 2" 2 "but --dtype says" -- \
        "$p" --input "$tmp/in.npy" --dtype "$([ $t = f32 ] && echo f16 || echo f32)"
    expect "$s --dtype without --input, exit 2" 2 "names the type of a raw --input" -- "$p" --dtype f32
    if [[ $types != *" f16 "* ]]; then
        npy "$tmp/half.npy" '<f2' 1000
        expect "$s --input of a type no kernel takes: refused with the types taken, exit 2" 2 \
            "holds f16 values; this program's kernels take:${types% }$" -- "$p" --input "$tmp/half.npy"
    fi
    if [ "$gpu" = 1 ]; then
        expect "$s --input: its $t kernels sum a .npy this test wrote ($shape), every check passing" 0 \
            "all kernels passed" -- "$p" "${in[@]}" --check --csv "$tmp/input-$s.csv"
        if grep -q ", input $tmp/in.npy ($t)" "$tmp/out" && awk -F, 'NR > 1 && $2 != "00_device" { rows++; if ($17 != "input") bad = 1 }
            END { exit bad || !rows }' "$tmp/input-$s.csv"; then ok "$s --input: the table names the file, the CSV rows say input"
        else bad "$s --input: the table or the CSV does not name the input"; fi
        npy "$tmp/raw.bin" "$d" "$shape" --raw
        expect "$s --input: the same values as raw bytes with --dtype $t" 0 "all kernels passed" -- \
            "$p" --input "$tmp/raw.bin" --dtype $t --reps 1 --warmup 0 --check
    else
        expect "$s --input: a good file passes every check of the file, then the GPU is needed (exit 3)" 3 "" -- "$p" "${in[@]}"
    fi
done

# Stage 08's targets, from a results CSV: each kernel's speed against CUB on the same input type at every
# N ("x CUB" = CUB's median time / the kernel's), the deterministic variant against the fastest fp32
# one, and the fp32 kernel against the speed of light (its time over the kernel's: 1 is the limit).
# Rows with the input left in L2 are not counted. Run as: awk -F, -v stage=08_roofline -f scripts/ratios.awk CSV
# lang=zh: the row labels in Chinese.
function say(en, zh) { return lang == "zh" ? zh : en }
NR == 1 || $12 == "warm" { next }
$2 == "00_device" {
    if ($3 == "read_sol" && $7 + 0 > sol) sol = $7 + 0
    if ($3 == "launch_floor" && (floor == "" || $6 + 0 < floor)) floor = $6 + 0
    next
}
$2 != stage { next }
{
    n = $5 + 0; if (!(n in seen_n)) { seen_n[n] = 1; ns[++count_n] = n }
    if ($3 == "cub") { cub[$4, n] = $6; next }
    if (!($3 in seen)) { seen[$3] = 1; order[++count] = $3 }
    us[$3, n] = $6; dtype[$3] = $4
}
END {
    for (i = 2; i <= count_n; i++) for (j = i; j > 1 && ns[j - 1] > ns[j]; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
    line = say("| x CUB at N = |", "| x CUB，N = |"); sep = "|---|"
    for (j = 1; j <= count_n; j++) { line = line sprintf(" 2^%d |", log(ns[j]) / log(2) + 0.5); sep = sep "---:|" }
    print line; print sep
    for (i = 1; i <= count; i++) {
        line = "| `" order[i] "` |"
        for (j = 1; j <= count_n; j++) {
            k = order[i] SUBSEP ns[j]; c = dtype[order[i]] SUBSEP ns[j]
            line = line ((k in us) && (c in cub) && us[k] > 0 ? sprintf(" %.3f |", cub[c] / us[k]) : " - |")
        }
        print line
    }
    line = say("| deterministic / fastest fp32 |", "| 确定性版本 / 最快的 fp32 |")
    for (j = 1; j <= count_n; j++) {
        a = "roofline_f32" SUBSEP ns[j]; b = "roofline_f32_deterministic" SUBSEP ns[j]
        line = line ((a in us) && (b in us) ? sprintf(" %.3f |", us[a] / us[b]) : " - |")
    }
    print line
    if (sol <= 0) exit
    line = say("| speed of light (µs) |", "| 光速 (µs) |"); line2 = say("| speed of light / `roofline_f32` |", "| 光速 / `roofline_f32` |")
    for (j = 1; j <= count_n; j++) {
        sol_us = floor + 4.0 * ns[j] / sol / 1e3; a = "roofline_f32" SUBSEP ns[j]
        line = line sprintf(" %.1f |", sol_us)
        line2 = line2 ((a in us) ? sprintf(" %.3f |", sol_us / us[a]) : " - |")
    }
    print line; print line2
}

# Markdown tables from a results CSV (gpu,stage,kernel,dtype,n,median_us,gbps,pct_peak,rel_err,pass),
# at the largest N of stage 01 (the baseline; for mode=stage, the stage's own largest N). Run as: awk -F, -v mode=MODE [-v stage=NN_name] -f scripts/tables.awk CSV
#   mode=all    every stage's fp32 kernels, then CUB (median of the fp32 CUB rows of all stages)
#   mode=best   the fastest fp32 kernel of each stage, then CUB
#   mode=stage  the kernels of one stage and that stage's own CUB rows (one per input type)
# Speed-up is against the first kernel of 01_naive at the same N; "x CUB" is CUB's time over the
# kernel's, CUB on the same input type (>1: faster than CUB). A repeated row: the last one wins. Rows
# timed with the input left in L2 (l2 = warm) are not in these tables. mode=all and best end with the
# speed of light at that N: the shortest launch floor plus the bytes over the fastest read-only
# bandwidth that any program of the run measured.
function median(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
# lang=zh: the captions and column headers in Chinese (numbers and names are the same).
function say(en, zh) { return lang == "zh" ? zh : en }
function ratio(a, b) { return a <= 0 || b <= 0 ? "-" : a / b < 0.1 ? sprintf("%.3fx", a / b) : sprintf("%.2fx", a / b) }
function row(label, us, gbps, ok, cub) {
    printf "| %s | %.1f | %.0f | %.1f | %s | %s | %s |\n", label, us, gbps, 100 * gbps / peak, ratio(base, us), ratio(cub, us), ok
}
NR == 1 || $12 == "warm" { next }
$2 == "00_device" {
    if ($3 == "dram_peak") peak = $7
    if ($3 == "d2d_copy") copy = $7
    if ($3 == "read_sol" && $7 + 0 > sol) sol = $7 + 0
    if ($3 == "launch_floor" && (floor == "" || $6 + 0 < floor)) floor = $6 + 0
    next
}
$11 != "" {  # a row stage (09): its own table, GB/s by row length; not part of the one-vector progression
    if (mode != "stage" || $2 != stage) next
    gpu = $1; rtotal = $5
    if (!($3 in rseen)) { rseen[$3] = 1; rorder[++rcount] = $3 }
    if (!($11 in rcseen)) { rcseen[$11] = 1; rcols[++rncols] = $11 + 0 }
    rg[$3, $11 + 0] = $7; rok[$3, $11 + 0] = $10
    next
}
mode != "stage" && $4 != "f32" { next }
mode != "stage" && substr($2, 1, 2) + 0 > 8 { next }  # the progression is stages 01-08; later ones have their own tables
mode == "stage" && $2 != stage && $2 != "01_naive" { next }  # 01_naive: the speed-up baseline
{
    gpu = $1; n = $5 + 0; if ((mode != "stage" || $2 == stage) && n > maxn) maxn = n
    if ($2 == "01_naive" && n > maxn01) maxn01 = n
    key = $2 SUBSEP ($3 == "cub" && $4 != "f32" || $2 ~ /^11_/ ? $3 " (" $4 ")" : $3)  # 11: a row per data set
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    us[key, n] = $6; gbps[key, n] = $7; pass[key, n] = $10; dtype[key] = $4
    if (($3 == "cub" || ($3 ~ /^cub_/ && $2 ~ /^11_/)) && (mode != "stage" || $2 == stage)) stage_cub[$4, n] = $6  # 11: one cub_* per data type
    if ($3 == "cub") { cub_us[n] = cub_us[n] " " $6; cub_gbps[n] = cub_gbps[n] " " $7; cub_fail[n] += $10 != 1 }
}
function rows_table(   i, j, t, c, w, b, line, cross) {
    for (i = 2; i <= rncols; i++) for (j = i; j > 1 && rcols[j - 1] > rcols[j]; j--) { t = rcols[j]; rcols[j] = rcols[j - 1]; rcols[j - 1] = t }
    printf say("%s, %d fp32 elements as rows of each length; GB/s of the matrix read and the row sums written, medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s.\n\n", \
             "%s，%d 个 fp32 元素按各行长排成矩阵；GB/s 按读取的矩阵与写出的行和计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s。\n\n"), gpu, rtotal, peak
    line = "| kernel |"; for (j = 1; j <= rncols; j++) line = line " " rcols[j] " |"; print line
    line = "|---|"; for (j = 1; j <= rncols; j++) line = line "---:|"; print line
    for (i = 1; i <= rcount; i++) {
        line = "| `" rorder[i] "` |"
        for (j = 1; j <= rncols; j++) line = line sprintf(" %s |", (rorder[i], rcols[j]) in rg ? sprintf("%.0f%s", rg[rorder[i], rcols[j]], rok[rorder[i], rcols[j]] == 1 ? "" : " FAIL") : "-")
        print line
    }
    # The crossover: the shortest row from which the best block-per-row kernel beats the best warp-per-row one.
    for (j = 1; j <= rncols; j++) {
        w = 0; b = 0; c = rcols[j]
        for (i = 1; i <= rcount; i++) {
            if (rorder[i] ~ /warp_per_row/ && rg[rorder[i], c] + 0 > w) w = rg[rorder[i], c] + 0
            if (rorder[i] ~ /block_per_row/ && rg[rorder[i], c] + 0 > b) b = rg[rorder[i], c] + 0
        }
        if (b > w && !cross) cross = c
        if (b <= w) cross = 0
    }
    if (cross) printf say("\nCrossover: from %d columns per row on, the fastest block-per-row kernel beats the fastest warp-per-row kernel.\n",
                        "\n交叉点：从每行 %d 列起，最快的每行一个线程块的 kernel 胜过最快的每行一个 warp 的 kernel。\n"), cross
    else print say("\nNo crossover in this range: the fastest warp-per-row kernel is at least as fast at every row length.",
                 "\n此范围内没有交叉点：在每个行长上，最快的每行一个 warp 的 kernel 都至少一样快。")
}
END {
    if (mode == "stage" && rcount) { rows_table(); exit 0 }
    if (!count) { print "error: no kernel rows" > "/dev/stderr"; exit 2 }
    if (mode != "stage" && maxn01) maxn = maxn01 # the progression is read at the baseline stage's largest N
    split(order[1], b, SUBSEP)
    base = (b[1] == "01_naive" && (order[1], maxn) in us) ? us[order[1], maxn] : 0
    if (mode == "stage" && stage ~ /^11_/) base = 0  # scans and histograms: no speed-up against a sum
    printf say("%s, N = %d; GB/s of input bytes, medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s, measured device-to-device copy %.0f GB/s.\n\n",
             "%s，N = %d；GB/s 按输入字节计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s，实测设备内拷贝 %.0f GB/s。\n\n"), \
        gpu, maxn, peak, copy
    cub_all = maxn in cub_us ? median(cub_us[maxn]) : 0
    if (mode == "best") print say("| stage | best kernel | time (µs) | GB/s | % of peak | speed-up vs 01 | x CUB | check |",
                                "| 阶段 | 最快的 kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 01 加速 | x CUB | 检查 |") "\n|---|---|---:|---:|---:|---:|---:|---|"
    else print say("| kernel | time (µs) | GB/s | % of peak | speed-up vs 01 | x CUB | check |",
                 "| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 01 加速 | x CUB | 检查 |") "\n|---|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= count; i++) {
        split(order[i], k, SUBSEP)
        if (!((order[i], maxn) in us)) continue
        if (mode == "stage" && k[1] != stage) continue
        if (k[2] == "cub" && mode != "stage") continue
        if (mode == "stage" && k[1] != stage) continue
        ok = pass[order[i], maxn] == 1 ? "ok" : "FAIL"
        if (mode == "best") {
            if (!(k[1] in best)) stages[++nstages] = k[1]
            if (!(k[1] in best) || gbps[order[i], maxn] + 0 > gbps[best[k[1]], maxn] + 0) best[k[1]] = order[i]
            continue
        }
        cub = mode == "stage" ? stage_cub[dtype[order[i]], maxn] : cub_all
        row(mode == "all" ? sprintf("%s `%s`", k[1], k[2]) : sprintf("`%s`", k[2]), us[order[i], maxn], gbps[order[i], maxn], ok, cub)
    }
    for (s = 1; s <= nstages; s++) {
        split(best[stages[s]], k, SUBSEP)
        row(sprintf("%s | `%s`", k[1], k[2]), us[best[stages[s]], maxn], gbps[best[stages[s]], maxn], pass[best[stages[s]], maxn] == 1 ? "ok" : "FAIL", cub_all)
    }
    if (mode != "stage" && maxn in cub_us)
        row(mode == "best" ? say("library", "库") " | `cub::DeviceReduce::Sum`" : "`cub::DeviceReduce::Sum`", median(cub_us[maxn]), median(cub_gbps[maxn]), cub_fail[maxn] ? "FAIL" : "ok", cub_all)
    if (mode != "stage" && sol > 0) {
        sol_us = floor + 4.0 * maxn / sol / 1e3
        row(mode == "best" ? say("limit | speed of light", "极限 | 光速") : say("speed of light", "光速"), sol_us, 4.0 * maxn / sol_us / 1e3, "-", cub_all)
    }
}

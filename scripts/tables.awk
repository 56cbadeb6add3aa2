# Markdown tables from a results CSV, its columns read by name:
#   awk -f scripts/csv.awk -v mode=MODE [-v stage=NN_name] [-v lang=zh] -f scripts/tables.awk CSV
#   mode=all    every fp32 kernel of the progression, then CUB (the median of the progression's CUB
#               rows) and the speed of light
#   mode=best   the fastest fp32 kernel of each stage of the progression, then CUB and the speed of light
#   mode=stage  every kernel of one stage, its CUB rows included, at the stage's largest N, with each
#               row's relative error against the fp64 sum; a row stage (rows with a cols value) gets GB/s
#               by row length instead
# The progression is the stages whose charts column has bandwidth or bandwidth+, read at the largest N
# of its first stage (the stage of the speed-up baseline). Speed-up and x CUB are the CSV's speedup and
# x_cub columns, as the programs measured them ("-" where empty). A repeated row: the last one wins.
# Rows timed with the input left in L2 (l2 = warm) are not in these tables. The speed of light: the
# shortest launch floor plus the bytes over the fastest read-only bandwidth any program of the run measured.
BEGIN { need = "gpu stage kernel dtype n median_us gbps rel_err pass cols l2 bytes_read speedup x_cub charts" }
# median(LIST): the median of the space-separated numbers of LIST; "" for none.
function median(list,   a, k, i, j, t) {
    k = split(list, a, " ")
    if (!k) return ""
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
# lang=zh: the captions and column headers in Chinese (numbers and names are the same).
function say(en, zh) { return lang == "zh" ? zh : en }
# times: a ratio as the tables print it, from a value of the CSV or one computed here.
function times(v) { return v == "" ? "-" : v + 0 < 0.1 ? sprintf("%.3fx", v) : sprintf("%.2fx", v) }
# row(..., err): err, where given, is a column of its own (the stage tables); "-" where the CSV has none.
function row(label, us, gbps, speedup, x_cub, ok, err) {
    printf "| %s | %.1f | %.0f | %.1f | %s | %s | %s%s |\n", label, us, gbps, 100 * gbps / peak, times(speedup), times(x_cub),
        err == "" ? "" : (err == "-" ? "-" : err + 0 == 0 ? "0" : sprintf("%.1e", err)) " | ", ok
}
# check(PASS): a row's check as the tables print it (an expected overflow is xfail).
function check(p) { return p == 1 ? "ok" : p == "xfail" ? "xfail" : "FAIL" }
# The stage's number: the part of its folder name before the first "_".
function number(s) { return substr(s, 1, index(s, "_") - 1) }
$col["l2"] == "warm" { next }
$col["stage"] == "00_device" {
    name = $col["kernel"]
    if (name == "dram_peak") peak = $col["gbps"]
    if (name == "d2d_copy") copy = $col["gbps"]
    if (name == "read_sol" && $col["gbps"] + 0 > sol) sol = $col["gbps"] + 0
    if (name == "launch_floor" && (floor == "" || $col["median_us"] + 0 < floor)) floor = $col["median_us"] + 0
    next
}
# The speed-up baseline is the first kernel of the first stage: the CSV's first kernel row.
baseline_stage == "" { baseline_stage = number($col["stage"]) }
$col["cols"] != "" {  # a row stage: its own table, GB/s by row length
    if (mode != "stage" || $col["stage"] != stage) next
    gpu = $col["gpu"]; rtotal = $col["n"]; name = $col["kernel"]; c = $col["cols"] + 0
    if (!(name in rseen)) { rseen[name] = 1; rorder[++rcount] = name }
    if (!(c in rcseen)) { rcseen[c] = 1; rcols[++rncols] = c }
    rg[name, c] = $col["gbps"]; rok[name, c] = $col["pass"]
    next
}
mode == "stage" && $col["stage"] != stage { next }
mode != "stage" && ($col["dtype"] != "f32" || (" " $col["charts"] " ") !~ / bandwidth\+? /) { next }
{
    s = $col["stage"]; n = $col["n"] + 0; gpu = $col["gpu"]
    if (first_stage == "") first_stage = s
    if (s == first_stage && n > first_maxn) first_maxn = n
    if (n > maxn) maxn = n
    key = s SUBSEP $col["kernel"] SUBSEP $col["dtype"]
    if (!(key in seen)) { seen[key] = 1; order[++count] = key }
    us[key, n] = $col["median_us"]; gbps[key, n] = $col["gbps"]; pass[key, n] = $col["pass"]; err[key, n] = $col["rel_err"] == "" ? "-" : $col["rel_err"]
    speedup[key, n] = $col["speedup"]; x_cub[key, n] = $col["x_cub"]; bytes[key, n] = $col["bytes_read"]
    # GB/s of more than the input (a scan writes its output too): the caption says so.
    if ($col["gbps"] * $col["median_us"] * 1e3 > 1.01 * $col["bytes_read"]) writes[s] = 1
    if (!((s, $col["kernel"]) in first_type)) first_type[s, $col["kernel"]] = $col["dtype"]
    else if (first_type[s, $col["kernel"]] != $col["dtype"]) repeats[s, $col["kernel"]] = 1
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
    # The crossover: the shortest row from which the best block-per-row kernel beats the best warp-per-row one
    # (the article's kernels by name: not the sub-warp groups, the chooser or the softmax kernels).
    for (j = 1; j <= rncols; j++) {
        w = 0; b = 0; c = rcols[j]
        for (i = 1; i <= rcount; i++) {
            if (rorder[i] ~ /^rows_warp_per_row/ && rg[rorder[i], c] + 0 > w) w = rg[rorder[i], c] + 0
            if (rorder[i] ~ /^rows_block_per_row/ && rg[rorder[i], c] + 0 > b) b = rg[rorder[i], c] + 0
        }
        if (b > w && !cross) cross = c
        if (b <= w) cross = 0
    }
    if (cross) printf say("\nCrossover: from %d columns per row on, the fastest block-per-row kernel beats the fastest warp-per-row kernel.\n",
                        "\n交叉点：从每行 %d 列起，最快的每行一个线程块的 kernel 胜过最快的每行一个 warp 的 kernel。\n"), cross
    else print say("\nNo crossover in this range: the fastest warp-per-row kernel is at least as fast at every row length.",
                 "\n此范围内没有交叉点：在每个行长上，最快的每行一个 warp 的 kernel 都至少一样快。")
}
# label(KEY): the kernel's name. Where a kernel other than CUB runs on several input types (the data sets
# of a histogram), every row also names its input type; otherwise only the rows of a kernel measured on
# several types do (CUB beside each type's kernels), except its fp32 one, the type the stages start from.
function label(key,   k) {
    split(key, k, SUBSEP)
    return by_type[k[1]] || (repeats[k[1], k[2]] && k[3] != "f32") ? k[2] " (" k[3] ")" : k[2]
}
END {
    if (mode == "stage" && rcount) { rows_table(); exit 0 }
    if (!count) { print "error: no kernel rows" > "/dev/stderr"; exit 2 }
    for (sk in repeats) { split(sk, k, SUBSEP); if (k[2] != "cub") by_type[k[1]] = 1 }
    if (mode != "stage") maxn = first_maxn
    moved = mode == "stage" && writes[stage] ? say("the bytes each kernel must read and write (a scan's output too)", "每个 kernel 必须读写的字节（扫描还包括它的输出）") \
                                              : say("input bytes", "输入字节")
    printf say("%s, N = %d; GB/s of %s, medians with L2 flushed before every run; theoretical DRAM peak %.0f GB/s, measured device-to-device copy %.0f GB/s.\n\n",
             "%s，N = %d；GB/s 按%s计算，每次运行前刷新 L2，取中位数；理论 DRAM 峰值 %.0f GB/s，实测设备内拷贝 %.0f GB/s。\n\n"), \
        gpu, maxn, moved, peak, copy
    if (mode == "best") print say("| stage | best kernel | time (µs) | GB/s | % of peak | speed-up vs " baseline_stage " | x CUB | check |",
                                "| 阶段 | 最快的 kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 " baseline_stage " 加速 | x CUB | 检查 |") "\n|---|---|---:|---:|---:|---:|---:|---|"
    else if (mode == "stage") print say("| kernel | time (µs) | GB/s | % of peak | speed-up vs " baseline_stage " | x CUB | rel. error | check |",
                 "| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 " baseline_stage " 加速 | x CUB | 相对误差 | 检查 |") "\n|---|---:|---:|---:|---:|---:|---:|---|"
    else print say("| kernel | time (µs) | GB/s | % of peak | speed-up vs " baseline_stage " | x CUB | check |",
                 "| kernel | 时间 (µs) | GB/s | 占峰值 % | 相对 " baseline_stage " 加速 | x CUB | 检查 |") "\n|---|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= count; i++) {
        key = order[i]
        if (!((key, maxn) in us)) continue
        split(key, k, SUBSEP)
        if (mode == "stage") { row(sprintf("`%s`", label(key)), us[key, maxn], gbps[key, maxn], speedup[key, maxn], x_cub[key, maxn], check(pass[key, maxn]), err[key, maxn]); continue }
        if (!first_row++) {  # the baseline's time (any row's time times its speed-up) and the bytes of every row
            base_us = speedup[key, maxn] == "" ? "" : us[key, maxn] * speedup[key, maxn]
            sol_bytes = bytes[key, maxn]
        }
        if (k[2] == "cub") {
            cub_us = cub_us " " us[key, maxn]; cub_gbps = cub_gbps " " gbps[key, maxn]
            cub_speedup = cub_speedup " " speedup[key, maxn]; cub_x = cub_x " " x_cub[key, maxn]; cub_fail += pass[key, maxn] != 1
            continue
        }
        if (mode == "all") { row(sprintf("%s `%s`", k[1], k[2]), us[key, maxn], gbps[key, maxn], speedup[key, maxn], x_cub[key, maxn], pass[key, maxn] == 1 ? "ok" : "FAIL"); continue }
        if (!(k[1] in best)) stages[++nstages] = k[1]
        if (!(k[1] in best) || gbps[key, maxn] + 0 > gbps[best[k[1]], maxn] + 0) best[k[1]] = key
    }
    if (mode == "stage") exit 0
    for (s = 1; s <= nstages; s++) {
        key = best[stages[s]]; split(key, k, SUBSEP)
        row(sprintf("%s | `%s`", k[1], k[2]), us[key, maxn], gbps[key, maxn], speedup[key, maxn], x_cub[key, maxn], pass[key, maxn] == 1 ? "ok" : "FAIL")
    }
    cub = median(cub_us)
    if (cub != "")
        row(mode == "best" ? say("library", "库") " | `cub::DeviceReduce::Sum`" : "`cub::DeviceReduce::Sum`", cub, median(cub_gbps),
            median(cub_speedup), median(cub_x), cub_fail ? "FAIL" : "ok")
    if (sol > 0 && sol_bytes != "") {
        sol_us = floor + sol_bytes / sol / 1e3
        row(mode == "best" ? say("limit | speed of light", "极限 | 光速") : say("speed of light", "光速"), sol_us, sol_bytes / sol_us / 1e3,
            base_us == "" ? "" : base_us / sol_us, cub == "" ? "" : cub / sol_us, "-")
    }
}

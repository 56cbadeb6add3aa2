# A stage's limits table (scripts/limits.sh) in markdown, from a limits.csv, its columns read by name:
#   awk -f scripts/csv.awk -v stage=STAGE [-v lang=zh] -f scripts/limits.awk limits.csv
# One row per counter and kernel (CUB last), one column per N: DRAM throughput as % of peak, the warps
# waiting on a global load and on a memory fence per instruction issued, and the blocks of the launch.
BEGIN { need = "stage kernel n launches grid dram_pct long_sb membar" }
function say(en, zh) { return lang == "zh" ? zh : en }
$col["stage"] != stage { next }
{
    k = $col["kernel"]; n = $col["n"]
    if (!(k in seen) && k != "cub") { seen[k] = 1; order[++count] = k }
    if (!(n in nseen)) { nseen[n] = 1; ns[++nn] = n }
    for (m = 1; m <= 4; m++) v[m, k, n] = $col[metric[m]]
}
BEGIN {
    split("dram_pct long_sb membar grid", metric, " ")
    label[1] = say("DRAM throughput, % of peak", "DRAM 吞吐，峰值的 %")
    label[2] = say("waiting on a global load (long scoreboard), warps per issue", "等待全局加载（long scoreboard），每次发射的 warp 数")
    label[3] = say("waiting on a memory fence (membar), warps per issue", "等待内存栅栏（membar），每次发射的 warp 数")
    label[4] = say("blocks", "线程块数")
    fmt[1] = "%.1f"; fmt[2] = "%.2f"; fmt[3] = "%.2f"; fmt[4] = "%d"
}
END {
    if (count == 0) exit
    order[++count] = "cub"
    for (i = 2; i <= nn; i++) for (j = i; j > 1 && ns[j - 1] + 0 > ns[j] + 0; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
    line = say("| counter | kernel |", "| 计数器 | kernel |"); sep = "|---|---|"
    for (j = 1; j <= nn; j++) { line = line sprintf(" 2^%d |", log(ns[j]) / log(2) + 0.5); sep = sep "---:|" }
    print line; print sep
    for (m = 1; m <= 4; m++)
        for (i = 1; i <= count; i++) {
            k = order[i]; line = sprintf("| %s | `%s` |", i == 1 ? label[m] : "", k)
            for (j = 1; j <= nn; j++) line = line (((m, k, ns[j]) in v) ? sprintf(" " fmt[m] " |", v[m, k, ns[j]]) : " - |")
            print line
        }
}

# Chosen kernels of a stage at every N of a results CSV, their times side by side, its columns read by name:
#   awk -f scripts/csv.awk -v stage=NN_name -v kernels="NAME NAME..." [-v lang=zh] -f scripts/times.awk CSV
# One row per kernel, in the order of `kernels`: its median time in µs at each N of the run (fp32
# input, L2 flushed); "-" where the run has none. The caption gives the shortest launch floor of the
# run (an empty kernel between the timing events), the time below which no launch goes. lang=zh: the
# caption and the header in Chinese.
BEGIN { need = "stage kernel dtype n median_us l2" }
function say(en, zh) { return lang == "zh" ? zh : en }
# power(N): "2^k" where N is a power of two, N itself otherwise.
function power(n,   k) { for (k = 0; 2 ^ k < n; k++); return 2 ^ k == n ? "2^" k : n }
$col["l2"] == "warm" { next }
$col["stage"] == "00_device" {
    if ($col["kernel"] == "launch_floor" && (floor == "" || $col["median_us"] + 0 < floor)) floor = $col["median_us"] + 0
    next
}
$col["stage"] != stage || $col["dtype"] != "f32" { next }
{
    n = $col["n"] + 0
    if (!(n in seen_n)) { seen_n[n] = 1; ns[++count_n] = n }
    us[$col["kernel"], n] = $col["median_us"]
}
END {
    if (!count_n) { print "error: no rows of stage " stage > "/dev/stderr"; exit 2 }
    for (i = 2; i <= count_n; i++) for (j = i; j > 1 && ns[j - 1] > ns[j]; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
    printf say("Time in µs at every N of the run (medians, L2 flushed); an empty kernel between the timing events takes %.1f µs.\n\n",
               "这次运行每个 N 上的时间（µs，中位数，刷新 L2）；计时事件之间的一个空 kernel 需要 %.1f µs。\n\n"), floor
    line = say("| µs at N = |", "| µs，N = |"); sep = "|---|"
    for (j = 1; j <= count_n; j++) { line = line " " power(ns[j]) " |"; sep = sep "---:|" }
    print line; print sep
    count = split(kernels, names, " ")
    for (i = 1; i <= count; i++) {
        line = "| `" names[i] "` |"
        for (j = 1; j <= count_n; j++) line = line (((names[i], ns[j]) in us) ? sprintf(" %.1f |", us[names[i], ns[j]]) : " - |")
        print line
    }
}

# A stage's targets at every N of a results CSV, its columns read by name:
#   awk -f scripts/csv.awk -v stage=NN_name [-v lang=zh] -f scripts/ratios.awk CSV
# Each kernel's speed against CUB on the same input type (the x_cub column: CUB's median time over the
# kernel's), every kernel X_deterministic against X (X's time over X_deterministic's), and the speed of
# light (the shortest launch floor plus the bytes the kernel reads over the fastest read-only bandwidth
# of the run) over the time of the stage's fastest fp32 kernel at its largest N: 1 is the limit; and,
# where the run measured it, the same with the floor of a kernel that waits for one DRAM round trip
# (round_trip_floor: a warp's first load after the flush), which no kernel that reads its input escapes.
# Rows with the input left in L2 are not counted. lang=zh: the row labels in Chinese.
BEGIN { need = "stage kernel dtype n median_us gbps l2 bytes_read x_cub" }
function say(en, zh) { return lang == "zh" ? zh : en }
function cell(v) { return v == "" ? " - |" : sprintf(" %.3f |", v) }
$col["l2"] == "warm" { next }
$col["stage"] == "00_device" {
    if ($col["kernel"] == "read_sol" && $col["gbps"] + 0 > sol) sol = $col["gbps"] + 0
    if ($col["kernel"] == "launch_floor" && (floor == "" || $col["median_us"] + 0 < floor)) floor = $col["median_us"] + 0
    if ($col["kernel"] == "round_trip_floor" && (trip == "" || $col["median_us"] + 0 < trip)) trip = $col["median_us"] + 0
    next
}
$col["stage"] != stage || $col["kernel"] == "cub" { next }
{
    k = $col["kernel"]; n = $col["n"] + 0
    if (!(n in seen_n)) { seen_n[n] = 1; ns[++count_n] = n }
    if (!(k in seen)) { seen[k] = 1; order[++count] = k }
    us[k, n] = $col["median_us"]; x_cub[k, n] = $col["x_cub"]; bytes[k, n] = $col["bytes_read"]
    if ($col["dtype"] == "f32") fp32[k] = 1
    if (n > maxn) maxn = n
}
END {
    for (i = 2; i <= count_n; i++) for (j = i; j > 1 && ns[j - 1] > ns[j]; j--) { t = ns[j]; ns[j] = ns[j - 1]; ns[j - 1] = t }
    line = say("| x CUB at N = |", "| x CUB，N = |"); sep = "|---|"
    for (j = 1; j <= count_n; j++) { line = line sprintf(" 2^%d |", log(ns[j]) / log(2) + 0.5); sep = sep "---:|" }
    print line; print sep
    for (i = 1; i <= count; i++) {
        line = "| `" order[i] "` |"
        for (j = 1; j <= count_n; j++) line = line cell(x_cub[order[i], ns[j]])
        print line
    }
    for (i = 1; i <= count; i++) {
        det = order[i]; fast = det
        if (!sub(/_deterministic$/, "", fast) || !(fast in seen)) continue
        line = "| `" det "` / `" fast "` |"
        for (j = 1; j <= count_n; j++) {
            a = fast SUBSEP ns[j]; b = det SUBSEP ns[j]
            line = line ((a in us) && (b in us) && us[b] > 0 ? cell(us[a] / us[b]) : cell(""))
        }
        print line
    }
    fastest = ""
    for (i = 1; i <= count; i++)
        if ((order[i] in fp32) && ((order[i], maxn) in us) && (fastest == "" || us[order[i], maxn] + 0 < us[fastest, maxn] + 0)) fastest = order[i]
    if (sol <= 0 || fastest == "") exit
    limit_rows(floor, say("| speed of light (µs) |", "| 光速 (µs) |"), say("| speed of light / `" fastest "` |", "| 光速 / `" fastest "` |"))
    if (trip != "") limit_rows(trip, say("| the same with one DRAM round trip (µs) |", "| 同上，加一次 DRAM 往返 (µs) |"),
                               say("| that / `" fastest "` |", "| 它 / `" fastest "` |"))
}
# Two rows: a floor (µs) plus the fastest kernel's bytes over the read-only bandwidth at each N, and that
# over the kernel's time.
function limit_rows(base, label, label2,    j, a, line, line2, t) {
    line = label; line2 = label2
    for (j = 1; j <= count_n; j++) {
        a = fastest SUBSEP ns[j]
        if (!(a in us)) { line = line cell(""); line2 = line2 cell(""); continue }
        t = base + bytes[a] / sol / 1e3
        line = line sprintf(" %.1f |", t)
        line2 = line2 cell(t / us[a])
    }
    print line; print line2
}

# A stage's targets (stages/NN_*/targets.csv: what, n_min, n_max, at_least, label) against the results
# CSVs of every GPU given, their columns read by name:
#   awk -f scripts/csv.awk -v stage=NN_name -v targets=FILE [-v lang=zh] -f scripts/targets.awk CSV...
# One row per target (what it measures, its sizes, the least ratio that meets it), one column per GPU:
# "met" or "not met", with the worst ratio over the target's sizes and the N where it is (the ratios are defined in the targets file's header). Rows with the input
# left in L2 are not counted; a size the run does not have is not counted either.
BEGIN {
    need = "gpu stage kernel dtype n median_us l2 bytes_read x_cub cols"
    while ((getline line < targets) > 0) {
        if (line ~ /^#/ || line ~ /^what,/ || line == "") continue
        split(line, f, ",")
        t++; what[t] = f[1]; lo[t] = size(f[2]); hi[t] = size(f[3]); least[t] = f[4] + 0
        split(f[5], l, " \\| "); label[t] = lang == "zh" ? l[2] : l[1]
    }
}
function size(s,   p) { if (split(s, p, "^") == 2) return 2 ^ p[2]; return s + 0 }
function say(en, zh) { return lang == "zh" ? zh : en }
function exponent(n) { return sprintf("2^%d", log(n) / log(2) + 0.5) }
$col["l2"] == "warm" { next }
{ g = $col["gpu"]; if (!(g in gseen)) { gseen[g] = 1; gpus[++ngpu] = g } }
$col["stage"] == "00_device" {
    if ($col["kernel"] == "read_sol" && $col["gbps"] + 0 > sol[g]) sol[g] = $col["gbps"] + 0
    if ($col["kernel"] == "launch_floor" && (!(g in floor) || $col["median_us"] + 0 < floor[g])) floor[g] = $col["median_us"] + 0
    next
}
$col["cols"] != "" || $col["kernel"] == "cub" || $col["median_us"] == "" { next }
{
    k = $col["kernel"]; n = $col["n"] + 0; us = $col["median_us"] + 0; t_ = $col["dtype"]
    if (!((g, n) in nseen)) { nseen[g, n] = 1; ns[g, ++nn[g]] = n }
    if ($col["stage"] != stage) {
        if (t_ == "f32" && (!((g, n) in other) || us < other[g, n])) other[g, n] = us
        next
    }
    time[g, k, n] = us; xcub[g, k, n] = $col["x_cub"]; bytes[g, k, n] = $col["bytes_read"]
    if (k ~ /_deterministic$/) { det[g, k] = 1; next }
    if (t_ == "f32" && (!((g, n) in best) || us < time[g, best[g, n], n])) best[g, n] = k
    if (!((g, t_, n) in typebest) || us < time[g, typebest[g, t_, n], n]) typebest[g, t_, n] = k
    types[g, t_] = 1
}
# The ratio of target i on GPU g at size n ("" when the run lacks what it needs).
function ratio(i, g, n,   b, r, k, t_, v, sp) {
    if (!((g, n) in best)) return ""
    b = best[g, n]
    if (what[i] == "sol") return sol[g] > 0 ? (floor[g] + bytes[g, b, n] / sol[g] / 1e3) / time[g, b, n] : ""
    if (what[i] == "cub") return xcub[g, b, n]
    if (what[i] == "repository") return ((g, n) in other) ? other[g, n] / time[g, b, n] : ""
    r = ""
    if (what[i] == "cub_types") {
        for (sp in types) { split(sp, v, SUBSEP); if (v[1] != g || !((g, v[2], n) in typebest)) continue
            k = typebest[g, v[2], n]; if (xcub[g, k, n] != "" && (r == "" || xcub[g, k, n] + 0 < r)) r = xcub[g, k, n] + 0 }
    } else if (what[i] == "deterministic") {
        for (sp in det) { split(sp, v, SUBSEP); if (v[1] != g || !((g, v[2], n) in time)) continue
            if (r == "" || time[g, b, n] / time[g, v[2], n] < r) r = time[g, b, n] / time[g, v[2], n] }
    }
    return r
}
END {
    line = say("| target | N | needs |", "| 目标 | N | 要求 |"); sep = "|---|---|---:|"
    for (j = 1; j <= ngpu; j++) { line = line " " gpus[j] " |"; sep = sep "---|" }
    print line; print sep
    for (i = 1; i <= t; i++) {
        line = "| " label[i] " | " exponent(lo[i]) (hi[i] > lo[i] ? "–" exponent(hi[i]) : "") sprintf(" | ≥ %.3f |", least[i])
        for (j = 1; j <= ngpu; j++) {
            g = gpus[j]; worst = ""; at = 0
            for (m = 1; m <= nn[g]; m++) {
                n = ns[g, m]; if (n < lo[i] || n > hi[i]) continue
                r = ratio(i, g, n); if (r == "") continue
                if (worst == "" || r + 0 < worst) { worst = r + 0; at = n }
            }
            if (worst == "") line = line " - |"
            else line = line sprintf(" %s (%.3f %s %s) |", worst >= least[i] ? say("met", "达成") : say("**not met**", "**未达成**"), worst, say("at", "于"), exponent(at))
        }
        print line
    }
}

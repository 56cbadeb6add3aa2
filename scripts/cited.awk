# An article's own measurements beside this run's, from a stage's cited.csv (figures copied from the
# article, with its source): each step's time and GB/s as the article gives them and as measured at the
# same N, and the speed-up of each step over the one before, for both. Rows with the input left in L2
# are not used. Run as: awk -f scripts/csv.awk -v cited=stages/NN_name/cited.csv [-v lang=zh] -f scripts/cited.awk CSV
# cited.csv: "# source: EN | ZH", "# gpu: EN | ZH", "# n: N" lines, then step,stage,kernel,ms,gbps rows.
function say(en, zh) { return lang == "zh" ? zh : en }
function pick(text, parts) { split(text, parts, " \\| "); return lang == "zh" && parts[2] != "" ? parts[2] : parts[1] }
function ratio(a, b) { return a > 0 && b > 0 ? sprintf("%.2fx", a / b) : "-" }
BEGIN {
    need = "stage kernel dtype n median_us gbps pct_peak pass l2"
    while ((getline line < cited) > 0) {
        if (line ~ /^# source: /) { sub(/^# source: /, "", line); source = line; continue }
        if (line ~ /^# gpu: /) { sub(/^# gpu: /, "", line); gpu = line; continue }
        if (line ~ /^# n: /) { sub(/^# n: /, "", line); n = line + 0; continue }
        if (line ~ /^#/ || line ~ /^step,/ || line == "") continue
        split(line, f, ",")
        count++; step[count] = f[1]; key[count] = f[2] SUBSEP f[3]; kernel[count] = f[3]; ms[count] = f[4]; gbps[count] = f[5]
    }
    if (!count || !n) { print "error: " cited " has no rows or no '# n:' line" > "/dev/stderr"; exit 2 }
}
$col["l2"] == "warm" || $col["dtype"] != "f32" || $col["n"] + 0 != n { next }
{ k = $col["stage"] SUBSEP $col["kernel"]; us[k] = $col["median_us"]; g[k] = $col["gbps"]; pct[k] = $col["pct_peak"]; ok[k] = $col["pass"] }
END {
    printf say("%s (%s, N = %d), beside this run at the same N; the speed-up is each step's over the step before:\n\n",
               "%s（%s，N = %d），与本次运行在同一 N 上的结果并列；加速比是每一步相对前一步的：\n\n"), pick(source), pick(gpu), n
    print say("| step | kernel | article: ms | GB/s | speed-up | this run: µs | GB/s | % of peak | speed-up | check |",
              "| 步骤 | kernel | 文章：ms | GB/s | 加速比 | 本次运行：µs | GB/s | 占峰值 % | 加速比 | 检查 |")
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= count; i++) {
        k = key[i]; p = i > 1 ? key[i - 1] : ""
        article_step = i > 1 ? ratio(ms[i - 1], ms[i]) : "-"
        run_step = (i > 1 && (k in us) && (p in us)) ? ratio(us[p], us[k]) : "-"
        printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", step[i], kernel[i], ms[i], gbps[i], article_step,
            ((k in us) ? sprintf("%.1f", us[k]) : "-"), ((k in g) ? sprintf("%.0f", g[k]) : "-"),
            ((k in pct) ? sprintf("%.1f", pct[k]) : "-"), run_step, (!(k in ok) ? "-" : ok[k] == 1 ? "ok" : "FAIL")
    }
}

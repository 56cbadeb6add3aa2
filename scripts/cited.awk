# An article's own figures beside this run's, from a stage's cited.csv (figures copied from the article,
# with its source). Rows with the input left in L2 are not used. Run as:
#   awk -f scripts/csv.awk -v cited=stages/NN_name/cited.csv [-v stage=NN_name] [-v lang=zh] -f scripts/cited.awk CSV
# cited.csv: "# source: EN | ZH" and "# gpu: EN | ZH" lines, other "# key: value" lines its kind reads, then
# a header line that says which kind of figures it holds, then the rows:
#   step,stage,kernel,ms,gbps   a chain of steps at one N ("# n: N"): each step's time and GB/s, as the
#                               article gives them and as measured, and each step's speed-up over the one
#                               before, for both.
#   s,k,dtype,printed,kernel,sum,ms
#                               a benchmark over an S x K grid: each kernel's printed sum and time per
#                               cell (kernel "torch.sum": the article's torch rows). "# times: K1 K2 ..."
#                               the kernels whose times are set beside torch's, and this run's beside CUB's
#                               (x torch, x CUB: their time over the last kernel's); "# drift: REF K1 ..."
#                               the kernels whose sums are compared: the article's as the relative
#                               difference from REF's printed sum, this run's as its error against the fp64
#                               sum. The results CSV has no column for K: the rows of one N are taken to be
#                               the cells of that N in the grid's order (the stage's bench sizes, S-major).
#   claim,stage,kernel,than_stage,than_kernel,n,times
#                               a claim that a kernel is slower than another by a factor at one N, beside
#                               the ratio of this run's times (claim: a short label, no commas).
function say(en, zh) { return lang == "zh" ? zh : en }
function pick(text, parts) { split(text, parts, " \\| "); return lang == "zh" && parts[2] != "" ? parts[2] : parts[1] }
function ratio(a, b) { return a > 0 && b > 0 ? sprintf("%.2fx", a / b) : "-" }
function rel(v) { return v == "" ? "-" : v + 0 == 0 ? "0" : sprintf("%.1e", v) }
function fail(why) { print "error: " cited ": " why > "/dev/stderr"; failed = 1; exit 2 }
BEGIN {
    if (stage == "") { stage = cited; sub(/\/cited\.csv$/, "", stage); sub(/.*\//, "", stage) }
    while ((getline line < cited) > 0) {
        if (line ~ /^# [a-z]+: /) {
            k = line; sub(/^# /, "", k); sub(/:.*/, "", k)
            v = line; sub(/^# [a-z]+: /, "", v); meta[k] = v
            continue
        }
        if (line ~ /^#/ || line == "") continue
        if (kind == "") {
            kind = line == "step,stage,kernel,ms,gbps" ? "chain" : line == "s,k,dtype,printed,kernel,sum,ms" ? "grid" \
                 : line == "claim,stage,kernel,than_stage,than_kernel,n,times" ? "claim" : ""
            if (kind == "") fail("its header line '" line "' names no kind of cited figures this script knows")
            continue
        }
        count++; nf[count] = split(line, f, ",")
        for (i = 1; i <= nf[count]; i++) field[count, i] = f[i]
    }
    if (!count) fail("no rows")
    source = pick(meta["source"]); gpu = pick(meta["gpu"])
    if (kind == "chain") chain_begin()
    if (kind == "grid") grid_begin()
    need = "stage kernel dtype n median_us gbps pct_peak rel_err pass l2"
}
$col["l2"] == "warm" { next }
kind == "chain" && $col["dtype"] == "f32" && $col["n"] + 0 == n {
    k = $col["stage"] SUBSEP $col["kernel"]; us[k] = $col["median_us"]; g[k] = $col["gbps"]; pct[k] = $col["pct_peak"]; ok[k] = $col["pass"]
}
kind == "grid" && $col["stage"] == stage && ($col["n"] + 0) in cells_of_n {
    k = $col["kernel"] SUBSEP $col["dtype"] SUBSEP ($col["n"] + 0)
    seen_k = ++occurrences[k]
    k = k SUBSEP ((seen_k - 1) % cells_of_n[$col["n"] + 0] + 1)  # a repeated run: the last one wins
    us[k] = $col["median_us"]; err[k] = $col["rel_err"]; ok[k] = $col["pass"]; in_run[$col["kernel"], $col["dtype"]] = 1
}
kind == "claim" && $col["dtype"] == "f32" {
    k = $col["stage"] SUBSEP $col["kernel"] SUBSEP ($col["n"] + 0); us[k] = $col["median_us"]; ok[k] = $col["pass"]
}
END {
    if (failed || csv_failed) exit 2
    if (kind == "chain") chain_end()
    if (kind == "grid") grid_end()
    if (kind == "claim") claim_end()
}

# ---- a chain of steps at one N --------------------------------------------------------------------
function chain_begin() {
    n = meta["n"] + 0
    if (!n) fail("a chain needs a '# n:' line")
}
function chain_end(   i, k, p, article_step, run_step) {
    printf say("%s (%s, N = %d), beside this run at the same N; the speed-up is each step's over the step before:\n\n",
               "%s（%s，N = %d），与本次运行在同一 N 上的结果并列；加速比是每一步相对前一步的：\n\n"), source, gpu, n
    print say("| step | kernel | article: ms | GB/s | speed-up | this run: µs | GB/s | % of peak | speed-up | check |",
              "| 步骤 | kernel | 文章：ms | GB/s | 加速比 | 本次运行：µs | GB/s | 占峰值 % | 加速比 | 检查 |")
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= count; i++) {
        k = field[i, 2] SUBSEP field[i, 3]; p = i > 1 ? field[i - 1, 2] SUBSEP field[i - 1, 3] : ""
        article_step = i > 1 ? ratio(field[i - 1, 4], field[i, 4]) : "-"
        run_step = (i > 1 && (k in us) && (p in us)) ? ratio(us[p], us[k]) : "-"
        printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", field[i, 1], field[i, 3], field[i, 4], field[i, 5], article_step,
            ((k in us) ? sprintf("%.1f", us[k]) : "-"), ((k in g) ? sprintf("%.0f", g[k]) : "-"),
            ((k in pct) ? sprintf("%.1f", pct[k]) : "-"), run_step, (!(k in ok) ? "-" : ok[k] == 1 ? "ok" : "FAIL")
    }
}

# ---- a benchmark over an S x K grid ---------------------------------------------------------------
function grid_begin(   i, c, nn) {
    ntimes = split(meta["times"], times_k, " "); ndrift = split(meta["drift"], drift_k, " ")
    if (!ntimes) fail("a grid needs a '# times:' line")
    for (i = 1; i <= count; i++) {
        c = field[i, 1] "x" field[i, 2]
        if (!(c in cell_n)) {
            nn = field[i, 1] * field[i, 2]; cell_n[c] = nn; cell_at[c] = ++cells_of_n[nn]; cells[++ncells] = c
        }
        article_sum[c, field[i, 5], field[i, 3]] = field[i, 6]; article_ms[c, field[i, 5], field[i, 3]] = field[i, 7]
        if (!(field[i, 5] in type_of)) type_of[field[i, 5]] = field[i, 3]
        in_article[field[i, 5]] = 1
    }
}
# run_key(CELL, KERNEL, DTYPE): where this run's row of that cell is kept.
function run_key(c, kernel, t) { return kernel SUBSEP t SUBSEP cell_n[c] SUBSEP cell_at[c] }
function grid_end(   i, j, c, t, line, last, ref, rt, a, b) {
    t = type_of[times_k[1]]; last = times_k[ntimes]
    printf say("%s (%s), beside this run at each S×K of its grid (N = S·K elements of %s): times in µs (the article's printed in ms); x torch and x CUB are torch's and CUB's time over `%s`'s (>1: `%s` is faster).\n\n",
               "%s（%s），与本次运行在其网格的每个 S×K 上并列（N = S·K 个 %s 元素）：时间单位为 µs（文章打印的是 ms）；x torch 与 x CUB 是 torch 与 CUB 的时间除以 `%s` 的（>1：`%s` 更快）。\n\n"),
        source, gpu, t, last, last
    line = "| S×K |"
    for (j = 1; j <= ntimes; j++) line = line sprintf(" %s`%s` |", j == 1 ? say("article: ", "文章：") : "", times_k[j])
    line = line " torch | x torch |"
    for (j = 1; j <= ntimes; j++) if ((times_k[j], t) in in_run) line = line sprintf(" %s`%s` |", !run_cols++ ? say("this run: ", "本次运行：") : "", times_k[j])
    print line " CUB | x CUB |"
    line = "|---|"; for (j = 1; j <= ntimes + run_cols + 4; j++) line = line "---:|"; print line
    for (i = 1; i <= ncells; i++) {
        c = cells[i]; line = "| " c " |"
        for (j = 1; j <= ntimes; j++) line = line " " article_us(c, times_k[j], t) " |"
        line = line " " article_us(c, "torch.sum", t) " | " \
               ratio(article_ms[c, "torch.sum", t], article_ms[c, last, t]) " |"
        for (j = 1; j <= ntimes; j++) if ((times_k[j], t) in in_run) line = line " " us_of(run_key(c, times_k[j], t)) " |"
        print line " " us_of(run_key(c, "cub", t)) " | " ratio(us[run_key(c, "cub", t)], us[run_key(c, last, t)]) " |"
    }
    if (ndrift < 2) return
    ref = drift_k[1]; rt = type_of[ref]
    printf say("\nThe sums of the %s data: the article's as each printed sum's relative difference from `%s`'s; this run's as each kernel's error against the fp64 sum of its input.\n\n",
               "\n%s 数据的和：文章的，以每个打印出的和相对 `%s` 的和的相对差表示；本次运行的，以每个 kernel 相对其输入的 fp64 和的误差表示。\n\n"), rt, ref
    line = "| S×K |"; a = 0; b = 0
    for (j = 2; j <= ndrift; j++) if (drift_k[j] in in_article) line = line sprintf(" %s`%s` |", !a++ ? say("article: ", "文章：") : "", drift_k[j])
    for (j = 1; j <= ndrift; j++) if ((drift_k[j], rt) in in_run) line = line sprintf(" %s`%s` |", !b++ ? say("this run: ", "本次运行：") : "", drift_k[j])
    print line
    line = "|---|"; for (j = 1; j <= a + b; j++) line = line "---:|"; print line
    for (i = 1; i <= ncells; i++) {
        c = cells[i]; line = "| " c " |"
        for (j = 2; j <= ndrift; j++) if (drift_k[j] in in_article) line = line " " difference(article_sum[c, drift_k[j], rt], article_sum[c, ref, rt]) " |"
        for (j = 1; j <= ndrift; j++) if ((drift_k[j], rt) in in_run) line = line " " err_of(run_key(c, drift_k[j], rt)) " |"
        print line
    }
}
function article_us(c, kernel, t) { return (c, kernel, t) in article_ms ? sprintf("%.1f", article_ms[c, kernel, t] * 1000) : "-" }
function us_of(k) { return !(k in us) ? "-" : sprintf("%.1f", us[k]) (ok[k] == 1 || ok[k] == "xfail" ? "" : " FAIL") }
function err_of(k) { return !(k in err) ? "-" : rel(err[k]) (ok[k] == 1 ? "" : " " (ok[k] == "xfail" ? "xfail" : "FAIL")) }
function difference(v, r,   d) {
    if (v == "" || r == "" || r + 0 == 0) return "-"
    d = (v - r) / r
    return rel(d < 0 ? -d : d)
}

# ---- claims of one kernel's time over another's ---------------------------------------------------
function claim_end(   i, a, b, check) {
    printf say("%s: the article's claims beside this run (slower by: the first kernel's time over the second's, at the same N):\n\n",
               "%s：文章的说法与本次运行并列（慢多少倍：第一个 kernel 的时间除以第二个的，在同一 N 上）：\n\n"), source
    print say("| claim | kernel | than | N | article: slower by | this run: µs | than: µs | slower by | check |",
              "| 说法 | kernel | 相比 | N | 文章：慢多少倍 | 本次运行：µs | 相比：µs | 慢多少倍 | 检查 |")
    print "|---|---|---|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= count; i++) {
        a = field[i, 2] SUBSEP field[i, 3] SUBSEP (field[i, 6] + 0); b = field[i, 4] SUBSEP field[i, 5] SUBSEP (field[i, 6] + 0)
        check = !(a in ok) || !(b in ok) ? "-" : ok[a] == 1 && ok[b] == 1 ? "ok" : "FAIL"
        printf "| %s | %s `%s` | %s `%s` | %d | %s | %s | %s | %s | %s |\n", field[i, 1], field[i, 2], field[i, 3], field[i, 4], field[i, 5],
            field[i, 6], say("about ", "约 ") field[i, 7] "x", ((a in us) ? sprintf("%.1f", us[a]) : "-"),
            ((b in us) ? sprintf("%.1f", us[b]) : "-"), ratio(us[a], us[b]), check
    }
}
